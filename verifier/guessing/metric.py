"""ε·d-privacy on finite domains: the exact smallest ε of a kernel, and noise mechanisms.

A mechanism ``M: X → Dist(Z)`` is ε·d-private (seed 004) when for all ``x, x'`` and outputs
``z``: ``P[M(x)=z] ≤ e^{ε·d(x,x')}·P[M(x')=z]``. On a finite domain the smallest such ε is

    ε* = max over x ≠ x', z with P[M(x)=z] > 0 of  ln(P[M(x)=z]/P[M(x')=z]) / d(x, x')

(``∞`` if some ``P[M(x')=z] = 0 < P[M(x)=z]``). Each candidate is ``ln(r)/d`` with rational
``r`` and ``d``; two are compared exactly: ``ln(r1)/d1 < ln(r2)/d2`` iff ``r1^{d2} < r2^{d1}``,
with the exponents cleared to integers. ε* is kept as a :class:`ScaledLog`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from functools import reduce
from typing import cast

import gmpy2
from gmpy2 import lcm, mpq, mpz

from verifier.core.budget import Budget, format_size
from verifier.core.certified import certified_decimal, exp_bounds, log_bounds
from verifier.core.distribution import Dist
from verifier.core.errors import InvalidArgument
from verifier.core.numbers import format_rational, open_unit, rational

__all__ = ["ScaledLog", "tight_epsilon", "truncated_geometric", "exponential_mechanism",
           "power_bounds"]


def _perfect_root(x: mpq, k: int) -> mpq | None:
    """The rational ``k``-th root of ``x > 0`` if there is one."""
    num, exact_n = gmpy2.iroot(mpz(x.numerator), k)
    den, exact_d = gmpy2.iroot(mpz(x.denominator), k)
    return mpq(num, den) if exact_n and exact_d else None


@dataclass(frozen=True, slots=True)
class ScaledLog:
    """``ln(base)/scale`` with rational ``base ≥ 1`` and a positive integer ``scale``, or ∞.

    Canonical: the scale is as small as a rational root of the base allows, so
    ``ln(4)/2`` is ``ln(2)`` and ``5·ln(2)`` is written ``ln(32)``.
    """

    base: mpq
    scale: int = 1
    infinite: bool = False

    @staticmethod
    def make(base: mpq, scale: object = 1) -> ScaledLog:
        """``ln(base)/scale`` for rational ``scale > 0``, brought to canonical form."""
        s = rational(scale, "scale")
        if s <= 0:
            raise InvalidArgument(f"scale = {format_rational(s)} must be positive")
        b = mpq(base) ** int(s.denominator)
        k = int(s.numerator)
        if b < 1:
            raise InvalidArgument(f"ln({format_rational(b)}) is negative")
        if b == 1:
            return ScaledLog(mpq(1), 1)
        for j in range(k, 1, -1):
            if k % j == 0:
                root = _perfect_root(b, j)
                if root is not None:
                    b, k = root, k // j
                    break
        return ScaledLog(b, k)

    @staticmethod
    def inf() -> ScaledLog:
        return ScaledLog(mpq(1), 1, True)

    def compare(self, other: ScaledLog) -> int:
        """Exact sign of ``self − other``: ``ln(b1)/k1 < ln(b2)/k2`` ⇔ ``b1^k2 < b2^k1``."""
        if self.infinite or other.infinite:
            return int(self.infinite) - int(other.infinite)
        a, b = self.base ** other.scale, other.base ** self.scale
        return (a > b) - (a < b)

    def __str__(self) -> str:
        if self.infinite:
            return "inf"
        if self.base == 1:
            return "0"
        text = f"ln({format_rational(self.base)})"
        return text if self.scale == 1 else f"{text}/{self.scale}"

    def approx(self, digits: int = 6) -> str:
        """A certified decimal (truncated to ``digits`` significant digits)."""
        if self.infinite:
            return "inf"
        if self.base == 1:
            return "0"
        def enclose(prec: int) -> tuple[mpq, mpq]:
            lo, hi = log_bounds(self.base, prec)
            return lo / self.scale, hi / self.scale
        return certified_decimal(enclose, digits)

    def exp_times(self, d: mpq, prec: int) -> tuple[mpq, mpq]:
        """Bounds on ``e^{ε·d} = base^{d/scale}`` (exact when that power is rational)."""
        if self.infinite:
            raise InvalidArgument("e^(ε·d) is infinite for ε = inf")
        return power_bounds(self.base, mpq(d) / self.scale, prec)


def power_bounds(base: mpq, q: mpq, prec: int) -> tuple[mpq, mpq]:
    """Rationals ``lo ≤ base^q ≤ hi`` for rational ``base > 0`` and ``q``; ``lo == hi`` when the
    power is rational."""
    q = mpq(q)
    whole = base ** int(q.numerator) if q.numerator >= 0 else 1 / base ** int(-q.numerator)
    root = _perfect_root(mpq(whole), int(q.denominator)) if q.denominator > 1 else mpq(whole)
    if root is not None:
        return root, root
    l1, l2 = log_bounds(mpq(base), prec)
    a, b = sorted((q * l1, q * l2))
    return exp_bounds(a, prec)[0], exp_bounds(b, prec)[1]


def tight_epsilon(kernel: Callable[[Hashable], Dist], domain: Sequence[Hashable],
                  distance: Callable[[Hashable, Hashable], mpq],
                  budget: Budget | None = None) -> tuple[ScaledLog, tuple]:
    """The smallest ε for which ``kernel`` is ε·d-private on ``domain``, and a witness
    ``(x, x', z)`` attaining it (seed 004: the d-privacy definition).

    For a pair ``(x, x')`` only the largest ratio ``max_z P[M(x)=z]/P[M(x')=z]`` can attain
    the maximum (``ln r/d`` increases with ``r``), so one candidate ``ln(r)/d`` is formed per
    pair; the ratios are compared as integers (each kernel row over its own common
    denominator). Work ``|X|²·|Z|``, checked against ``limits.work`` before the pairs are
    scanned.
    """
    budget = budget or Budget()
    size = len(domain)

    def check(outs: int) -> None:
        budget.require("work", size * size * max(outs, 1),
                       f"tight ε·d: |X|² × |Z| = {format_size(size * size)} × "
                       f"{format_size(outs)}", ", or use a smaller domain")
    if size:  # |Z| ≥ the outputs of one value: refuse before evaluating the others
        check(len(kernel(domain[0]).support))
    warm = getattr(kernel, "warm", None)  # user code: the laws in one round trip
    if warm is not None:
        warm(domain)
    outputs = {x: kernel(x) for x in domain}
    zs: set = set()
    for px in outputs.values():
        zs.update(px.support)
    check(len(zs))
    rows: dict = {}
    for x, px in outputs.items():
        den = reduce(lcm, (w.denominator for _, w in px.items()), mpz(1))
        rows[x] = (den, {z: (w * den).numerator for z, w in px.items()})
    best, witness = ScaledLog(mpq(1), 1), ()  # type: tuple[ScaledLog, tuple]
    for x in domain:
        dx, ax = rows[x]
        for y in domain:
            if x == y:
                continue
            d = mpq(distance(x, y))
            if d <= 0:
                raise InvalidArgument(f"distance({x!r}, {y!r}) = {format_rational(d)}: distinct "
                                      f"values need a positive distance")
            dy, ay = rows[y]
            top, bottom, arg = mpz(0), mpz(1), None  # the largest ax[z]/ay[z] so far
            for z, a in ax.items():
                b = ay.get(z)
                if b is None:
                    return ScaledLog.inf(), (x, y, z)
                if a * bottom > top * b:
                    top, bottom, arg = a, b, z
            r = mpq(top * dy, bottom * dx)
            if r > 1:
                cand = ScaledLog.make(r, d)
                if cand.compare(best) > 0:
                    best, witness = cand, (x, y, arg)
    return best, witness


def truncated_geometric(alpha: object, lo: int, hi: int) -> Callable[[int], Dist]:
    """The truncated (clamped) geometric mechanism on ``{lo..hi}`` (Ghosh et al.):
    ``x + k`` with ``P[k] ∝ α^|k|``, the mass beyond each end at that end.

    ``P[z|x] = (1−α)/(1+α)·α^|z−x|`` inside, ``α^(x−lo)/(1+α)`` at ``lo``,
    ``α^(hi−x)/(1+α)`` at ``hi``. It is ``ln(1/α)·|x − x'|``-private.
    """
    a = open_unit(alpha, "alpha")
    if hi < lo:
        raise InvalidArgument(f"the range {lo}..{hi} is empty")
    from verifier.model.mechanisms import _geometric_clamped

    def kernel(x: int) -> Dist:
        if not lo <= x <= hi:
            raise InvalidArgument(f"value {x!r} is outside {lo}..{hi}")
        return _geometric_clamped(x - lo, hi - lo, a).map(lambda j: cast(int, j) + lo)
    return kernel


def exponential_mechanism(beta: object, outputs: Sequence[Hashable],
                          score: Callable[[Hashable, Hashable], int]) -> Callable[[Hashable], Dist]:
    """``P[z|x] ∝ β^{score(x, z)}`` over the finite ``outputs`` (the exponential mechanism with
    utility ``−score`` and ``β = e^{−ε/2}`` rational); ``score`` takes non-negative integers."""
    b = open_unit(beta, "beta")
    outs = list(outputs)

    def kernel(x: Hashable) -> Dist:
        weights = {z: b ** int(score(x, z)) for z in outs}
        total = sum(weights.values(), mpq(0))
        return Dist._trusted({z: w / total for z, w in weights.items()})
    return kernel

