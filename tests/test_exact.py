"""Exact numbers: parsing, refusal of floats, ε, certified comparison with e^ε, δ display."""

from fractions import Fraction

import pytest
from gmpy2 import mpq

from verifier.core.certified import compare_exp, decimal_string, sign_affine_exp
from verifier.core.delta import Delta
from verifier.core.epsilon import Epsilon, parse_epsilon
from verifier.core.errors import InvalidNumber, VerifierError
from verifier.core.numbers import rational

MPQ = type(mpq(0))


@pytest.mark.parametrize("text, expected", [
    (3, mpq(3)), (Fraction(3, 4), mpq(3, 4)), (mpq(1, 3), mpq(1, 3)), ("3/4", mpq(3, 4)),
    ("0.25", mpq(1, 4)), ("1e-6", mpq(1, 10**6)), ("-2", mpq(-2)), (" 6/8 ", mpq(3, 4)),
    ("0.1", mpq(1, 10)), ("2.5E+2", mpq(250)),
], ids=repr)
def test_rational_reads_exactly(text, expected):
    value = rational(text)
    assert value == expected
    assert type(value) is MPQ


@pytest.mark.parametrize("value, message", [
    (0.1, 'x = 0.1 is a float, which is not exact; write it as a string such as "0.1" or '
          '"1/10", or, to mean the double itself, {f64 = "0.1"} (verifier.f64 in Python)'),
    (0.25, 'x = 0.25 is a float, which is not exact; write it as a string such as "0.25" or '
           '"1/4", or, to mean the double itself, {f64 = "0.25"} (verifier.f64 in Python)'),
    (True, "x = True is a bool, not a number"),
    ("1/0", "x = '1/0' has a zero denominator"),
    ("three", "x = 'three' is not a number; write an integer, a fraction (\"3/4\") or a "
              "decimal (\"0.25\", \"1e-6\")"),
    ("nan", "x = 'nan' is not a number; write an integer, a fraction (\"3/4\") or a decimal "
            "(\"0.25\", \"1e-6\")"),
    ([1], "x = [1] of type list is not a number"),
], ids=["float-0.1", "float-0.25", "bool", "zero-denominator", "word", "nan", "list"])
def test_rational_refuses(value, message):
    with pytest.raises(InvalidNumber) as info:
        rational(value, "x")
    assert str(info.value) == message
    assert isinstance(info.value, VerifierError) and isinstance(info.value, ValueError)


@pytest.mark.parametrize("text, shown, rate", [
    ("ln(3/2)", "ln(3/2)", mpq(3, 2)), ("ln(2)", "ln(2)", mpq(2)), ("0", "0", mpq(1)),
    ("ln(1)", "0", mpq(1)), ("1/2", "1/2", None), ("inf", "inf", None), (0, "0", mpq(1)),
    ("ln(1e6)", "ln(1000000)", mpq(10**6)), (" ln( 4 ) ", "ln(4)", mpq(4)),
], ids=repr)
def test_parse_epsilon(text, shown, rate):
    eps = parse_epsilon(text)
    assert str(eps) == shown
    assert eps.rate == rate


@pytest.mark.parametrize("text, message", [
    ("ln(1/2)", "epsilon = ln(1/2) is negative or undefined; ε must be ≥ 0, so the argument "
                "of ln must be ≥ 1"),
    ("-1", "epsilon = -1 is negative; ε must be ≥ 0"),
    ("ln(x)", "epsilon = 'ln(x)': the argument of ln is not a number; write an integer, a "
              "fraction (\"3/4\") or a decimal (\"0.25\", \"1e-6\")"),
    ("log(2)", "epsilon = 'log(2)' is not an ε; write \"ln(q)\" with rational q ≥ 1, a "
               "rational number of nats such as \"1/2\", \"0\" or \"inf\""),
    ("e^2", "epsilon = 'e^2' is not an ε; write \"ln(q)\" with rational q ≥ 1, a rational "
            "number of nats such as \"1/2\", \"0\" or \"inf\""),
    (0.5, 'epsilon = 0.5 is a float, which is not exact; write it as a string such as "0.5" '
          'or "1/2", or, to mean the double itself, {f64 = "0.5"} (verifier.f64 in Python)'),
], ids=repr)
def test_parse_epsilon_refuses(text, message):
    with pytest.raises(InvalidNumber) as info:
        parse_epsilon(text)
    assert str(info.value) == message


def test_compare_exp_is_certified_near_e_to_the_half():
    # e^(1/2) = 1.6487212707001282..., so these rationals sit 1e-12 either side of it
    eps = parse_epsilon("1/2")
    assert compare_exp(mpq(16487212707, 10**10), eps) == -1
    assert compare_exp(mpq(16487212708, 10**10), eps) == 1
    # 1/2 = ln(x) for x = e^(1/2); a continued-fraction convergent of e^(1/2) is very close
    assert compare_exp(mpq(2039929, 1237288), eps) in (-1, 1)


def test_compare_exp_rational_and_infinite():
    assert compare_exp(mpq(2), parse_epsilon("ln(2)")) == 0
    assert compare_exp(mpq(3), parse_epsilon("ln(2)")) == 1
    assert compare_exp(mpq(10**100), Epsilon.INF) == -1


def test_compare_exp_convergent_against_independent_bound():
    # Convergents p/q of e alternate around e; their side is known from the theory of
    # continued fractions: 19/7 < e < 87/32.
    one = parse_epsilon("1")
    assert compare_exp(mpq(19, 7), one) == -1
    assert compare_exp(mpq(87, 32), one) == 1


def test_sign_affine_exp():
    half = parse_epsilon("1/2")
    # 2/3 − (1/6)·e^(1/2) ≈ 0.392 > 0, 1/3 − (1/5)·e^(1/2) ≈ 0.0036 > 0, 1/3 − (1/4)e^(1/2) < 0
    assert sign_affine_exp(mpq(2, 3), mpq(-1, 6), half) == 1
    assert sign_affine_exp(mpq(1, 3), mpq(-1, 5), half) == 1
    assert sign_affine_exp(mpq(1, 3), mpq(-1, 4), half) == -1


def test_delta_forms():
    half = parse_epsilon("1/2")
    d = Delta.make(mpq(1, 3), mpq(1, 9), half)
    assert str(d) == "1/3 - 1/9*exp(1/2)"
    assert not d.is_rational
    # e^(1/2)/9 = 1.6487212707/9 = 0.1831912523, so 1/3 − e^(1/2)/9 = 0.1501420810...
    assert d.approx(6) == "0.150142"
    assert d < mpq(1, 6) and d > mpq(3, 20)
    rational_delta = Delta.make(mpq(3, 4), mpq(1, 4), parse_epsilon("ln(2)"))
    assert rational_delta == mpq(1, 4) and str(rational_delta) == "1/4"
    assert type(rational_delta.value) is MPQ
    with pytest.raises(InvalidNumber):
        _ = d.value


@pytest.mark.parametrize("x, digits, text", [
    (mpq(1, 3), 6, "0.333333"), (mpq(2, 3), 3, "0.666"), (mpq(459, 3125), 6, "0.14688"),
    (mpq(1, 10**120), 6, "1e-120"), (mpq(123456789), 4, "1.234e8"), (mpq(-1, 8), 6, "-0.125"),
    (mpq(1000), 6, "1000"), (mpq(7, 10**5), 6, "0.00007"), (mpq(0), 6, "0"),
    (mpq(3, 10**7), 3, "3e-7"),
], ids=repr)
def test_decimal_string_truncates(x, digits, text):
    assert decimal_string(x, digits) == text


def test_epsilon_approx_and_compare():
    assert parse_epsilon("ln(2)").approx(6) == "0.693147"
    assert parse_epsilon("ln(2)").compare(parse_epsilon("7/10")) == -1  # ln 2 ≈ 0.6931
    assert parse_epsilon("ln(2)").compare(parse_epsilon("69/100")) == 1
    assert Epsilon.INF.compare(parse_epsilon("ln(1000)")) == 1


def test_rational_delta_hashes_like_its_value():
    from verifier.core.delta import Delta
    d = Delta.make(mpq(1, 4), mpq(0), Epsilon.ZERO)
    assert mpq(1, 4) in {d} and d in {mpq(1, 4)} and Fraction(1, 4) in {d}
    assert len({d, mpq(1, 4)}) == 1


def test_epsilon_is_canonical_and_never_empty():
    assert Epsilon(nats=mpq(0)) == Epsilon.ZERO and hash(Epsilon(nats=mpq(0))) == hash(Epsilon.ZERO)
    assert Epsilon(nats=mpq(0)).nats is None and Epsilon(nats=mpq(0)).base == 1
    for bad in ({}, {"base": mpq(2), "nats": mpq(1)}, {"base": mpq(1, 2)}, {"nats": mpq(-1)}):
        with pytest.raises(InvalidNumber):
            Epsilon(**bad)
