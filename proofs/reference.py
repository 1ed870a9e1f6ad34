"""An independent reference for the theorem records: the seeds' formulas, written directly.

Plain ``fractions.Fraction`` and dictionaries. Nothing from ``verifier`` is used except to call
the mechanism (or knowledge function) under test on one database, and to read a data model's
priors or explicit distribution. Only rational ``E = e^ε`` is supported. Definitions from seed
003: Definition 5 (PLRV with partial knowledge and its conventions), Lemma 1 (classical δ),
Definitions 3, 6 and 7 (noiseless, APK, PPK); thesis Definition 59 (Θ-reducibility).
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import product

ZERO = Fraction(0)


def F(x) -> Fraction:
    return Fraction(int(x.numerator), int(x.denominator)) if hasattr(x, "numerator") \
        else Fraction(x)


def law(f, arg) -> dict:
    """A kernel's answer (a Dist, or a plain value for a point mass) as {outcome: Fraction}."""
    out = f(arg)
    if hasattr(out, "items"):
        return {o: F(w) for o, w in out.items() if w}
    return {out: Fraction(1)}


def databases(model) -> list[tuple[tuple, Fraction]]:
    """θ as ``[(database, probability)]``: independent priors multiplied out, or explicit."""
    priors = getattr(model, "priors", None)
    if priors is None:
        return [(db, F(w)) for db, w in model.dist.items()]
    out = []
    for db in product(model.values, repeat=len(priors)):
        p = Fraction(1)
        for j, x in enumerate(db):
            p *= F(priors[j][x])
        if p:
            out.append((db, p))
    return out


def joint(model, mech, know, target: int) -> dict:
    """``J[t][B][O] = P[D(target)=t, ζ(D)=B, M(D)=O]``; ζ may be randomized."""
    J: dict = {}
    for db, p in databases(model):
        outs = law(mech, db)
        for b, pb in law(know, db).items():
            row = J.setdefault(db[target], {}).setdefault(b, {})
            for o, w in outs.items():
                row[o] = row.get(o, ZERO) + p * pb * w
    return J


def conditional(J, t, B) -> dict | None:
    row = J.get(t, {}).get(B)
    if not row:
        return None
    z = sum(row.values(), ZERO)
    return {o: w / z for o, w in row.items() if w} if z else None


def backgrounds(J) -> list:
    return list(dict.fromkeys(b for rows in J.values() for b in rows))


def indist_delta(p: dict, q: dict | None, E: Fraction) -> Fraction:
    """``Σ_O max(0, p(O) − E·q(O))``; ``q`` None is Definition 5's convention L = 0."""
    if q is None:
        return ZERO
    return sum((max(ZERO, w - E * q.get(o, ZERO)) for o, w in p.items()), ZERO)


def apk(J, a, b, B, E: Fraction) -> Fraction | None:
    """``APK_{i,a,b,B}(ε)``, or None when ``P[D(i)=a, ζ=B] = 0`` (seed 003, Definition 6)."""
    p = conditional(J, a, B)
    return None if p is None else indist_delta(p, conditional(J, b, B), E)


def p_value(J, t) -> Fraction:
    return sum((w for row in J.get(t, {}).values() for w in row.values()), ZERO)


def ppk(J, a, b, E: Fraction) -> Fraction | None:
    """``PPK_{i,a,b}(ε)``, term by term over ``(B, O)`` (seed 003, Definition 7, e^{ε − L})."""
    pa = p_value(J, a)
    if pa == 0:
        return None
    total = ZERO
    for B, row in J[a].items():
        q = conditional(J, b, B)
        zb = sum(row.values(), ZERO)
        for o, w in row.items():
            if q is None or w == 0:
                continue  # L = 0 by convention, or the output is impossible under a
            pq = q.get(o, ZERO)
            m = Fraction(1) if pq == 0 else max(ZERO, 1 - E * pq / (w / zb))
            total += w / pa * m
    return total


def plain(J) -> dict:
    """The table with ζ summed out (noiseless privacy, seed 003, Definition 3)."""
    out: dict = {}
    for t, rows in J.items():
        acc = out.setdefault(t, {}).setdefault("nothing", {})
        for row in rows.values():
            for o, w in row.items():
                acc[o] = acc.get(o, ZERO) + w
    return out


def worst_apk(J, pairs, E) -> Fraction | None:
    vals = [d for a, b in pairs for B in backgrounds(J) if (d := apk(J, a, b, B, E)) is not None]
    return max(vals) if vals else None


def worst_ppk(J, pairs, E) -> Fraction | None:
    vals = [d for a, b in pairs if (d := ppk(J, a, b, E)) is not None]
    return max(vals) if vals else None


def max_ratio(p: dict, q: dict | None):
    """Tight ``e^ε`` at δ = 0 of ``p`` against ``q``: ``max p/q`` (``"inf"`` if some output
    has ``q = 0 < p``; 1 when L = 0 by convention)."""
    if q is None:
        return Fraction(1)
    best = Fraction(1)
    for o, w in p.items():
        if q.get(o, ZERO) == 0:
            return "inf"
        best = max(best, w / q[o])
    return best


def dp_delta(mech, values, n: int, E: Fraction) -> Fraction:
    """max over ordered neighbours of ``Σ_O max(0, P1(O) − E·P2(O))`` (seed 003, Lemma 1)."""
    laws = {db: law(mech, db) for db in product(values, repeat=n)}
    best = ZERO
    for d1, p in laws.items():
        for i in range(n):
            for v in values:
                if v != d1[i]:
                    best = max(best, indist_delta(p, laws[d1[:i] + (v,) + d1[i + 1:]], E))
    return best


def reducible(J, values) -> bool:
    """Definition 59: for every ``B1, B2`` a bijection ``φ`` with ``P[O|t,B1] = P[φ(O)|t,B2]``
    for every ``t``, i.e. equal multisets of output profiles ``(P[O|t,B])_t``."""
    def profiles(B):
        conds = [conditional(J, t, B) for t in values]
        outs = {o for c in conds if c for o in c}
        return Counter(tuple(None if c is None else c.get(o, ZERO) for c in conds)
                       for o in outs)
    bs = backgrounds(J)
    return all(profiles(B) == profiles(bs[0]) for B in bs[1:])


def isolation(n: int, w: Fraction) -> Fraction:
    """``B(n, w) = n·w·(1 − w)^(n−1)`` (seed 002, §3.2)."""
    return n * w * (1 - w) ** (n - 1)


def subset_weights(weights: dict) -> set:
    """Every weight a predicate (subset of the universe) can have: all ``2^|X|`` subsets."""
    vals = list(weights.values())
    out = set()
    for mask in range(2 ** len(vals)):
        out.add(sum((vals[j] for j in range(len(vals)) if mask >> j & 1), ZERO))
    return out


def pso_baseline(weights: dict, n: int, at_most=None, at_least=None) -> Fraction:
    """Claim 3.1: the best trivial adversary's success, ``max B(n, w)`` over realisable
    admissible weights, by listing every subset."""
    ok = [w for w in subset_weights(weights) if (at_most is None or w <= at_most)
          and (at_least is None or w >= at_least)]
    return max((isolation(n, w) for w in ok), default=ZERO)


def pso_optimal(weights: dict, n: int, kernel, at_most=None) -> Fraction:
    """The best adversary by brute force: for each output, the admissible predicate with the
    largest probability of isolating a row, over every dataset and every subset."""
    values = list(weights)
    preds = []
    for mask in range(2 ** len(values)):
        members = frozenset(values[j] for j in range(len(values)) if mask >> j & 1)
        if at_most is None or sum((weights[u] for u in members), ZERO) <= at_most:
            preds.append(members)
    by_output: dict = {}
    for rows in product(values, repeat=n):
        p = Fraction(1)
        for u in rows:
            p *= weights[u]
        if not p:
            continue
        for o, w in law(kernel, rows).items():
            by_output.setdefault(o, []).append((rows, p * w))
    total = ZERO
    for cases in by_output.values():
        total += max(sum((w for rows, w in cases if sum(u in s for u in rows) == 1), ZERO)
                     for s in preds)
    return total


def posterior(prior: dict, kernel, goal) -> Fraction:
    """``max_z P[X ∈ goal | M(X) = z]`` (seed 004; the sup over events is a single output)."""
    joint_: dict = {}
    for x, px in prior.items():
        for z, w in law(kernel, x).items():
            joint_.setdefault(z, {})[x] = px * w
    best = ZERO
    for row in joint_.values():
        z = sum(row.values(), ZERO)
        if z:
            best = max(best, sum((w for x, w in row.items() if x in goal), ZERO) / z)
    return best


def _iroot(n: int, k: int) -> int:
    """``⌊n^{1/k}⌋`` for an integer ``n ≥ 0`` (bisection on integers)."""
    lo, hi = 0, 1
    while hi ** k <= n:
        hi *= 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if mid ** k <= n else (lo, mid)
    return lo


def power_enclosure(base: Fraction, r: Fraction, bits: int) -> tuple[Fraction, Fraction]:
    """Rationals ``lo ≤ base^r ≤ hi`` (``base > 0``, ``r`` rational), exact when the power
    is rational, else ``hi − lo = 2^−bits``: the ``q``-th root of ``base^p`` by integer roots
    of ``⌊x·2^{bits·q}⌋`` (``r = p/q``)."""
    x = base ** r.numerator  # Fraction power: exact, inverted for p < 0
    q = r.denominator
    num, den = _iroot(x.numerator, q), _iroot(x.denominator, q)
    if num ** q == x.numerator and den ** q == x.denominator:
        exact = Fraction(num, den)
        return exact, exact
    scale = 1 << bits
    low = _iroot(x.numerator * scale ** q // x.denominator, q)
    return Fraction(low, scale), Fraction(low + 1, scale)


def precise_enclosure(goal: frozenset, prior: dict, distance, base: Fraction, scale: int,
                      bits: int) -> tuple[Fraction, Fraction]:
    """Seed 004's precise bound ``1/(1 + Σ_{x''∉g} π(x'') / Σ_{x'∈g} e^{ε·d(x'',x')}·π(x'))``
    at ``ε = ln(base)/scale`` (``e^{ε·d} = base^{d/scale}``), enclosed with
    :func:`power_enclosure`: the bound increases with every power, so the lower powers give
    the lower end."""
    inside = [(y, w) for y, w in prior.items() if y in goal and w]
    outside = [(y, w) for y, w in prior.items() if y not in goal and w]
    if not inside:
        return ZERO, ZERO
    s_lo = s_hi = ZERO
    for y2, w2 in outside:
        den_lo = den_hi = ZERO
        for y1, w1 in inside:
            lo, hi = power_enclosure(base, Fraction(distance(y2, y1)) / scale, bits)
            den_lo += lo * w1
            den_hi += hi * w1
        s_lo += w2 / den_hi
        s_hi += w2 / den_lo
    return 1 / (1 + s_hi), 1 / (1 + s_lo)
