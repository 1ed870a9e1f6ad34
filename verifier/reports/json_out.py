"""Every command's JSON, built from its typed report (display only).

Exact values are written as exact strings (``"7/64"``, ``"ln(3)"``, ``"1/3 - 1/9*exp(1/2)"``);
decimals appear only beside them, labelled as approximations, and are certified truncations.
Exact numbers can have more than 4300 digits, Python's default limit for ``int(str)``: read
them after ``sys.set_int_max_str_digits(0)``.

By default the JSON carries each verdict with its numbers and witness; the per-row tables
(APK δ per background value, every output of a witness, the optimal adversary's strategy)
are added with ``full=True`` (``--json --full``).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Mapping, Sequence

from gmpy2 import mpq

from verifier.core.certified import decimal_string
from verifier.core.delta import Delta
from verifier.core.distribution import Bottom
from verifier.core.epsilon import Epsilon
from verifier.core.numbers import format_rational
from verifier.reports.vocabulary import enclosure, pair, stamped, verdict

__all__ = ["dumps", "jsonable", "witness_json", "result_json", "check_json", "sweep_rows",
           "sweep_json", "guess_json", "eta_json", "pso_json", "family_json", "WITNESS_OUTPUTS"]

WITNESS_OUTPUTS = 20  # outputs of a witness listed without --full
_MPQ = type(mpq(0))


def dumps(obj: object, indent: int | None = 2) -> str:
    """JSON text; exact integers of any length (lifts Python's int/str digit limit)."""
    sys.set_int_max_str_digits(0)
    return json.dumps(obj, indent=indent, ensure_ascii=False)


def jsonable(value: object) -> object:
    """A JSON-ready form of an outcome, background value or exact number."""
    if isinstance(value, Bottom):
        return "⊥"
    if isinstance(value, (Delta, Epsilon)):
        return str(value)
    if isinstance(value, _MPQ):
        return format_rational(value)
    if isinstance(value, (tuple, list)):
        return [jsonable(v) for v in value]
    if isinstance(value, frozenset):
        return sorted((jsonable(v) for v in value), key=repr)
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if hasattr(value, "as_dict"):
        return value.as_dict()
    if isinstance(value, (bool, int, str)) or value is None:
        return value
    return repr(value)


def witness_json(witness: Mapping[str, object], full: bool) -> dict:
    out = {k: jsonable(v) for k, v in witness.items() if k not in ("outputs", "outputs_truncated")}
    outputs = list(witness.get("outputs", ()))  # type: ignore[call-overload]
    shown = outputs if full else outputs[:WITNESS_OUTPUTS]
    out["outputs"] = [[jsonable(o), loss] for o, loss in shown]
    if len(shown) < len(outputs) or witness.get("outputs_truncated"):
        out["outputs_truncated"] = True
    return out


def result_json(r, engine: str | None = None, full: bool = False) -> dict:
    """One notion's result (a :class:`~verifier.notions.result.NotionResult`): its
    ``verdict``, ``claim`` and ``tight`` values (:mod:`verifier.reports.vocabulary`), exact
    strings, labelled approximations, and where δ is attained — ``witness`` when the claim
    fails, ``worst_case`` when it holds. ``delta``, ``epsilon``, ``holds`` and ``query`` are
    the older names of ``tight``, ``verdict`` and ``claim`` (deprecated)."""
    out: dict[str, object] = {
        "verdict": verdict(r.holds),
        "claim": pair(r.query_epsilon, r.query_delta),
        "tight": pair(r.epsilon, r.delta),
        "delta": str(r.delta),  # deprecated: tight.delta
        "epsilon": str(r.epsilon),  # deprecated: tight.epsilon
        "holds": r.holds,  # deprecated: verdict
        "worst_case" if r.holds else "witness": witness_json(r.witness, full),
        "query": {"epsilon": str(r.query_epsilon), "delta": format_rational(r.query_delta)},
        "approx": {"delta": r.delta.approx(), "epsilon": r.epsilon.approx()},
        "cases": r.cases,
    }
    if engine:
        out["engine"] = engine
    if full and r.details:
        out["backgrounds"] = [{k: jsonable(v) for k, v in row.items()} for row in r.details]
    return out


def doubles_json(doubles: Iterable) -> dict:
    """``{key: {"double", "hex", "exact"}}`` for values given as ``{f64 = "…"}``."""
    return {key: {"double": str(d), "hex": d.hex, "exact": format_rational(d.exact)}
            for key, d in doubles}


def check_json(report, full: bool = False, doubles: Sequence = ()) -> dict:
    """``plrv check``: every notion's result (a :class:`~verifier.notions.check.Report`).

    With ``full``, APK's rows per background value are included and, when PPK was asked too,
    each says whether its δ lies above, at or below the PPK δ (where the two part). A claim
    given as doubles (``doubles``: the spec's ``{f64 = "…"}`` values) is shown under
    ``query.f64``: the double, its hexadecimal spelling and the rational it is read as."""
    def engine(notion: str) -> str:
        return "; ".join(i for i in report.info if i.startswith("dp:") == (notion == "dp"))

    out = {n: result_json(r, engine(n), full) for n, r in report.results.items()}
    claim = doubles_json((k.removeprefix("query."), d) for k, d in doubles
                         if k in ("query.epsilon", "query.delta"))
    for row in out.values():
        if claim:
            row["query"]["f64"] = claim
            row["claim"]["f64"] = claim
    apk, ppk = report.results.get("apkdp"), report.results.get("ppkdp")
    if full and apk is not None and ppk is not None and apk.details:
        side = {1: "above", 0: "equal", -1: "below"}
        for row, detail in zip(out["apkdp"]["backgrounds"], apk.details, strict=True):
            row["vs_ppk"] = side[detail["delta"].compare(ppk.delta)]
        out["apkdp"]["ppk_delta"] = str(ppk.delta)
    first = next(iter(out.values()))
    return stamped("check", out, report.holds, first["claim"])


def sweep_rows(points: Sequence) -> list[dict]:
    """``plrv sweep`` rows for CSV and JSON: exact strings with certified decimals beside."""
    return [{"p": "" if pt.p is None else format_rational(pt.p), "threshold": pt.threshold,
             "notion": pt.notion, "delta": str(pt.delta), "delta_approx": pt.delta.approx(),
             "epsilon": str(pt.epsilon), "epsilon_approx": pt.epsilon.approx(),
             "holds": pt.holds} for pt in points]


def sweep_json(report) -> dict:
    """``plrv sweep --json`` (a :class:`~verifier.notions.sweep.SweepReport`)."""
    claim = pair(report.epsilon, report.delta)
    rows = [{"verdict": verdict(row["holds"]), "tight": pair(row["epsilon"], row["delta"]),
             **row} for row in sweep_rows(report.points)]
    return stamped("sweep", {
        "holds": report.holds,  # deprecated: verdict
        "query": {"epsilon": str(report.epsilon), "delta": format_rational(report.delta)},
        "rows": rows}, report.holds, claim)


def _cert(c) -> dict:
    return {"value": str(c) if c.value is not None else None, "approx": c.approx()}


def _slack(bound, posterior: mpq) -> dict:
    from verifier.guessing.bounds import Certified
    return _cert(Certified(lambda p: tuple(x - posterior for x in bound.enclose(p))))


def guess_json(rep) -> dict:
    """``plrv guess SPEC`` (a :class:`~verifier.guessing.report.GuessReport`)."""
    rows = [{"target": jsonable(r.target), "prior": str(r.prior), "posterior": str(r.posterior),
             "advantage": str(r.advantage), "output": jsonable(r.output),
             "precise_bound": _cert(r.precise), "simplified_bound": _cert(r.simplified),
             "slack_precise": _slack(r.precise, r.posterior),
             "slack_simplified": _slack(r.simplified, r.posterior),
             "order_holds": r.order()} for r in rep.rows]
    w = rep.worst
    out: dict[str, object] = {
        "holds": rep.holds,
        "epsilon": [str(e) for e in rep.epsilon] if len(rep.epsilon) > 1
        else str(rep.epsilon[0]),
        "tight_epsilon": [{"epsilon": str(t[0]), "witness": jsonable(list(t[1]))}
                          for t in rep.tight],
        "private_at_epsilon": rep.private_at_epsilon,
        "bounds_hold": rep.bounds_hold,
        "diameter": [format_rational(d) for d in rep.diameter],
        "worst": {"target": jsonable(w.target), "advantage": str(w.advantage),
                  "prior": str(w.prior), "posterior": str(w.posterior),
                  "output": jsonable(w.output)},
        "vulnerability": {"prior": str(rep.vulnerability[0]),
                          "posterior": str(rep.vulnerability[1])},
        "targets": rows,
    }
    out = stamped("guess", out, rep.holds)
    inv = rep.inversion
    if inv is not None:
        out["inversion"] = {
            "eta": format_rational(inv.eta), "target": jsonable(inv.target),
            "simplified_epsilon": str(inv.simplified),
            "precise_epsilon": None if inv.precise is None else
            [str(inv.precise[0]), str(inv.precise[1])]}
    return out


def eta_json(rep) -> dict:
    """``plrv guess --eta --diameter`` (a :class:`~verifier.guessing.report.EtaReport`)."""
    out: dict[str, object] = {
        "epsilon": str(rep.epsilon), "epsilon_approx": rep.epsilon.approx(),
        "prior": format_rational(rep.prior), "eta": format_rational(rep.eta),
        "diameter": format_rational(rep.diameter), "worst_case_prior": rep.worst_case_prior}
    if rep.max_advantage is not None:
        out["max_advantage_at_epsilon"] = str(rep.max_advantage)
    return stamped("guess", out, True)


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


def family_json(res, *, mechanism: str, records: int, epsilon: Epsilon, delta: object) -> dict:
    """``plrv family`` (a :class:`~verifier.symbolic.family.FamilyResult`); a confirmed
    counterexample carries the exact engine's δ, tight ε and witness."""
    out: dict[str, object] = {
        "status": res.status, "mechanism": mechanism, "records": records,
        "parameter": res.parameter, "neighbours": res.neighbours,
        "interval": [format_rational(res.interval[0]), format_rational(res.interval[1])],
        "claim": {"epsilon": str(epsilon), "delta": jsonable(delta)},
        "detail": res.detail}
    if res.counterexample is not None and res.exact is not None:
        out["counterexample"] = {res.parameter: format_rational(res.counterexample),
                                 "delta": str(res.exact.delta),
                                 "epsilon": str(res.exact.epsilon),
                                 "tight": pair(res.exact.epsilon, res.exact.delta),
                                 "witness": witness_json(res.exact.witness, True)}
    return stamped("family", out, {"holds": True, "fails": False}.get(res.status))


# ----------------------------------------------------------- symbolic: prove, reducible, search

def _recheck_json(r) -> dict:
    return {"parameters": {k: format_rational(v) for k, v in r.point.items()},
            "epsilon": str(r.epsilon),
            "deltas": {k: format_rational(v) for k, v in r.deltas.items()},
            **({"lemma4": r.lemma4} if r.lemma4 is not None else {}),
            "claim_holds": r.holds}


def prove_json(rep) -> dict:
    """``plrv prove`` (a :class:`~verifier.symbolic.prove.ProofReport`): one entry per
    instance; a counterexample carries z3's values and the exact engine's re-check."""
    instances = []
    for p in rep.proofs:
        entry: dict[str, object] = {"target": p.target, "knowledge": p.knowledge,
                                    "status": p.status, "method": p.method,
                                    "seconds": round(p.seconds, 3), "reason": p.reason}
        r = p.counterexample
        if r is not None:
            first = sorted(r.witnesses)[0]
            w = r.witnesses.get("apk", r.witnesses[first])
            entry["counterexample"] = {
                "parameters": {k: format_rational(v) for k, v in r.point.items()},
                "epsilon": str(r.epsilon), "target": p.target,
                "values": jsonable(w.get("values")),
                "background": jsonable(w.get("background")),
                "deltas": {k: format_rational(v) for k, v in p.solver.items()
                           if k in r.deltas}}
            entry["recheck"] = _recheck_json(r)
        instances.append(entry)
    first_bad = next((i for i in instances if i["status"] != "proved"), None)
    holds = {"proved": True, "counterexample": False}.get(rep.status)
    return stamped("prove", {
            "claim": {"text": rep.claim.text, "epsilon": rep.epsilon},
            "statement": rep.claim.statement, "status": rep.status,
            "method": (first_bad or (instances[0] if instances else {})).get("method", ""),
            "seconds": round(sum(p.seconds for p in rep.proofs), 3),
            "epsilon": rep.epsilon, "parameters": rep.parameters,
            "counterexample": (first_bad or {}).get("counterexample"),
            "recheck": (first_bad or {}).get("recheck"),
            "reason": (first_bad or {}).get("reason", ""), "instances": instances}, holds)


def _bijection_json(b) -> dict:
    out: dict[str, object] = {"from": jsonable(b.source), "to": jsonable(b.target)}
    if b.shift is not None:
        out["shift"] = format_rational(b.shift)
    out["map"] = [[jsonable(o), jsonable(p)] for o, p in (b.mapping or {}).items()]
    return out


def reducible_json(res) -> dict:
    """``plrv reducible`` (a :class:`~verifier.symbolic.reducibility.Reducibility`)."""
    out: dict[str, object] = {
        "reducible": "unknown" if res.reducible is None else res.reducible,
        "method": res.method}
    if res.reducible:
        out["bijections"] = [{"model": c.model, "knowledge": c.knowledge, "target": c.target,
                              "maps": [_bijection_json(b) for b in c.bijections]}
                             for c in res.certificates]
    if res.witness is not None:
        w = res.witness
        out["witness"] = {
            "parameters": {k: format_rational(v) for k, v in res.point.items()},
            "model": w["model"], "knowledge": w["knowledge"], "target": w["target"],
            "backgrounds": jsonable(w["backgrounds"]),
            "unmatched": {side: [{"output": jsonable(o), "profile": jsonable(p)}
                                 for o, p in w["unmatched"][side]]
                          for side in ("first", "second")}}
    if res.reason:
        out["reason"] = res.reason
    return stamped("reducible", out, res.reducible)


def search_json(res) -> dict:
    """``plrv search`` (a :class:`~verifier.search.conjectures.SearchResult`)."""
    out: dict[str, object] = {"conjecture": res.conjecture.name,
                              "statement": res.conjecture.statement,
                              "counterexample_found": res.found, "evidence": list(res.evidence),
                              "seconds": round(res.seconds, 3)}
    if res.found:
        out["stage"] = res.stage
        out["counterexample"] = jsonable(res.counterexample.as_dict())
        out["recheck"] = {k: format_rational(v) for k, v in res.deltas.items()}
        out["size"] = dict(zip(("records", "values", "outputs", "backgrounds",
                                "largest_denominator", "denominators"),
                               res.counterexample.size(), strict=True))
    return stamped("search", out, False if res.found else None)


__all__ += ["prove_json", "reducible_json", "search_json"]


def closed_form_json(curves) -> dict:
    """``plrv check --closed-form``: per notion, δ as a function of ``exp_eps = e^ε ≥ 1`` (the
    exact upper envelope over the cases): the string of a sympy ``Piecewise`` and the pieces
    with their exact ``a``, ``c`` (δ = a − c·exp_eps), which
    :func:`verifier.symbolic.closed_form.delta_at` evaluates at any ε."""
    from verifier.symbolic.closed_form import VARIABLE, piece_rows, to_sympy

    return {name: {"variable": VARIABLE, "definition": f"{VARIABLE} = e^epsilon >= 1",
                   "piecewise": str(to_sympy(curve)), "pieces": piece_rows(curve)}
            for name, curve in curves.items()}


__all__ += ["closed_form_json"]


def certified_json(report, epsilon: object = None, delta: object = None) -> dict:
    """``check --mode certified --json``: per notion the certified interval (exact rational
    ends), its relative width and the verdict (``holds`` ``null`` when the interval does not
    decide); ``tight.delta`` is the interval as an enclosure, ``tight.epsilon`` ``null`` (not
    computed) and ``claim`` the spec's (ε, δ)."""
    claim = pair(epsilon, delta)
    out = {name: {"verdict": verdict(report.verdicts[name]), "claim": claim,
                  "tight": pair(None, enclosure(r.lo, r.hi)),
                  "delta_interval": [str(r.lo), str(r.hi)],
                  "relative_width_approx": decimal_string(r.relative_width, 3),
                  "holds": report.verdicts[name], "exact": False,
                  "precision_bits": report.precision}
           for name, r in report.results.items()}
    return stamped("check", out, report.holds, claim)
