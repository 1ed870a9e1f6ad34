"""Classical DP in certificates, for the independent checker (standard library only).

The output law of every database (every count vector of a symmetric mechanism) is re-derived
with the checker's own mechanisms, and δ recomputed over every ordered neighbouring pair
(seed 003, Lemma 1); a failing claim's witness is two neighbouring databases whose masses on
the output set are re-derived the same way. A spec with a neighbouring relation
(``spec.neighbours``) is checked by :mod:`verify_relation`.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations_with_replacement, product

from .exact import (
    ZERO,
    Eps,
    Rejected,
    case_delta,
    dec,
    key,
    mechanism,
    out_key,
    q,
)
from .relation import relation_delta, relation_witness

__all__ = ["dp_delta", "dp_witness"]


def dp_witness(cert: dict, w: dict, where: str, p_a: Fraction, p_b: Fraction) -> None:
    """Two neighbouring databases; their masses on ``S`` re-derived by the mechanism (under a
    relation: :func:`verify_relation.relation_witness`)."""
    spec = cert["spec"]
    if "neighbours" in spec:
        return relation_witness(cert, w, where, p_a, p_b)
    d1, d2 = (dec(d) for d in w["databases"])
    values = [dec(v) for v in spec["values"]]
    if len(d1) != spec["records"] or len(d2) != len(d1) or \
            any(x not in values for x in d1 + d2) or \
            sum(x != y for x, y in zip(d1, d2, strict=True)) != 1:
        raise Rejected(f"{where}.databases: {w['databases']} are not neighbouring databases")
    mech = mechanism(spec)
    if mech is not None:
        s = {key(o) for o in w["outputs"]}
        for d, p, side in ((d1, p_a, "p_a"), (d2, p_b, "p_b")):
            mass = sum((w_ for o, w_ in mech(d).items() if out_key(o) in s), ZERO)
            if mass != p:
                raise Rejected(f"{where}.{side}: {p} in the certificate, the mechanism gives "
                               f"{mass} on {list(d)}")


def dp_delta(cert: dict, eps: Eps, notes: list, limit: int) -> tuple | None:
    """DP's δ: from the certificate's output laws, re-derived by the checker's own mechanism
    (under a relation: :func:`verify_relation.relation_delta`)."""
    spec, ev = cert["spec"], cert["evidence"]
    if "neighbours" in spec:
        return relation_delta(cert, eps, notes, limit)
    values, n = [dec(v) for v in spec["values"]], spec["records"]
    mech = mechanism(spec)
    laws = ev.get("dp_laws")
    if laws is None and (mech is None or len(values) ** n > limit):
        notes.append("dp: not re-enumerated (not a built-in mechanism or too many databases)")
        return None
    by_counts = laws is not None and laws["by"] == "counts"
    given: dict = {}
    for j, entry in enumerate(laws["laws"] if laws else ()):
        db = tuple(entry["counts"]) if by_counts else dec(entry["database"])
        law = {key(o): q(p, f"evidence.dp_laws.laws[{j}]") for o, p in entry["law"]}
        if sum(law.values(), ZERO) != 1:
            raise Rejected(f"evidence.dp_laws.laws[{j}]: the output law sums to "
                           f"{sum(law.values(), ZERO)}, not 1")
        given[db] = law
    dbs = [tuple(c.count(v) for v in range(len(values))) for c in
           combinations_with_replacement(range(len(values)), n)] if by_counts else \
        list(product(values, repeat=n))
    if set(given) - set(dbs) or (laws is not None and set(dbs) - set(given)):
        raise Rejected("evidence.dp_laws: the laws do not cover exactly every database")
    own = {}
    for db in dbs:
        rep = tuple(v for v, c in zip(values, db, strict=True) for _ in range(c)) \
            if by_counts else db
        own[db] = {out_key(o): p for o, p in mech(rep).items() if p} if mech else given[db]
        if laws is not None and own[db] != given[db]:
            raise Rejected(f"evidence.dp_laws: the law of {list(db)} differs from the "
                           f"mechanism's (re-derived)")
    best = (ZERO, ZERO)
    for d1 in dbs:
        for d2 in dbs:
            near = sum(abs(x - y) for x, y in zip(d1, d2, strict=True)) == 2 if by_counts \
                else sum(x != y for x, y in zip(d1, d2, strict=True)) == 1
            if near:
                d = case_delta(own[d1], own[d2], eps)
                best = d if eps.compare(d, best) > 0 else best
    notes.append(f"dp: recomputed δ over every neighbouring pair of {len(dbs)} "
                 f"{'count vectors' if by_counts else 'databases'}")
    return best
