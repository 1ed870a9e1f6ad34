"""Universes, rows and predicates for predicate singling out (seed 002, Cohen & Nissim).

A universe ``X`` is a finite list of values, or the bit strings of length ``d`` (stored as
integers ``0 … 2^d − 1``, shown as bit strings, most significant bit first). A predicate is a
subset of ``X``; its weight under the row distribution ``D`` is ``w(p) = P_{u~D}[u ∈ p]``.

Predicates can be written as expressions, read by a small parser over Python's syntax tree
(never ``eval``): integer literals, the value ``x``, its bits ``b0 … b{d−1}`` (``b0`` the most
significant), comparisons, ``and``/``or``/``not``, ``+ − * // %``, parentheses and
``x in [..]``. ``"x < 16"`` over 6 bits is the set of strings starting ``00``.

The parser is safe on any input: values are typed (integers; a list of integers only on the
right of ``in``/``not in``; no list arithmetic, so no ``[0] * 10**11``), and a predicate is
refused before it is evaluated when its text is longer than :data:`MAX_TEXT` characters, its
syntax tree has more than :data:`MAX_NODES` nodes or is deeper than :data:`MAX_DEPTH`, or an
intermediate integer exceeds :data:`MAX_BITS` bits.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field

from gmpy2 import mpq

from verifier.core.distribution import Dist
from verifier.core.errors import InvalidArgument, UnknownName

__all__ = ["Universe", "Predicate", "parse_predicate", "EMPTY", "MAX_TEXT", "MAX_NODES",
           "MAX_DEPTH", "MAX_BITS"]

MAX_TEXT = 20_000  # characters of a predicate
MAX_NODES = 5_000  # nodes of its syntax tree
MAX_DEPTH = 200  # nesting depth of its syntax tree
MAX_BITS = 4_096  # bits of an integer met while evaluating it


@dataclass(frozen=True, eq=False)
class Universe:
    """The row universe and the distribution ``D`` of one row."""

    values: tuple
    dist: Dist
    bits: int | None = None  # d when the universe is {0,1}^d

    @staticmethod
    def bit_strings(d: int, weights: Sequence | None = None) -> Universe:
        if isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 16:
            raise InvalidArgument(f"bits = {d!r} must be an integer from 1 to 16", argument="bits")
        values = tuple(range(2 ** d))
        if weights is not None and len(weights) != len(values):
            raise InvalidArgument(f"distribution has {len(weights)} weights for the {len(values)} "
                                  f"bit strings of length {d}", argument="weights")
        dist = Dist.uniform(values) if weights is None else Dist(
            zip(values, weights, strict=True), name="distribution")
        return Universe(values, dist, d)

    @staticmethod
    def of_values(values: Sequence[Hashable], weights: Sequence | None = None) -> Universe:
        vals = tuple(values)
        if not vals or len(set(vals)) != len(vals):
            raise InvalidArgument(f"values = {list(vals)!r} is empty or repeats a value")
        if weights is not None and len(weights) != len(vals):
            raise InvalidArgument(f"distribution has {len(weights)} weights for {len(vals)} "
                                  f"values")
        dist = Dist.uniform(vals) if weights is None else Dist(zip(vals, weights, strict=True),
                                                                name="distribution")
        return Universe(vals, dist, None)

    def show(self, u: Hashable) -> str:
        return format(u, f"0{self.bits}b") if self.bits else str(u)

    def bit(self, u: int, j: int) -> int:
        """Bit ``j`` of ``u``, ``b0`` the most significant."""
        assert self.bits is not None  # only a universe of bit strings has bits
        return (u >> (self.bits - 1 - j)) & 1

    def weight(self, members: Iterable[Hashable]) -> mpq:
        return sum((self.dist[u] for u in members), mpq(0))


@dataclass(frozen=True)
class Predicate:
    """A subset of the universe (canonical: a frozenset), with the text it came from."""

    members: frozenset
    label: str = field(default="", compare=False)

    def __contains__(self, u: Hashable) -> bool:
        return u in self.members


EMPTY = Predicate(frozenset(), "false")

_ALLOWED = (ast.Expression, ast.BoolOp, ast.And, ast.Or, ast.UnaryOp, ast.Not, ast.USub,
            ast.BinOp, ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.Compare, ast.Eq,
            ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.In, ast.NotIn, ast.Name, ast.Load,
            ast.Constant, ast.List, ast.Tuple)


_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt,
            ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge}
_ARITHMETIC = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
               ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}


def _short(text: str) -> str:
    r = repr(text)
    return r if len(r) <= 80 else f"{r[:50]}…{r[-20:]} ({len(text)} characters)"


def _kind(value: object) -> str:
    return "a list" if isinstance(value, list) else "a truth value" if isinstance(value, bool) \
        else "an integer"


def _integer(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument(f"{what} needs integers, not {_kind(value)}")
    return value


def _truth(value: object, what: str) -> bool:
    if isinstance(value, list):
        raise InvalidArgument(f"{what} needs a truth value or an integer, not a list")
    return bool(value)


def _evaluate(node: ast.AST, env: dict) -> object:
    """The value of a checked tree (see :func:`_check_tree`): an ``int``, a ``bool``, or a
    ``list`` of ints (only as the right operand of ``in``)."""
    if isinstance(node, ast.Expression):
        return _evaluate(node.body, env)
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in env:
            raise UnknownName(f"unknown name {node.id!r} in a predicate (use x, or b0.. for bits)")
        return env[node.id]
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_integer(_evaluate(e, env), "a list element") for e in node.elts]
    if isinstance(node, ast.BoolOp):
        values = [_truth(_evaluate(v, env), "and/or") for v in node.values]
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.UnaryOp):
        v = _evaluate(node.operand, env)
        return (not _truth(v, "not")) if isinstance(node.op, ast.Not) else -_integer(v, "−")
    if isinstance(node, ast.BinOp):
        a = _integer(_evaluate(node.left, env), "arithmetic")
        b = _integer(_evaluate(node.right, env), "arithmetic")
        if isinstance(node.op, (ast.FloorDiv, ast.Mod)) and b == 0:
            raise InvalidArgument("division by zero in a predicate")
        if isinstance(node.op, ast.Mult) and a.bit_length() + b.bit_length() > MAX_BITS:
            raise InvalidArgument(f"an integer in the predicate exceeds {MAX_BITS} bits")
        return _ARITHMETIC[type(node.op)](a, b)
    if isinstance(node, ast.Compare):
        left = _evaluate(node.left, env)
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = _evaluate(right_node, env)
            if isinstance(op, (ast.In, ast.NotIn)):
                if not isinstance(right, list):
                    raise InvalidArgument(f"'in' needs a list on its right, not {_kind(right)}")
                member = _integer(left, "'in'") in right
                ok = member if isinstance(op, ast.In) else not member
            else:
                ok = _COMPARE[type(op)](_integer(left, "a comparison"),
                                        _integer(right, "a comparison"))
            if not ok:
                return False
            left = right
        return True
    raise InvalidArgument(f"{type(node).__name__} is not allowed in a predicate")


def _check_tree(tree: ast.AST, text: str) -> None:
    """Every node allowed, constants integers, lists only of the right of ``in`` (and not
    nested), at most :data:`MAX_NODES` nodes and depth :data:`MAX_DEPTH` — walked without
    recursion."""
    stack: list[tuple[ast.AST, int, bool]] = [(tree, 0, False)]
    nodes = 0
    while stack:
        node, depth, list_ok = stack.pop()
        nodes += 1
        if nodes > MAX_NODES:
            raise InvalidArgument(f"predicate {_short(text)} has more than {MAX_NODES} terms")
        if depth > MAX_DEPTH:
            raise InvalidArgument(f"predicate {_short(text)} is nested more than {MAX_DEPTH} "
                                  f"deep")
        if not isinstance(node, _ALLOWED):
            raise InvalidArgument(f"predicate {_short(text)}: {type(node).__name__} is not "
                                  f"allowed")
        if isinstance(node, ast.Constant):
            c = node.value
            if isinstance(c, bool) or not isinstance(c, int):
                raise InvalidArgument(f"predicate {_short(text)}: only integer constants are "
                                      f"allowed, not {c!r:.40}")
            if c.bit_length() > MAX_BITS:
                raise InvalidArgument(f"predicate {_short(text)}: a constant exceeds {MAX_BITS} "
                                      f"bits")
        if isinstance(node, (ast.List, ast.Tuple)) and not list_ok:
            raise InvalidArgument(f"predicate {_short(text)}: a list is allowed only on the "
                                  f"right of 'in' or 'not in'")
        if isinstance(node, ast.Compare):
            stack.append((node.left, depth + 1, False))
            for op, right in zip(node.ops, node.comparators, strict=True):
                stack.append((right, depth + 1, isinstance(op, (ast.In, ast.NotIn))))
            continue
        for child in ast.iter_child_nodes(node):
            stack.append((child, depth + 1, False))


def parse_predicate(text: str, universe: Universe) -> Predicate:
    """The predicate ``{u ∈ X : text holds for x = u}`` (a safe parser, no ``eval``)."""
    if not isinstance(text, str):
        raise InvalidArgument(f"predicate {text!r:.60} is not a string")
    if len(text) > MAX_TEXT:
        raise InvalidArgument(f"predicate {_short(text)} is longer than {MAX_TEXT} characters")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        reason = str(exc.msg).split(";")[0]  # Python's digit-limit message runs on
        raise InvalidArgument(f"predicate {_short(text)} does not parse: {reason}") from None
    except (RecursionError, MemoryError, ValueError) as exc:
        raise InvalidArgument(f"predicate {_short(text)} does not parse: "
                              f"{type(exc).__name__} (nested too deeply or too large)") from None
    _check_tree(tree, text)
    members = []
    for u in universe.values:
        env = {"x": u}
        if universe.bits:
            env.update({f"b{j}": universe.bit(u, j) for j in range(universe.bits)})
        try:
            holds = _truth(_evaluate(tree, env), "a predicate")
        except InvalidArgument as exc:
            raise InvalidArgument(f"predicate {_short(text)}: {exc}") from None
        if holds:
            members.append(u)
    return Predicate(frozenset(members), text)
