"""An independent reference for APK, PPK and noiseless δ, ε and Rényi moments of ``k`` runs
(REFERENCE.md §2, §3, §8, §9), and for the law of a program's random choices.

Plain ``fractions.Fraction`` and dictionaries, written from the definitions and nothing else:
θ as a table ``{database: probability}``, a mechanism as ``{database: {output: probability}}``,
ζ as ``{database: {background: probability}}``. ``k`` runs enumerate every ordered tuple of
outputs (no histograms, no multinomial), and every database (no count classes). Only rational
``E = e^ε`` is supported.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from math import comb

Law = dict  # {outcome: Fraction}


def independent_theta(priors: list[dict]) -> Law:
    """θ of independent records, ``priors[j] = {value: probability}``."""
    out = {}
    for db in product(*[sorted(p) for p in priors]):
        w = Fraction(1)
        for x, p in zip(db, priors, strict=True):
            w *= p[x]
        if w:
            out[db] = w
    return out


def known_zeta(databases, known: tuple) -> dict:
    """ζ(D) = the values of the known records, as a point mass."""
    return {db: {tuple(db[j] for j in known): Fraction(1)} for db in databases}


def conditional_laws(theta: Law, mech: dict, zeta: dict, i: int, k: int) -> dict:
    """``{(a, B): (P[D(i)=a, ζ(D)=B], P[(O_1..O_k) | D(i)=a, ζ(D)=B])}`` over ordered tuples:
    §9's mixture over the unknown records of the product of the runs' laws."""
    acc: dict = {}
    for db, w in theta.items():
        for bg, z in zeta[db].items():
            entry = acc.setdefault((db[i], bg), [Fraction(0), {}])
            entry[0] += w * z
            for outs in product(*[list(mech[db].items())] * k):
                m = w * z
                for _, p in outs:
                    m *= p
                o = tuple(x for x, _ in outs)
                entry[1][o] = entry[1].get(o, Fraction(0)) + m
    return {key: (t, {o: m / t for o, m in law.items()})
            for key, (t, law) in acc.items() if t}


def cases(theta: Law, mech: dict, zeta: dict, i: int, pairs, k: int, form: str) -> list:
    """The pairs of laws ``(P, Q)`` each notion ranges over for target ``i``: APK (and
    noiseless, with ζ trivial) one per ordered pair and background possible under ``a`` —
    ``({}, {})`` (δ = 0, moment 1) when it is impossible under ``b``, convention 1; PPK one
    per ordered pair, on pairs ``(B, O)`` weighted by ``P[B | a]``, a background impossible
    under ``b`` entering with ratio 1."""
    if form == "noiseless":
        zeta = {db: {(): Fraction(1)} for db in zeta}
    laws = conditional_laws(theta, mech, zeta, i, k)
    out = []
    for a, b in pairs:
        bgs = [bg for (x, bg) in laws if x == a]
        if not bgs:
            continue
        if form in ("apk", "noiseless"):
            out += [(laws[(a, bg)][1], laws[(b, bg)][1]) if (b, bg) in laws else ({}, {})
                    for bg in bgs]
            continue
        pa_total = sum(laws[(a, bg)][0] for bg in bgs)
        big_p, big_q = {}, {}
        for bg in bgs:
            w = laws[(a, bg)][0] / pa_total
            if (b, bg) not in laws:
                big_p[("L = 0", bg)] = big_q[("L = 0", bg)] = w
                continue
            big_p.update({(bg, o): w * v for o, v in laws[(a, bg)][1].items()})
            big_q.update({(bg, o): w * v for o, v in laws[(b, bg)][1].items()})
        out.append((big_p, big_q))
    return out


def delta(p: Law, q: Law, e: Fraction) -> Fraction:
    """Σ_O max(0, P(O) − E·Q(O)) (§3)."""
    return sum((max(Fraction(0), p.get(o, 0) - e * q.get(o, 0)) for o in set(p) | set(q)),
               Fraction(0))


def tight_e(p: Law, q: Law, d: Fraction) -> Fraction | None:
    """The least ``E ≥ 1`` with ``delta(p, q, E) ≤ d`` (``None``: no finite one), by walking
    the breakpoints (the ratios) from the largest down."""
    never = sum((v for o, v in p.items() if not q.get(o)), Fraction(0))
    if never > d:
        return None
    if delta(p, q, Fraction(1)) <= d:
        return Fraction(1)
    ratios = sorted({v / q[o] for o, v in p.items() if q.get(o) and v > q[o]}, reverse=True)
    for j, r in enumerate(ratios):
        above = [o for o, v in p.items() if q.get(o) and v / q[o] >= r]
        a = never + sum(p[o] for o in above)
        c = sum(q[o] for o in above)
        e = (a - d) / c
        lower = ratios[j + 1] if j + 1 < len(ratios) else Fraction(1)
        if e >= lower:
            return max(e, Fraction(1))
    return Fraction(1)


def moment(p: Law, q: Law, order: int) -> Fraction | None:
    """``S_α = Σ P^α·Q^{1−α}`` (``None``: +∞); 1 for ``({}, {})``."""
    if not p:
        return Fraction(1)
    s = Fraction(0)
    for o, v in p.items():
        if v:
            if not q.get(o):
                return None
            s += v ** order / q[o] ** (order - 1)
    return s


def worst_delta(cs: list, e: Fraction) -> Fraction:
    return max((delta(p, q, e) for p, q in cs), default=Fraction(0))


def worst_e(cs: list, d: Fraction) -> Fraction | None:
    es = [tight_e(p, q, d) for p, q in cs]
    return None if None in es else max(es, default=Fraction(1))


def worst_moment(cs: list, order: int) -> Fraction | None:
    ms = [moment(p, q, order) for p, q in cs]
    return None if None in ms else max(ms, default=Fraction(1))


# ---------------------------------------------------------------- programs


def primitive_law(kind: str, args: tuple) -> Law:
    """The law of one random choice, from the closed forms of docs/how-to/programs.md."""
    if kind == "flip":
        return {True: args[0], False: 1 - args[0]}
    if kind == "bernoulli":
        return {1: args[0], 0: 1 - args[0]}
    if kind == "uniform":
        return {v: Fraction(1, len(args[0])) for v in args[0]}
    if kind == "uniform_int":
        lo, hi = args
        return {v: Fraction(1, hi - lo + 1) for v in range(lo, hi + 1)}
    if kind == "choose":
        total = sum(args[0].values())
        return {v: Fraction(w, total) for v, w in args[0].items()}
    if kind == "binomial":
        m, p = args
        return {j: comb(m, j) * p ** j * (1 - p) ** (m - j) for j in range(m + 1)}
    a, lo, hi = args
    if kind == "geometric_noise":
        total = sum(a ** abs(z) for z in range(lo, hi + 1))
        return {z: a ** abs(z) / total for z in range(lo, hi + 1)}
    assert kind == "clamped_geometric_noise"
    if lo == hi:
        return {0: Fraction(1)}
    c = (1 - a) / (1 + a)  # P[z] of the two-sided law; Σ_{z ≤ lo} = c·a^{−lo}/(1 − a)
    law = {z: c * a ** abs(z) for z in range(lo + 1, hi)}
    law[lo] = c * a ** (-lo) / (1 - a)
    law[hi] = c * a ** hi / (1 - a)
    return law


class _Branch(Exception):
    pass


def program_law(body, db) -> Law:
    """The law of ``body(db, draw)``: every sequence of choices, each replayed from the start
    with its prefix forced, branching on the first new choice."""
    law: Law = {}

    def run(prefix: list) -> None:
        at, weight, new = [0], [Fraction(1)], []

        def draw(kind: str, args: tuple):
            j = at[0]
            at[0] += 1
            choice = primitive_law(kind, args)
            if j < len(prefix):
                weight[0] *= choice[prefix[j]]
                return prefix[j]
            new.append(choice)
            raise _Branch

        try:
            o = body(db, draw)
        except _Branch:
            for v, p in new[0].items():
                if p:
                    run(prefix + [v])
            return
        law[o] = law.get(o, Fraction(0)) + weight[0]

    run([])
    return {o: p for o, p in law.items() if p}
