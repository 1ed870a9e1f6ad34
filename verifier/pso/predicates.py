"""Universes, rows and predicates for predicate singling out (seed 002, Cohen & Nissim).

A universe ``X`` is a finite list of values, or the bit strings of length ``d`` (stored as
integers ``0 … 2^d − 1``, shown as bit strings, most significant bit first). A predicate is a
subset of ``X``; its weight under the row distribution ``D`` is ``w(p) = P_{u~D}[u ∈ p]``.

Predicates can be written as expressions, read by a small parser over Python's syntax tree
(never ``eval``): integer literals, the value ``x``, its bits ``b0 … b{d−1}`` (``b0`` the most
significant), comparisons, ``and``/``or``/``not``, ``+ − * // %``, parentheses and
``x in [..]``. ``"x < 16"`` over 6 bits is the set of strings starting ``00``.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field

from gmpy2 import mpq

from verifier.core.distribution import Dist
from verifier.core.errors import InvalidArgument, UnknownName

__all__ = ["Universe", "Predicate", "parse_predicate", "EMPTY"]


@dataclass(frozen=True, eq=False)
class Universe:
    """The row universe and the distribution ``D`` of one row."""

    values: tuple
    dist: Dist
    bits: int | None = None  # d when the universe is {0,1}^d

    @staticmethod
    def bit_strings(d: int, weights: Sequence | None = None) -> Universe:
        if isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 16:
            raise InvalidArgument(f"bits = {d!r} must be an integer from 1 to 16")
        values = tuple(range(2 ** d))
        dist = Dist.uniform(values) if weights is None else Dist(zip(values, weights),
                                                                  name="distribution")
        return Universe(values, dist, d)

    @staticmethod
    def of_values(values: Sequence[Hashable], weights: Sequence | None = None) -> Universe:
        vals = tuple(values)
        if not vals or len(set(vals)) != len(vals):
            raise InvalidArgument(f"values = {list(vals)!r} is empty or repeats a value")
        if weights is not None and len(weights) != len(vals):
            raise InvalidArgument(f"distribution has {len(weights)} weights for {len(vals)} "
                                  f"values")
        dist = Dist.uniform(vals) if weights is None else Dist(zip(vals, weights),
                                                                name="distribution")
        return Universe(vals, dist, None)

    def show(self, u: Hashable) -> str:
        return format(u, f"0{self.bits}b") if self.bits else str(u)

    def bit(self, u: int, j: int) -> int:
        """Bit ``j`` of ``u``, ``b0`` the most significant."""
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
            ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
            ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}
_ARITHMETIC = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
               ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}


def _evaluate(node: ast.AST, env: dict) -> object:
    if isinstance(node, ast.Expression):
        return _evaluate(node.body, env)
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, int):
            raise InvalidArgument(f"only integer constants are allowed, not {node.value!r}")
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in env:
            raise UnknownName(f"unknown name {node.id!r} in a predicate (use x, or b0.. for bits)")
        return env[node.id]
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_evaluate(e, env) for e in node.elts]
    if isinstance(node, ast.BoolOp):
        values = [_evaluate(v, env) for v in node.values]
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.UnaryOp):
        v = _evaluate(node.operand, env)
        return (not v) if isinstance(node.op, ast.Not) else -v
    if isinstance(node, ast.BinOp):
        a, b = _evaluate(node.left, env), _evaluate(node.right, env)
        if isinstance(node.op, (ast.FloorDiv, ast.Mod)) and b == 0:
            raise InvalidArgument("division by zero in a predicate")
        return _ARITHMETIC[type(node.op)](a, b)
    if isinstance(node, ast.Compare):
        left = _evaluate(node.left, env)
        for op, right_node in zip(node.ops, node.comparators):
            right = _evaluate(right_node, env)
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True
    raise InvalidArgument(f"{type(node).__name__} is not allowed in a predicate")


def parse_predicate(text: str, universe: Universe) -> Predicate:
    """The predicate ``{u ∈ X : text holds for x = u}`` (a safe parser, no ``eval``)."""
    if not isinstance(text, str):
        raise InvalidArgument(f"predicate {text!r} is not a string")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise InvalidArgument(f"predicate {text!r} does not parse: {exc.msg}") from None
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED):
            raise InvalidArgument(f"predicate {text!r}: {type(node).__name__} is not allowed")
    members = []
    for u in universe.values:
        env = {"x": u}
        if universe.bits:
            env.update({f"b{j}": universe.bit(u, j) for j in range(universe.bits)})
        if _evaluate(tree, env):
            members.append(u)
    return Predicate(frozenset(members), text)
