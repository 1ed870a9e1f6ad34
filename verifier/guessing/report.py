"""The ``plrv guess`` report: per-target advantage, bounds and inversions, and JSON."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

from gmpy2 import mpq

from verifier.guessing.bounds import (
    Certified,
    precise_bound,
    precise_epsilon,
    simplified_bound,
    simplified_epsilon,
)
from verifier.guessing.metric import (
    ScaledLog,
    tight_epsilon,
)
from verifier.guessing.model import GuessModel, advantage, vulnerability
from verifier.io.guess_spec import GuessSpec
from verifier.io.json_out import jsonable

__all__ = ["guess_report", "TargetRow"]
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

    def total(i):
        return Certified(lambda prec: tuple(
            min(mpq(1), sum((p[i].enclose(prec)[j] for p in parts), mpq(0))) for j in (0, 1)))
    return total(0), total(1)


def guess_report(spec: GuessSpec) -> dict:
    """Everything ``plrv guess SPEC`` shows, as exact values (and Certified bounds)."""
    m = spec.model
    ks = [None] if m.mode == "and" else list(range(m.attributes))
    tight = [tight_epsilon(m.kernel, m.domain, lambda x, y, k=k: m.distance(x, y, k))
             for k in ks]
    eps = [spec.epsilon if spec.epsilon is not None else t[0] for t in tight]
    # the bounds apply only if M is ε·d-private at the ε used (an ε in nats is not compared)
    checks = [e.compare(t[0]) >= 0 if isinstance(e, ScaledLog) else None
              for e, t in zip(eps, tight)]
    private = None if None in checks else all(checks)
    joint = m.joint()
    rows = []
    for adv in advantage(m, spec.targets, joint):
        precise, simple = _bounds(m, adv.target, eps)
        rows.append(TargetRow(adv.target, adv.prior, adv.posterior, adv.output, precise, simple))
    worst = max(rows, key=lambda r: r.advantage)
    pre, post = vulnerability(m, joint)
    out = {"tight": tight, "epsilon": eps, "private_at_epsilon": private, "rows": rows,
           "worst": worst, "vulnerability": (pre, post),
           "diameter": [m.diameter(k) for k in ks]}
    if spec.eta is not None:
        out["inversion"] = {
            "eta": spec.eta,
            "simplified": simplified_epsilon(worst.prior, spec.eta, m.diameter(ks[0])),
            "precise": precise_epsilon(m, worst.target, spec.eta, spec.tolerance)
            if m.mode == "and" else None,
            "target": worst.target}
    return out


def report_json(rep: dict) -> dict:
    """The JSON form: exact strings, certified decimals beside the bounds."""
    def cert(c: Certified) -> dict:
        return {"value": str(c) if c.value is not None else None, "approx": c.approx()}

    rows = [{"target": jsonable(r.target), "prior": str(r.prior), "posterior": str(r.posterior),
             "advantage": str(r.advantage), "output": jsonable(r.output),
             "precise_bound": cert(r.precise), "simplified_bound": cert(r.simplified),
             "slack_precise": cert(Certified(lambda p, r=r: tuple(
                 x - r.posterior for x in r.precise.enclose(p)))),
             "slack_simplified": cert(Certified(lambda p, r=r: tuple(
                 x - r.posterior for x in r.simplified.enclose(p)))),
             "order_holds": r.order()} for r in rep["rows"]]
    w = rep["worst"]
    out = {
        "epsilon": [str(e) for e in rep["epsilon"]] if len(rep["epsilon"]) > 1
        else str(rep["epsilon"][0]),
        "tight_epsilon": [{"epsilon": str(t[0]), "witness": jsonable(list(t[1]))}
                          for t in rep["tight"]],
        "private_at_epsilon": rep["private_at_epsilon"],
        "diameter": [str(d) for d in rep["diameter"]],
        "worst": {"target": jsonable(w.target), "advantage": str(w.advantage),
                  "prior": str(w.prior), "posterior": str(w.posterior),
                  "output": jsonable(w.output)},
        "vulnerability": {"prior": str(rep["vulnerability"][0]),
                          "posterior": str(rep["vulnerability"][1])},
        "targets": rows,
    }
    if "inversion" in rep:
        inv = rep["inversion"]
        out["inversion"] = {
            "eta": str(inv["eta"]), "target": jsonable(inv["target"]),
            "simplified_epsilon": str(inv["simplified"]),
            "precise_epsilon": None if inv["precise"] is None else
            [str(inv["precise"][0]), str(inv["precise"][1])]}
    return out
