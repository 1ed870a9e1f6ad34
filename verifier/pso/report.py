"""The ``plrv pso`` report: exact success against the exact baseline, and its JSON form."""

from __future__ import annotations

from verifier.core.certified import decimal_string
from verifier.io.json_out import jsonable
from verifier.io.pso_spec import PSOSpec
from verifier.pso.success import (
    baseline,
    optimal_adversary,
    success,
)

__all__ = ["pso_report", "pso_json"]
def pso_report(spec: PSOSpec, progress=None) -> dict:
    """Success, baseline, difference, ratio, predicate weights and the claim's verdict;
    ``progress(done, total)`` is called as the datasets are enumerated."""
    base, base_w, base_pred = baseline(spec.universe, spec.n, spec.admissible)
    if spec.adversary == "optimal":
        res = optimal_adversary(spec.universe, spec.n, spec.mechanism, spec.admissible,
                                spec.budget, progress)
        succ, weights, extra = res.success, res.weights, {"searched": res.searched,
                                                          "strategy": res.strategy}
    else:
        res = success(spec.universe, spec.n, spec.mechanism, spec.attack, spec.admissible,
                      spec.budget, progress)
        succ, weights, extra = res.success, res.weights, {"datasets": res.datasets}
    bound = spec.factor * base + spec.slack
    return {"success": succ, "baseline": base, "baseline_weight": base_w,
            "baseline_predicate": base_pred, "difference": succ - base,
            "ratio": None if base == 0 else succ / base, "weights": weights,
            "claim": {"factor": spec.factor, "slack": spec.slack, "bound": bound,
                      "holds": succ <= bound}, **extra}


def pso_json(spec: PSOSpec, rep: dict) -> dict:
    u = spec.universe
    out = {
        "mechanism": spec.mechanism.name, "adversary": spec.adversary, "rows": spec.n,
        "admissible": str(spec.admissible),
        "success": str(rep["success"]), "baseline": str(rep["baseline"]),
        "baseline_weight": None if rep["baseline_weight"] is None else str(rep["baseline_weight"]),
        "baseline_predicate": sorted(u.show(x) for x in rep["baseline_predicate"]),
        "difference": str(rep["difference"]),
        "ratio": "inf" if rep["ratio"] is None else str(rep["ratio"]),
        "approx": {k: decimal_string(rep[k]) for k in ("success", "baseline")},
        "predicate_weights": {str(w): str(p) for w, p in sorted(
            rep["weights"].items(), key=lambda kv: (isinstance(kv[0], str), str(kv[0])))},
        "claim": {"statement": "success <= factor * baseline + slack",
                  "factor": str(rep["claim"]["factor"]), "slack": str(rep["claim"]["slack"]),
                  "bound": str(rep["claim"]["bound"]), "holds": rep["claim"]["holds"]},
    }
    if "strategy" in rep:
        out["search"] = {"outputs_times_predicates": rep["searched"]}
        out["strategy"] = [{"output": jsonable(o), "predicate": sorted(u.show(x) for x in p)}
                           for o, p in list(rep["strategy"].items())[:200]]
    else:
        out["datasets"] = rep["datasets"]
    return out
