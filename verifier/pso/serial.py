"""The JSON of ``plrv pso`` (``schemas/pso-output.v1.json``), which
:meth:`~verifier.pso.report.PSOReport.to_dict` gives and the command prints; the shared keys
are :mod:`verifier.core.vocabulary`'s. Duck-typed: it imports no report class."""

from __future__ import annotations

from verifier.core.certified import decimal_string
from verifier.core.vocabulary import jsonable, stamped

__all__ = ["pso_json"]


def pso_json(spec, rep, full: bool = False) -> dict:
    """``plrv pso`` (a :class:`~verifier.pso.report.PSOReport` for its spec); the optimal
    adversary's strategy (best predicate per output) with ``full``."""
    u = spec.universe
    out: dict[str, object] = {
        "mechanism": spec.mechanism.name, "adversary": spec.adversary, "rows": spec.n,
        "admissible": str(spec.admissible),
        "success": str(rep.success), "baseline": str(rep.baseline),
        "baseline_weight": None if rep.baseline_weight is None else str(rep.baseline_weight),
        "baseline_predicate": sorted(u.show(x) for x in rep.baseline_predicate),
        "difference": str(rep.difference),
        "ratio": "inf" if rep.ratio is None else str(rep.ratio),
        "approx": {"success": decimal_string(rep.success),
                   "baseline": decimal_string(rep.baseline)},
        "predicate_weights": {str(w): str(p) for w, p in sorted(
            rep.weights.items(), key=lambda kv: (isinstance(kv[0], str), str(kv[0])))},
        "claim": {"statement": "success <= factor * baseline + slack",
                  "factor": str(rep.factor), "slack": str(rep.slack),
                  "bound": str(rep.bound), "holds": rep.holds},
    }
    if rep.strategy is not None:
        out["search"] = {"outputs_times_predicates": rep.searched}
        if full:
            out["strategy"] = [{"output": jsonable(o), "predicate": sorted(u.show(x) for x in p)}
                               for o, p in rep.strategy.items()]
    else:
        out["datasets"] = rep.datasets
    return stamped("pso", out, rep.holds)
