"""An independent reference for the tests: the seed's formulas, written directly.

Plain ``fractions.Fraction`` and dictionaries, no code from ``verifier`` except to call the
mechanism under test on one database. Only rational ``E = e^ε`` is supported, which is all the
tests need. Definitions from seed 003: Definition 5 (PLRV with partial knowledge), Lemma 1
(classical δ), Definitions 6 and 7 (APK, PPK).
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product


def F(x) -> Fraction:
    if hasattr(x, "numerator"):
        return Fraction(int(x.numerator), int(x.denominator))
    return Fraction(x)


def kernel(mech, db) -> dict:
    """The mechanism's output distribution on ``db`` as {output: Fraction}."""
    return {o: F(w) for o, w in mech(db).items()}


def dp_delta(mech, values, n, E: Fraction) -> Fraction:
    """max over ordered neighbours of Σ_O max(0, P1(O) − E·P2(O))."""
    best = Fraction(0)
    for d1 in product(values, repeat=n):
        p = kernel(mech, d1)
        for i in range(n):
            for b in values:
                if b == d1[i]:
                    continue
                q = kernel(mech, d1[:i] + (b,) + d1[i + 1:])
                outs = set(p) | set(q)
                best = max(best, sum((max(Fraction(0), p.get(o, 0) - E * q.get(o, 0))
                                      for o in outs), Fraction(0)))
    return best


def joint(mech, priors, know, target) -> dict:
    """J[t][B][O] = P[D(target)=t, ζ(D)=B, M(D)=O] for independent records, ζ deterministic."""
    values = list(priors[0])
    J: dict = {}
    for db in product(values, repeat=len(priors)):
        p = Fraction(1)
        for j, x in enumerate(db):
            p *= priors[j][x]
        if p == 0:
            continue
        b = know(db)
        for o, w in kernel(mech, db).items():
            row = J.setdefault(db[target], {}).setdefault(b, {})
            row[o] = row.get(o, 0) + p * w
    return J


def apk_delta(J, a, b, B, E: Fraction) -> Fraction:
    """E_{O ~ M | a, B}[max(0, 1 − E/r(O, B))] with Definition 5's conventions."""
    pa = J.get(a, {}).get(B, {})
    pb = J.get(b, {}).get(B, {})
    za, zb = sum(pa.values(), Fraction(0)), sum(pb.values(), Fraction(0))
    if za == 0 or zb == 0:
        return Fraction(0)  # L = 0, and max(0, 1 − E) = 0 for E ≥ 1
    total = Fraction(0)
    for o, w in pa.items():
        p, q = w / za, pb.get(o, Fraction(0)) / zb
        if q == 0:
            total += p  # L = +∞
        else:
            total += p * max(Fraction(0), 1 - E * q / p)
    return total


def _m(J, a, b, B, o, E: Fraction) -> Fraction:
    """m(O, B) = max(0, 1 − E/r(O, B)), Definition 5's conventions."""
    pa, pb = J.get(a, {}).get(B, {}), J.get(b, {}).get(B, {})
    za, zb = sum(pa.values(), Fraction(0)), sum(pb.values(), Fraction(0))
    if za == 0 or zb == 0:
        return Fraction(0)
    p, q = pa.get(o, Fraction(0)) / za, pb.get(o, Fraction(0)) / zb
    if p == 0:
        return Fraction(0)  # L = −∞
    if q == 0:
        return Fraction(1)  # L = +∞
    return max(Fraction(0), 1 - E * q / p)


def ppk_delta(J, a, b, E: Fraction) -> Fraction:
    """E_{D ~ θ | D(i)=a, O ~ M(D), B ~ ζ(D)}[m(O, B)] — the definition, summed over (B, O)."""
    rows = J.get(a, {})
    pa = sum((w for r in rows.values() for w in r.values()), Fraction(0))
    if pa == 0:
        return Fraction(0)
    return sum((w / pa * _m(J, a, b, B, o, E) for B, r in rows.items() for o, w in r.items()),
               Fraction(0))
