"""The JSON of ``plrv family``, ``plrv prove`` and ``plrv reducible``
(``schemas/<command>-output.v1.json``), which the results' ``to_dict()`` give and the commands
print; the shared keys are :mod:`verifier.core.vocabulary`'s. Duck-typed: it imports no
result class."""

from __future__ import annotations

from verifier.core.epsilon import Epsilon
from verifier.core.numbers import format_rational
from verifier.core.vocabulary import jsonable, pair, stamped, witness_json

__all__ = ["family_json", "prove_json", "reducible_json"]


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
