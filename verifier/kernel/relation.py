"""Classical DP under a neighbouring relation, for the independent checker (standard library).

A certificate of a spec with ``[input]`` or ``[neighbours]`` names the relation in
``spec.neighbours`` and lists, in ``evidence.dp_relation``, every ordered pair ``x ~ y``
with the output law of each input. The checker

1. re-derives the set of ordered pairs itself — ``replace-one`` and ``add-remove-one`` over
   the databases of ``spec.values`` and ``spec.records``, ``linf`` / ``l1`` over the listed
   inputs, ``pairs`` from the listed pairs in both directions — and rejects the certificate
   unless it equals the listed set; a predicate ``"module:function"`` is user code the checker
   does not run: its pairs are taken from the certificate, and the checker says so;
2. re-derives each output law with its own mechanism when the mechanism is built in (else it
   says the laws were taken from the certificate), checks each law sums to 1;
3. recomputes δ at ε over the pairs (seed 003, Lemma 1)::

       δ(ε) = max_{x ~ y} Σ_O max(0, P[M(x)=O] − e^ε·P[M(y)=O])

and a failing claim's witness: a listed (or re-derived) pair and its masses on ``S``.
"""

from __future__ import annotations

import json
from fractions import Fraction
from itertools import product

from .exact import (
    ZERO,
    Eps,
    Recorded,
    Rejected,
    case_delta,
    dec,
    enc,
    key,
    q,
    read_delta,
    within,
)
from .mechanisms import law_size, mechanism, out_key

__all__ = ["relation_delta", "relation_witness", "derive_pairs", "related"]

BUILT_IN = ("replace-one", "add-remove-one", "linf", "l1", "pairs")
MAX_PAIR_TESTS = 1_000_000  # ordered pairs of inputs the checker tests for linf / l1


def _name(nb: dict) -> str:
    """The relation's name, once ``spec.neighbours`` holds exactly the keys it takes."""
    name = nb["relation"]
    if not isinstance(name, str) or (name not in BUILT_IN and ":" not in name):
        raise Rejected(f"spec.neighbours.relation: {name!r} is not a relation this checker "
                       f"knows ({', '.join(BUILT_IN)} or a predicate \"module:function\")")
    takes = {"replace-one": set(), "add-remove-one": set(), "linf": {"distance", "inputs"},
             "l1": {"distance", "inputs"}, "pairs": {"pairs"}}.get(name, {"inputs"})
    if set(nb) != takes | {"relation"}:
        raise Rejected(f"spec.neighbours: relation {name!r} is defined by "
                       f"{sorted(takes) or 'the databases of values and records'}, not by "
                       f"{sorted(set(nb) - {'relation'})}")
    return name


def _inputs(nb: dict) -> list:
    xs = [dec(x) for x in nb["inputs"]]
    if len(set(xs)) != len(xs) or not all(isinstance(x, tuple) for x in xs):
        raise Rejected("spec.neighbours.inputs: not a list of distinct input vectors")
    return xs


def _distance(nb: dict) -> int:
    d = nb["distance"]
    if isinstance(d, bool) or not isinstance(d, int) or d < 1:
        raise Rejected(f"spec.neighbours.distance: {d!r} is not a positive integer")
    return d


def _norm(name: str, x: tuple, y: tuple) -> int:
    if len(x) != len(y) or not all(type(v) is int for v in x + y):
        raise Rejected(f"spec.neighbours.inputs: {list(x)} and {list(y)} are not integer "
                       f"vectors of one length")
    diffs = [abs(a - b) for a, b in zip(x, y, strict=True)]
    return max(diffs) if name == "linf" else sum(diffs)


def derive_pairs(spec: dict, limit: int) -> tuple[set | None, str]:
    """The relation's ordered pairs ``(key(x), key(y))``, derived here, and what they range
    over; ``None`` (with the reason) when the checker cannot derive them."""
    nb = spec["neighbours"]
    name = _name(nb)

    def k(x: tuple) -> str:
        return key(enc(x))
    out: set = set()
    if name in ("replace-one", "add-remove-one"):
        values, n = [dec(v) for v in spec["values"]], spec["records"]
        if n * len(values).bit_length() > 64 or len(values) ** n > limit:
            return None, f"{len(values)}^{n} databases exceed the checker's limit of {limit}"
        for d in product(values, repeat=n):
            for i in range(n):
                if name == "replace-one":
                    out.update((k(d), k(d[:i] + (b,) + d[i + 1:])) for b in values if b != d[i])
                else:
                    small = d[:i] + d[i + 1:]
                    out.update({(k(d), k(small)), (k(small), k(d))})
        return out, (f"{name} over the databases of {n} record{'' if n == 1 else 's'} over "
                     f"{len(values)} value{'' if len(values) == 1 else 's'}")
    if name in ("linf", "l1"):
        xs, dist = _inputs(nb), _distance(nb)
        if len(xs) ** 2 > MAX_PAIR_TESTS:
            return None, f"{len(xs)}^2 pairs of inputs exceed {MAX_PAIR_TESTS}"
        out = {(k(x), k(y)) for x in xs for y in xs if x != y and _norm(name, x, y) <= dist}
        return out, f"{name} (distance {dist}) over {len(xs)} inputs"
    if name == "pairs":
        for j, (x, y) in enumerate(nb["pairs"]):
            if key(x) == key(y):
                raise Rejected(f"spec.neighbours.pairs[{j}]: an input is not its own neighbour")
            out.update({(key(x), key(y)), (key(y), key(x))})
        return out, f"the {len(nb['pairs'])} listed pairs, both directions"
    return None, f"relation {name!r} is user code, which this checker does not run"


def related(spec: dict, x: tuple, y: tuple) -> bool | None:
    """Whether ``x ~ y`` under the spec's relation; None for a predicate (user code)."""
    nb = spec["neighbours"]
    name = _name(nb)
    if name in ("replace-one", "add-remove-one"):
        values, n = [dec(v) for v in spec["values"]], spec["records"]
        if not isinstance(x, tuple) or not isinstance(y, tuple) or \
                any(v not in values for v in x + y):
            return False
        if name == "replace-one":
            return len(x) == len(y) == n and sum(a != b for a, b in zip(x, y, strict=True)) == 1
        big, small = (x, y) if len(x) > len(y) else (y, x)
        return len(big) == n and len(small) == n - 1 and \
            any(big[:i] + big[i + 1:] == small for i in range(n))
    if name in ("linf", "l1"):
        xs = _inputs(nb)
        return x in xs and y in xs and x != y and _norm(name, x, y) <= _distance(nb)
    if name == "pairs":
        listed = {(key(a), key(b)) for a, b in nb["pairs"]}
        pair = (key(enc(x)), key(enc(y)))
        return x != y and (pair in listed or pair[::-1] in listed)
    return None


def _laws(rel: dict, where: str) -> dict:
    laws: dict = {}
    for j, entry in enumerate(rel["laws"]):
        w = f"{where}.laws[{j}]"
        law = {key(o): q(p, w) for o, p in entry["law"]}
        if len(law) != len(entry["law"]) or any(p <= 0 for p in law.values()):
            raise Rejected(f"{w} (input {entry['input']}): an output is listed twice or has a "
                           f"mass ≤ 0")
        if sum(law.values(), ZERO) != 1:
            raise Rejected(f"{w} (input {entry['input']}): the output law sums to "
                           f"{sum(law.values(), ZERO)}, not 1")
        if key(entry["input"]) in laws:
            raise Rejected(f"{w}: input {entry['input']} has two laws")
        laws[key(entry["input"])] = law
    return laws


def _own_laws(spec: dict, rel: dict, laws: dict, where: str, notes: list) -> None:
    """Each listed law against the checker's own mechanism, where it is built in."""
    mech = mechanism(spec)
    if mech is None:
        notes.append(Recorded(f"dp: the output laws of user code "
                              f"{spec['mechanism'].get('name')!r} were taken from the "
                              f"certificate, not re-derived"))
        return
    for j, entry in enumerate(rel["laws"]):
        own = {out_key(o): p for o, p in mech(dec(entry["input"])).items() if p}
        if own != laws[key(entry["input"])]:
            raise Rejected(f"{where}.laws[{j}]: the law of input {entry['input']} differs from "
                           f"the mechanism's (re-derived)")
    notes.append(f"dp: re-derived the output laws of {len(laws)} inputs with the checker's "
                 f"own mechanism")


def relation_delta(cert: dict, eps: Eps, notes: list, limit: int) -> tuple:
    """DP's δ over the relation's pairs, re-derived here where the relation is built in and
    small enough; pairs taken from the certificate (a predicate, or beyond ``limit``) are
    :class:`Recorded`. Without the pairs a holding claim is rejected, and a failing one
    rests on its witness, its stated δ recorded."""
    spec, ev = cert["spec"], cert["evidence"]
    where = "evidence.dp_relation"
    own, over = derive_pairs(spec, limit)
    rel = ev.get("dp_relation")
    if rel is None and "omitted" not in ev:
        raise Rejected(f"{where}: missing (and no evidence.omitted says why)")
    if rel is None and own is not None and mechanism(spec) is not None:
        mech = mechanism(spec)
        inputs = {z for pair in own for z in pair}
        kind = spec["mechanism"]["kind"]
        size = len(spec["values"]) ** spec["records"] if kind == "randomized_response" \
            else spec["records"] + 1 if kind == "geometric_count" else 1
        within((len(inputs) + len(own) * eps.cost) * size,
               f"dp: {len(own)} ordered pairs of {over}, up to {size} outputs each")
        laws = {z: {out_key(o): p for o, p in mech(dec(json.loads(z))).items() if p}
                for z in inputs}
        best = eps.worst(case_delta(laws[x], laws[y], eps) for x, y in own)
        notes.append(f"dp: re-derived the {len(own)} ordered pairs of {over} and recomputed "
                     f"δ over them with the checker's own mechanism")
        return best
    if rel is None:
        if cert["results"]["dp"]["holds"]:
            raise Rejected(f"{where}: missing for a holding claim")
        notes.append(Recorded("dp: δ taken from the certificate (no pairs listed); the "
                              "failure rests on the witness"))
        return read_delta(cert["results"]["dp"]["delta"], eps, "results.dp.delta")
    laws = _laws(rel, where)
    pairs = []
    for j, (x, y) in enumerate(rel["pairs"]):
        pair = (key(x), key(y))
        if pair[0] == pair[1] or pair[0] not in laws or pair[1] not in laws:
            raise Rejected(f"{where}.pairs[{j}]: {[x, y]} is not a pair of two inputs with laws")
        pairs.append(pair)
    listed = set(pairs)
    if len(listed) != len(pairs):
        raise Rejected(f"{where}.pairs: a pair is listed twice")
    if {z for p in pairs for z in p} != set(laws):
        raise Rejected(f"{where}.laws: a law is given for an input in no pair")
    name = spec["neighbours"]["relation"]
    if own is not None:
        extra, missing = sorted(listed - own), sorted(own - listed)
        if extra or missing:
            what = f"lists {' → '.join(extra[0])}, which is not a pair" if extra else \
                f"omits the pair {' → '.join(missing[0])}"
            raise Rejected(f"{where}.pairs: the certificate {what} of relation {name!r} "
                           f"(re-derived: {over})")
        notes.append(f"dp: re-derived the {len(own)} ordered pairs of {over}: they equal the "
                     f"certificate's")
    else:
        if ":" in name:
            inputs = {key(x) for x in spec["neighbours"]["inputs"]}
            if not {z for p in pairs for z in p} <= inputs:
                raise Rejected(f"{where}.pairs: a pair names an input not in "
                               f"spec.neighbours.inputs")
        notes.append(Recorded(f"dp: the {len(pairs)} ordered pairs were taken from the "
                              f"certificate, not re-derived ({over})"))
    within(sum(len(laws[x]) for x, _ in pairs) * eps.cost + sum(map(len, laws.values())),
           f"dp: the output laws of {len(laws)} inputs against their {len(pairs)} pairs")
    _own_laws(spec, rel, laws, where, notes)
    best = eps.worst(case_delta(laws[x], laws[y], eps) for x, y in pairs)
    notes.append(f"dp: recomputed δ over the {len(pairs)} ordered pairs")
    return best


def relation_witness(cert: dict, w: dict, where: str, p_a: Fraction, p_b: Fraction,
                     notes: list) -> None:
    """A failing claim's pair: a pair of the relation, with its masses on ``S`` re-derived
    from the checked laws (or the checker's mechanism when the pairs were omitted)."""
    spec, rel = cert["spec"], cert["evidence"].get("dp_relation")
    x, y = w["inputs"]
    s = {key(o) for o in w["outputs"]}
    if rel is not None:
        if [x, y] not in rel["pairs"]:
            raise Rejected(f"{where}.inputs: {[x, y]} is not one of the listed pairs")
        laws = _laws(rel, "evidence.dp_relation")
        masses = [sum((p for o, p in laws[key(z)].items() if o in s), ZERO) for z in (x, y)]
    else:
        near = related(spec, dec(x), dec(y))
        if near is False:
            raise Rejected(f"{where}.inputs: {[x, y]} are not neighbours")
        if near is None:
            notes.append(Recorded(f"dp: that {[x, y]} are neighbours is taken from the "
                                  f"certificate (the relation is user code)"))
        mech = mechanism(spec)
        if mech is None:
            notes.append(Recorded("dp: the witness's masses under user code were taken from "
                                  "the certificate"))
            return
        within(sum(law_size(spec, len(z)) for z in (x, y) if isinstance(z, list)),
               f"{where}: the masses of two inputs")
        masses = [sum((p for o, p in mech(dec(z)).items() if out_key(o) in s), ZERO)
                  for z in (x, y)]
    for side, mass, given in (("p_a", masses[0], p_a), ("p_b", masses[1], p_b)):
        if mass != given:
            raise Rejected(f"{where}.{side}: {given} in the certificate, the laws give {mass}")
