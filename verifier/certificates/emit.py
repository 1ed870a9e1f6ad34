"""Certificates of ``plrv check``: the verdict of every notion with evidence a reader can re-check.

A certificate (format :data:`~verifier.certificates.encode.VERSION`) holds the normalised spec,
each notion's δ at the claimed ε and its verdict, and the evidence:

* ``tables``: for every data model θ, knowledge ζ and target ``i``, the exact conditional
  laws ``P[O | D(i)=t, ζ(D)=B]`` with the weights ``P[D(i)=t, ζ(D)=B]`` (from the count
  engine, one row per class of background values with its multiplicity), and the per-case
  δ sums: ``APK_{i,a,b,B}(ε)`` for every ordered pair and background value, ``PPK_{i,a,b}(ε)``
  and, when asked, the noiseless δ (seed 003, Definitions 3, 6, 7; Lemma 4);
* for a notion whose claim fails, a minimal witness: the target, the two values, the
  background value (or the two neighbouring databases for DP), the set ``S`` of outputs whose
  loss exceeds ε, ``P[S | a, ·]``, ``P[S | b, ·]`` and the δ they give, ``P[S|a] − e^ε·P[S|b]``
  (seed 003, Lemma 1: δ is the largest such difference);
* for DP, the output law of every database (every count vector of a symmetric mechanism).
* for DP under a neighbouring relation (``[input]``, ``[neighbours]``), the relation in the
  spec and every ordered pair with the output law of each input
  (:mod:`verifier.certificates.emit_relation`).

Tables are written only while their cells stay within ``max_cells`` (a certificate of
thousands of records would have millions of digits): beyond it :class:`BudgetExceeded`.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from pathlib import Path

from gmpy2 import mpq, mpz

from verifier.certificates.emit_relation import (
    relation_evidence,
    relation_json,
    relation_witness,
)
from verifier.certificates.encode import (
    FORMAT,
    VERSION,
    delta_json,
    encode,
    number,
    provenance,
    source_of,
    spec_json,
)
from verifier.core.delta import Delta
from verifier.core.epsilon import Epsilon
from verifier.core.errors import BudgetExceeded
from verifier.engines.counts import compositions
from verifier.engines.joint import check_targets
from verifier.model.mechanisms import all_databases
from verifier.notions.check import Report, analyse
from verifier.notions.partial.cases import Table, ordered_pairs, ppk_case

__all__ = ["certify_check", "write_check_certificate", "MAX_CELLS"]

MAX_CELLS = 200_000  # conditional probabilities written, over every table


def certify_check(spec, progress=None, max_cells: int = MAX_CELLS) -> tuple[Report, dict]:
    """Run ``spec`` (a :class:`~verifier.specs.check.Spec`) and build its certificate."""
    source = source_of(spec.path)
    analysis = analyse(spec.mechanism, values=spec.values, records=spec.records,
                       models=spec.model if any(n != "dp" for n in spec.notions) else None,
                       knowledge=spec.knowledge, targets=spec.targets, pairs=spec.pairs,
                       budget=spec.budget, engine=spec.engine, progress=progress,
                       relation=spec.relation)
    report = analysis.report(spec.notions, spec.epsilon, spec.delta)
    relation = spec.relation
    eps = spec.epsilon
    pairs = analysis.pairs or ordered_pairs(spec.values, spec.pairs)
    cert: dict = {
        "format": FORMAT, "version": VERSION, "kind": "check",
        "spec": spec_json(spec, pairs, check_targets(spec.targets, spec.records)),
        "results": {n: {"delta": delta_json(r.delta), "holds": r.holds}
                    for n, r in report.results.items()},
        "evidence": {},
    }
    if relation is not None:
        cert["spec"]["neighbours"] = relation_json(relation)
    evidence = cert["evidence"]
    tables = analysis.tables or []
    if tables:
        budget = [max_cells]
        try:
            evidence["tables"] = [_table_json(t, budget, max_cells) for t in tables]
            evidence["cases"] = _cases(tables, pairs, eps, "noiseless" in spec.notions)
        except BudgetExceeded:
            if any(r.holds for n, r in report.results.items() if n != "dp"):
                raise  # a holding claim needs its tables
            evidence.pop("tables", None)
            evidence["omitted"] = (f"conditional tables omitted (more than {max_cells} cells): "
                                   f"every partial-knowledge claim fails, its witness is the "
                                   f"evidence")
    witnesses = {}
    for name, result in report.results.items():
        if result.holds:
            continue
        if name == "dp" and relation is not None:
            witnesses[name] = relation_witness(spec.mechanism, result.witness, eps)
        elif name == "dp":
            witnesses[name] = _dp_witness(spec.mechanism, result.witness, eps)
        else:
            witnesses[name] = _partial_witness(name, tables, result.witness, eps)
    if witnesses:
        evidence["witnesses"] = witnesses
    if relation is not None and "dp" in report.results:
        try:
            evidence["dp_relation"] = relation_evidence(spec.mechanism, relation, max_cells,
                                                        spec.budget)
        except BudgetExceeded:
            if report.results["dp"].holds:
                raise  # a holding claim needs every pair
            evidence["omitted"] = (f"pairs and output laws omitted (more than {max_cells} "
                                   f"cells): the dp claim fails, its witness is the evidence")
    elif "dp" in report.results and report.results["dp"].holds:
        evidence["dp_laws"] = _dp_laws(spec.mechanism, spec.values, spec.records, max_cells)
    return report, provenance(cert, source)


def _conditional(row: Mapping) -> list:
    total = sum(row.values(), mpz(0))
    return [[encode(o), number(mpq(w, total))] for o, w in row.items()]


def _table_json(t: Table, budget: list[int], max_cells: int) -> dict:
    jt = t.table
    rows = []
    for value in jt.values:
        for bg in jt.backgrounds():
            row = jt.row(value, bg)
            if not row:
                continue
            budget[0] -= len(row)
            if budget[0] < 0:
                raise BudgetExceeded("certificate: the conditional tables have more than "
                                     f"{max_cells} cells; certify a smaller spec")
            rows.append({"value": encode(value), "background": encode(bg),
                         "multiplicity": int(getattr(bg, "multiplicity", 1)),
                         "weight": number(jt.p_background(value, bg)),
                         "law": _conditional(row)})
    return {"model": t.model, "knowledge": t.knowledge, "target": jt.target,
            "engine": t.engine, "rows": rows}


def _plain(t: Table) -> Table:
    return Table(t.model, 0, t.table.without_background(), t.engine)


def _cases(tables: Sequence[Table], pairs, eps: Epsilon, noiseless: bool) -> dict:
    """Every per-case δ at ε: APK per (table, pair, B̂), PPK and noiseless per (table, pair)."""
    apk, ppk, plain = [], [], []
    for k, t in enumerate(tables):
        for a, b in pairs:
            for bg, loss in t.apk_losses(a, b).items():
                apk.append({"table": k, "values": [encode(a), encode(b)],
                            "background": encode(bg), "delta": delta_json(loss.delta(eps))})
            case = ppk_case(t, a, b)
            if case is not None:
                ppk.append({"table": k, "values": [encode(a), encode(b)],
                            "delta": delta_json(case.loss.delta(eps))})
        if noiseless and t.knowledge == 0:
            p = _plain(t)
            for a, b in pairs:
                case = ppk_case(p, a, b)
                if case is not None:
                    plain.append({"table": k, "values": [encode(a), encode(b)],
                                  "delta": delta_json(case.loss.delta(eps))})
    out = {"apkdp": apk, "ppkdp": ppk}
    if noiseless:
        out["noiseless"] = plain
    return out


def _find(tables: Sequence[Table], label) -> tuple[int, Table]:
    for k, t in enumerate(tables):
        if (t.model, t.knowledge, t.table.target) == \
                (label["model"], label["knowledge"], label["target"]):
            return k, t
    raise LookupError(f"no table for the witness {dict(label)!r}")


def _exceeding(t: Table, a: Hashable, b: Hashable, bg: Hashable, eps: Epsilon) -> list:
    return [o for o, loss in t.row_losses(a, b, bg) if loss.exceeds(eps)]


def _mass(t: Table, value: Hashable, bg: Hashable, outputs) -> mpq:
    row = t.table.row(value, bg)
    total = sum(row.values(), mpz(0))
    return mpq(sum((row.get(o, mpz(0)) for o in outputs), mpz(0)), total) if total else mpq(0)


def _partial_witness(name: str, tables: Sequence[Table], label, eps: Epsilon) -> dict:
    """The case attaining δ, as the set of outputs beyond ε and its two probabilities."""
    k, t = _find(tables, label)
    a, b = label["values"]
    if name == "noiseless":
        t = _plain(t)
    out = {"table": k, "target": t.table.target, "values": [encode(a), encode(b)]}
    if name == "ppkdp":
        pa = t.table.p_value(a)
        parts, p_a, p_b = [], mpq(0), mpq(0)
        for bg in t.apk_losses(a, b):
            s = _exceeding(t, a, b, bg, eps)
            if not s:
                continue
            w = t.table.p_background(a, bg) / pa
            sa, sb = _mass(t, a, bg, s), _mass(t, b, bg, s)
            p_a, p_b = p_a + w * sa, p_b + w * sb
            parts.append({"background": encode(bg), "p_background": number(w),
                          "outputs": [encode(o) for o in s], "p_a": number(sa),
                          "p_b": number(sb)})
        out.update(parts=parts, p_a=number(p_a), p_b=number(p_b))
    else:
        bg = label.get("background", "nothing") if name == "apkdp" else "nothing"
        s = _exceeding(t, a, b, bg, eps)
        p_a, p_b = _mass(t, a, bg, s), _mass(t, b, bg, s)
        out.update(background=encode(bg), outputs=[encode(o) for o in s],
                   p_a=number(p_a), p_b=number(p_b))
    out["delta"] = delta_json(Delta.make(p_a, p_b, eps))
    return out


def _dp_witness(mech, label, eps: Epsilon) -> dict:
    d1, d2 = (tuple(d) for d in label["databases"])
    p, q = mech(d1), mech(d2)
    from verifier.notions.loss import output_losses
    s = [o for o, _, _, loss in output_losses(p, q) if loss.exceeds(eps)]
    p_a = sum((p[o] for o in s if o in p), mpq(0))
    p_b = sum((q[o] for o in s if o in q), mpq(0))
    return {"databases": [encode(d1), encode(d2)], "outputs": [encode(o) for o in s],
            "p_a": number(p_a), "p_b": number(p_b),
            "delta": delta_json(Delta.make(p_a, p_b, eps))}


def _dp_laws(mech, values: tuple, n: int, max_cells: int) -> dict:
    """The output law of every database, or of every count vector when ``mech`` is symmetric."""
    laws: list[dict] = []
    cells = 0
    if mech.symmetric:
        for c in compositions(n, len(values)):
            law = mech.on_counts(dict(zip(values, c, strict=True)), n)
            cells += len(law)
            laws.append({"counts": list(c),
                         "law": [[encode(o), number(w)] for o, w in law.items()]})
            if cells > max_cells:
                break
    else:
        for db in all_databases(values, n):
            law = mech(db)
            cells += len(law)
            laws.append({"database": encode(db),
                         "law": [[encode(o), number(w)] for o, w in law.items()]})
            if cells > max_cells:
                break
    if cells > max_cells:
        raise BudgetExceeded(f"certificate: the DP output laws have more than {max_cells} "
                             f"cells; certify a smaller spec")
    return {"by": "counts" if mech.symmetric else "databases", "laws": laws}


def write_check_certificate(spec, path, progress=None) -> Report:
    """Run ``spec``, write its certificate to ``path`` (JSON) and return the report."""
    from verifier.reports.writers import write_certificate

    report, cert = certify_check(spec, progress)
    write_certificate(cert, Path(path))
    return report
