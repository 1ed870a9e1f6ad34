"""The expression parser, the [parameters] table and symbolic validity of spec files."""

import pytest
from gmpy2 import mpq
from sympy import Integer, Rational, Symbol

from verifier.core.errors import InvalidArgument, SpecError
from verifier.specs.symbolic import parse_symbolic
from verifier.symbolic.expressions import ExpressionError, parse_expression
from verifier.symbolic.parameters import Parameter, parse_point

p, t = Symbol("p", real=True), Symbol("t", real=True)
NAMES = {"p": p, "t": t}


@pytest.mark.parametrize("text, expected", [
    ("1 - p", 1 - p),
    ("(1 + t)/2", (1 + t) / 2),
    ("p^2 - 2*p + 1", (p - 1) ** 2),
    ("p^-1", 1 / p),
    ("0.25", Rational(1, 4)),
    ("-(-3)", Integer(3)),
    ("2/6", Rational(1, 3)),
], ids=["difference", "fraction", "square", "inverse", "decimal", "signs", "rational"])
def test_parser_reads_exact_expressions(text, expected):
    got = parse_expression(text, NAMES, "k")
    assert (got - expected).expand() == 0
    if not got.free_symbols:
        assert isinstance(got, Rational)


@pytest.mark.parametrize("text, position, problem", [
    ("__import__('os')", 1, "undeclared name '__import__' (declared parameters: p, t)"),
    ("p^p^p^99", 3, "the exponent of ^ must be an integer literal, found 'p'"),
    ("", 1, "empty expression"),
    ("   ", 1, "empty expression"),
    ("1 - q", 5, "undeclared name 'q' (declared parameters: p, t)"),
    ("2^3^4", 4, "chained ^; write (a^b)^c with parentheses"),
    ("p^17", 3, "exponent 17 is larger than 16"),
    ("1/(p - p)", 2, "division by zero"),
    ("(1 - p", 7, "missing ')' for the '(' in column 1"),
    ("1 - p)", 6, "unexpected ')'"),
    ("1e-2", 2, "unexpected 'e'"),
    ("p + ;", 5, "unexpected character ';'"),
    ("2 *", 4, "the expression ends too early"),
    ("((p^16)^16)^16", 8, "the expression's degree exceeds 64"),
], ids=["import", "tower", "empty", "blank", "undeclared", "chained", "big-exponent",
        "zero-division", "open-paren", "close-paren", "e-notation", "semicolon", "dangling",
        "degree"])
def test_parser_rejects_with_position(text, position, problem):
    with pytest.raises(ExpressionError) as info:
        parse_expression(text, NAMES, "data.prior[0]")
    assert info.value.position == position
    assert str(info.value) == f"data.prior[0] = {text!r}: {problem} at position {position}"
    assert isinstance(info.value, InvalidArgument)


def test_parser_refuses_non_strings():
    with pytest.raises(InvalidArgument, match="is not a string"):
        parse_expression(0.5, NAMES, "mechanism.truth")


def _raw(params, prior, truth=None, n=2):
    raw = {"parameters": params, "data": {"records": n, "values": [0, 1], "prior": prior},
           "mechanism": {"kind": "count"},
           "query": {"epsilon": "ln(2)", "notions": ["apkdp", "ppkdp"]}}
    if truth is not None:
        raw["mechanism"] = {"kind": "randomized_response", "truth": truth}
    return raw


P = {"p": {"gt": "0", "lt": "1"}}


@pytest.mark.parametrize("params, prior, key, message", [
    (P, ["1 - q", "q"], "data.prior[0]", "undeclared name 'q'"),
    (P, ["1 - p", ""], "data.prior[1]", "empty expression at position 1"),
    ({"p": {"gt": "0", "gt2": "1"}}, ["1/2", "1/2"], "parameters.p.gt2", "unknown key"),
    ({"p": {"gt": "1", "lt": "1"}}, ["1/2", "1/2"], "parameters.p", "admit no value"),
    ({"p": {"gt": 0.5}}, ["1/2", "1/2"], "parameters.p.gt", "float"),
    ({"E": {"gt": "0"}}, ["1/2", "1/2"], "parameters.E", "cannot name a parameter"),
    ({"p": {"ge": "0", "gt": "0"}}, ["1/2", "1/2"], "parameters.p.gt", "a second lower"),
    (P, ["1 - p", "2*p"], "data.prior", "sums to p + 1, not 1"),
], ids=["undeclared", "empty", "bound-key", "empty-interval", "float", "reserved",
        "two-lower", "sum"])
def test_spec_errors_name_the_key(params, prior, key, message):
    with pytest.raises(SpecError) as info:
        parse_symbolic(_raw(params, prior))
    assert info.value.key == key
    assert message in str(info.value)


def test_negative_prior_is_refused_with_a_breaking_value():
    """0 < p < 2 admits p > 1, where 1 − p < 0: the refusal names such a p."""
    with pytest.raises(SpecError) as info:
        parse_symbolic(_raw({"p": {"gt": "0", "lt": "2"}}, ["1 - p", "p"]))
    assert info.value.key == "data.prior[0]"
    value = mpq(str(info.value).split("at p = ")[1].split(",")[0])
    assert 1 < value < 2  # 1 − p < 0 exactly there, inside the bounds


def test_truth_out_of_range_is_refused():
    with pytest.raises(SpecError) as info:
        parse_symbolic(_raw({"t": {"ge": "0", "le": "2"}}, ["1/2", "1/2"], truth="t"))
    assert info.value.key == "mechanism.truth"
    assert "is above 1 at t = " in str(info.value)


def test_spec_at_a_point_is_the_concrete_spec():
    sym = parse_symbolic(_raw(P, ["1 - p", "p"]))
    spec = sym.at({"p": "1/3"})
    assert spec.model.priors[0][1] == mpq(1, 3) and spec.model.priors[0][0] == mpq(2, 3)
    with pytest.raises(InvalidArgument, match="outside 0 < p < 1"):
        sym.at({"p": "1"})


def test_sample_point_and_point_syntax():
    assert Parameter("p", mpq(0), True, mpq(1), True).sample() == mpq(2, 7)
    assert parse_point("p=1/3, t = 3/4") == {"p": "1/3", "t": "3/4"}
    with pytest.raises(InvalidArgument, match="name=value"):
        parse_point("p")
