"""Judging a library's (ε, δ) claim against the exact tight curve of the law it describes.

For a pair of laws ``P``, ``Q`` composed ``k`` times (independent runs), plrv's exact
composition (:func:`~verifier.notions.composition.exact.compose_law`) gives the tight
``δ(ε) = Σ max(0, P − e^ε·Q)`` over the product law (Meiser and Mohammadi, "Tight on Budget?
Tight Bounds for r-Fold Approximate Differential Privacy", 2018) and the tight ``ε(δ)``. A
claim ``(ε_c, δ_c)`` holds exactly when ``δ(ε_c) ≤ δ_c`` — equivalently ``ε(δ_c) ≤ ε_c``, as
``δ(·)`` is continuous and non-increasing — and ``δ(ε_c)`` at a double ``ε_c`` (a rational
number of nats) is ``A − C·e^{ε_c}``, compared with ``δ_c`` by certified intervals
(:class:`~verifier.core.delta.Delta`).

When the law is only bracketed — its parameter is a double ``d`` with ``e^d`` irrational, and
the laws at rationals ``q_lo < e^d < q_hi`` bound its curve from below and above (the
curve is monotone in the parameter) — the verdict is ``sound`` only if the upper curve meets
the claim and ``unsound`` only if the lower one fails it; the tight values are
:class:`~verifier.audit.case.Enclosure`\\ s.

A claimed δ that is negative never holds: ``unsound``. A negative ε holds for no mechanism
when ``e^ε < 1 − δ`` (the whole output set is an event): ``unsound`` then, decided by a
certified bound, and ``unknown`` otherwise. A NaN is ``unknown``. An infinite ε or a δ ≥ 1
is vacuous, hence ``sound``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gmpy2 import mpq

from verifier.audit.case import AuditCase, AuditRow, Enclosure, Value
from verifier.core.binary64 import F64
from verifier.core.budget import Budget, format_size
from verifier.core.certified import exp_bounds, log_bounds
from verifier.core.distribution import Dist
from verifier.core.epsilon import Epsilon
from verifier.core.errors import BudgetExceeded, Undecided
from verifier.notions.composition.exact import LossDistribution, compose_law
from verifier.notions.composition.polynomial import plan_polynomial
from verifier.notions.loss import LossLaw

__all__ = ["Curve", "curve", "judge", "Claim", "read_double"]

Claim = F64 | Epsilon | mpq | float | None


@dataclass(frozen=True, slots=True)
class Curve:
    """The tight curve of a k-fold composition: one exact law, or two bracketing it."""

    lower: LossLaw
    upper: LossLaw
    route: str

    @property
    def exact(self) -> bool:
        return self.lower is self.upper


# bytes held per byte of one composed law's coefficients (both sides, the running sums that
# answer δ(ε) and ε(δ), the intermediate products): measured 8 to 16 on k-fold randomized
# response at 128-bit truths (k = 1000 … 3000: 0.6 to 2.8 GB for the two laws of a bracket;
# k = 10 000 went past 9.5 GB)
_HELD_PER_BYTE = 10


def _law(p: Dist, q: Dist, k: int, budget: Budget) -> tuple[LossLaw, str]:
    return compose_law([LossDistribution.of(p, q)] * k, budget=budget)


def _memory(pairs: Sequence[tuple[Dist, Dist]], k: int, budget: Budget) -> None:
    """Refuse (``limits.memory``, naming ``compose``) a composition whose exact coefficients
    would not fit: ``terms × bits`` of the polynomial route's plan, for each law computed."""
    need = 0
    for p, q in pairs:
        plan = plan_polynomial([LossDistribution.of(p, q)] * k)
        if plan is not None:
            need += _HELD_PER_BYTE * plan.terms * plan.bits // 8
    if need > budget.max_memory:
        raise BudgetExceeded(f"compose = {k}: the exact composition would hold about "
                             f"{format_size(need)} bytes of exact numbers, more than "
                             f"limits.memory = {format_size(budget.max_memory)}; compose fewer "
                             f"runs", argument="compose", value=k)


def curve(pairs: Sequence[tuple[Dist, Dist]], k: int, budget: Budget | None = None) -> Curve:
    """The curve of ``k`` runs on the pair ``pairs[0]`` (exact), or — given two pairs, the
    laws at the parameters below and above the true one — the bracket they make. A
    composition whose exact numbers would exceed ``limits.memory`` is refused first."""
    budget = budget or Budget()
    _memory(pairs, k, budget)
    lo, route = _law(*pairs[0], k, budget)
    if len(pairs) == 1:
        return Curve(lo, lo, route)
    hi, _ = _law(*pairs[1], k, budget)
    return Curve(lo, hi, route)


def read_double(value: float) -> F64 | float:
    """A double the library returned, as an exact F64 (a NaN or infinity stays a float)."""
    # float ok: the library's own double, read exactly by F64 (non-finite ones stay as reasons)
    return F64(float(value)) if math.isfinite(value) else float(value)  # float ok: as above


def _real(x: Claim | Value | None) -> mpq | None:
    """A rational at most 2^-200 (relative) from the value, for the displayed ratio only."""
    if isinstance(x, F64):
        return x.exact
    if isinstance(x, Enclosure):
        return _real(x.lower)
    if isinstance(x, Epsilon) and not x.infinite:
        if x.nats is not None:
            return x.nats
        assert x.base is not None
        return log_bounds(x.base, 200)[0]
    return None


def ratio(claim: Claim, tight: Value | None) -> str | None:
    """claim/tight ε as an approximate decimal (display only); near 1 as ``1 ± gap``."""
    a, b = _real(claim), _real(tight)
    if a is None or b is None or b == 0:
        return None
    r = a / b
    gap = r - 1
    if gap != 0 and abs(gap) < mpq(1, 10**4):
        return f"≈ 1 {'+' if gap > 0 else '-'} {_float(abs(gap)):.3g}"
    return f"≈ {_float(r):.6g}"


def _float(x: mpq) -> float:
    return int(x.numerator) / int(x.denominator)


def _nats(claim: Claim) -> tuple[Epsilon | None, str | None]:
    """The claimed ε as an Epsilon, or the reason it is not one (negative, NaN)."""
    if claim is None:
        return None, "the library gave no ε"
    if isinstance(claim, Epsilon):
        return claim, None
    x = claim.double if isinstance(claim, F64) else claim
    if isinstance(x, float) and math.isnan(x):
        return None, "the library returned ε = NaN"
    if isinstance(x, float) and math.isinf(x):
        return (Epsilon.INF, None) if x > 0 else (None, "the library returned ε = -inf")
    exact = claim.exact if isinstance(claim, F64) else mpq(claim)
    if exact < 0:
        return None, f"the library returned a negative ε = {x!r}: not a privacy guarantee"
    return Epsilon.of_nats(exact), None


def _delta(claim: Claim) -> tuple[mpq | None, str | None]:
    if claim is None:
        return None, "the library gave no δ"
    if isinstance(claim, Epsilon):
        raise TypeError("a δ is not an Epsilon")
    x = claim.double if isinstance(claim, F64) else claim
    if isinstance(x, float) and not math.isfinite(x):
        return None, f"the library returned δ = {x!r}"
    exact = claim.exact if isinstance(claim, F64) else mpq(claim)
    if exact < 0:
        return None, f"the library returned a negative δ = {x!r}: not a privacy guarantee"
    return exact, None


def _negative(claim_epsilon: Claim, delta: mpq | None, why_d: str | None) -> str:
    """The verdict on a claim with a negative ε or δ. A negative δ never holds (every tight
    δ is ≥ 0). A negative ε holds only if ``1 ≤ e^ε + δ`` (the whole output set is an event:
    ``1 ≤ e^ε·1 + δ``), so it fails for every mechanism when ``e^ε < 1 − δ`` — decided with a
    certified upper bound on ``e^ε``; otherwise the verdict is left unknown."""
    if why_d is not None and "negative" in why_d:
        return "unsound"
    if delta is None:
        return "unknown"
    x = claim_epsilon.exact if isinstance(claim_epsilon, F64) else \
        claim_epsilon if isinstance(claim_epsilon, type(mpq(0))) else None
    if x is None and isinstance(claim_epsilon, float) and math.isfinite(claim_epsilon):
        x = mpq(claim_epsilon)
    if x is None:
        return "unknown"
    return "unsound" if exp_bounds(x, 128)[1] < 1 - delta else "unknown"


def judge(case: AuditCase, claim_epsilon: Claim, claim_delta: Claim, c: Curve,
          witness: Mapping[str, object], notes: Sequence[str] = ()) -> AuditRow:
    """The row of a claim against the curve (see the module for the rule)."""
    eps, why_e = _nats(claim_epsilon)
    delta, why_d = _delta(claim_delta)
    kept_e: Value | None = claim_epsilon if not isinstance(claim_epsilon, float) else None
    kept_d: Value | None = claim_delta if not isinstance(claim_delta, float) else None
    tight_d: Value | None = None
    tight_e: Value | None = None
    exactness = "exact" if c.exact else "enclosure"
    if delta is not None and delta <= 1:
        lo, hi = c.lower.epsilon(delta), c.upper.epsilon(delta)
        tight_e = lo if c.exact else Enclosure(lo, hi)
    if eps is not None:
        dlo, dhi = c.lower.delta(eps), c.upper.delta(eps)
        tight_d = dlo if c.exact else Enclosure(dlo, dhi)
    reasons = [r for r in (why_e, why_d) if r is not None]
    negative = [r for r in reasons if "negative" in r]
    extra = [*notes]
    if isinstance(claim_epsilon, float) or isinstance(claim_delta, float):
        extra.append(f"the library returned a non-finite value: ε = {claim_epsilon!r}, "
                     f"δ = {claim_delta!r}")
    if negative:
        verdict = _negative(claim_epsilon, delta, why_d)
        extra.extend(negative)
    elif reasons:
        verdict = "unknown"
        extra.extend(reasons)
    elif eps is not None and eps.infinite or delta is not None and delta >= 1:
        verdict = "sound"
        extra.append("the claim is vacuous (ε = inf or δ ≥ 1)")
    else:
        assert eps is not None and delta is not None
        try:
            if c.upper.delta(eps).compare(delta) <= 0:
                verdict = "sound"
            elif c.lower.delta(eps).compare(delta) > 0:
                verdict = "unsound"
            else:
                verdict = "unknown"
                extra.append("the enclosure of the tight δ contains the claimed δ")
        except Undecided as exc:
            verdict = "unknown"
            extra.append(f"undecided: {exc}")
    return AuditRow(case, kept_e, kept_d, tight_d, tight_e, verdict,
                    ratio(claim_epsilon, tight_e), exactness, dict(witness), tuple(extra))
