"""Exact discrete noise for user mechanisms: the two-sided geometric law on the integers.

``Z`` has ``P[Z = k] = K·α^|k|`` with ``K = (1 − α)/(1 + α)`` for every integer ``k`` (the
discrete Laplace law; ``α = e^{−ε/Δ}`` gives the geometric mechanism of Ghosh, Roughgarden
and Sundararajan 2009). Its tails have closed forms, for ``m ≥ 0``::

    P[Z ≥ m] = α^m/(1 + α)        P[Z ≤ −m] = α^m/(1 + α)

Noise is never truncated here: truncating it changes the mechanism (and can turn a correct
noisy max into a failing one). Only a *released* value may be clamped (post-processing).

Sums over the whole support, as an argmax or a comparison of noisy values needs
(:func:`noisy_sum`), are exact: outside a finite window every factor ``P[X = v]``,
``P[X ≤ v]``, … of ``X = c + Z`` is ``a + b·t`` in ``t = α^v`` (above) or in ``s = α^{−v}``
(below), so a product of factors is a polynomial in ``t`` and its sum over the tail is
``Σ_k coef_k · Σ_{v ≥ V} α^{kv} = Σ_k coef_k · α^{kV}/(1 − α^k)``; the constant term must
vanish (a probability mass summed over infinitely many ``v``).

The arithmetic is generic over the coefficient field: ``alpha`` is a rational in ``(0, 1)``, or
the indeterminate ``β`` of :class:`~verifier.core.ratfunc.RatFunc` (:meth:`RatFunc.beta`), and
then every mass, tail and :func:`noisy_sum` is the same expression as an exact rational function
of ``β`` — the law at a transcendental ``β = e^{−1/scale}`` (:mod:`verifier.model.expnoise_zoo`).
One code path serves both; at a rational ``α`` the rational function's value is the rational.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import TypeAlias

from gmpy2 import mpq

from verifier.core.distribution import Dist
from verifier.core.errors import InvalidArgument
from verifier.core.numbers import open_unit
from verifier.core.ratfunc import RatFunc

__all__ = ["geometric_mass", "at_most", "geometric", "clamp", "Noisy", "noisy_sum", "Coef",
           "base_coefficient"]

Coef: TypeAlias = mpq | RatFunc  # a rational, or a rational function of the base β


def base_coefficient(alpha: object) -> Coef:
    """A rational in (0, 1), or a rational function of ``β`` (the symbolic base)."""
    return alpha if isinstance(alpha, RatFunc) else open_unit(alpha, "alpha")


def _integer(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument(f"{name} = {value!r:.40} is not an integer", argument=name,
                              value=value)
    return value


def geometric_mass(k: int, alpha: object) -> Coef:
    """``P[Z = k] = (1 − α)/(1 + α)·α^|k|``."""
    a = base_coefficient(alpha)
    return (1 - a) / (1 + a) * a ** abs(_integer(k, "k"))


def at_most(w: int, centre: int, alpha: object) -> Coef:
    """``P[c + Z ≤ w]``: ``α^{c−w}/(1+α)`` for ``w ≤ c``, ``1 − α^{w−c+1}/(1+α)`` above."""
    a = base_coefficient(alpha)
    if w <= centre:
        return a ** (centre - w) / (1 + a)
    return 1 - a ** (w - centre + 1) / (1 + a)


def clamp(value: int, lo: int, hi: int) -> int:
    """``min(max(value, lo), hi)``: clamping a released value is post-processing."""
    return min(max(value, lo), hi)


def geometric(centre: int, alpha: object, lo: int, hi: int) -> Dist:
    """The law of ``clamp(c + Z, lo, hi)``, exact: the masses beyond each end (infinite
    tails of ``Z``) are moved to that end by the closed forms ``P[c + Z ≤ lo]`` and
    ``P[c + Z ≥ hi]``.

    >>> [str(geometric(0, "1/2", 0, 2)[j]) for j in (0, 1, 2)]  # 2/3, 1/6, 1/6
    ['2/3', '1/6', '1/6']
    """
    a = open_unit(alpha, "alpha")  # a law (Dist) has rational masses
    c, lo, hi = _integer(centre, "centre"), _integer(lo, "lo"), _integer(hi, "hi")
    if lo > hi:
        raise InvalidArgument(f"clamp range [{lo}, {hi}] is empty", argument="hi", value=hi)
    if lo == hi:
        return Dist.point(lo)
    k = (1 - a) / (1 + a)
    weights: dict[Hashable, Coef] = {j: k * a ** abs(j - c) for j in range(lo + 1, hi)}
    weights[lo] = at_most(lo, c, a)
    weights[hi] = 1 - at_most(hi - 1, c, a)
    return Dist({j: w for j, w in weights.items() if w != 0})


@dataclass(frozen=True, slots=True)
class Noisy:
    """A factor of a term of :func:`noisy_sum`: ``P[c + Z  rel  v + shift]`` at ``v``, with
    ``rel`` one of ``"=", "<=", "<", ">=", ">"`` and ``Z`` two-sided geometric with parameter
    ``β^power`` (``β`` the sum's ``alpha``: noises of different scales share one base)."""

    centre: int
    rel: str
    shift: int = 0
    power: int = 1

    def at(self, v: int, base: Coef) -> Coef:
        a = base ** self.power
        w = v + self.shift
        if self.rel == "=":
            return (1 - a) / (1 + a) * a ** abs(w - self.centre)
        if self.rel == "<=":
            return at_most(w, self.centre, a)
        if self.rel == "<":
            return at_most(w - 1, self.centre, a)
        if self.rel == ">=":
            return 1 - at_most(w - 1, self.centre, a)
        if self.rel == ">":
            return 1 - at_most(w, self.centre, a)
        raise InvalidArgument(f"rel = {self.rel!r} is not one of =, <=, <, >=, >",
                              argument="rel", value=self.rel)

    def tail(self, base: Coef, upper: bool) -> tuple[int, Coef]:
        """``(a0, a1)`` with the factor ``= a0 + a1·u^power`` in the tail, ``u = β^v`` above
        the window (``upper``) or ``β^{−v}`` below it (``α = β^power``)."""
        a = base ** self.power
        c = self.centre - self.shift  # compare v with c: P[Z rel v − c]
        one = 1 + a
        forms: dict[str, tuple[int, Coef]]
        if upper:  # v ≥ c + 1
            forms = {"=": (0, (1 - a) / one * a ** -c), "<=": (1, -a ** (1 - c) / one),
                     "<": (1, -a ** -c / one), ">=": (0, a ** -c / one),
                     ">": (0, a ** (1 - c) / one)}
        else:  # v ≤ c − 1
            forms = {"=": (0, (1 - a) / one * a ** c), "<=": (0, a ** c / one),
                     "<": (0, a ** (c + 1) / one), ">=": (1, -a ** (c + 1) / one),
                     ">": (1, -a ** c / one)}
        if self.rel not in forms:
            raise InvalidArgument(f"rel = {self.rel!r} is not one of =, <=, <, >=, >",
                                  argument="rel", value=self.rel)
        return forms[self.rel]


def _tail_sum(factors: Sequence[Noisy], a: Coef, upper: bool, edge: int) -> Coef:
    """``Σ_{v ≥ edge} Π f(v)`` (``upper``) or ``Σ_{v ≤ edge} Π f(v)``, in closed form."""
    poly: dict[int, Coef] = {0: mpq(1)}
    for f in factors:
        a0, a1 = f.tail(a, upper)
        nxt: dict[int, Coef] = {}
        for k, coef in poly.items():
            if a0:
                nxt[k] = nxt.get(k, mpq(0)) + coef * a0
            if a1:
                nxt[k + f.power] = nxt.get(k + f.power, mpq(0)) + coef * a1
        poly = nxt
    if poly.get(0, 0) != 0:
        raise InvalidArgument("noisy_sum: a term does not vanish in the tails (every term "
                              "needs a factor with rel '=')", argument="factors")
    start = edge if upper else -edge
    return sum((coef * a ** (k * start) / (1 - a ** k) for k, coef in poly.items() if k),
               mpq(0))


def noisy_sum(factors: Sequence[Noisy], alpha: object, lo: int | None = None,
              hi: int | None = None) -> Coef:
    """``Σ_{lo ≤ v ≤ hi} Π_j factors_j(v)`` (``None``: unbounded), exact: directly over a
    window holding every centre, in closed form beyond it (a tail cut at ``lo`` or ``hi`` is
    the difference of two closed forms).

    >>> str(noisy_sum([Noisy(0, "=")], "1/2"))  # the masses of Z sum to 1
    '1'
    """
    a = base_coefficient(alpha)
    if not factors:
        raise InvalidArgument("noisy_sum needs at least one factor", argument="factors")
    cs = [f.centre - f.shift for f in factors]
    w_lo, w_hi = min(cs) - 1, max(cs) + 1
    if lo is not None and hi is not None and lo > hi:
        return mpq(0)
    first = w_lo if lo is None else max(lo, w_lo)
    last = w_hi if hi is None else min(hi, w_hi)
    total: Coef = sum((_product(factors, v, a) for v in range(first, last + 1)), mpq(0))
    if hi is None or hi > w_hi:  # Σ_{w_hi < v ≤ hi}
        start = w_hi + 1 if lo is None else max(lo, w_hi + 1)
        total += _tail_sum(factors, a, True, start)
        if hi is not None:
            total -= _tail_sum(factors, a, True, hi + 1)
    if lo is None or lo < w_lo:  # Σ_{lo ≤ v < w_lo}
        end = w_lo - 1 if hi is None else min(hi, w_lo - 1)
        total += _tail_sum(factors, a, False, end)
        if lo is not None:
            total -= _tail_sum(factors, a, False, lo - 1)
    return total


def _product(factors: Sequence[Noisy], v: int, a: Coef) -> Coef:
    out: Coef = mpq(1)
    for f in factors:
        out *= f.at(v, a)
        if out == 0:
            break
    return out

