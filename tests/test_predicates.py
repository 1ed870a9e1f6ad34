"""The singling-out predicate parser on hostile input: typed values, bounded size and depth,
no code execution. Expected member sets are worked out by hand over the 3-bit universe
{0, …, 7} (b0 is the most significant bit)."""

from __future__ import annotations

import sys
import time

import pytest

from verifier.core.errors import InvalidArgument, UnknownName
from verifier.pso.predicates import MAX_DEPTH, MAX_NODES, MAX_TEXT, Universe, parse_predicate

U = Universe.bit_strings(3)


@pytest.mark.parametrize("text, members", [
    ("x < 3", {0, 1, 2}),
    ("x in [1, 5]", {1, 5}),
    ("x not in [0, 1, 2, 3]", {4, 5, 6, 7}),
    ("b0 == 1 and b2 == 0", {4, 6}),           # 1?0: 100, 110
    ("b0 and not b1", {4, 5}),                 # 10?: truth of bits
    ("(x + 1) // 2 == 2", {3, 4}),             # (x+1)//2 = 2 for x = 3, 4
    ("x % 3 == 0 or x == 7", {0, 3, 6, 7}),
    ("1 < x < 4", {2, 3}),                     # a comparison chain
    ("-x < -5", {6, 7}),
    ("x", {1, 2, 3, 4, 5, 6, 7}),              # an integer predicate: x ≠ 0
    ("(" * 150 + "x < 2" + ")" * 150, {0, 1}),  # deep but within the stated limit
], ids=["lt", "in", "not-in", "bits", "bit-truth", "floordiv", "mod-or", "chain", "minus",
        "bare-x", "150-parentheses"])
def test_valid_predicates(text, members):
    assert parse_predicate(text, U).members == frozenset(members)


@pytest.mark.parametrize("text, message", [
    ("x < [1]", "a list is allowed only on the right of 'in' or 'not in'"),
    ("[1] < x", "a list is allowed only on the right of 'in' or 'not in'"),
    ("x in 5", "'in' needs a list on its right, not an integer"),
    ("x + [1] == 0", "a list is allowed only on the right of 'in' or 'not in'"),
    ("x in [1] + [2]", "a list is allowed only on the right of 'in' or 'not in'"),
    ("x in [0] * 99999999999", "a list is allowed only on the right of 'in' or 'not in'"),
    ("x in [[1], 2]", "a list is allowed only on the right of 'in' or 'not in'"),
    ("(x < 3) + 1 > 0", "arithmetic needs integers, not a truth value"),
    ("(x < 3) == (x < 4)", "a comparison needs integers, not a truth value"),
    ("x % 0 == 0", "division by zero in a predicate"),
], ids=["int<list", "list<int", "in-int", "int+list", "list+list", "repetition", "nested-list",
        "bool-arithmetic", "bool-comparison", "modulo-zero"])
def test_wrong_types(text, message):
    with pytest.raises(InvalidArgument) as info:
        parse_predicate(text, U)
    assert str(info.value).endswith(message)
    assert str(info.value).startswith(f"predicate {text!r}")


@pytest.mark.parametrize("text, node", [
    ("__import__('os').system('true')", "Call"),
    ("x.real < 3", "Attribute"),
    ("(lambda: 1)() == 1", "Call"),
    ("x in [y for y in [1, 2]]", "ListComp"),
    ("(y := x) < 3", "NamedExpr"),
    ("x if x else 0", "IfExp"),
    ("x ** 2 == 4", "Pow"),
    ("x << 1 == 2", "LShift"),
    ("x[0] == 1", "Subscript"),
    ("{x: 1} == 1", "Dict"),
], ids=["import", "attribute", "lambda", "comprehension", "walrus", "conditional", "power",
        "shift", "subscript", "dict"])
def test_refused_syntax(text, node):
    with pytest.raises(InvalidArgument) as info:
        parse_predicate(text, U)
    assert str(info.value) == f"predicate {text!r}: {node} is not allowed"


@pytest.mark.parametrize("text, constant", [
    ("x < 1.5", "1.5"), ("'a' == 'a'", "'a'"), ("True", "True"), ("None == None", "None"),
], ids=["float", "string", "bool", "none"])
def test_only_integer_constants(text, constant):
    with pytest.raises(InvalidArgument) as info:
        parse_predicate(text, U)
    assert str(info.value) == (f"predicate {text!r}: only integer constants are allowed, "
                               f"not {constant}")


def test_unknown_name():
    with pytest.raises(UnknownName) as info:
        parse_predicate("b3 == 1", U)  # a 3-bit universe has b0, b1, b2
    assert str(info.value) == "unknown name 'b3' in a predicate (use x, or b0.. for bits)"


@pytest.mark.parametrize("text, fragment", [
    ("not " * 100_000 + "x < 1", f"is longer than {MAX_TEXT} characters"),
    ("x in [" + ", ".join(str(i) for i in range(150_000)) + "]",
     f"is longer than {MAX_TEXT} characters"),
    ("x + " * 1_000 + "x > 0", f"is nested more than {MAX_DEPTH} deep"),
    (" and ".join(["x < 9"] * 2_000), f"has more than {MAX_NODES} terms"),
    ("- " * 3_000 + "x < 1", "does not parse"),
    ("x == " + "9" * 2_000, "a constant exceeds 4096 bits"),
    ("x == " + "9" * 5_000, "does not parse: Exceeds the limit (4300 digits)"),
], ids=["100000-not", "megabyte-of-constants", "1000-term-sum", "2000-term-and",
        "3000-nested-minus", "2000-digit-constant", "5000-digit-constant"])
def test_size_and_depth_limits(text, fragment):
    digits = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(4300)  # Python's default (another test may have lifted it)
    try:
        _refused_quickly(text, fragment)
    finally:
        sys.set_int_max_str_digits(digits)


def _refused_quickly(text: str, fragment: str) -> None:
    start = time.monotonic()
    with pytest.raises(InvalidArgument) as info:
        parse_predicate(text, U)
    assert time.monotonic() - start < 5
    message = str(info.value)
    assert fragment in message and len(message) < 300  # the text is cut in the message
