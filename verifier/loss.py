"""The privacy loss random variable, kept as exact likelihood ratios, and its δ(ε) profile.

For two output distributions ``P`` (the record is ``a``) and ``Q`` (it is ``b``) the privacy
loss of an output is ``L(O) = ln(P(O)/Q(O))`` (seed 003, Definition 4), with ``L = +∞`` when
only ``Q(O) = 0`` and ``L = −∞`` when ``P(O) = 0``. We never take the log: the ratio
``r = P(O)/Q(O)`` is stored exactly, as is its probability under ``P``.

Tight δ at ε (seed 003, Lemma 1; REFERENCE.md §3), with ``E = e^ε``::

    δ(ε) = E_{O~P}[max(0, 1 − E/r(O))] = P[r = ∞] + Σ_{r > E} w_r·(1 − E/r)

where ``w_r`` is the ``P``-mass of the outputs with ratio ``r``. On the piece of ``E`` where the
set ``{r > E}`` is fixed this is ``A − C·E`` with ``A = P[r = ∞] + Σ w_r`` and ``C = Σ w_r/r``:
a decreasing, convex, piecewise-linear function with breakpoints at the finite ratios, so the
tight ε for a given δ is ``ln((A − δ)/C)`` on the piece that holds the answer.

The same form serves the partial-knowledge notions: APK and PPK are expectations of
``max(0, 1 − E/r)`` under other weights (seed 003, Definitions 6 and 7), so they are
:class:`PrivacyLoss` values too.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from enum import Enum

from gmpy2 import mpq

from .distribution import Dist
from .errors import InvalidArgument
from .exact import Delta, Epsilon, compare_exp, format_rational, probability

__all__ = ["LossKind", "Loss", "PrivacyLoss", "output_losses", "privacy_loss",
           "worst_delta", "worst_epsilon"]


class LossKind(Enum):
    FINITE = "finite"
    PLUS_INF = "+inf"
    MINUS_INF = "-inf"
    UNDEFINED = "0 (convention)"  # seed 003 Definition 5, condition 1: L = 0


@dataclass(frozen=True, slots=True)
class Loss:
    """One value of the privacy loss: ``ln(ratio)`` for a finite ratio, or a tag."""

    kind: LossKind
    ratio: mpq | None = None

    @staticmethod
    def of(p: mpq, q: mpq) -> Loss:
        """The loss of an output with probability ``p`` under ``a`` and ``q`` under ``b``."""
        if p == 0:
            return Loss(LossKind.MINUS_INF)
        if q == 0:
            return Loss(LossKind.PLUS_INF)
        return Loss(LossKind.FINITE, p / q)

    def exceeds(self, eps: Epsilon) -> bool:
        """Whether the loss is ``> ε``: the output contributes to δ(ε)."""
        if self.kind is LossKind.PLUS_INF:
            return True
        if self.kind is LossKind.FINITE:
            return compare_exp(self.ratio, eps) > 0
        return False

    def __str__(self) -> str:
        if self.kind is LossKind.FINITE:
            return "0" if self.ratio == 1 else f"ln({format_rational(self.ratio)})"
        return self.kind.value


@dataclass(frozen=True, slots=True)
class PrivacyLoss:
    """The law of the likelihood ratio under the first hypothesis.

    ``atoms`` are ``(ratio, mass)`` pairs with finite ratio ``> 0``, sorted by ratio, merged,
    masses ``> 0``; ``infinite`` is the mass where the ratio is ``+∞``. Outputs with ratio 0
    (``L = −∞``) have mass 0 under the first hypothesis and never contribute.
    """

    atoms: tuple[tuple[mpq, mpq], ...]
    infinite: mpq

    @staticmethod
    def from_pairs(pairs: Iterable[tuple[Loss, mpq]]) -> PrivacyLoss:
        """Collect ``(loss, mass)`` pairs; an undefined loss (convention 1) counts as ratio 1."""
        merged: dict[mpq, mpq] = {}
        infinite = mpq(0)
        for loss, mass in pairs:
            if mass == 0:
                continue
            if loss.kind is LossKind.PLUS_INF:
                infinite += mass
            elif loss.kind is LossKind.FINITE:
                merged[loss.ratio] = merged.get(loss.ratio, mpq(0)) + mass
            elif loss.kind is LossKind.UNDEFINED:
                merged[mpq(1)] = merged.get(mpq(1), mpq(0)) + mass
        return PrivacyLoss(tuple(sorted(merged.items())), infinite)

    # -- δ at ε -------------------------------------------------------------
    def _first_above(self, eps: Epsilon) -> int:
        """Index of the first atom whose ratio exceeds ``e^ε`` (atoms are sorted)."""
        lo, hi = 0, len(self.atoms)
        while lo < hi:
            mid = (lo + hi) // 2
            if compare_exp(self.atoms[mid][0], eps) > 0:
                hi = mid
            else:
                lo = mid + 1
        return lo

    def delta(self, eps: Epsilon) -> Delta:
        """Tight δ at ε: ``P[r = ∞] + Σ_{r > E} w_r·(1 − E/r)``, exact."""
        if eps.infinite:
            return Delta.make(self.infinite, mpq(0), eps)
        above = self.atoms[self._first_above(eps):]
        a = self.infinite + sum((w for _, w in above), mpq(0))
        c = sum((w / r for r, w in above), mpq(0))
        return Delta.make(a, c, eps)

    # -- ε at δ -------------------------------------------------------------
    def epsilon(self, delta: object) -> Epsilon:
        """Tight ε at δ: the least ε ≥ 0 with δ(ε) ≤ δ, as ``ln`` of a rational, 0 or ∞."""
        d = probability(delta, "delta")
        if self.infinite > d:
            return Epsilon.INF
        # walk the breakpoints from the top, keeping A, C over the ratios above the current one
        a, c = self.infinite, mpq(0)
        for r, w in reversed(self.atoms):
            if r <= 1:
                break
            if a - c * r > d:  # δ(r) > d: the answer lies above r, on the piece {ratios > r}
                return Epsilon.log((a - d) / c)
            a, c = a + w, c + w / r
        if a - c <= d:  # δ(E = 1) ≤ d
            return Epsilon.ZERO
        return Epsilon.log((a - d) / c)

    # -- the whole curve ------------------------------------------------------
    def profile(self) -> tuple[tuple[mpq, mpq], ...]:
        """Breakpoints ``(E, δ)`` of δ as a function of ``E = e^ε ≥ 1``.

        δ is linear between consecutive points and constant ``P[r = ∞]`` after the last one.
        """
        points = []
        a, c = self.infinite, mpq(0)
        for r, w in reversed(self.atoms):
            if r <= 1:
                break
            points.append((r, a - c * r))
            a, c = a + w, c + w / r
        points.append((mpq(1), a - c))
        return tuple(reversed(points))

    def scaled(self, weight: mpq) -> PrivacyLoss:
        return PrivacyLoss(tuple((r, w * weight) for r, w in self.atoms), self.infinite * weight)

    @staticmethod
    def mixture(parts: Iterable[tuple[mpq, PrivacyLoss]]) -> PrivacyLoss:
        """``Σ_k weight_k · loss_k``: the law of the ratio when the part is drawn first."""
        merged: dict[mpq, mpq] = {}
        infinite = mpq(0)
        for weight, part in parts:
            infinite += weight * part.infinite
            for r, w in part.atoms:
                merged[r] = merged.get(r, mpq(0)) + weight * w
        return PrivacyLoss(tuple(sorted((r, w) for r, w in merged.items() if w)), infinite)


def output_losses(p: Dist, q: Dist) -> list[tuple[Hashable, mpq, mpq, Loss]]:
    """For every output of ``P`` or ``Q``: ``(output, P(O), Q(O), L(O))``."""
    outputs = list(p.support) + [o for o in q.support if o not in p]
    return [(o, p[o], q[o], Loss.of(p[o], q[o])) for o in outputs]


def privacy_loss(p: Dist, q: Dist) -> PrivacyLoss:
    """The privacy loss of ``P`` against ``Q`` (seed 003, Definition 4)."""
    return PrivacyLoss.from_pairs((loss, pm) for _, pm, _, loss in output_losses(p, q))


def worst_delta(deltas: Iterable[Delta]) -> Delta:
    """The largest of several δ at the same ε (certified comparison)."""
    best = None
    for d in deltas:
        if best is None or d.compare(best) > 0:
            best = d
    if best is None:
        raise InvalidArgument("no δ to compare: the family of cases is empty")
    return best


def worst_epsilon(epsilons: Iterable[Epsilon]) -> Epsilon:
    """The largest of several ε."""
    best = None
    for e in epsilons:
        if best is None or e.compare(best) > 0:
            best = e
    if best is None:
        raise InvalidArgument("no ε to compare: the family of cases is empty")
    return best
