"""The other side of the guessing advantage: how far an output can *lower* the probability of
a correct guess (seed 004, "Analogously for Pr_pre(g(x)) − Pr_post(g(x)) ≤ η").

For a target ``x`` with goal ``g = g(x)`` and prior ``p = π(g)``::

    η⁻(x) = sup_{Y ⊆ Z} ( P[X ∈ g] − P[X ∈ g | M(X) ∈ Y] ) = P[X ∈ g] − min_z P[X ∈ g | M(X) = z]

(``P[g | Y]`` averages ``P[g | z]`` over ``z ∈ Y``, so a single output attains the infimum).
The mechanism being ε·d-private, ``M(z|x') ≥ e^{−ε·d(x'',x')}·M(z|x'')`` turns Bayes' formula
into the lower simplified bound (``R`` the diameter)::

    P[g | z] ≥ 1 / (1 + e^{ε·R}·π(X∖g)/π(g))

and inverting it for ``p − P_post ≤ η`` gives ``ε = ln( p(1−p+η) / ((1−p)(p−η)) ) / R``
(any ε when ``η ≥ p``).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from gmpy2 import mpq

from verifier.core.certified import Certified, exp_bounds
from verifier.core.numbers import open_unit, positive
from verifier.guessing.metric import ScaledLog
from verifier.guessing.model import GuessModel, TargetAdvantage, advantage

__all__ = ["least_posterior", "simplified_lower_bound", "converse_epsilon"]


def least_posterior(model: GuessModel, targets: Sequence[Hashable] | None = None,
                    joint: dict | None = None) -> list[TargetAdvantage]:
    """``min_z P[X ∈ g(x) | M(X) = z]`` for every target, exactly, with the output attaining
    it (``prior − posterior`` is the loss η⁻; :attr:`TargetAdvantage.advantage` is −η⁻)."""
    return advantage(model, targets, joint, least=True)


def _exp_times(eps: ScaledLog, d: mpq, prec: int) -> tuple[mpq, mpq]:
    """Enclosure of ``e^{ε·d}``."""
    if d == 0:
        return mpq(1), mpq(1)
    return eps.exp_times(d, prec) if isinstance(eps, ScaledLog) else \
        exp_bounds(eps.nats * d, prec)


def simplified_lower_bound(model: GuessModel, x: Hashable, eps: ScaledLog) -> Certified:
    """``1/(1 + e^{ε·R}·π(X∖g)/π(g))``: no output of an ε·d-private mechanism brings the
    probability of a correct guess below it."""
    p = sum((model.prior[y] for y in model.goal(x)), mpq(0))
    if p == 0 or p == 1:
        return Certified.exact(p)
    if eps.infinite:
        return Certified.exact(mpq(0))
    ratio, R = (1 - p) / p, model.diameter()

    def enclose(prec: int) -> tuple[mpq, mpq]:
        lo, hi = _exp_times(eps, R, prec)
        return 1 / (1 + hi * ratio), 1 / (1 + lo * ratio)
    return Certified(enclose)


def converse_epsilon(p: object, eta: object, R: object) -> ScaledLog:
    """The largest ε whose lower simplified bound keeps ``p − P_post`` at most η:
    ``ln( p(1−p+η) / ((1−p)(p−η)) ) / R``; ``inf`` when ``η ≥ p`` (the posterior cannot fall
    below 0)."""
    p, eta, R = open_unit(p, "prior"), open_unit(eta, "eta"), positive(R, "diameter")
    if eta >= p:
        return ScaledLog.inf()
    return ScaledLog.make(p * (1 - p + eta) / ((1 - p) * (p - eta)), R)
