"""The straightforward count-based computation of Example 7, in ``fractions.Fraction``.

Same mathematics as the count engine (verifier.counts) and the APK/PPK definitions (seed 003,
Definitions 6 and 7), written the obvious way: every probability a Fraction, every cell summed
as a Fraction, δ summed output by output. It is the yardstick the benchmark compares with.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb

BOTTOM = None


def binomial(u: int, p: Fraction) -> list[Fraction]:
    return [comb(u, j) * p ** j * (1 - p) ** (u - j) for j in range(u + 1)]


def apk_ppk(n: int, p: Fraction, threshold: int, known: int, E: Fraction
            ) -> tuple[Fraction, Fraction]:
    """Worst APK δ and worst PPK δ at E = e^ε for a thresholded count: n i.i.d. binary records,
    the attacker knowing ``known`` records and targeting another."""
    u = n - 1 - known
    law_u, law_k = binomial(u, p), binomial(known, p)
    prior = {0: 1 - p, 1: p}

    def release(c: int):
        return c if c >= threshold else BOTTOM

    # J[t][k][O] = P[D_i = t, known count = k, M = O]
    J = {}
    for t in (0, 1):
        J[t] = {}
        for k, pk in enumerate(law_k):
            row: dict = {}
            for j, pj in enumerate(law_u):
                o = release(t + k + j)
                row[o] = row.get(o, Fraction(0)) + prior[t] * pk * pj
            J[t][k] = row

    def apk(a: int, b: int, k: int) -> Fraction:
        ra, rb = J[a][k], J[b][k]
        za, zb = sum(ra.values()), sum(rb.values())
        total = Fraction(0)
        for o, w in ra.items():
            pa, pb = w / za, rb.get(o, Fraction(0)) / zb
            total += max(Fraction(0), pa - E * pb)
        return total

    worst_apk = max(apk(a, b, k) for a, b in ((0, 1), (1, 0)) for k in range(known + 1))
    worst_ppk = Fraction(0)
    for a, b in ((0, 1), (1, 0)):
        pa = sum(sum(J[a][k].values()) for k in J[a])
        ppk = sum(sum(J[a][k].values()) / pa * apk(a, b, k) for k in J[a])
        worst_ppk = max(worst_ppk, ppk)
    return worst_apk, worst_ppk
