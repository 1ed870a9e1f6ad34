"""Privacy losses rounded onto a geometric grid: certified bounds on δ(ε) and ε(δ).

Why rounding gives bounds. With ``E = e^ε``, the tight δ of a privacy loss ``L`` of ``P``
against ``Q`` depends on ``P`` alone (seed 003, Lemma 1 in the form of REFERENCE.md §3;
the ``P``-only form of dp_accounting's ``pld``: *delta is inf_mass + sum_{loss}
max(0, 1 - exp(epsilon - loss)) * prob*)::

    δ(ε) = E_{O~P}[ f_ε(L(O)) ],   f_ε(l) = max(0, 1 − e^{ε − l}),   f_ε(+∞) = 1

and ``f_ε`` is non-decreasing in ``l``. Rounding every loss value *up* onto a grid gives a
loss ``L⁺ ≥ L`` pointwise (on the same outputs, under the same ``P``), so
``E_P[f_ε(L⁺)] ≥ E_P[f_ε(L)] = δ(ε)``; rounding *down* gives ``L⁻ ≤ L`` and a lower bound.
(This is the pessimistic / optimistic discretisation of Meiser & Mohammadi, "Tight on Budget?
Tight Bounds for r-Fold Approximate Differential Privacy", CCS 2018, and of Koskela, Jälkö,
Honkela, "Computing Tight Differential Privacy Guarantees Using FFT", AISTATS 2020; the
dominance argument is Zhu, Dong, Wang, "Optimal Accounting of Differential Privacy via
Characteristic Function", AISTATS 2022, §3.) Composition keeps the order: the composed loss
is ``Σ_j L_j`` with the ``L_j`` independent under ``P`` (for adaptive composition the
``j``-th term depends on the earlier outputs), so rounding every term up gives
``Σ_j L_j⁺ ≥ Σ_j L_j`` pointwise, hence an upper bound again; likewise down. The bound of the
rounded law is an expectation under ``P`` only: the rounded ``L⁺`` need not be the loss of
any pair of distributions, so only the ``P``-only form is used here, never ``Q``-masses.

Since ``δ_lo(ε) ≤ δ(ε) ≤ δ_hi(ε)`` for every ε and each is non-increasing in ε, the tight
ε at δ, ``min{ε ≥ 0 : δ(ε) ≤ δ}``, lies between the tight ε of ``δ_lo`` and of ``δ_hi``.

The grid is ``{j·ln γ : j ∈ Z}`` for a rational ``γ > 1``, so every grid loss is the log of
the rational ``γ^j``, every bound is ``A − C·e^ε`` with rationals ``A = P[L⁺ > ε]``
(with ``+∞``) and ``C = Σ_{γ^j > E} P_j·γ^{−j}``, and sums of grid losses stay on the grid
(the exponents add): a composition is a product of Laurent polynomials in ``x = γ`` and keeps
at most as many values as :func:`~verifier.notions.composition.polynomial.univariate_terms`
counts (``k`` runs of a loss with two grid values have ``k + 1``, whatever the grid).
Which grid point a ratio goes to is decided with MPFR intervals at rising precision and,
where an interval holds an integer, by an exact comparison with the power of ``γ``.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import reduce
from operator import mul

from gmpy2 import mpq, mpz

from verifier.core.certified import MAX_PRECISION, log_bounds
from verifier.core.delta import Delta
from verifier.core.epsilon import Epsilon, parse_epsilon
from verifier.core.errors import InvalidArgument, InvalidNumber
from verifier.core.numbers import format_rational, probability
from verifier.notions.composition.polynomial import univariate_product

__all__ = ["Grid", "GridLoss", "parse_grid"]


def _floor(x: mpq) -> int:
    return int(x.numerator // x.denominator)


@dataclass(frozen=True, slots=True)
class Grid:
    """The grid ``{ln(γ^j) : j ∈ Z}`` of loss values, for a rational ``γ > 1``."""

    base: mpq

    def __post_init__(self) -> None:
        if not self.base > 1:
            raise InvalidArgument(f"grid = ln({format_rational(self.base)}): the grid needs "
                                  f"ln(γ) with rational γ > 1", argument="grid",
                                  value=str(self.base))

    @property
    def spacing(self) -> Epsilon:
        """The distance ``ln γ`` between grid points."""
        return Epsilon.log(self.base)

    def __str__(self) -> str:
        return f"ln({format_rational(self.base)})"

    def _is_power(self, r: mpq, j: int) -> bool:
        """Whether ``r = γ^j`` exactly (numerator and denominator are coprime powers)."""
        if j == 0:
            return r == 1
        a, b = (self.base.numerator, self.base.denominator) if j > 0 else \
            (self.base.denominator, self.base.numerator)
        n = abs(j)
        # a cheap size test first: γ^j is only computed when the bit lengths agree
        if abs(r.numerator.bit_length() - n * (a.bit_length() - 1)) > n + 1:
            return False
        return r.numerator == a ** n and r.denominator == b ** n

    def floor_index(self, r: mpq) -> int:
        """The largest ``j`` with ``γ^j ≤ r``, for a rational ``r > 0``: ``⌊ln r / ln γ⌋``."""
        return self._index(lambda prec: log_bounds(r, prec), lambda j: self._is_power(r, j))

    def index(self, r: mpq, up: bool) -> int:
        """``r`` rounded onto the grid: the least ``j`` with ``γ^j ≥ r`` when ``up``, else
        the largest ``j`` with ``γ^j ≤ r``."""
        j = self.floor_index(r)
        return j + 1 if up and not self._is_power(r, j) else j

    def epsilon_floor(self, eps: Epsilon) -> int:
        """The largest ``j`` with ``j·ln γ ≤ ε`` (finite ε ≥ 0)."""
        if eps.rate is not None:
            return self.floor_index(eps.rate)
        nats = eps.nats
        assert nats is not None  # a finite ε is ln(rate) or a rational number of nats
        # j·ln γ is irrational for j ≠ 0 (ln of a rational ≠ 1), so it never equals nats > 0
        return self._index(lambda prec: (nats, nats), lambda j: False)

    def _index(self, bounds, exact) -> int:
        """``⌊x / ln γ⌋`` for ``x`` given by rational ``bounds(prec)``; ``exact(j)`` says
        whether ``x = j·ln γ`` (the one case intervals cannot settle)."""
        prec = 64
        while prec <= MAX_PRECISION:
            x_lo, x_hi = bounds(prec)
            g_lo, g_hi = log_bounds(self.base, prec)
            if g_lo > 0:
                q_lo = x_lo / (g_hi if x_lo >= 0 else g_lo)
                q_hi = x_hi / (g_lo if x_hi >= 0 else g_hi)
                f_lo, f_hi = _floor(q_lo), _floor(q_hi)
                if f_lo == f_hi:
                    return f_lo
                if f_hi == f_lo + 1 and exact(f_hi):
                    return f_hi
            prec *= 2
        raise InvalidNumber(  # pragma: no cover - the intervals separate before this
            f"could not place a loss on the grid {self} at {MAX_PRECISION} bits")


def parse_grid(value: object, name: str = "grid") -> Grid:
    """A grid spacing written as ε is: ``"ln(1001/1000)"`` (``ln γ``, rational ``γ > 1``)."""
    eps = parse_epsilon(value, name)
    if eps.rate is None or eps.rate == 1:
        raise InvalidArgument(f"{name} = {value!r} is not ln(γ) with rational γ > 1; write "
                              f'e.g. "ln(1001/1000)"', argument=name, value=value)
    return Grid(eps.rate)


@dataclass(frozen=True, slots=True)
class GridLoss:
    """A privacy loss on a grid: ``P[L = j·ln γ] = masses[j]/p_scale`` and
    ``P[L = +∞] = infinite/p_scale`` (masses are integers over one common scale)."""

    grid: Grid
    masses: Mapping[int, mpz]
    infinite: mpz
    p_scale: mpz

    @staticmethod
    def of(atoms: Iterable[tuple[mpq, mpz]], infinite: mpz, p_scale: mpz, grid: Grid,
           up: bool) -> GridLoss:
        """Round the loss with ``P``-masses ``(ratio, p)`` (``ratio = P/Q``) onto ``grid``:
        up for an upper bound on δ, down for a lower bound."""
        masses: dict[int, mpz] = {}
        for r, p in atoms:
            if p:
                j = grid.index(r, up)
                masses[j] = masses.get(j, mpz(0)) + p
        return GridLoss(grid, masses, mpz(infinite), mpz(p_scale))

    @property
    def values(self) -> int:
        return len(self.masses)

    @staticmethod
    def product(parts: Sequence[tuple[GridLoss, int]]) -> GridLoss:
        """The loss of independent releases of ``copies`` runs of each part: the grid
        exponents add, so the composed masses are the coefficients of the product of the
        Laurent polynomials ``Σ_j masses[j]·x^j`` raised to the copies
        (:func:`~verifier.notions.composition.polynomial.univariate_product`)."""
        grid = parts[0][0].grid
        if any(g.grid != grid for g, _ in parts):
            raise InvalidArgument("grid losses on different grids do not compose",
                                  argument="grid", value=[str(g.grid) for g, _ in parts])
        p_scale = reduce(mul, (g.p_scale ** c for g, c in parts), mpz(1))
        finite = reduce(mul, ((g.p_scale - g.infinite) ** c for g, c in parts), mpz(1))
        masses: dict[int, mpz] = {}
        if all(g.masses for g, _ in parts):
            low, stride, coeffs = univariate_product([(g.masses, c) for g, c in parts])
            masses = {low + stride * i: c for i, c in enumerate(coeffs) if c}
        return GridLoss(grid, masses, p_scale - finite, p_scale)

    def compose(self, other: GridLoss) -> GridLoss:
        """The loss of independent releases: exponents add, ``P``-masses multiply."""
        if other.grid != self.grid:
            raise InvalidArgument("grid losses on different grids do not compose",
                                  argument="grid", value=str(other.grid))
        out: dict[int, mpz] = {}
        for i, a in self.masses.items():
            for j, b in other.masses.items():
                out[i + j] = out.get(i + j, mpz(0)) + a * b
        finite = self.p_scale - self.infinite
        infinite = self.infinite * other.p_scale + finite * other.infinite
        return GridLoss(self.grid, out, infinite, self.p_scale * other.p_scale)

    # -- δ at ε ----------------------------------------------------------------------
    def _tail(self, start: int) -> tuple[mpq, mpq]:
        """``(A, C)``: ``A = P[L = ∞] + Σ_{j ≥ start} P_j``, ``C = Σ_{j ≥ start} P_j·γ^{−j}``
        (``start ≥ 1``), exact. ``C·a^J·p_scale`` (``γ = a/b``, ``J`` the largest
        exponent) is the integer ``Σ_j p_j·b^j·a^{J−j}``, summed by Horner's rule."""
        js = sorted(j for j in self.masses if j >= start)
        total = self.infinite + sum((self.masses[j] for j in js), mpz(0))
        a_total = mpq(total, self.p_scale)
        if not js:
            return a_total, mpq(0)
        a, b = self.base_parts()
        horner, bpow, last = mpz(0), b ** js[0], js[0]
        for j in js:
            gap = j - last
            if gap:
                horner *= a ** gap
                bpow *= b ** gap
            horner += self.masses[j] * bpow
            last = j
        # horner = Σ_j p_j·b^j·a^{J−j} with J = js[-1]
        return a_total, mpq(horner, a ** js[-1] * self.p_scale)

    def base_parts(self) -> tuple[mpz, mpz]:
        return mpz(self.grid.base.numerator), mpz(self.grid.base.denominator)

    def delta(self, eps: Epsilon) -> Delta:
        """``E_P[max(0, 1 − e^{ε − L})]``: ``A − C·e^ε`` over the grid points above ε."""
        if eps.infinite:
            return Delta.make(mpq(self.infinite, self.p_scale), mpq(0), eps)
        a, c = self._tail(max(self.grid.epsilon_floor(eps) + 1, 1))
        return Delta.make(a, c, eps)

    # -- ε at δ ----------------------------------------------------------------------
    def epsilon(self, delta: object) -> Epsilon:
        """The least ε ≥ 0 with this loss's δ(ε) ≤ δ: ``ln((A − δ)/C)`` on its piece."""
        d = probability(delta, "delta")
        if mpq(self.infinite, self.p_scale) > d:
            return Epsilon.INF
        js = sorted(j for j in self.masses if j >= 1)

        def at_most_d(i: int) -> bool:  # δ at E = γ^{js[i]}: the atoms strictly above
            a, c = self._tail(js[i] + 1)
            return a - c * self.grid.base ** js[i] <= d

        lo = bisect_left(range(len(js)), True, key=at_most_d)
        if lo == len(js):  # (only when js is empty: at the last point δ = P[L = ∞] ≤ d)
            return Epsilon.ZERO
        a, c = self._tail(js[lo])
        if lo == 0 and a - c <= d:
            return Epsilon.ZERO
        return Epsilon.log((a - d) / c)
