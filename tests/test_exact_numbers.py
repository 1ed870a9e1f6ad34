"""ε and δ as numbers: exact comparisons, conversions, hashing, arithmetic and parsing.

Expected values are derived by hand (``ln 2 = 0.6931…``, ``ln 3 = 1.0986…``,
``e^{1/2} = 1.6487…``, ``e^{1/3} = 1.3956…``; the double ``0.1`` is
``3602879701896397/2^55 > 1/10``) or, where a double must be placed against a logarithm to
the last bit, by mpmath at 60 digits (an engine plrv does not use).
"""

from __future__ import annotations

import copy
import dataclasses
import math
import numbers
import pickle
import re
from fractions import Fraction

import mpmath
import pytest
from gmpy2 import mpq

from verifier import (
    Delta,
    Epsilon,
    InexactArithmetic,
    InvalidNumber,
    NotComparable,
    UndecidableComparison,
    Undecided,
    VerifierError,
    check_dp,
    randomized_response,
    replace_one,
)

HALF = Epsilon.of_nats("1/2")
THIRD = Epsilon.of_nats("1/3")
D = Delta.make(mpq(3, 4), mpq(1, 4), HALF)  # 3/4 − e^{1/2}/4 = 0.75 − 0.41218… = 0.33781…


# --------------------------------------------------------------------- comparisons


@pytest.mark.parametrize("smaller, larger", [
    (Epsilon("ln(3)"), 1.1),                     # 1.0986… < 1.1
    (1, Epsilon("ln(3)")),                       # e^1 = 2.718… < 3
    (Fraction(2, 3), Epsilon("ln(2)")),          # 0.666… < 0.693…
    (Epsilon("ln(2)"), mpq(7, 10)),              # 0.693… < 0.7
    (Epsilon("ln(2)"), Epsilon("7/10")),         # ln(q) against nats: e^{7/10} = 2.0137… > 2
    (Epsilon("ln(2)"), Epsilon("ln(3)")),
    (Epsilon("1/10"), 0.1),                      # the double 0.1 is above 1/10
    (D, 0.3379), (0.3378, D),                    # D = 0.337819…
    (Delta.make(mpq(1), mpq(1, 2), THIRD), D),   # 1 − e^{1/3}/2 = 0.30219… < 0.33781…
    (Delta("1/2"), Epsilon("ln(2)")),            # 0.5 < 0.693…
    (D, Epsilon("ln(3/2)")),                     # 0.3378… < 0.405…
    (Epsilon("1/4"), D),                         # nats against A − C·e^x
    (10 ** 100, Epsilon.INF), (Delta("1"), Epsilon.INF), (-math.inf, Epsilon.ZERO),
], ids=repr)
def test_ordering_is_exact_both_ways(smaller, larger):
    assert smaller < larger and smaller <= larger and larger > smaller and larger >= smaller
    assert not larger < smaller and not larger <= smaller and smaller != larger
    assert (smaller == larger) is False


def test_a_float_is_compared_by_the_exact_value_of_the_double():
    ln3 = mpmath.log(3)
    with mpmath.workdps(60):
        nearest = float(mpmath.log(3))
        above = mpmath.mpf(nearest) > mpmath.log(3)
    assert (Epsilon("ln(3)") < nearest) is bool(above)
    assert (Epsilon("ln(3)") > nearest) is not bool(above)
    assert Epsilon("1/10") != 0.1 and Epsilon("1/2") == 0.5 and Delta("1/4") == 0.25
    assert math.inf == Epsilon.INF and Epsilon("ln(3)") != math.inf and ln3 > 1


@pytest.mark.parametrize("x, y", [
    (Epsilon("1/2"), Fraction(1, 2)), (Epsilon("1/2"), mpq(1, 2)), (Epsilon("1/2"), 0.5),
    (Epsilon("0"), 0), (Epsilon("ln(1)"), Delta("0")), (Delta("1/4"), Fraction(1, 4)),
    (Delta("1/4"), 0.25), (Delta.make(mpq(1, 4), mpq(0), HALF), Delta("1/4")),
    (Epsilon.INF, math.inf), (Delta("1/2"), Epsilon("1/2")),
], ids=repr)
def test_equal_values_are_equal_and_hash_alike(x, y):
    assert x == y and y == x and (x != y) is False and hash(x) == hash(y)
    assert {x: "found"}[y] == "found"


def test_irrational_values_equal_no_rational():
    assert Fraction(3, 4) != D and D != 0 and Epsilon("ln(2)") != mpq(0)
    assert Epsilon("ln(2)") == Epsilon.log(2) and hash(Epsilon("ln(2)")) == hash(Epsilon.log(2))
    assert Delta("3/4 - 1/4*exp(1/2)") == D and hash(D) == hash(Delta("3/4 - 1/4*exp(1/2)"))


@pytest.mark.parametrize("value", [Epsilon("ln(3)"), Delta("1/4"), D], ids=repr)
def test_a_string_is_refused_not_unequal(value):
    with pytest.raises(NotComparable, match="^.* compared with the string 'ln\\(3\\)': a string "
                                            "is not a number; parse it first"):
        assert value == "ln(3)"
    with pytest.raises(NotComparable):
        assert value != "ln(3)"
    with pytest.raises(NotComparable):
        assert value < "1"
    with pytest.raises(NotComparable, match="NaN is not a number"):
        assert value < math.nan
    assert issubclass(NotComparable, TypeError) and issubclass(NotComparable, VerifierError)
    assert value != None  # noqa: E711 - not a number: unequal, as for any Python number


def test_an_undecidable_comparison_raises_naming_both_values():
    """``ln b`` with ``b`` the rational nearest ``e^D`` at 40 000 bits: ``|ln b − D| < 2^−39000``,
    far below the 2^14 bits the comparison refines to, and no exact rule separates ln(q) from
    ``A − C·e^x``."""
    with mpmath.workprec(40_000):
        target = mpmath.mpf(3) / 4 - mpmath.exp(mpmath.mpf(1) / 2) / 4
        man, exp = mpmath.exp(target).man_exp
    b = mpq(int(man) * 2 ** exp) if exp >= 0 else mpq(int(man), 2 ** -exp)
    close = Epsilon(base=b)
    with pytest.raises(UndecidableComparison) as info:
        assert close < D
    assert str(info.value).startswith(f"cannot decide how ln({b}) compares with "
                                      f"3/4 - 1/4*exp(1/2): their enclosures overlap at 16384 "
                                      f"bits")
    assert info.value.right == "3/4 - 1/4*exp(1/2)"
    with pytest.raises(UndecidableComparison):
        assert close == D
    assert isinstance(info.value, Undecided) and isinstance(info.value, ArithmeticError)
    assert close > Epsilon("ln(1.4)") and close < Epsilon("ln(1.41)")  # e^D = 1.4018…


# ---------------------------------------------------------------------- conversions


def test_a_rational_delta_is_a_rational_and_an_irrational_one_is_not():
    d = Delta("1/4")
    assert isinstance(d, numbers.Rational) and not isinstance(D, numbers.Rational)
    assert Fraction(d) == Fraction(1, 4) and type(Fraction(d)) is Fraction
    assert mpq(d) == mpq(1, 4) and (d.numerator, d.denominator) == (1, 4)
    assert Fraction(1, 4) == d and Fraction(1, 3) > d and mpq(1, 5) < d
    assert (math.floor(Delta("7/4")), math.ceil(Delta("7/4")), int(Delta("7/4"))) == (1, 2, 1)
    assert Delta("1/2") ** 3 == mpq(1, 8) and round(Delta("7/4")) == 2
    with pytest.raises(TypeError):  # Python's Fraction takes numbers.Rational only
        Fraction(D)
    with pytest.raises(InvalidNumber, match=r"^δ = 3/4 - 1/4\*exp\(1/2\) is irrational"):
        _ = D.value


def test_a_rational_epsilon_is_a_rational_and_ln_or_inf_is_not():
    half = Epsilon("1/2")
    assert isinstance(half, numbers.Rational) and isinstance(Epsilon.ZERO, numbers.Rational)
    assert not isinstance(Epsilon("ln(2)"), numbers.Rational)
    assert not isinstance(Epsilon.INF, numbers.Rational)
    assert Fraction(half) == Fraction(1, 2) and mpq(half) == mpq(1, 2)
    assert Fraction(Epsilon("ln(1)")) == 0 and Fraction(Epsilon.of_nats(3)) == 3
    assert (math.floor(Epsilon("7/2")), math.ceil(Epsilon("7/2")), int(Epsilon("7/2"))) == \
        (3, 4, 3)
    with pytest.raises(TypeError):
        Fraction(Epsilon("ln(2)"))


def test_float_is_the_nearest_double():
    assert float(Delta("1/4")) == 0.25 and float(Epsilon("1/2")) == 0.5
    # 3/4 − e^{1/2}/4 = 0.3378196823249679…, ln 2 = 0.6931471805599453…
    assert float(D) == 0.33781968232496795 and float(Epsilon("ln(2)")) == 0.6931471805599453


def test_values_survive_pickling_and_copying_with_their_class():
    for value in (Delta("1/4"), D, Epsilon("ln(3)"), Epsilon("1/2"), Epsilon.INF):
        for copied in (pickle.loads(pickle.dumps(value)), copy.deepcopy(value)):
            assert copied == value and type(copied) is type(value)
    # replace() builds through the constructor: the class follows the value
    assert _is(dataclasses.replace(D, c=mpq(0)), Delta("3/4"))
    assert dataclasses.replace(Epsilon("ln(2)"), base=mpq(3)) == Epsilon("ln(3)")


# ----------------------------------------------------------------------- arithmetic


def _is(value: object, expected: object) -> bool:
    return type(value) is type(expected) and value == expected


def test_rational_results_are_mpq():
    assert _is(Delta("1/4") + 1, mpq(5, 4)) and _is(1 + Delta("1/4"), mpq(5, 4))
    assert _is(Fraction(1, 2) - Delta("1/4"), mpq(1, 4)) and _is(Delta("1/4") * 2, mpq(1, 2))
    assert _is(Delta("1/4") / Delta("1/2"), mpq(1, 2)) and _is(mpq(1) - Delta("1/4"), mpq(3, 4))
    assert _is(Epsilon("1/2") + 1, mpq(3, 2)) and _is(-Epsilon("1/2"), mpq(-1, 2))
    assert _is(Epsilon("1/2") * Delta("1/2"), mpq(1, 4)) and _is(D - D, mpq(0))
    assert _is(Epsilon("ln(2)") / Epsilon("ln(2)"), mpq(1)) and _is(0 * D, mpq(0))


def test_a_delta_with_an_exponential_term_stays_one():
    assert _is(D + 1, Delta.make(mpq(7, 4), mpq(1, 4), HALF))
    assert _is(2 * D, Delta.make(mpq(3, 2), mpq(1, 2), HALF))
    assert _is(D / 2, Delta.make(mpq(3, 8), mpq(1, 8), HALF))
    assert _is(1 - D, Delta.make(mpq(1, 4), mpq(-1, 4), HALF))  # 1/4 + e^{1/2}/4
    assert _is(Epsilon("1/2") + D, Delta.make(mpq(5, 4), mpq(1, 4), HALF))
    assert _is(D - Delta("1/4"), Delta.make(mpq(1, 2), mpq(1, 4), HALF))
    assert _is(abs(-D), D) and _is(abs(Delta("-1/4")), mpq(1, 4))


def test_logarithms_combine_exactly():
    assert _is(Epsilon("ln(2)") + Epsilon("ln(3)"), Epsilon("ln(6)"))
    assert _is(Epsilon("ln(6)") - Epsilon("ln(2)"), Epsilon("ln(3)"))
    assert _is(3 * Epsilon("ln(2)"), Epsilon("ln(8)"))
    assert _is(Epsilon("ln(9/4)") * Fraction(1, 2), Epsilon("ln(3/2)"))
    assert _is(Epsilon("ln(9)") / 2, Epsilon("ln(3)"))
    assert _is(Epsilon.INF + 1, Epsilon.INF) and _is(Epsilon("ln(2)") + 0, Epsilon("ln(2)"))


@pytest.mark.parametrize("compute", [
    lambda: Epsilon("ln(2)") + 1,                      # ln 2 + 1: no exact form
    lambda: Epsilon("ln(2)") - Epsilon("ln(3)"),       # negative
    lambda: -Epsilon("ln(2)"),
    lambda: Epsilon("ln(2)") * Fraction(1, 2),         # ln √2: √2 is irrational
    lambda: D + Delta.make(mpq(1), mpq(1, 2), THIRD),  # e^{1/2} and e^{1/3} terms
    lambda: D * D,                                     # e^{1/2} and e^1 terms
    lambda: 1 / D,
    lambda: D / 0,
    lambda: Delta("1/4") + 0.1,                        # a float: refused, not rounded
    lambda: Epsilon.INF - Epsilon.INF,
    lambda: D + Epsilon("ln(2)"),
], ids=["ln+1", "negative ln", "-ln", "sqrt", "two exponents", "product", "reciprocal",
        "by zero", "float", "inf-inf", "delta+ln"])
def test_results_without_an_exact_form_raise(compute):
    with pytest.raises(InexactArithmetic):
        compute()


# -------------------------------------------------------------------------- parsing


@pytest.mark.parametrize("text, expected", [
    ("ln(3)", Epsilon.log(3)), ("ln(1.5)", Epsilon.log(Fraction(3, 2))),
    ("1/2", Epsilon.of_nats(Fraction(1, 2))), ("0.5", Epsilon.of_nats(Fraction(1, 2))),
    ("0", Epsilon.ZERO), ("inf", Epsilon.INF), (Fraction(1, 3), Epsilon.of_nats(Fraction(1, 3))),
], ids=repr)
def test_epsilon_parses_its_grammar(text, expected):
    assert Epsilon(text) == expected and Epsilon(Epsilon(text)) == expected


@pytest.mark.parametrize("text, expected", [
    ("1e-6", Fraction(1, 10 ** 6)), ("0.1", Fraction(1, 10)), ("1/4", Fraction(1, 4)),
    (0, Fraction(0)), (mpq(1, 3), Fraction(1, 3)),
], ids=repr)
def test_delta_parses_exact_numbers(text, expected):
    assert Delta(text) == expected and Fraction(Delta(text)) == expected


def test_delta_reads_back_what_it_writes():
    assert Delta(str(D)) == D and Delta(repr(D)[7:-2]) == D
    assert Delta("1/4 + 1/4*exp(1/2)") == Delta.make(mpq(1, 4), mpq(-1, 4), HALF)


@pytest.mark.parametrize("make, message", [
    (lambda: Epsilon("log(3)"), "epsilon = 'log(3)' is not an ε"),
    (lambda: Epsilon(0.5), "epsilon = 0.5 is a float"),
    (lambda: Delta(0.1), "delta = 0.1 is a float"),
    (lambda: Delta("ln(2)"), "delta = 'ln(2)' is not a number"),
    (lambda: Epsilon("ln(2)", base=2), "an Epsilon is given either a value or one of"),
    # the exponent is refused as an exponent, not as "delta = -1 is negative; ε must be ≥ 0"
    (lambda: Delta("1 - 1*exp(-1)"), "delta = '1 - 1*exp(-1)': the exponent -1 of exp is "
                                     "negative"),
    # text with exp( that misses the form names the form, not only "an integer, a fraction"
    (lambda: Delta("1 - exp(1)"), "delta = '1 - exp(1)' is not a δ; write an exact number "
                                  "(\"1/4\", \"1e-6\") or the form str() writes, "
                                  "\"A - C*exp(x)\""),
], ids=["log", "float eps", "float delta", "ln delta", "both", "exp(-1)", "no C"])
def test_parsing_refuses(make, message):
    with pytest.raises(InvalidNumber, match=f"^{re.escape(message)}"):
        make()


# ------------------------------------------------------------- on a check's result


def test_a_check_result_mixes_with_python_numbers():
    """Randomized response (truth 3/4) on one record: δ(ln 2) = 3/4 − 2·1/4 = 1/4 and
    ε(1/4) = ln(3 − 4·1/4) = ln 2."""
    r = check_dp(randomized_response("3/4", [0, 1]), replace_one([0, 1], 1), "ln(2)", "1/4")
    assert r.epsilon < 1.1 and r.epsilon > 0.69 and r.epsilon == Epsilon("ln(2)")
    assert Fraction(r.delta) == Fraction(1, 4) and float(r.delta) == 0.25
    assert _is(r.delta + 1, mpq(5, 4)) and r.delta <= Fraction(1, 4)


def test_numpy_scalars_are_read_exactly():
    np = pytest.importorskip("numpy")
    assert np.int64(1) > Delta("1/4") and Delta("1/4") < np.int64(1)
    assert Epsilon("ln(3)") < np.float64(1.1) and _is(Delta("1/4") + np.int64(1), mpq(5, 4))
