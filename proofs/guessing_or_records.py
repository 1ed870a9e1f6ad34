"""Seed 004 (Pankova & Laud), goals that combine attributes with OR: the exact posterior
against the sum of single-attribute precise bounds, each compared with a reference enclosure
written with ``Fraction`` (:func:`proofs.reference.power_enclosure`)."""

from __future__ import annotations

from fractions import Fraction

from gmpy2 import mpq

from verifier import Dist
from verifier.guessing.bounds import precise_bound
from verifier.guessing.metric import ScaledLog, tight_epsilon, truncated_geometric
from verifier.guessing.model import GuessModel, advantage

from . import reference as ref
from .record import Theorem

__all__ = ["GUESSING_OR_RECORDS"]

ZERO = Fraction(0)


# ------------------------------------------------------------ OR goals


def or_family():
    """Two attributes on {0..5}², each through its own truncated geometric; OR goals."""
    domain = tuple((a, b) for a in range(6) for b in range(6))
    skew = Dist({x: mpq(1 + x[0] + 2 * x[1], 306) for x in domain})
    for alpha, prior in (("99/100", Dist.uniform(domain)), ("49/50", skew)):
        geo = truncated_geometric(alpha, 0, 5)  # nearly flat: the sum of bounds below 1

        def kernel(x, geo=geo):
            return Dist.product([geo(x[0]), geo(x[1])])
        for precisions in ((mpq(1, 2), mpq(1, 2)), (mpq(1, 2), mpq(1))):
            yield GuessModel(domain, prior, kernel, precisions, "or")


def _precise_enclosure(goal: frozenset, prior: dict, distance, eps: ScaledLog,
                       powers: dict) -> tuple[Fraction, Fraction]:
    """:func:`proofs.reference.precise_enclosure` (256 bits) with each power computed once."""
    inside = [(y, w) for y, w in prior.items() if y in goal and w]
    outside = [(y, w) for y, w in prior.items() if y not in goal and w]
    s_lo = s_hi = ZERO
    for y2, w2 in outside:
        den_lo = den_hi = ZERO
        for y1, w1 in inside:
            d = ref.F(distance(y2, y1))
            if d not in powers:
                powers[d] = ref.power_enclosure(ref.F(eps.base), d / eps.scale, 256)
            lo, hi = powers[d]
            den_lo += lo * w1
            den_hi += hi * w1
        s_lo += w2 / den_hi
        s_hi += w2 / den_lo
    return 1 / (1 + s_hi), 1 / (1 + s_lo)


def or_goals(model: GuessModel) -> bool | None:
    """OR goals (seed 004, "Guessing OR of attributes": "only the simplified bound is usable,
    Pr_post(g) ≤ Pr_post(g_1) + Pr_post(g_2)"): the code's posterior of g(x) = {y : |y_1 − x_1|
    ≤ r_1 or |y_2 − x_2| ≤ r_2} equals the reference's for the goal written directly, and is
    at most the sum of the two single-attribute precise bounds. Each bound is taken for the
    goal g_k = {|y_k − x_k| ≤ r_k} with the metric max(|Δ_k|/r_k, |Δ_other|/5) (the other
    attribute's whole range is one unit, so its goal is g_k) and the tight ε·d for that
    metric: a valid bound for any metric the mechanism is private for. The bounds' certified
    enclosures hold the reference's (256 bits). Vacuous where the sum is at least 1."""
    prior = {x: ref.F(w) for x, w in model.prior.items()}
    joint: dict = {}  # the reference's P[X = x, M(X) = z], once per model
    for x, px in prior.items():
        for z, w in ref.law(model.kernel, x).items():
            joint.setdefault(z, {})[x] = px * w
    totals = {z: sum(row.values(), ZERO) for z, row in joint.items()}
    parts = []
    for k in (0, 1):
        precisions = tuple(model.precisions[j] if j == k else mpq(5) for j in (0, 1))
        single = GuessModel(model.domain, model.prior, model.kernel, precisions)
        eps, _ = tight_epsilon(model.kernel, model.domain, single.distance)
        parts.append((single, eps))
    meaningful = False
    powers: list[dict] = [{}, {}]  # e^{ε·d} enclosed once per distance, for each metric
    for row in advantage(model):
        x = row.target
        goal = frozenset(y for y in model.domain
                         if any(abs(x[j] - y[j]) <= model.precisions[j] for j in (0, 1)))
        expected = max(sum((w for y, w in row_.items() if y in goal), ZERO) / totals[z]
                       for z, row_ in joint.items() if totals[z])
        if model.goal(x) != goal or ref.F(row.posterior) != expected:
            return False
        total = ZERO
        for k, (single, eps) in enumerate(parts):
            goal_k = frozenset(y for y in model.domain if abs(x[k] - y[k]) <= model.precisions[k])
            if single.goal(x) != goal_k:
                return False
            lo, hi = precise_bound(single, x, eps).enclose(64)
            r_lo, r_hi = _precise_enclosure(goal_k, prior, single.distance, eps, powers[k])
            if not ref.F(lo) <= r_lo <= r_hi <= ref.F(hi):
                return False
            total += r_lo
        if ref.F(row.posterior) > total:
            return False
        meaningful |= total < 1
    return True if meaningful else None


GUESSING_OR_RECORDS = [
    Theorem("guess-or-goals", "seed 004, goals combining attributes (OR)",
            "with two attributes and an OR goal: the exact posterior is at most the sum of the "
            "single-attribute precise bounds", or_family, or_goals,
            compared_with="reference posterior, direct goal, reference bounds"),
]
