"""The ``plrv guess`` report: per-target advantage, bounds and inversions, as typed values.

The claim a guessing report decides (seed 004): at the ε used, every target's exact posterior
lies below the precise bound and the precise bound below the simplified one
(``posterior ≤ precise ≤ simplified``). A target advantage η asks a question instead: which ε
keeps the advantage at most η (the inversion).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass

from gmpy2 import mpq

from verifier.core.numbers import rational
from verifier.guessing.bounds import (
    Certified,
    check_eta,
    max_advantage,
    precise_bound,
    precise_epsilon,
    simplified_bound,
    simplified_epsilon,
    worst_prior_for_eta,
)
from verifier.guessing.metric import (
    ScaledLog,
    tight_epsilon,
)
from verifier.guessing.model import GuessModel, advantage, vulnerability
from verifier.guessing.problem import GuessProblem, precise_inversion

__all__ = ["guess_report", "eta_report", "TargetRow", "Inversion", "GuessReport", "EtaReport"]


@dataclass(frozen=True)
class TargetRow:
    target: Hashable
    prior: mpq
    posterior: mpq
    output: Hashable
    precise: Certified
    simplified: Certified

    @property
    def advantage(self) -> mpq:
        return self.posterior - self.prior

    def order(self) -> bool | None:
        """``posterior ≤ precise ≤ simplified`` (None if a comparison stays undecided)."""
        a, b = self.precise.compare(self.posterior), self.simplified.compare(self.precise)
        if a is None or b is None:
            return None
        return a >= 0 and b >= 0


def _bounds(model: GuessModel, x, eps_per_attr: list) -> tuple[Certified, Certified]:
    """The bounds for target ``x``; OR goals add the single-attribute bounds (seed 004)."""
    if model.mode == "and":
        return precise_bound(model, x, eps_per_attr[0]), simplified_bound(model, x, eps_per_attr[0])
    parts = [(precise_bound(model, x, e, k), simplified_bound(model, x, e, k))
             for k, e in enumerate(eps_per_attr)]

    def total(i: int) -> Certified:
        def enclose(prec: int) -> tuple[mpq, mpq]:
            lo, hi = (min(mpq(1), sum((p[i].enclose(prec)[j] for p in parts), mpq(0)))
                      for j in (0, 1))
            return lo, hi
        return Certified(enclose)
    return total(0), total(1)


@dataclass(frozen=True)
class Inversion:
    """ε for a target advantage η at the worst target: the simplified inversion exactly, the
    precise one as a certified interval (AND goals, or one attribute; None otherwise)."""

    eta: mpq
    target: Hashable
    simplified: ScaledLog
    precise: tuple[ScaledLog, ScaledLog] | None


@dataclass(frozen=True)
class GuessReport:
    """Everything ``plrv guess SPEC`` shows: tight ε·d per attribute (with the pair attaining
    it), the ε used, whether the mechanism is ε·d-private there (None: not compared), one row
    per target, the worst target, the best Bayesian guess before and after, the diameters, and
    the inversion when η is given."""

    tight: tuple[tuple[ScaledLog, tuple], ...]
    epsilon: tuple
    private_at_epsilon: bool | None
    rows: tuple[TargetRow, ...]
    worst: TargetRow
    vulnerability: tuple[mpq, mpq]
    diameter: tuple[mpq, ...]
    inversion: Inversion | None = None

    @property
    def bounds_hold(self) -> bool | None:
        """Every row has ``posterior ≤ precise ≤ simplified`` (None: some order undecided)."""
        orders = [r.order() for r in self.rows]
        if False in orders:
            return False
        return None if None in orders else True

    @property
    def holds(self) -> bool | None:
        """The claim of a guessing report: the bounds hold at the ε used (:attr:`bounds_hold`);
        η, when given, asks for an ε (:attr:`inversion`) and is not part of the claim."""
        return self.bounds_hold

    def to_dict(self) -> dict:
        """This report as ``plrv guess SPEC --json`` prints it."""
        from verifier.guessing.serial import guess_json

        return guess_json(self)


@dataclass(frozen=True)
class EtaReport:
    """``plrv guess --eta --diameter``: the ε whose simplified bound keeps the advantage at
    most η for the prior (default: the worst prior ``(1−η)/2``), and the advantage the worst
    prior then reaches, ``tanh(Rε/4)`` (None when ε is infinite)."""

    eta: mpq
    diameter: mpq
    prior: mpq
    worst_case_prior: bool
    epsilon: ScaledLog
    max_advantage: Certified | None

    def to_dict(self) -> dict:
        """This report as ``plrv guess --eta --diameter --json`` prints it."""
        from verifier.guessing.serial import eta_json

        return eta_json(self)


def eta_report(eta: object, diameter: object, prior: object | None = None) -> EtaReport:
    """ε from a target advantage η for a domain of diameter R (seed 004)."""
    e, r = check_eta(eta), rational(diameter, "diameter")
    p = worst_prior_for_eta(e) if prior is None else rational(prior, "prior")
    eps = simplified_epsilon(p, e, r)
    return EtaReport(e, r, p, prior is None, eps,
                     None if eps.infinite else max_advantage(eps, r))


def guess_report(spec: GuessProblem) -> GuessReport:
    """Everything ``plrv guess SPEC`` shows, as exact values (and Certified bounds)."""
    m = spec.model
    ks = [None] if m.mode == "and" else list(range(m.attributes))
    def metric(k: int | None) -> Callable[[Hashable, Hashable], mpq]:
        return lambda x, y: m.distance(x, y, k)

    tight = [tight_epsilon(m.kernel, m.domain, metric(k), m.budget) for k in ks]
    eps = [spec.epsilon if spec.epsilon is not None else t[0] for t in tight]
    # the bounds apply only if M is ε·d-private at the ε used (an ε in nats is not compared)
    checks = [e.compare(t[0]) >= 0 if isinstance(e, ScaledLog) else None
              for e, t in zip(eps, tight, strict=True)]
    private = None if None in checks else all(checks)
    joint = m.joint()
    rows = []
    for adv in advantage(m, spec.targets, joint):
        precise, simple = _bounds(m, adv.target, eps)
        rows.append(TargetRow(adv.target, adv.prior, adv.posterior, adv.output, precise, simple))
    worst = max(rows, key=lambda r: r.advantage)
    inversion = None
    if spec.eta is not None:
        inversion = Inversion(
            spec.eta, worst.target, simplified_epsilon(worst.prior, spec.eta, m.diameter(ks[0])),
            precise_epsilon(m, worst.target, spec.eta, spec.tolerance)
            if precise_inversion(m) else None)
    return GuessReport(tuple(tight), tuple(eps), private, tuple(rows), worst,
                       vulnerability(m, joint), tuple(m.diameter(k) for k in ks), inversion)
