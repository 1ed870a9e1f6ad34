"""Certificates of ``plrv reducible`` and ``plrv prove``.

*Reducible* (thesis Definition 59): for a spec without parameters (or at the point where the
symbolic profiles separate), every θ, ζ and target with each background value's output
profiles ``(P[O | D(i)=t, ζ=B])_t`` and the bijection from the first background value to each
other — or the pair of background values whose multisets of profiles differ. The independent
checker (:mod:`verifier.kernel.symbolic`) re-derives the profiles by enumeration
where it can and checks that every bijection maps outputs to outputs with equal profiles.
Bijections of symbolic profiles (an identity of rational functions, decided by sympy) are
recorded but marked ``"independently_checkable": false``.

*Prove*: one entry per instance. A counterexample carries a certificate of ``plrv check`` at
the point (the target, ζ, ``ε = ln(E)``, the notions the claim reads), from which the checker
re-derives the δs and evaluates the claim; a proof by z3 is recorded with the solver's name
and version and marked ``"independently_checkable": false``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from verifier.certificates.emit import certify_check
from verifier.certificates.encode import (
    FORMAT,
    VERSION,
    encode,
    number,
    provenance,
    source_of,
    spec_json,
)
from verifier.engines.choice import joint_tables
from verifier.engines.joint import check_targets
from verifier.model.knowledge import no_knowledge
from verifier.notions.partial.cases import ordered_pairs
from verifier.notions.partial.reducible import profiles
from verifier.symbolic.prove import ProofReport, instances
from verifier.symbolic.reducibility import Reducibility
from verifier.symbolic.tables import knowledges_of

__all__ = ["reducible_certificate", "prove_certificate"]

NOTION_OF = {"apk": "apkdp", "ppk": "ppkdp", "noiseless": "noiseless", "dp": "dp"}


def _profiles_json(jt, bg) -> list:
    return [[encode(o), [None if p is None else number(p) for p in prof]]
            for o, prof in profiles(jt, bg).items()]


def _concrete(sym, res: Reducibility):
    return sym.at(res.point) if sym.parameters.items and res.point else sym.base


def reducible_certificate(sym, res: Reducibility) -> dict:
    """The certificate of :func:`~verifier.symbolic.reducibility.decide_reducible`'s answer."""
    spec = _concrete(sym, res)
    targets = check_targets(spec.targets, spec.records)
    knows = knowledges_of(sym)
    names = [k.name for k in knows]
    models = spec.model if isinstance(spec.model, tuple) else (spec.model,)
    symbolic = bool(sym.parameters.items) and res.reducible is not False
    cert: dict = {
        "format": FORMAT, "version": VERSION, "kind": "reducible",
        "spec": spec_json(spec, ordered_pairs(spec.values, spec.pairs), targets),
        "parameters": sym.parameters.describe(),
        "point": {k: number(v) for k, v in res.point.items()},
        "results": {"reducible": res.reducible, "method": res.method, "reason": res.reason},
        "independently_checkable": not symbolic and res.reducible is not None,
        "evidence": {},
    }

    def table(k: int, know_name: str, target: int):
        tables, _ = joint_tables(models[k], spec.mechanism, knows[names.index(know_name)],
                                 [target])
        return tables[target]

    if res.reducible is False and res.witness is not None:
        w = res.witness
        jt = table(w["model"], w["knowledge"], w["target"])
        cert["evidence"]["witness"] = {
            "model": w["model"], "knowledge": names.index(w["knowledge"]),
            "target": w["target"], "backgrounds": [encode(b) for b in w["backgrounds"]],
            "profiles": [_profiles_json(jt, b) for b in w["backgrounds"]]}
    elif res.reducible is True:
        out = []
        for c in res.certificates:
            entry: dict = {"model": c.model, "knowledge": names.index(c.knowledge),
                           "target": c.target,
                           "bijections": [{"source": encode(b.source), "target": encode(b.target),
                                           "mapping": [[encode(o), encode(p)] for o, p in
                                                       (b.mapping or {}).items()]}
                                          for b in c.bijections]}
            if not symbolic:
                jt = table(c.model, c.knowledge, c.target)
                entry["backgrounds"] = [{"background": encode(b),
                                         "profiles": _profiles_json(jt, b)}
                                        for b in jt.backgrounds()]
            out.append(entry)
        cert["evidence"]["tables"] = out
    return provenance(cert, source_of(sym.path))


def _tree(tree: tuple) -> list:
    head = tree[0]
    if head == "num":
        return ["num", number(tree[1])]
    if head in ("delta", "lemma4"):
        return list(tree)
    return [head, *(_tree(t) for t in tree[1:])]


def _solver() -> dict:
    import z3
    return {"name": "z3", "version": z3.get_version_string()}


def prove_certificate(sym, rep: ProofReport) -> dict:
    """The certificate of :func:`~verifier.symbolic.prove.prove`'s report."""
    knows = {k.name: k for k in knowledges_of(sym)}
    entries: list[dict] = []
    for p in rep.proofs:
        entry: dict = {"target": p.target, "knowledge": p.knowledge, "status": p.status,
                       "method": p.method, "reason": p.reason}
        ce = p.counterexample
        if p.status == "counterexample" and ce is not None and "lemma4" not in rep.claim.uses \
                and rep.claim.name != "lemma4":
            spec = sym.at(ce.point)
            if p.knowledge not in knows:  # an instance of --every-known-set
                knows |= {k.name: k for _, k in instances(sym, every_known_set=True)}
            know = knows[p.knowledge]
            notions = tuple(NOTION_OF[n] for n in sorted(rep.claim.uses))
            spec = replace(spec, epsilon=ce.epsilon, delta=0, notions=notions)
            if notions != ("dp",):
                spec = replace(spec, targets=p.target, knowledge=know)
            else:  # dp reads no data model, target, attacker or pairs: their defaults
                spec = replace(spec, model=None, targets="all", knowledge=no_knowledge(),
                               pairs=None)
            _, check = certify_check(spec)
            entry.update(independently_checkable=True,
                         point={k: number(v) for k, v in ce.point.items()},
                         deltas={k: number(v) for k, v in ce.deltas.items()}, check=check)
        else:
            entry["independently_checkable"] = False
            if p.method.startswith("z3") or "z3" in p.method:
                entry["solver"] = _solver()
        entries.append(entry)
    return provenance({
        "format": FORMAT, "version": VERSION, "kind": "prove", "spec": _plain(sym.raw),
        "claim": {"text": rep.claim.text, "tree": _tree(rep.claim.tree)},
        "parameters": rep.parameters, "epsilon": rep.epsilon,
        "every_epsilon": rep.every_epsilon, "status": rep.status, "instances": entries},
        source_of(sym.path))


def _plain(raw: object) -> object:
    """The spec's tables as JSON (its parameters are in ``parameters``)."""
    if isinstance(raw, Mapping):
        return {str(k): _plain(v) for k, v in raw.items()}
    if isinstance(raw, (list, tuple)):
        return [_plain(v) for v in raw]
    return raw
