"""(ε, δ)-DP of discrete Laplace and Gaussian noise added to an integer query, decided with
exact exponential sums where the law allows and certified enclosures where it does not.

For a pair of centres ``c`` (database ``D``, law ``P``) and ``c'`` (``D'``, law ``Q``) the tight
δ at ε is (seed 003, Lemma 1; REFERENCE.md §3) ``δ = Σ_{P(o) > e^ε·Q(o)} P(o) − e^ε·Q(o)``.
Masses are numerators over one denominator ``N`` shared by both laws, so with ``E = e^ε``::

    δ = (A − E·C) / N,   A = Σ_{o ∈ S} p(o),   C = Σ_{o ∈ S} q(o),   S = {o : p(o) > E·q(o)}

and membership in ``S`` is the sign of ``p(o) − E·q(o)``: an exponential sum when ε is a
rational number of nats or ``ln q`` (exact, by Lindemann–Weierstrass), a sum with Gaussian
tails otherwise (certified; :class:`~verifier.core.errors.Undecided` where enclosures do not
separate). Outputs are enumerated over a window holding both centres and the clamp; beyond it:

* discrete Laplace: below ``min(c, c')`` and above ``max(c, c')`` the ratio is constant
  (``e^{−t(c−c')}`` resp. its inverse), so each side is one atom with the closed-form tail;
* discrete Gaussian: the loss ``u·(c − c')·(2o − c − c')`` is linear in ``o``: on the side where
  it grows it exceeds ε exactly beyond ``K = ⌊ε/(2u(c−c')) + (c+c')/2⌋``, so that side
  contributes ``P[o > K] − E·Q[o > K]`` (tails of the law); on the other side it is negative.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from gmpy2 import mpq, mpz

from verifier.core.certified import log_bounds
from verifier.core.epsilon import Epsilon
from verifier.core.theta import Series
from verifier.model.expnoise import ExpNoise

__all__ = ["PairLoss", "pair_loss", "DeltaForm", "MAX_WINDOW"]

MAX_WINDOW = 1_000_000  # outputs enumerated for one pair of centres


@dataclass(frozen=True)
class DeltaForm:
    """``δ = (A − e^ε·C)/N`` for one pair at one ε, with the exact numerators."""

    a: Series
    c: Series
    denominator: Series
    scaled: Series  # A − e^ε·C, exact where the law is

    def minus(self, delta: mpq) -> Series:
        """``N·(δ_pair − δ)``: its sign compares this pair's δ with ``delta``."""
        return self.scaled - self.denominator * delta

    def enclose(self, prec: int) -> tuple[mpq, mpq]:
        lo, hi = self.scaled.enclose(prec)
        d_lo, d_hi = self.denominator.enclose(prec)
        lo, hi = max(lo, mpq(0)), max(hi, mpq(0))
        return lo / d_hi, hi / d_lo

    def __str__(self) -> str:
        if self.scaled.exact.is_zero and not self.scaled.tails:
            return "0"
        return f"({self.scaled})/({self.denominator})"


def _times_e(x: Series, eps: Epsilon) -> Series:
    if eps.base is not None:
        return x * eps.base
    assert eps.nats is not None
    return x.shift(eps.nats)


@dataclass(frozen=True)
class PairLoss:
    """The privacy loss of noise at centre ``p`` against the same noise at ``q``."""

    noise: ExpNoise
    p: int
    q: int

    @property
    def window(self) -> tuple[int, int]:
        n = self.noise
        a = n.lo if n.lo is not None else min(self.p, self.q, n.hi if n.hi is not None else
                                              self.p)
        b = n.hi if n.hi is not None else max(self.p, self.q, a)
        return a, b

    def atoms(self) -> Iterator[tuple[str, Series, Series]]:
        """``(output, p·N, q·N)`` over the window, and the Laplace tail atoms."""
        n, (a, b) = self.noise, self.window
        if n.laplace and n.lo is None:
            yield f"≤ {a - 1}", n.at_most(a - 1 - self.p), n.at_most(a - 1 - self.q)
        for o in range(a, b + 1):
            yield str(o), n.numerator(o, self.p), n.numerator(o, self.q)
        if n.laplace and n.hi is None:
            yield f"≥ {b + 1}", n.at_least(b + 1 - self.p), n.at_least(b + 1 - self.q)

    @property
    def rising_side(self) -> int:
        """+1 (−1) when an unbounded Gaussian side above (below) the window has a loss that
        grows without bound, else 0."""
        n, d = self.noise, self.p - self.q
        if n.laplace or d == 0:
            return 0
        if d > 0 and n.hi is None:
            return 1
        if d < 0 and n.lo is None:
            return -1
        return 0

    def _threshold(self, eps: Epsilon) -> mpq | tuple[mpq, mpq]:
        """``ε/(2u(c−c')) + (c+c')/2``: a rational, or enclosing rationals for ε = ln q."""
        scale = 2 * self.noise.rate * (self.p - self.q)
        mid = mpq(self.p + self.q, 2)
        if eps.nats is not None:
            return eps.nats / scale + mid
        assert eps.base is not None
        if eps.base == 1:
            return mid
        prec = 64
        while True:  # ln q is irrational for rational q ≠ 1: the floor is decided
            lo, hi = log_bounds(eps.base, prec)
            ends = sorted((lo / scale + mid, hi / scale + mid))
            if _floor(ends[0]) == _floor(ends[1]):
                return ends[0], ends[1]
            prec *= 2

    def delta(self, eps: Epsilon) -> DeltaForm:
        """δ of this pair at ε, as :class:`DeltaForm` (exact numerators)."""
        n = self.noise
        a_sum, c_sum = Series(u=n.rate), Series(u=n.rate)
        if eps.infinite:
            return DeltaForm(a_sum, c_sum, n.denominator, a_sum)
        for _, p, q in self.atoms():
            if (p - _times_e(q, eps)).sign() > 0:
                a_sum, c_sum = a_sum + p, c_sum + q
        side = self.rising_side
        if side:
            k = self._threshold(eps)
            if isinstance(k, tuple):  # K* irrational: no integer between its bounds
                floor_k = _floor(k[0])
                ceil_k = floor_k + 1
            else:
                floor_k, ceil_k = _floor(k), -_floor(-k)
            lo_w, hi_w = self.window
            if side > 0:  # o > K*, above the window
                start = max(floor_k + 1, hi_w + 1)
                a_sum += n.at_least(start - self.p)
                c_sum += n.at_least(start - self.q)
            else:  # o < K*, below the window
                end = min(ceil_k - 1, lo_w - 1)
                a_sum += n.at_most(end - self.p)
                c_sum += n.at_most(end - self.q)
        return DeltaForm(a_sum, c_sum, n.denominator, a_sum - _times_e(c_sum, eps))


def _floor(x: mpq) -> int:
    return int(mpz(x.numerator) // mpz(x.denominator))


def pair_loss(noise: ExpNoise, p: int, q: int) -> PairLoss:
    """The loss of ``noise`` at centre ``p`` against centre ``q``; refused beyond
    :data:`MAX_WINDOW` outputs."""
    from verifier.core.errors import BudgetExceeded

    pl = PairLoss(noise, p, q)
    a, b = pl.window
    if b - a + 1 > MAX_WINDOW:
        raise BudgetExceeded(f"the clamp [{a}, {b}] has {b - a + 1} outputs, more than "
                             f"{MAX_WINDOW}; narrow lo/hi or leave a side unbounded",
                             argument="hi", value=b)
    return pl
