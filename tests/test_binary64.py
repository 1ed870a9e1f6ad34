"""Doubles read exactly: ``{f64 = "…"}`` in specs, :func:`verifier.f64` in Python.

Expected rationals are derived by hand from the IEEE 754 layout (sign, 52-bit fraction,
exponent), not from the reader: ``0x1.hhhhp±e`` is ``0x1hhhh / 16^len(hhhh) · 2^e``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from gmpy2 import mpq

sys.path.insert(0, str(Path(__file__).resolve().parent / "hostile"))
from harness import RR, assert_error, assert_verdict, invoke, mutate, write

from verifier import F64, InvalidNumber, f64, rational
from verifier.core.epsilon import parse_epsilon

MPQ = type(mpq(0))
LN2 = mpq(int("162e42fefa39ef", 16), 2 ** 53)  # 0x1.62e42fefa39efp-1, the double nearest ln 2
TENTH = mpq(3602879701896397, 2 ** 55)  # 0.1 = 0x1.999999999999ap-4


@pytest.mark.parametrize("text, expected", [
    ("0x1.8p-1", mpq(3, 4)),
    ("0x1.62e42fefa39efp-1", LN2),
    ("0.6931471805599453", LN2),  # the shortest decimal that reads back to it
    ("0.69314718055994529", LN2),  # printf's %.17g of the same double
    ("0.1", TENTH),
    ("0x1.999999999999ap-4", TENTH),
    ("-2.5", mpq(-5, 2)),
    ("0x1p-1074", mpq(1, 2 ** 1074)),  # the smallest subnormal
    ("5e-324", mpq(1, 2 ** 1074)),
    ("0x1.fffffffffffffp+1023", mpq(2 ** 53 - 1) * 2 ** 971),  # the largest double
    ("0", mpq(0)),
])
def test_exact_rational_of_a_double(text, expected):
    x = rational({"f64": text}, "scale")
    assert x == expected and type(x) is MPQ
    assert f64(text).exact == expected


def test_python_floats_and_f64_values():
    assert f64(0.1).exact == TENTH and rational(f64(0.1)) == TENTH
    assert str(f64(0.1)) == "0.1" and f64(0.75).hex == "0x1.8000000000000p-1"
    assert f64(f64(0.5)) == F64(0.5)
    assert rational({"f64": 0.75}) == mpq(3, 4)  # a TOML float inside the f64 tag is a double
    assert parse_epsilon({"f64": "0x1.62e42fefa39efp-1"}).nats == LN2


@pytest.mark.parametrize("value, needle", [
    ("0x1.62e42fefa39ef1p-1", "not a double exactly"),  # 57 significant bits
    ("0x1p-1075", "not a double exactly"),  # below the smallest subnormal
    ("0x1p+1024", "beyond the largest double"),
    ("1e309", "beyond the largest double"),
    ("1e-400", "rounds to the double 0"),
    ("inf", "not a double"), ("nan", "not a double"), ("-inf", "not a double"),
    ("ln(2)", "not a double"), ("1/3", "not a double"), ("", "not a double"),
    (float("nan"), "not a finite double"), (float("inf"), "not a finite double"),
    (1, "not a double"), (True, "not a double"), ([0.5], "not a double"),
])
def test_refused(value, needle):
    with pytest.raises(InvalidNumber, match="scale") as err:
        rational({"f64": value}, "scale")
    assert needle in str(err.value)


def test_a_bare_float_is_still_refused_and_the_message_names_f64():
    with pytest.raises(InvalidNumber, match=r'\{f64 = "0.1"\}'):
        rational(0.1, "truth")
    with pytest.raises(InvalidNumber, match="only table"):
        rational({"f64": "0.5", "note": 1}, "truth")
    with pytest.raises(InvalidNumber, match="only table"):
        rational({"F64": "0.5"}, "truth")


def test_a_spec_claim_given_as_doubles(tmp_path):
    """ln 3 = 1.09861228866810969…; the double 1.0986122886681098 lies above it (its exact
    value 4947709893870347/2^52 exceeds ln 3 by about 4e-17), so randomized response with
    truth 3/4 (ratio 3) holds at δ = 0; the double below it does not."""
    above = mutate(mutate(RR, "query.epsilon", {"f64": "1.0986122886681098"}),
                   "mechanism.truth", {"f64": "0.75"})
    o = invoke(["check", write(tmp_path, above), "--json"])
    assert_verdict(o, 0)
    dp = json.loads(o.stdout)["dp"]
    assert dp["query"]["epsilon"] == "4947709893870347/4503599627370496"
    assert dp["query"]["f64"]["epsilon"] == {"double": "1.0986122886681098",
                                             "hex": "0x1.193ea7aad030bp+0",
                                             "exact": "4947709893870347/4503599627370496"}
    below = mutate(above, "query.epsilon", {"f64": "0x1.193ea7aad030ap+0"})
    assert_verdict(invoke(["check", write(tmp_path, below, "below.toml")]), 1)
    o = invoke(["check", write(tmp_path, above, "terminal.toml")])
    assert "mechanism.truth = 0.75 (0x1.8000000000000p-1) is read as exactly 3/4" in o.stdout


@pytest.mark.parametrize("key, value", [
    ("query.epsilon", {"f64": "nan"}), ("query.delta", {"f64": "0x1p-1075"}),
    ("mechanism.truth", {"f64": "1e400"}), ("mechanism.truth", {"f64": "0.5", "x": 1}),
    ("query.delta", {"f64": "-0.5"}),
])
def test_hostile_doubles_in_a_spec_exit_2_naming_the_key(tmp_path, key, value):
    o = invoke(["check", write(tmp_path, mutate(RR, key, value))])
    assert_error(o, key.split(".")[1])
