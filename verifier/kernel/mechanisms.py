"""Re-enumeration of a spec for the certificate checker (standard library only): the built-in
mechanisms written again from their definitions, every database of a data model with its
probability, and the joint table ``P[D(i)=t, ζ(D)=B, M(D)=O]`` of one data model, knowledge
and target."""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from math import prod

from .exact import BOTTOM, ONE, ZERO, Undecided, dec, enc, key, q

__all__ = ["mechanism", "out_key", "enumerable", "joint", "law_size", "enumeration_work"]


def mechanism(spec: dict):
    """The output law of a built-in mechanism, written from its definition (or None)."""
    m = spec["mechanism"]
    kind, p = m.get("kind"), {k: dec(v) for k, v in m.get("params", {}).items()}
    counted = set(p.get("counts", (1,)))

    def c(db):
        return sum(1 for x in db if x in counted)
    if kind == "count":
        return lambda db: {c(db): ONE}
    if kind == "threshold_count":
        return lambda db: {c(db) if c(db) >= p["threshold"] else "⊥": ONE}
    if kind == "sum":
        return lambda db: {sum((Fraction(x) for x in db), ZERO): ONE}
    if kind == "mean":  # over the records given (n − 1 of them under add-remove-one)
        return lambda db: {sum((Fraction(x) for x in db), ZERO) / len(db): ONE}
    if kind == "identity":
        return lambda db: {tuple(db): ONE}
    if kind == "randomized_response":
        t, dom = p["truth"], p["values"]
        other = (1 - t) / (len(dom) - 1)

        def rr(db):
            out = {}
            for rep in product(dom, repeat=len(db)):
                w = prod((t if r == x else other for r, x in zip(rep, db, strict=True)), start=ONE)
                if w:
                    out[rep] = w
            return out
        return rr
    if kind == "geometric_count":
        al = p["alpha"]

        def geo(db):  # clamped to 0..len(db): the size of the database given
            k, m = c(db), len(db)
            if m == 0:
                return {0: ONE}
            out = {j: (1 - al) / (1 + al) * al ** abs(j - k) for j in range(1, m)}
            out[0], out[m] = al ** k / (1 + al), al ** (m - k) / (1 + al)
            return out
        return geo
    return None


def out_key(o: object) -> str:
    return key(BOTTOM) if o == "⊥" else key(enc(o))


def _databases(model: dict, values: tuple, n: int):
    if "priors" in model:
        priors = [[q(w, "spec.models.priors") for w in ws] for ws in model["priors"]]
        for idx in product(range(len(values)), repeat=n):
            w = prod((priors[j][i] for j, i in enumerate(idx)), start=ONE)
            if w:
                yield tuple(values[i] for i in idx), w
    else:
        for db, w in zip(model["support"], model["weights"], strict=True):
            yield dec(db), q(w, "spec.models.weights")


def enumerable(spec: dict, limit: int) -> str | None:
    """Why the spec cannot be re-enumerated here, or None."""
    if mechanism(spec) is None:
        return f"mechanism {spec['mechanism'].get('name')!r} is not a built-in kind"
    if any("known" not in k for k in spec["knowledge"]):
        return "the background knowledge is a user function"
    k, n = len(spec["values"]), spec["records"]
    if n * k.bit_length() > 64 or k ** (n * (2 if spec["mechanism"]["kind"] ==
                                             "randomized_response" else 1)) > limit:
        return f"{k}^{n} databases (× outputs) exceed the checker's limit of {limit}"
    return None


def law_size(spec: dict, records: int) -> int:
    """An upper bound on the outputs of one database of ``records`` records under the
    spec's built-in mechanism (randomized response enumerates every report); beyond 2^64,
    unknown."""
    kind, k = spec["mechanism"]["kind"], len(spec["values"])
    if kind == "randomized_response":
        if records * k.bit_length() > 64:
            raise Undecided(f"randomized response over {records} records: {k}^{records} "
                            f"reports exceed the kernel's limits")
        return k ** records
    return records + 1 if kind == "geometric_count" else 1


def enumeration_work(spec: dict, labels: list) -> int:
    """The work of re-enumerating the tables of ``labels`` (data model, knowledge, target)."""
    k, n = len(spec["values"]), spec["records"]
    return sum(k ** n if "priors" in spec["models"][m] else len(spec["models"][m]["support"])
               for m, _, _ in labels) * law_size(spec, n)


def joint(spec: dict, model: dict, known: list, target: int) -> dict:
    """``{(t, B): {O: P[D(i)=t, ζ(D)=B, M(D)=O]}}`` by enumerating every database."""
    values, mech = tuple(dec(v) for v in spec["values"]), mechanism(spec)
    out: dict = {}
    for db, w in _databases(model, values, spec["records"]):
        bg = key(enc(tuple(db[j] for j in known))) if known else key("nothing")
        row = out.setdefault((key(enc(db[target])), bg), {})
        for o, p in mech(db).items():
            k = out_key(o)
            row[k] = row.get(k, ZERO) + w * p
    return out
