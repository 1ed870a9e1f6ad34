"""The kernel's own validation of a check certificate's spec (standard library only).

Written apart from plrv's spec readers, on purpose: a certificate is checked against the
claim its spec states, so the spec must state a claim plrv could have been asked. A spec
that plrv refuses — no compared pair, a target among the known records, ``α = 1``, counted
values outside the domain, a notion twice — states no claim, and a certificate of it is
rejected ("invalid spec"), never verified with an empty domain.

What each key must be (seed 003's setting: ``n`` records over a finite domain, data models
Θ, background knowledge Z given as known record indices, targets ``i``, ordered pairs of
values ``(a, b)``, a privacy parameter ``ε ≥ 0`` and ``δ ∈ [0, 1]``):

* ``values``: distinct integers or strings, at least one; ``records``: an integer ``n ≥ 1``;
* ``models``: each ``{"priors": [p_1 … p_n]}`` (per record, a law over ``values``) or
  ``{"support": [databases], "weights": [...]}``, every law non-negative and summing to 1;
* ``mechanism``: a built-in kind with exactly its parameters, or ``"function"`` (user code);
* ``knowledge``: each ``{"known": [distinct indices]}`` or ``{"function": name}``;
* ``targets``: distinct indices, none of them a known record; ``pairs``: distinct ordered
  pairs of two different values, each with its reverse (plrv reads a pair ``[a, b]`` as both
  ``(a, b)`` and ``(b, a)``); ``notions``: distinct, from dp, apkdp, ppkdp, noiseless.
"""

from __future__ import annotations

from fractions import Fraction

from .exact import ONE, ZERO, Eps, Rejected, q

__all__ = ["validate_check_spec", "NOTIONS"]

NOTIONS = ("dp", "apkdp", "ppkdp", "noiseless")
SPEC_FIELDS = {"values", "records", "models", "mechanism", "knowledge", "targets", "pairs",
               "epsilon", "delta", "notions"}
MECHANISMS = {  # kind -> its parameters, exactly
    "count": {"counts"}, "threshold_count": {"counts", "threshold"}, "sum": set(),
    "mean": set(), "identity": set(), "randomized_response": {"truth", "values"},
    "geometric_count": {"counts", "alpha"}, "function": set(),
}
MAX_RECORDS = 10_000


def _bad(where: str, why: str) -> Rejected:
    return Rejected(f"{where}: invalid spec: {why}")


def _is_value(v: object) -> bool:
    return (type(v) is int) or isinstance(v, str)


def _member(v: object, values: list) -> bool:
    """``v`` is one of ``values`` (and not ``true``, which Python would count as 1)."""
    return _is_value(v) and v in values


def _index_list(xs: object, n: int, where: str) -> list:
    if not isinstance(xs, list) or any(type(i) is not int or not 0 <= i < n for i in xs):
        raise _bad(where, f"{xs!r:.80} is not a list of record indices 0..{n - 1}")
    if len(set(xs)) != len(xs):
        raise _bad(where, f"{xs!r:.80} names a record twice")
    return xs


def _law(ws: object, size: int, where: str) -> list[Fraction]:
    if not isinstance(ws, list) or len(ws) != size:
        raise _bad(where, f"not a list of {size} probabilities")
    law = [q(w, where) for w in ws]
    if any(w < 0 for w in law) or sum(law, ZERO) != ONE:
        raise _bad(where, "the probabilities are not non-negative with sum 1")
    return law


def _model(m: object, values: list, n: int, where: str) -> None:
    if not isinstance(m, dict) or set(m) not in ({"priors"}, {"support", "weights"}):
        raise _bad(where, "a model is {priors} or {support, weights}")
    if "priors" in m:
        if not isinstance(m["priors"], list) or len(m["priors"]) != n:
            raise _bad(f"{where}.priors", f"not {n} laws, one per record")
        for j, law in enumerate(m["priors"]):
            _law(law, len(values), f"{where}.priors[{j}]")
        return
    support = m["support"]
    if not isinstance(support, list) or not support:
        raise _bad(f"{where}.support", "not a non-empty list of databases")
    for j, db in enumerate(support):
        if not isinstance(db, list) or len(db) != n or any(not _member(x, values) for x in db):
            raise _bad(f"{where}.support[{j}]", f"not a database of {n} records over values")
    if len({repr(db) for db in support}) != len(support):
        raise _bad(f"{where}.support", "a database is listed twice")
    _law(m["weights"], len(support), f"{where}.weights")


def _counts(params: dict, values: list, where: str) -> None:
    c = params["counts"]
    if not isinstance(c, list) or not c or any(not _member(x, values) for x in c) or \
            len({repr(x) for x in c}) != len(c):
        raise _bad(f"{where}.params.counts", f"{c!r:.80} is not a list of distinct values of "
                                             f"the domain")


def _mechanism(m: object, values: list, where: str) -> None:
    if not isinstance(m, dict) or set(m) != {"kind", "name", "params"}:
        raise _bad(where, "a mechanism is {kind, name, params}")
    kind, params = m["kind"], m["params"]
    if kind not in MECHANISMS or not isinstance(params, dict) or set(params) != MECHANISMS[kind]:
        raise _bad(where, f"kind {kind!r:.40} with parameters {sorted(params)!r:.80} is not a "
                          f"built-in kind with its parameters, nor \"function\"")
    if not isinstance(m["name"], str):
        raise _bad(f"{where}.name", "not a string")
    if "counts" in params:
        _counts(params, values, where)
    if kind == "threshold_count" and type(params["threshold"]) is not int:
        raise _bad(f"{where}.params.threshold", "not an integer")
    if kind in ("sum", "mean") and any(type(v) is not int for v in values):
        raise _bad(where, f"{kind} needs integer values")
    if kind == "geometric_count":
        a = _rational(params["alpha"], f"{where}.params.alpha")
        if not 0 < a < 1:
            raise _bad(f"{where}.params.alpha", f"α = {a} is not in (0, 1)")
    if kind == "randomized_response":
        t = _rational(params["truth"], f"{where}.params.truth")
        if not 0 <= t <= 1:
            raise _bad(f"{where}.params.truth", f"{t} is not a probability")
        if params["values"] != values or len(values) < 2:
            raise _bad(f"{where}.params.values", "not the spec's values (at least two)")


def _rational(v: object, where: str) -> Fraction:
    if isinstance(v, dict) and set(v) == {"rational"}:
        return q(v["rational"], where)
    if type(v) is int:
        return Fraction(v)
    raise _bad(where, f"{v!r:.80} is not an exact rational")


def validate_check_spec(spec: object) -> None:
    """Reject a spec no ``plrv check`` could have been given (see the module's rules)."""
    if not isinstance(spec, dict) or not set(spec) >= SPEC_FIELDS or \
            not set(spec) <= SPEC_FIELDS | {"neighbours"}:
        raise _bad("spec", f"the fields are {sorted(SPEC_FIELDS)} (and neighbours for dp)")
    values, n = spec["values"], spec["records"]
    if not isinstance(values, list) or not values or not all(_is_value(v) for v in values) \
            or len({repr(v) for v in values}) != len(values):
        raise _bad("spec.values", "not a non-empty list of distinct integers or strings")
    if type(n) is not int or not 1 <= n <= MAX_RECORDS:
        raise _bad("spec.records", f"{n!r:.40} is not an integer in 1..{MAX_RECORDS}")
    notions = spec["notions"]
    if not isinstance(notions, list) or not notions or any(x not in NOTIONS for x in notions) \
            or len(set(notions)) != len(notions):
        raise _bad("spec.notions", f"{notions!r:.80} is not a non-empty list of distinct "
                                   f"notions from {', '.join(NOTIONS)}")
    Eps(spec["epsilon"])
    if not ZERO <= q(spec["delta"], "spec.delta") <= ONE:
        raise _bad("spec.delta", f"{spec['delta']} is not in [0, 1]")
    _mechanism(spec["mechanism"], values, "spec.mechanism")
    models = spec["models"]
    if not isinstance(models, list):
        raise _bad("spec.models", "not a list")
    for j, m in enumerate(models):
        _model(m, values, n, f"spec.models[{j}]")
    if set(notions) - {"dp"} and not models:
        raise _bad("spec.models", f"{sorted(set(notions) - {'dp'})} need a data model")
    knowledge = spec["knowledge"]
    if not isinstance(knowledge, list) or not knowledge:
        raise _bad("spec.knowledge", "not a non-empty list")
    known_sets = []
    for j, k in enumerate(knowledge):
        if isinstance(k, dict) and set(k) == {"known"}:
            known_sets.append(set(_index_list(k["known"], n, f"spec.knowledge[{j}].known")))
        elif not (isinstance(k, dict) and set(k) == {"function"} and isinstance(k["function"],
                                                                                str)):
            raise _bad(f"spec.knowledge[{j}]", "not {known: [...]} nor {function: name}")
    targets = _index_list(spec["targets"], n, "spec.targets")
    if not targets:
        raise _bad("spec.targets", "no target")
    for t in targets:
        if any(t in known for known in known_sets):
            raise _bad("spec.targets", f"target {t} is a known record: the attacker knows it")
    pairs = spec["pairs"]
    if not isinstance(pairs, list) or not pairs:
        raise _bad("spec.pairs", "no compared pair of values")
    for j, pair in enumerate(pairs):
        if not isinstance(pair, list) or len(pair) != 2 or pair[0] == pair[1] or \
                any(not _member(v, values) for v in pair):
            raise _bad(f"spec.pairs[{j}]", f"{pair!r:.80} is not two different values")
    if len({repr(p) for p in pairs}) != len(pairs):
        raise _bad("spec.pairs", "a pair is listed twice")
    for pair in pairs:  # plrv compares a given pair [a, b] in both directions
        if [pair[1], pair[0]] not in pairs:
            raise _bad("spec.pairs", f"{pair!r:.60} is listed without {[pair[1], pair[0]]!r:.60}"
                                     f"; plrv compares a pair in both directions")
    if "neighbours" in spec:
        if notions != ["dp"]:
            raise _bad("spec.neighbours", "a neighbouring relation is dp's alone")
        nb = spec["neighbours"]
        if spec["mechanism"]["kind"] == "mean" and n == 1 and isinstance(nb, dict) and \
                nb.get("relation") == "add-remove-one":
            raise _bad("spec.records", "the mean of the empty database (add-remove-one of one "
                                       "record) is undefined")
