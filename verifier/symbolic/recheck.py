"""The exact engine's δs at one point: what every symbolic witness is re-checked against.

At an admissible parameter point and a rational ``E = e^ε``, the spec is read again with its
expressions evaluated exactly (:meth:`SymbolicSpec.at`) and the tight δs are computed by the
exact engines (:func:`verifier.notions.check.analyse`), independently of the z3 encoding.
Lemma 4 is re-checked case by case from the exact joint table (seed 003, Lemma 4).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from gmpy2 import mpq

from verifier.core.epsilon import Epsilon
from verifier.engines.choice import joint_tables
from verifier.model.knowledge import Knowledge
from verifier.notions.check import analyse
from verifier.notions.partial.cases import apk_loss, ordered_pairs, ppk_loss
from verifier.symbolic.claims import Claim, evaluate
from verifier.symbolic.instance import SymbolicSpec

__all__ = ["Recheck", "recheck"]

NOTION_OF = {"apk": "apkdp", "ppk": "ppkdp", "noiseless": "noiseless", "dp": "dp"}


@dataclass(frozen=True)
class Recheck:
    """The exact values at a point, and whether the claim holds there."""

    point: Mapping[str, mpq]
    epsilon: Epsilon
    deltas: Mapping[str, mpq]
    witnesses: Mapping[str, Mapping]
    lemma4: bool | None
    holds: bool


def recheck(sym: SymbolicSpec, claim: Claim, point: Mapping[str, mpq], rate: mpq,
            target: int, know: Knowledge) -> Recheck:
    """Evaluate ``claim`` exactly at ``point`` and ``E = rate`` for one target and ζ."""
    spec = sym.at(point)
    eps = Epsilon.log(rate)
    names = sorted(claim.uses | ({"apk", "ppk"} if claim.name == "lemma4" else set()))
    partial = any(n != "dp" for n in names)
    analysis = analyse(spec.mechanism, values=spec.values, records=spec.records,
                       models=spec.model if partial else None, knowledge=know, targets=target,
                       pairs=spec.pairs, relation=spec.relation, budget=spec.budget,
                       engine=spec.engine)
    report = analysis.report([NOTION_OF[n] for n in names], eps, "0")
    deltas = {n: report.results[NOTION_OF[n]].delta.value for n in names}
    witnesses = {n: dict(report.results[NOTION_OF[n]].witness) for n in names}
    values: dict[str, object] = dict(deltas)
    lemma4 = None
    if claim.name == "lemma4":
        lemma4 = _lemma4(spec, know, target, eps)
        values["lemma4"] = lemma4
    return Recheck(dict(point), eps, deltas, witnesses, lemma4, evaluate(claim, values))


def _lemma4(spec, know: Knowledge, target: int, eps: Epsilon) -> bool:
    """``PPK_{i,a,b} = Σ_B P[ζ=B | D(i)=a]·APK_{i,a,b,B}`` for every pair, exactly."""
    models = spec.model if isinstance(spec.model, tuple) else (spec.model,)
    for model in models:
        tables, _ = joint_tables(model, spec.mechanism, know, [target])
        jt = tables[target]
        for a, b in ordered_pairs(jt.values, spec.pairs):
            ppk = ppk_loss(jt, a, b)
            if ppk is None:
                continue
            pa = jt.p_value(a)
            total = mpq(0)
            for bg in jt.backgrounds():
                loss = apk_loss(jt, a, b, bg)
                if loss is not None:
                    total += jt.p_background(a, bg) / pa * loss.delta(eps).value
            if ppk.delta(eps).value != total:
                return False
    return True
