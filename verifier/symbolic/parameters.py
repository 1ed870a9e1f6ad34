"""Declared symbolic parameters: names with rational bounds, and exact rational functions of them.

A spec's ``[parameters]`` table declares each symbol with bounds, strict (``gt``, ``lt``) or
closed (``ge``, ``le``), in any mix::

    [parameters]
    p = { gt = "0", lt = "1" }      # 0 < p < 1
    t = { ge = "1/2", le = "1" }    # 1/2 ≤ t ≤ 1

Probabilities built from them are elements of the field ``Q(p, t, …)`` of rational functions
(sympy's ``FracElement``: a reduced numerator and denominator of expanded polynomials), so an
identity of two probabilities is the exact equality of field elements — the numerator of
their difference expands to 0.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gmpy2 import mpq
from sympy import QQ, Expr, Symbol  # type: ignore[import-untyped]

from verifier.core.errors import InvalidArgument, VerifierError, did_you_mean
from verifier.core.numbers import format_rational, rational

__all__ = ["Parameter", "Parameters", "read_parameters", "parse_point", "poly_value", "poly_terms",
           "RESERVED"]

RESERVED = frozenset({"E", "apk", "ppk", "noiseless", "dp", "and", "or", "not", "implies",
                      "iff", "ln", "inf"})
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_BOUNDS = {"gt": (True, True), "ge": (True, False), "lt": (False, True), "le": (False, False)}


@dataclass(frozen=True, slots=True)
class Parameter:
    """A real parameter with optional lower and upper bounds, each strict or closed."""

    name: str
    lower: mpq | None = None
    lower_strict: bool = False
    upper: mpq | None = None
    upper_strict: bool = False

    def admits(self, x: mpq) -> bool:
        if self.lower is not None and (x <= self.lower if self.lower_strict else x < self.lower):
            return False
        return not (self.upper is not None and
                    (x >= self.upper if self.upper_strict else x > self.upper))

    def sample(self) -> mpq:
        """A rational inside the bounds, away from their simple fractions: 2/7 of the way
        from the lower to the upper bound (or one unit beyond a single bound)."""
        lo, hi = self.lower, self.upper
        if lo is not None and hi is not None:
            return lo + (hi - lo) * mpq(2, 7)
        if lo is not None:
            return lo + mpq(9, 7)
        if hi is not None:
            return hi - mpq(9, 7)
        return mpq(2, 7)

    def describe(self) -> str:
        left = "" if self.lower is None else \
            f"{format_rational(self.lower)} {'<' if self.lower_strict else '≤'} "
        right = "" if self.upper is None else \
            f" {'<' if self.upper_strict else '≤'} {format_rational(self.upper)}"
        return f"{left}{self.name}{right}" if left or right else f"{self.name} real"


@dataclass(frozen=True, eq=False)
class Parameters:
    """The declared parameters, their sympy symbols and the field of rational functions."""

    items: tuple[Parameter, ...] = ()
    symbols: Mapping[str, Symbol] = field(default_factory=dict)
    field: Any = None

    @staticmethod
    def of(items: tuple[Parameter, ...]) -> Parameters:
        symbols = {p.name: Symbol(p.name, real=True) for p in items}
        return Parameters(items, symbols, QQ.frac_field(*symbols.values()))

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.items)

    def element(self, value: Expr | object) -> Any:
        """A field element from a sympy expression or an exact number."""
        if isinstance(value, Expr):
            return self.field.from_sympy(value)
        q = rational(value, "value")
        return self.field.from_sympy(_sympy_rational(q))

    def sample_point(self) -> dict[str, mpq]:
        return {p.name: p.sample() for p in self.items}

    def check_point(self, point: Mapping[str, object]) -> dict[str, mpq]:
        """Every declared parameter given a rational value within its bounds."""
        out = {}
        for name in point:
            if name not in self.symbols:
                raise InvalidArgument(f"--at {name}: no parameter {name!r} is declared "
                                      f"(declared: {', '.join(self.names) or 'none'})")
        for p in self.items:
            if p.name not in point:
                raise InvalidArgument(f"--at: give a value for the parameter {p.name}")
            x = rational(point[p.name], p.name)
            if not p.admits(x):
                raise InvalidArgument(f"{p.name} = {format_rational(x)} is outside "
                                      f"{p.describe()}")
            out[p.name] = x
        return out

    def value(self, element: Any, point: Mapping[str, mpq]) -> mpq:
        """The exact value of a field element at a point (its denominator must not vanish)."""
        xs = [point[name] for name in self.names]
        den = poly_value(element.denom, xs)
        if den == 0:
            raise InvalidArgument(f"{self.field.to_sympy(element)} is undefined at "
                                  f"{format_point(point)}")
        return poly_value(element.numer, xs) / den

    def describe(self) -> str:
        return ", ".join(p.describe() for p in self.items)


def _sympy_rational(q: mpq) -> Expr:
    from sympy import Rational
    return Rational(int(q.numerator), int(q.denominator))


def poly_terms(p: Any) -> list[tuple[tuple[int, ...], mpq]]:
    """A sympy polynomial as ``(exponents, rational coefficient)`` pairs."""
    return [(tuple(e), mpq(int(c.numerator), int(c.denominator))) for e, c in p.terms()]


def poly_value(poly: Any, xs: list[mpq]) -> mpq:
    """A sympy ``PolyElement`` over QQ evaluated exactly at ``xs`` (one value per generator)."""
    total = mpq(0)
    for exponents, coeff in poly.terms():
        term = mpq(int(coeff.numerator), int(coeff.denominator))
        for x, k in zip(xs, exponents, strict=True):
            term *= x ** k
        total += term
    return total


def format_point(point: Mapping[str, mpq]) -> str:
    return ", ".join(f"{k} = {format_rational(v)}" for k, v in point.items())


MAX_BOUND_DIGITS = 1000  # digits of a parameter bound (numerator and denominator together)


def read_parameters(table: object, fail) -> Parameters:
    """The ``[parameters]`` table; ``fail(key, message)`` builds the error to raise."""
    if not isinstance(table, Mapping):
        raise fail("[parameters]", "must be a table of name = { gt/ge/lt/le = bound }")
    items = []
    for name, bounds in table.items():
        key = f"parameters.{name}"
        if not _NAME.match(name) or name in RESERVED:
            raise fail(key, f"{name!r} cannot name a parameter (use a letter followed by "
                            f"letters, digits or _, not one of {', '.join(sorted(RESERVED))})")
        if not isinstance(bounds, Mapping):
            raise fail(key, 'must be a table such as { gt = "0", lt = "1" }')
        lower: tuple[mpq, bool] | None = None
        upper: tuple[mpq, bool] | None = None
        for k, v in bounds.items():
            if k not in _BOUNDS:
                raise fail(f"{key}.{k}", "unknown key; a bound is gt, ge, lt or le"
                                         + did_you_mean(k, _BOUNDS))
            try:
                x = rational(v, f"{key}.{k}")
            except VerifierError as exc:
                raise fail(f"{key}.{k}", str(exc)) from None
            digits = len(f"{x.numerator:d}") + len(f"{x.denominator:d}")
            if digits > MAX_BOUND_DIGITS:
                raise fail(f"{key}.{k}", f"a bound of {digits} digits; the solver takes at "
                                         f"most {MAX_BOUND_DIGITS} (write a shorter rational)")
            is_lower, strict = _BOUNDS[k]
            if (lower if is_lower else upper) is not None:
                raise fail(f"{key}.{k}", f"a second {'lower' if is_lower else 'upper'} bound")
            if is_lower:
                lower = (x, strict)
            else:
                upper = (x, strict)
        p = Parameter(name, *(lower or (None, False)), *(upper or (None, False)))
        if lower and upper and (lower[0] > upper[0] or
                                (lower[0] == upper[0] and (lower[1] or upper[1]))):
            raise fail(key, f"the bounds {p.describe()} admit no value")
        items.append(p)
    return Parameters.of(tuple(items))


def parse_point(text: str) -> dict[str, str]:
    """``"p=1/3,t=3/4"`` → ``{"p": "1/3", "t": "3/4"}`` (values checked later, exactly)."""
    out: dict[str, str] = {}
    for part in text.split(","):
        name, eq, value = part.partition("=")
        if not eq or not name.strip() or not value.strip():
            raise InvalidArgument(f"--at {text!r}: write name=value pairs, e.g. p=1/3")
        if name.strip() in out:
            raise InvalidArgument(f"--at {text!r}: {name.strip()} is given twice")
        out[name.strip()] = value.strip()
    return out


__all__ += ["format_point"]
