"""The upper envelope ``F(E) = max_k δ_k(E)`` of convex piecewise-linear curves, exact, found
by querying ``F`` at O(#pieces of F) points instead of building every ``δ_k`` in full.

Each ``δ_k(E) = P_k[r = ∞] + Σ_{r > E} (P_k(O) − E·Q_k(O))`` (seed 003, Lemma 1) is convex,
non-increasing and linear between its ratios, so ``F`` is too (a maximum of convex functions).
A *support line* of ``F`` at ``x`` is the line of the piece of ``F`` that starts at ``x`` (the
line, among the cases largest at ``x``, that falls slowest); it lies below ``F`` everywhere.

Sandwich (the classical construction of a convex function's pieces from support lines): given
the support lines ``L`` at ``lo`` and ``L'`` at ``hi``, different, let ``x`` be where they meet
(``lo < x ≤ hi``). If ``F(x) = L(x)``, convexity puts ``F`` below the chords from ``lo`` to
``x`` and from ``x`` to ``hi``, which are ``L`` and ``L'``, while ``F`` lies above both lines:
``F = L`` on ``[lo, x)`` and ``F = L'`` on ``[x, hi)``. Otherwise ``F(x) > L(x)``, the support line
at ``x`` is a third line of ``F``, and both halves are refined. Every query that does not close
an interval finds a new line of ``F``, so the queries are at most about twice its pieces.
Beyond the largest ratio every ``δ_k`` is constant, and so is ``F``.

Everything is exact (rationals); the meeting points are rational, so every breakpoint is.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence

from gmpy2 import mpq

__all__ = ["LazyCurve", "upper_envelope"]

_ONE = mpq(1)


class LazyCurve:
    """One case's ``δ(E)`` for ``E ≥ 1``, queried where needed: its sorted ratios ``> 1`` (its
    breakpoints) and the exact ``δ`` at a rational ``E`` (``delta_at``), memoised."""

    __slots__ = ("ratios", "_delta_at", "_memo")

    def __init__(self, ratios: Sequence[mpq], delta_at: Callable[[mpq], mpq]):
        self.ratios = sorted(ratios)
        self._delta_at = delta_at
        self._memo: dict[mpq, mpq] = {}

    def at(self, x: mpq) -> mpq:
        value = self._memo.get(x)
        if value is None:
            value = self._memo[x] = mpq(self._delta_at(x))
        return value

    def line(self, x: mpq) -> tuple[mpq, mpq]:
        """``(A, C)`` with ``δ = A − C·E`` on the piece that starts at or before ``x`` and
        holds ``x`` (after the last ratio: the constant ``δ``, ``C = 0``)."""
        j = bisect_right(self.ratios, x)
        x0 = self.ratios[j - 1] if j else _ONE
        y0 = self.at(x0)
        if j == len(self.ratios):
            return y0, mpq(0)
        x1 = self.ratios[j]
        c = (y0 - self.at(x1)) / (x1 - x0)
        return y0 + c * x0, c


def upper_envelope(curves: Sequence[LazyCurve]) -> list[tuple[mpq, mpq, mpq]]:
    """The pieces ``(start, A, C)`` of ``max_k δ_k(E)`` on ``E ≥ 1`` in ascending order (the
    first start 1, the last ``C = 0``; adjacent pieces may share a line, for the caller's
    canonical form to merge). With no curves δ = 0."""
    if not curves:
        return [(_ONE, mpq(0), mpq(0))]

    def value(x: mpq) -> mpq:
        return max(c.at(x) for c in curves)

    def support(x: mpq) -> tuple[mpq, mpq]:
        best = value(x)
        return min((c.line(x) for c in curves if c.at(x) == best), key=lambda ln: ln[1])

    last = max((c.ratios[-1] for c in curves if c.ratios), default=_ONE)
    out: list[tuple[mpq, mpq, mpq]] = []
    stack = [(_ONE, support(_ONE), last, support(last))]
    while stack:  # the leftmost interval is on top: pieces come out in order
        lo, (a, c), hi, (a2, c2) = stack.pop()
        if (a, c) == (a2, c2):
            out.append((lo, a, c))
            continue
        assert c != c2, "two support lines of a convex function with one slope are one line"
        x = (a - a2) / (c - c2)
        if value(x) == a - c * x:
            out.extend([(lo, a, c), (x, a2, c2)])
        else:
            mid = support(x)
            stack.append((x, mid, hi, (a2, c2)))
            stack.append((lo, (a, c), x, mid))
    return out
