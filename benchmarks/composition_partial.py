"""Composition under partial knowledge: plrv against an independent Fraction reference.

    python benchmarks/composition_partial.py            # both goals, timed, exact values asserted

1. ``examples/compose/threshold_rr.toml``, k = 1000 runs: randomized response (truth 3/4) on
   the bit [count ≥ 30] of n = 100 i.i.d. records (P[1] = 3/10), the attacker knowing 10
   of them and targeting another. Goal: exact in ≤ 10 s.
2. ``examples/compose/noisy_count.toml``, k = 50 runs: a count of 4 records with two-sided
   geometric noise (α = 1/2) clamped to 0..4, five outputs, 316,251 histograms. Goal: exact
   in ≤ 60 s.

Reference (imports nothing from plrv): the runs share the records the attacker does not know,
so given the target's value ``t`` and the known records' count ``b`` the runs' law is a
mixture over the other records' count ``s`` (Binomial) of product laws. For (1) the one-run
law depends on the bit only, so ``P[j ones | t, b] = C(k, j)·(w·(3/4)^j(1/4)^(k−j) +
(1 − w)·(1/4)^j(3/4)^(k−j))`` with ``w = P[s ≥ 30 − t − b]``; APK δ(ln E) is the worst over
``b`` and the ordered pairs of ``Σ_j max(0, P[j | a, b] − E·P[j | a', b])``, PPK its
``P[b | a]``-average (REFERENCE.md §4, Theorem 1), noiseless the same with ``b`` summed out.
For (2) the histograms are enumerated with Fractions at k = 12 (plrv's k = 50 is timed) and
the clamped geometric law is written from its closed form. plrv's tight ε at δ is checked by
the reference's δ at plrv's ``E = e^ε`` being exactly the claimed δ.
"""

from __future__ import annotations

import os
import sys
import time
from fractions import Fraction
from math import comb

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _binomial(n: int, p: Fraction) -> list[Fraction]:
    return [comb(n, s) * p ** s * (1 - p) ** (n - s) for s in range(n + 1)]


def _delta(pa: dict, pb: dict, e: Fraction) -> Fraction:
    sa, sb = sum(pa.values()), sum(pb.values())
    return sum((max(Fraction(0), pa[o] / sa - e * pb.get(o, 0) / sb) for o in pa), Fraction(0))


def _notions(rows: dict, e: Fraction) -> dict[str, Fraction]:
    """``rows[(t, b)] = {O: P[t, b, O]}``: APK, PPK and noiseless δ at ``E = e``."""
    values = sorted({t for t, _ in rows})
    backgrounds = sorted({b for _, b in rows})
    pairs = [(a, c) for a in values for c in values if a != c]
    apk = max(_delta(rows[(a, b)], rows[(c, b)], e) for a, c in pairs for b in backgrounds)
    ppk = Fraction(0)
    for a, c in pairs:
        mass = {b: sum(rows[(a, b)].values()) for b in backgrounds}
        total = sum(mass.values())
        ppk = max(ppk, sum(mass[b] / total * _delta(rows[(a, b)], rows[(c, b)], e)
                           for b in backgrounds))
    plain: dict = {}
    for (t, _), row in rows.items():
        acc = plain.setdefault(t, {})
        for o, w in row.items():
            acc[o] = acc.get(o, Fraction(0)) + w
    noiseless = max(_delta(plain[a], plain[c], e) for a, c in pairs)
    return {"apkdp": apk, "ppkdp": ppk, "noiseless": noiseless}


def threshold_reference(k: int, e: Fraction) -> dict[str, Fraction]:
    n, known, p1, threshold = 100, 10, Fraction(3, 10), 30
    others = _binomial(n - 1 - known, p1)
    knowns = _binomial(known, p1)
    hi, lo = Fraction(3, 4), Fraction(1, 4)
    rows = {}
    for t in (0, 1):
        pt = p1 if t else 1 - p1
        for b in range(known + 1):
            w = sum(others[s] for s in range(len(others)) if t + b + s >= threshold)
            rows[(t, b)] = {j: pt * knowns[b] * comb(k, j) * (
                w * hi ** j * lo ** (k - j) + (1 - w) * lo ** j * hi ** (k - j))
                for j in range(k + 1)}
    return _notions(rows, e)


def geometric_law(c: int, n: int, alpha: Fraction) -> dict[int, Fraction]:
    law = {x: (1 - alpha) / (1 + alpha) * alpha ** abs(x - c) for x in range(1, n)}
    law[0] = alpha ** c / (1 + alpha)
    law[n] = alpha ** (n - c) / (1 + alpha)
    return law


def _histograms(k: int, m: int):
    if m == 1:
        yield (k,)
        return
    for first in range(k + 1):
        for rest in _histograms(k - first, m - 1):
            yield (first,) + rest


def noisy_count_reference(k: int, e: Fraction) -> dict[str, Fraction]:
    n, half = 4, Fraction(1, 2)
    laws = {c: geometric_law(c, n, half) for c in range(n + 1)}
    others = _binomial(2, half)  # records 2 and 3
    rows = {}
    hists = list(_histograms(k, n + 1))
    for t in (0, 1):
        for b in (0, 1):  # record 1, known
            row = {}
            for h in hists:
                multinomial = Fraction(1)
                left = k
                for x in h:
                    multinomial *= comb(left, x)
                    left -= x
                total = Fraction(0)
                for s, ws in enumerate(others):
                    law = laws[t + b + s]
                    term = ws
                    for o, x in enumerate(h):
                        term *= law[o] ** x
                    total += term
                row[h] = half * half * multinomial * total
            rows[(t, b)] = row
    return _notions(rows, e)


def _plrv(spec: str, k: int):
    sys.path.insert(0, ROOT)
    from verifier.notions.composition.partial_check import compose_partial
    from verifier.specs.compose import load_compose_spec

    s = load_compose_spec(os.path.join(ROOT, "examples", "compose", spec))
    assert s.problem is not None
    start = time.perf_counter()
    c = compose_partial(s.problem, k)
    return c, time.perf_counter() - start, s


def _exp_of(epsilon) -> Fraction:
    text = str(epsilon)
    assert text.startswith("ln(") and text.endswith(")"), text
    return Fraction(text[3:-1])


def _compare(name: str, c, seconds: float, s, reference, goal: float) -> None:
    e = _exp_of(s.epsilon)
    expected = reference(e)
    print(f"{name}: k = {c.k}, {c.histograms} histograms, {c.components} mixture terms, "
          f"{seconds:.2f} s (goal ≤ {goal:.0f} s)")
    for notion, r in c.report.results.items():
        got = Fraction(str(r.delta))
        assert got == expected[notion], (notion, got, expected[notion])
        line = f"  {notion}: δ(ε) = {r.delta.approx()} (= reference), ε(δ) = {r.epsilon.approx()}"
        if str(r.epsilon).startswith("ln("):
            at = reference(_exp_of(r.epsilon))[notion]
            assert at == Fraction(str(s.delta)), (notion, at)
            line += " (reference δ there = the claimed δ)"
        print(line)


def main() -> None:
    c, seconds, s = _plrv("threshold_rr.toml", 1000)
    start = time.perf_counter()
    _compare("threshold bit, randomized response", c, seconds, s,
             lambda e: threshold_reference(1000, e), 10)
    print(f"  reference: {time.perf_counter() - start:.2f} s")
    small, small_seconds, s12 = _plrv("noisy_count.toml", 12)
    start = time.perf_counter()
    _compare("noisy count, k = 12 against the reference", small, small_seconds, s12,
             lambda e: noisy_count_reference(12, e), 60)
    print(f"  reference: {time.perf_counter() - start:.2f} s")
    c, seconds, s = _plrv("noisy_count.toml", 50)
    print(f"noisy count, 5 outputs: k = 50, {c.histograms} histograms, {seconds:.2f} s "
          f"(goal ≤ 60 s)")
    for notion, r in c.report.results.items():
        print(f"  {notion}: δ(ε) = {r.delta.approx()}, ε(δ) = {r.epsilon.approx()}")


if __name__ == "__main__":
    main()
