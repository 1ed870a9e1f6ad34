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
from math import comb

from .exact import (
    ZERO,
    Eps,
    Recorded,
    Rejected,
    Undecided,
    case_delta,
    dec,
    key,
    q,
    read_delta,
    within,
)
from .mechanisms import law_size, mechanism, out_key
from .relation import relation_delta, relation_witness

__all__ = ["dp_delta", "dp_witness"]


SYMMETRIC = ("count", "threshold_count", "geometric_count", "sum", "mean")


def dp_witness(cert: dict, w: dict, where: str, p_a: Fraction, p_b: Fraction,
               notes: list) -> None:
    """Two neighbouring databases; their masses on ``S`` re-derived by the mechanism (under a
    relation: :func:`verify_relation.relation_witness`). For user code the masses are taken
    from the certificate, and a :class:`Recorded` note says so."""
    spec = cert["spec"]
    if "neighbours" in spec:
        return relation_witness(cert, w, where, p_a, p_b, notes)
    d1, d2 = (dec(d) for d in w["databases"])
    values = [dec(v) for v in spec["values"]]
    if not isinstance(d1, tuple) or not isinstance(d2, tuple) or \
            len(d1) != spec["records"] or len(d2) != len(d1) or \
            any(x not in values for x in d1 + d2) or \
            sum(x != y for x, y in zip(d1, d2, strict=True)) != 1:
        raise Rejected(f"{where}.databases: {w['databases']} are not neighbouring databases")
    mech = mechanism(spec)
    if mech is None:
        notes.append(Recorded(f"dp: the witness's masses under user code "
                              f"{spec['mechanism'].get('name')!r} were taken from the "
                              f"certificate"))
        return
    s = {key(o) for o in w["outputs"]}
    within(2 * law_size(spec, len(d1)), f"{where}: the masses of two databases")
    for d, p, side in ((d1, p_a, "p_a"), (d2, p_b, "p_b")):
        mass = sum((w_ for o, w_ in mech(d).items() if out_key(o) in s), ZERO)
        if mass != p:
            raise Rejected(f"{where}.{side}: {p} in the certificate, the mechanism gives "
                           f"{mass} on {list(d)}")


def _count_vectors(k: int, n: int) -> list[tuple]:
    return [tuple(c.count(v) for v in range(k))
            for c in combinations_with_replacement(range(k), n)]


def _given_laws(laws: dict) -> dict:
    given: dict = {}
    by_counts = laws["by"] == "counts"
    for j, entry in enumerate(laws["laws"]):
        db = tuple(entry["counts"]) if by_counts else dec(entry["database"])
        law = {key(o): q(p, f"evidence.dp_laws.laws[{j}]") for o, p in entry["law"]}
        if len(law) != len(entry["law"]) or any(p < 0 for p in law.values()):
            raise Rejected(f"evidence.dp_laws.laws[{j}]: an output is listed twice or has a "
                           f"negative mass")
        if sum(law.values(), ZERO) != 1:
            raise Rejected(f"evidence.dp_laws.laws[{j}]: the output law sums to "
                           f"{sum(law.values(), ZERO)}, not 1")
        if db in given:
            raise Rejected(f"evidence.dp_laws.laws[{j}]: {list(db)} has two laws")
        given[db] = {o: p for o, p in law.items() if p}
    return given


def _neighbours(db: tuple, by_counts: bool, values: list):
    """Every database at replace-one distance 1 from ``db`` (for count vectors: one unit
    moved from one value to another)."""
    for i in range(len(db)):
        if by_counts:
            if db[i]:
                for j in range(len(db)):
                    if j != i:
                        yield tuple(c - (t == i) + (t == j) for t, c in enumerate(db))
        else:
            yield from (db[:i] + (v,) + db[i + 1:] for v in values if v != db[i])


def dp_delta(cert: dict, eps: Eps, notes: list, limit: int) -> tuple:
    """DP's δ over every neighbouring pair of databases (seed 003, Lemma 1), each output law
    re-derived by the checker's own mechanism (under a relation:
    :func:`verify_relation.relation_delta`).

    The databases are derived from ``spec.values`` and ``spec.records``, never from the
    evidence. A symmetric built-in mechanism is enumerated by count vectors (neighbours:
    vectors at L1 distance 2, one record replaced); for user code the laws are taken from
    the certificate (a :class:`Recorded` note). Beyond ``limit`` databases a holding claim is
    unknown here (:class:`Undecided`), a failing one rests on its witness and its stated δ is
    recorded."""
    spec, ev = cert["spec"], cert["evidence"]
    if "neighbours" in spec:
        return relation_delta(cert, eps, notes, limit)
    values, n = [dec(v) for v in spec["values"]], spec["records"]
    kind, mech = spec["mechanism"]["kind"], mechanism(spec)
    laws = ev.get("dp_laws")
    if laws is None and cert["results"]["dp"]["holds"]:
        raise Rejected("evidence.dp_laws: missing for a holding claim")
    if laws is not None and laws.get("by") not in ("counts", "databases"):
        raise Rejected(f"evidence.dp_laws.by: {laws.get('by')!r:.40} is neither 'counts' nor "
                       f"'databases'")
    by_counts = laws["by"] == "counts" if laws is not None else kind in SYMMETRIC
    if by_counts and kind not in SYMMETRIC + ("function",):
        raise Rejected(f"evidence.dp_laws.by: {kind!r} is not a symmetric mechanism; its laws "
                       f"are by database")
    k = len(values)
    count = comb(n + k - 1, k - 1) if by_counts else \
        (k ** n if n * k.bit_length() <= 64 else None)
    if count is None or count > limit:
        if cert["results"]["dp"]["holds"]:
            raise Undecided(f"spec: {len(values)}^{n} databases exceed the checker's limit of "
                            f"{limit}; a holding dp claim cannot be re-checked here")
        notes.append(Recorded(f"dp: δ taken from the certificate ({len(values)}^{n} databases "
                              f"exceed the checker's limit of {limit}); the failure rests on "
                              f"the witness"))
        return read_delta(cert["results"]["dp"]["delta"], eps, "results.dp.delta")
    if laws is None and mech is None:
        if cert["results"]["dp"]["holds"]:
            raise Rejected("evidence.dp_laws: missing for a holding claim on user code, "
                           "whose laws this checker cannot derive")
        notes.append(Recorded("dp: δ taken from the certificate (no output laws of user "
                              "code given); the failure rests on the witness"))
        return read_delta(cert["results"]["dp"]["delta"], eps, "results.dp.delta")
    # every law's outputs, compared once per neighbour of its database
    size = k ** n if kind == "randomized_response" else n + 1 if kind == "geometric_count" \
        else 1
    total = count * size if mech is not None else \
        sum(len(e["law"]) for e in laws["laws"])
    within(total * (1 + (k * (k - 1) if by_counts else n * (k - 1)) * eps.cost),
           f"dp: the output laws of {count} {'count vectors' if by_counts else 'databases'} "
           f"({total} masses) against their neighbours'")
    dbs = _count_vectors(len(values), n) if by_counts else list(product(values, repeat=n))
    given = _given_laws(laws) if laws is not None else None
    if given is not None and set(given) != set(dbs):
        raise Rejected("evidence.dp_laws: the laws do not cover exactly every "
                       f"{'count vector' if by_counts else 'database'} of the spec")
    own = {}
    for db in dbs:
        rep = tuple(v for v, c in zip(values, db, strict=True) for _ in range(c)) \
            if by_counts else db
        if mech is None:
            own[db] = given[db]  # type: ignore[index]
            continue
        own[db] = {out_key(o): p for o, p in mech(rep).items() if p}
        if given is not None and own[db] != given[db]:
            raise Rejected(f"evidence.dp_laws: the law of {list(db)} differs from the "
                           f"mechanism's (re-derived)")
    if mech is None:
        notes.append(Recorded(f"dp: the output laws of user code "
                              f"{spec['mechanism'].get('name')!r} were taken from the "
                              f"certificate, not re-derived"))
    best = eps.worst(case_delta(own[d1], own[d2], eps)
                     for d1 in dbs for d2 in _neighbours(d1, by_counts, values))
    notes.append(f"dp: recomputed δ over every neighbouring pair of {len(dbs)} "
                 f"{'count vectors' if by_counts else 'databases'}")
    return best
