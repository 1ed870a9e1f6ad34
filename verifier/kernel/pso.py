"""Predicate singling out in certificates, for the independent checker (standard library only).

Re-checks a certificate of ``plrv pso`` (seed 002, Cohen & Nissim) with ``Fraction`` only:

1. ``D``'s weights are ≥ 0 and sum to 1; the datasets are exactly every sequence of
   ``supp(D)^n`` (every multiset for a symmetric mechanism), each with probability
   ``Π_j D(x_j)`` (times ``n!/Π_u m_u!`` for a multiset); every output law sums to 1, and so
   does every answer of the adversary;
2. ``Succ = Σ_x P[x]·Σ_o P[M(x)=o]·Σ_p P[A(o)=p]·[p isolates, w(p) admissible]``
   (Definition 3.3; a collection succeeds when its predicates isolate pairwise different rows
   and are all admissible, Definition 3.7) equals the stated success;
3. the baseline ``B(n, w) = n·w·(1 − w)^(n−1)`` of the listed predicate, its weight ``w``
   admissible (Definition 3.5), and — when the universe is small — no admissible realizable
   weight giving more (Claim 3.1);
4. for the optimal adversary and a small universe: no admissible predicate scores more on any
   output than the listed one;
5. ``bound = factor·baseline + slack`` and the verdict ``success ≤ bound``.

The output law of every dataset is re-derived from the mechanism's definition for the
built-in kinds ``count``, ``counts``, ``predicate``, ``identity`` and ``randomized_response``
(seed 002, §4.2); for other kinds and user code it is taken from the certificate, and the
checker says so (not verified, only consistent). Everything computed from the laws is
re-derived.
"""

from __future__ import annotations

import json
from fractions import Fraction
from itertools import product
from math import comb, factorial, prod

from .exact import TOP, ZERO, Recorded, Rejected, Undecided, exact_fields, key, q, within

__all__ = ["verify_pso", "MAX_SEARCH"]

MAX_SEARCH = 2_000_000  # predicate × (output, dataset) scorings for the optimality checks
MAX_BASELINE_VALUES = 20  # universe values whose 2^k realizable weights Claim 3.1 re-checks
ADVERSARIES = ("optimal", "trivial", "composition", "full", "bit_suppression",
               "interval_buckets", "function")


def _universe(spec: dict) -> tuple[list[str], dict[str, Fraction]]:
    u = spec["universe"]
    values = [key(v) for v in u["values"]]
    weights = [q(w, "spec.universe.weights") for w in u["weights"]]
    if len(values) != len(weights) or len(set(values)) != len(values):
        raise Rejected("spec.universe: values and weights do not pair up one to one")
    if any(w < 0 for w in weights) or sum(weights, ZERO) != 1:
        raise Rejected(f"spec.universe.weights: sum to {sum(weights, ZERO)} (or one is "
                       f"negative), not a distribution")
    return values, dict(zip(values, weights, strict=True))


def _admissible(spec: dict):
    a = spec["admissible"]
    if not isinstance(a, dict) or set(a) != {"at_least", "at_most"}:
        raise Rejected("spec.admissible: not {at_least, at_most}")
    lo = None if a["at_least"] is None else q(a["at_least"], "spec.admissible.at_least")
    hi = None if a["at_most"] is None else q(a["at_most"], "spec.admissible.at_most")
    if any(b is not None and not 0 <= b <= 1 for b in (lo, hi)) or \
            (lo is not None and hi is not None and lo > hi):
        raise Rejected(f"spec.admissible: [{lo}, {hi}] is not an interval of weights in "
                       f"[0, 1]")
    return lambda w: (hi is None or w <= hi) and (lo is None or w >= lo)


def _isolated(members: set, rows: list) -> int | None:
    hits = [j for j, x in enumerate(rows) if x in members]
    return hits[0] if len(hits) == 1 else None


def _datasets(ev: dict, values: list, dist: dict, n: int, symmetric: bool) -> list:
    """``[(rows, P[x], {output: P[M(x)=o]})]``, every probability re-derived."""
    support = [v for v in values if dist[v]]
    order = {v: j for j, v in enumerate(values)}
    seen, out = set(), []
    for j, d in enumerate(ev["datasets"]):
        where = f"evidence.datasets[{j}]"
        rows = [key(x) for x in d["rows"]]
        if len(rows) != n or any(x not in dist or not dist[x] for x in rows):
            raise Rejected(f"{where}: rows {d['rows']} are not {n} values of the support of D")
        canon = tuple(sorted(rows, key=order.__getitem__)) if symmetric else tuple(rows)
        if canon in seen:
            raise Rejected(f"{where}: dataset {d['rows']} is listed twice")
        seen.add(canon)
        p = prod((dist[x] for x in rows), start=Fraction(1))
        if symmetric:
            p *= factorial(n) // prod(factorial(rows.count(x)) for x in set(rows))
        if q(d["probability"], f"{where}.probability") != p:
            raise Rejected(f"{where}: P[x] = {d['probability']} in the certificate, {p} from D")
        law = {key(o): q(w, f"{where}.law") for o, w in d["law"]}
        if any(w <= 0 for w in law.values()) or sum(law.values(), ZERO) != 1:
            raise Rejected(f"{where}: the output law sums to {sum(law.values(), ZERO)} (or has "
                           f"a probability ≤ 0), not 1")
        out.append((rows, p, law))
    expected = comb(len(support) + n - 1, n) if symmetric else len(support) ** n
    if len(seen) != expected:
        raise Rejected(f"evidence.datasets: {len(seen)} datasets listed, {expected} "
                       f"{'multisets' if symmetric else 'sequences'} of {n} rows exist")
    return out


def _answers(ev: dict, dist: dict) -> dict:
    answers: dict = {}
    for j, (o, choices) in enumerate(ev["adversary"]):
        where = f"evidence.adversary[{j}]"
        parsed = []
        for c, p in choices:
            preds = c["collection"] if isinstance(c, dict) else [c]
            sets = [{key(x) for x in m} for m in preds]
            if any(x not in dist for s in sets for x in s):
                raise Rejected(f"{where}: a predicate names a value outside the universe")
            parsed.append((sets, isinstance(c, dict), q(p, f"{where}.probability")))
        if any(p < 0 for *_, p in parsed) or sum((p for *_, p in parsed), ZERO) != 1:
            raise Rejected(f"{where} (output {o!r}): the adversary's probabilities do not sum "
                           f"to 1")
        answers[key(o)] = parsed
    return answers


def _succeeds(sets: list, collection: bool, rows: list, ok, dist: dict) -> bool:
    if not all(ok(sum((dist[x] for x in s), ZERO)) for s in sets):
        return False
    hits = [_isolated(s, rows) for s in sets]
    return None not in hits and (not collection or len(set(hits)) == len(hits))


def _baseline(cert: dict, values: list, dist: dict, ok, notes: list) -> Fraction:
    res, n = cert["results"], cert["spec"]["n"]
    pred = [key(x) for x in cert["evidence"]["baseline_predicate"]]
    if res["baseline_weight"] is None:
        w, b = None, ZERO
    else:
        w = sum((dist[x] for x in pred), ZERO)
        if q(res["baseline_weight"], "results.baseline_weight") != w:
            raise Rejected(f"results.baseline_weight: {res['baseline_weight']} but the listed "
                           f"predicate has weight {w}")
        if not ok(w):
            raise Rejected(f"results.baseline_weight: {w} is not admissible")
        b = n * w * (1 - w) ** (n - 1)
    if q(res["baseline"], "results.baseline") != b:
        raise Rejected(f"results.baseline: {res['baseline']} in the certificate, B(n, w) = {b}")
    if len(values) <= MAX_BASELINE_VALUES:
        sums = {ZERO}
        for v in values:
            sums |= {s + dist[v] for s in sums}
        best = max((n * s * (1 - s) ** (n - 1) for s in sums if ok(s)), default=ZERO)
        if best != b:
            raise Rejected(f"results.baseline: {b}, but an admissible realizable weight gives "
                           f"B(n, w) = {best} (Claim 3.1)")
        notes.append(f"baseline: B({n}, {w}) = {b}, the best of {len(sums)} realizable weights")
    else:
        notes.append(Recorded(f"baseline: B({n}, {w}) = {b}; that no admissible predicate "
                              f"gives more (Claim 3.1) was taken from the certificate: the "
                              f"2^{len(values)} predicates are beyond this checker's search"))
    return b


def _optimality(data: list, answers: dict, values: list, dist: dict, ok, notes: list) -> None:
    """The optimal adversary's predicate attains, per output, the best isolation mass."""
    groups = sum(len(law) for _, _, law in data)
    if len(values) > 40 or 2 ** len(values) * groups > MAX_SEARCH:
        notes.append(Recorded(f"optimal adversary: its answers were taken from the "
                              f"certificate, their optimality not re-checked (2^{len(values)} "
                              f"predicates × {groups} (dataset, output) pairs exceed "
                              f"{MAX_SEARCH})"))
        return
    preds = []
    for mask in range(2 ** len(values)):
        s = {v for j, v in enumerate(values) if mask >> j & 1}
        if ok(sum((dist[x] for x in s), ZERO)):
            preds.append(s)
    by_output: dict = {}
    for rows, p, law in data:
        for o, po in law.items():
            by_output.setdefault(o, []).append((rows, p * po))
    for o, cases in by_output.items():
        listed = sum((m for rows, m in cases if _isolated(answers[o][0][0][0], rows) is not None
                      and ok(sum((dist[x] for x in answers[o][0][0][0]), ZERO))), ZERO)
        for s in preds:
            score = sum((m for rows, m in cases if _isolated(s, rows) is not None), ZERO)
            if score > listed:
                raise Rejected(f"evidence.adversary (output {o}): the optimal adversary's "
                               f"predicate isolates with mass {listed}, the predicate "
                               f"{sorted(s)} with {score}")
    notes.append(f"optimal adversary: each output's predicate beats all {len(preds)} "
                 f"admissible predicates")


RECOMPUTED = ("count", "counts", "predicate", "identity", "randomized_response")


def _own_law(spec: dict, values: list):
    """``rows ↦ {output key: probability}`` of a built-in kind, from its definition; None for
    the kinds this checker does not re-derive."""
    m = spec["mechanism"]
    kind, params = m.get("kind"), m.get("params", {})
    if kind not in RECOMPUTED:
        return None
    want = {"count": {"predicate"}, "counts": {"predicates"}, "predicate": {"predicate"},
            "identity": set(), "randomized_response": {"truth"}}[kind]
    if set(params) != want:
        raise Rejected(f"spec.mechanism.params: {sorted(params)} for kind {kind!r}, which "
                       f"takes {sorted(want)}")

    def members(p: object, where: str) -> set:
        s = {key(x) for x in p} if isinstance(p, list) else None
        if s is None or not s <= set(values):
            raise Rejected(f"spec.mechanism.params.{where}: not a set of universe values")
        return s
    if kind in ("count", "predicate"):
        pred = members(params["predicate"], "predicate")
        if kind == "count":
            return lambda rows: {key(sum(1 for u in rows if u in pred)): Fraction(1)}
        return lambda rows: {key([int(u in pred) for u in rows]): Fraction(1)}
    if kind == "counts":
        preds = [members(p, "predicates") for p in params["predicates"]]
        return lambda rows: {key([sum(1 for u in rows if u in p) for p in preds]): Fraction(1)}
    if kind == "identity":
        return lambda rows: {key([json.loads(u) for u in rows]): Fraction(1)}
    t = q(params["truth"], "spec.mechanism.params.truth")
    if not 0 <= t <= 1 or len(values) < 2:
        raise Rejected(f"spec.mechanism.params.truth: {t} is not a probability (or the "
                       f"universe has fewer than two values)")
    other = (1 - t) / (len(values) - 1)

    def rr(rows: list) -> dict:
        out: dict = {}
        for rep in product(values, repeat=len(rows)):
            w = prod((t if r == u else other for r, u in zip(rep, rows, strict=True)),
                     start=Fraction(1))
            if w:
                k = key([json.loads(r) for r in rep])
                out[k] = out.get(k, ZERO) + w
        return out
    return rr


def _check_laws(spec: dict, data: list, values: list, notes: list) -> None:
    """Each dataset's listed law against the mechanism's own, where it is built in."""
    own = _own_law(spec, values)
    if spec["mechanism"].get("kind") == "randomized_response":
        n = len(data[0][0]) if data else 0
        if n * len(values).bit_length() > 64:
            raise Undecided(f"randomized response over {n} rows: {len(values)}^{n} reports "
                            f"exceed the kernel's limits")
        within(len(data) * len(values) ** n, f"randomized response's laws on {len(data)} "
                                              f"datasets")
    if own is None:
        notes.append(Recorded(f"the output laws of {spec['mechanism'].get('kind')!r} "
                              f"({spec['mechanism'].get('name')!r}) were taken from the "
                              f"certificate, not re-derived"))
        return
    for j, (rows, _, law) in enumerate(data):
        if own(rows) != law:
            raise Rejected(f"evidence.datasets[{j}]: the output law differs from the "
                           f"{spec['mechanism']['kind']} mechanism's on rows "
                           f"{[json.loads(u) for u in rows]} (re-derived)")
    notes.append(f"output laws re-derived from the {spec['mechanism']['kind']} mechanism's "
                 f"definition on {len(data)} datasets")


def _bit_width(values: list) -> int:
    """``d`` of a universe of bit strings ``{0,1}^d`` (the integers ``0 … 2^d − 1`` in order),
    which the composition, full and bit-suppression adversaries read."""
    d = len(values).bit_length() - 1
    if [json.loads(v) for v in values] != list(range(2 ** d)):
        raise Rejected("spec.universe.values: not the bit strings 0 … 2^d − 1 this adversary "
                       "reads")
    return d


def _own_answer(kind: str, o: str, values: list, baseline: set) -> tuple[list, bool]:
    """The answer of a built-in adversary to the output ``o``, from its definition (seed 002,
    Theorem 4.6, Claim 4.8, §6.2): its predicates' members and whether it is a collection."""
    out = json.loads(o)
    if kind == "trivial":
        return [baseline], False
    if kind == "interval_buckets":
        return [{key(out[0][0])}], False
    d = _bit_width(values)
    if kind == "composition":
        if out[0] != 1:
            return [set()], False
        return [{key(sum(out[1 + j] << (d - 1 - j) for j in range(d)))}], False
    if kind == "full":
        rows = [sum(b << (d - 1 - j) for j, b in enumerate(bits)) for bits in out]
        return ([{key(r)} for r in rows], True) if rows else ([set()], False)
    pattern, size = out[0]
    free = [j for j, c in enumerate(pattern) if c == "*"]
    if not free:
        return [set()], False
    cut = -(-(2 ** len(free)) // size)
    members = set()
    for u in range(2 ** d):
        bit = [u >> (d - 1 - j) & 1 for j in range(d)]
        if all(c == "*" or b == int(c) for b, c in zip(bit, pattern, strict=True)) and \
                sum(bit[j] << (len(free) - 1 - i) for i, j in enumerate(free)) < cut:
            members.add(key(u))
    return [members], False


def _check_answers(spec: dict, answers: dict, values: list, cert: dict, notes: list) -> None:
    """Every answer of a built-in adversary re-derived (the optimal one is searched in
    :func:`_optimality`); user code's answers are recorded."""
    kind = spec["adversary"]
    if kind == "function":
        notes.append(Recorded("the user-code adversary's answers were taken from the "
                              "certificate"))
        return
    baseline = {key(x) for x in cert["evidence"]["baseline_predicate"]}
    for o, choices in answers.items():
        try:
            sets, collection = _own_answer(kind, o, values, baseline)
        except (TypeError, ValueError, IndexError, KeyError, AttributeError) as exc:
            raise Rejected(f"evidence.adversary (output {o:.60}): not an output the {kind} "
                           f"adversary reads ({type(exc).__name__})") from None
        if [(c[0], c[1], c[2]) for c in choices] != [(sets, collection, 1)]:
            raise Rejected(f"evidence.adversary (output {o:.60}): the {kind} adversary answers "
                           f"{[[json.loads(x) for x in sorted(s)] for s in sets]!r:.80} "
                           f"(re-derived), not the "
                           f"certificate's")
    notes.append(f"the {kind} adversary's answers re-derived on {len(answers)} outputs")


def verify_pso(cert: dict, notes: list) -> bool:
    """Check a ``plrv pso`` certificate and return whether its claim holds; raises
    :class:`Rejected` at the first discrepancy."""
    exact_fields(cert, TOP | {"results", "evidence"}, "pso certificate")
    spec, ev, res = cert["spec"], cert["evidence"], cert["results"]
    exact_fields(spec, {"universe", "n", "mechanism", "adversary", "admissible", "factor",
                        "slack"}, "spec")
    exact_fields(res, {"success", "baseline", "baseline_weight", "bound", "holds"}, "results")
    exact_fields(ev, {"datasets", "adversary", "baseline_predicate"}, "evidence")
    values, dist = _universe(spec)
    ok, n = _admissible(spec), spec["n"]
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise Rejected(f"spec.n: {n!r} is not a positive number of rows")
    if spec["adversary"] not in ADVERSARIES:
        raise Rejected(f"spec.adversary: {spec['adversary']!r:.40} is not one of "
                       f"{', '.join(ADVERSARIES)}")
    if not isinstance(spec["mechanism"]["symmetric"], bool):
        raise Rejected("spec.mechanism.symmetric: not true or false")
    symmetric = spec["mechanism"]["symmetric"]
    if symmetric and spec["mechanism"].get("kind") in ("predicate", "identity",
                                                       "randomized_response"):
        raise Rejected(f"spec.mechanism.symmetric: {spec['mechanism']['kind']!r} reads the "
                       f"rows in order; it is not symmetric")
    data = _datasets(ev, values, dist, n, symmetric)
    _check_laws(spec, data, values, notes)
    answers = _answers(ev, dist)
    within(sum(len(answers.get(o, ())) for _, _, law in data for o in law) * (n + 1),
           f"the success over {len(data)} datasets")
    total = ZERO
    for rows, p, law in data:
        for o, po in law.items():
            if o not in answers:
                raise Rejected(f"evidence.adversary: no answer for the output {o}")
            for sets, collection, pa in answers[o]:
                if _succeeds(sets, collection, rows, ok, dist):
                    total += p * po * pa
    if q(res["success"], "results.success") != total:
        raise Rejected(f"results.success: {res['success']} in the certificate, {total} summed "
                       f"over {len(data)} datasets")
    notes.append(f"success: {total}, summed over {len(data)} datasets")
    b = _baseline(cert, values, dist, ok, notes)
    if spec["adversary"] == "optimal":
        if any(len(c) != 1 or c[0][1] or c[0][2] != 1 for c in answers.values()):
            raise Rejected("evidence.adversary: the optimal adversary answers one predicate "
                           "per output")
        _optimality(data, answers, values, dist, ok, notes)
    else:
        _check_answers(spec, answers, values, cert, notes)
    factor, slack = q(spec["factor"], "spec.factor"), q(spec["slack"], "spec.slack")
    if factor < 0 or slack < 0:
        raise Rejected(f"spec.factor, spec.slack: {factor}, {slack}; plrv's claim has both "
                       f"≥ 0")
    bound = factor * b + slack
    if q(res["bound"], "results.bound") != bound:
        raise Rejected(f"results.bound: {res['bound']} but factor·baseline + slack = {bound}")
    holds = total <= bound
    if res["holds"] is not holds:
        raise Rejected(f"results.holds: {res['holds']} but success {total} "
                       f"{'≤' if holds else '>'} bound {bound}")
    notes.append(f"claim: success {'≤' if holds else '>'} {bound}: "
                 f"{'holds' if holds else 'fails'}")
    return holds
