"""The zCDP parameter of a pair of finite laws, ``ρ* = sup_{α>1} D_α(P‖Q)/α``, enclosed.

ρ-zCDP (Bun and Steinke 2016, "Concentrated Differential Privacy: Simplifications,
Extensions, and Lower Bounds", Definition 1.1) asks ``D_α(P‖Q) ≤ ρ·α`` for every real
``α > 1``, so its tight parameter for a pair is ``g* = sup_{α>1} g(α)`` with
``g(α) = D_α/α``. Branch and bound over ``α``, with certified values only
(:func:`~verifier.notions.renyi.divergence.divergence_bounds`):

* **upper bounds** — ``D_α`` is nondecreasing in ``α`` (van Erven and Harremoës 2014,
  Theorem 3), so on ``[a, b]``: ``g(α) ≤ D_b/a``; and for ``α ≥ A``: ``g(α) ≤ D_∞/A``;
* **lower bounds** — ``g`` at the points evaluated, and ``KL(P‖Q)``, the limit of ``g`` as
  ``α → 1`` (Theorem 5 there).

The interval with the largest upper bound is split until the enclosure ``[lo, hi]`` of
``g*`` decides the claim ``g* ≤ ρ`` and is narrow, or the evaluation cap is reached: then
the claim is undecided (never guessed). A refutation names an order ``α`` at which
``D_α > ρ·α`` is certified.

>>> from verifier.core.distribution import Dist
>>> from verifier.notions.renyi.divergence import terms_of
>>> t = terms_of(Dist({0: "3/4", 1: "1/4"}), Dist({0: "1/4", 1: "3/4"}))
>>> b = sup_ratio(t, mpq(3, 5))  # randomized response 3/4: ρ* = KL = ln(3)/2 ≈ 0.5493
>>> b.holds, b.describe_at(), mpq(5493, 10**4) < b.lo <= b.hi < mpq(5494, 10**4)
(True, 'α → 1 (the KL divergence)', True)
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass

from gmpy2 import mpq

from verifier.core.numbers import format_rational
from verifier.notions.renyi.divergence import (
    Terms,
    _log_table,
    divergence_bounds,
    kl_bounds,
    max_log_ratio,
)

__all__ = ["SupBound", "sup_ratio", "sup_ratio_sum", "MAX_EVALUATIONS", "TOLERANCE"]

MAX_EVALUATIONS = 3000  # orders evaluated per pair before the claim is left undecided
TOLERANCE = mpq(1, 10**6)  # relative width at which a decided enclosure is narrow enough
_PREC = 192


@dataclass(frozen=True)
class SupBound:
    """``lo ≤ sup_{α>1} D_α/α ≤ hi``, certified. ``at`` is the order whose value gave
    ``lo`` (``None``: the limit ``α → 1``, where ``D_α → KL``); ``holds`` is the verdict on
    the target ``ρ`` (``None``: undecided, or no target); ``infinite``: ``D_α = +∞``."""

    lo: mpq
    hi: mpq
    at: mpq | None
    holds: bool | None
    evaluations: int
    infinite: bool = False

    def describe_at(self) -> str:
        return "α → 1 (the KL divergence)" if self.at is None else \
            f"α = {format_rational(self.at)}"


def sup_ratio(t: Terms | None, rho: mpq | None, tolerance: mpq = TOLERANCE,
              max_evaluations: int = MAX_EVALUATIONS) -> SupBound:
    """Enclose ``sup_{α>1} D_α(P‖Q)/α`` for the pair ``t``
    (:func:`~verifier.notions.renyi.divergence.terms_of`) and decide ``≤ rho``."""
    return sup_ratio_sum(((1, t),), rho, tolerance, max_evaluations)


def sup_ratio_sum(parts: Sequence[tuple[int, Terms | None]], rho: mpq | None,
                  tolerance: mpq = TOLERANCE, max_evaluations: int = MAX_EVALUATIONS,
                  floor: mpq | None = None) -> SupBound:
    """Enclose ``sup_{α>1} Σ_j m_j·D_α(P_j‖Q_j)/α`` for ``parts`` ``(m_j, t_j)``: the zCDP
    parameter of a pair under the independent composition of ``m_j`` runs of each part (Rényi
    divergences of product laws add; Mironov 2017, Proposition 1). A sum of nondecreasing
    functions of ``α`` is nondecreasing, its limits at 1 and ∞ are the sums of the parts'
    (KL and ``D_∞``), so the bounds above hold for the sum term by term.

    ``floor``: a certified lower bound on another pair's value. The search stops once this
    pair's upper bound is at most ``floor``: it cannot be the largest, and its verdict is
    not needed (an upper bound above ``rho`` then means ``floor > rho``, a refutation)."""
    if any(t is None for m, t in parts if m):
        return SupBound(mpq(0), mpq(0), mpq(2), False if rho is not None else None, 0, True)
    live = [(mpq(m), t) for m, t in parts if m and t is not None and any(r != 1 for _, r in t)]
    if not live:  # P = Q in every part: every divergence is 0
        return SupBound(mpq(0), mpq(0), mpq(2), None if rho is None else True, 0)
    tables = [(m, t, _log_table(t, _PREC)) for m, t in live]

    def d_bounds(alpha: mpq) -> tuple[mpq, mpq]:
        lo = hi = mpq(0)
        for m, t, logs in tables:
            a, b = divergence_bounds(t, alpha, _PREC, logs)
            lo, hi = lo + m * a, hi + m * b
        return lo, hi

    def g(alpha: mpq) -> tuple[mpq, mpq]:
        lo, hi = d_bounds(alpha)
        return lo / alpha, hi / alpha

    lo, at = sum((m * kl_bounds(t, _PREC)[0] for m, t, _ in tables), mpq(0)), None
    two_lo, _ = g(mpq(2))
    if two_lo > lo:
        lo, at = two_lo, mpq(2)
    evaluations = 1
    d_inf = sum((m * max_log_ratio(t, _PREC)[1] for m, t, _ in tables), mpq(0))
    top = mpq(max(2, -(-d_inf // lo))) if lo > 0 else mpq(2 ** 20)
    tail = d_inf / top  # g(α) ≤ D_∞/α ≤ tail for α ≥ top
    d_top = min(d_bounds(top)[1], d_inf)  # D_α ≤ D_∞ at every order
    heap: list[tuple[mpq, mpq, mpq, mpq]] = [(-d_top, mpq(1), top, d_top)]  # (−upper, a, b, D_b)

    def upper() -> mpq:
        return max(lo, tail, -heap[0][0] if heap else lo)

    def verdict() -> bool | None:
        if rho is None:
            return None
        return False if lo > rho else True if upper() <= rho else None

    while True:
        hi, holds = upper(), verdict()
        narrow = hi - lo <= tolerance * hi
        if (narrow and (rho is None or holds is not None)) or evaluations >= max_evaluations \
                or not heap or (floor is not None and hi <= floor):
            return SupBound(lo, hi, at, holds, evaluations)
        _, a, b, d_b = heapq.heappop(heap)
        m = (a + b) / 2
        m_lo, m_hi = g(m)
        evaluations += 1
        if m_lo > lo:
            lo, at = m_lo, m
        d_m = min(m_hi * m, d_inf)
        for left, right, d_right in ((a, m, d_m), (m, b, d_b)):
            bound = d_right / left
            if bound > lo:
                heapq.heappush(heap, (-bound, left, right, d_right))
