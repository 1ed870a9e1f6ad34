"""Programs enumerated by replay (``verifier.program``) against a plain reference enumerator,
paths per second, the exact laws asserted equal.

    python benchmarks/programs.py            # three programs, best of three
    python benchmarks/programs.py --quick    # one run each

Reference: each program written again as a Fraction-weighted recursive generator that yields
``(output, weight)`` once per path of choices, sharing every prefix (a choice's law is
computed by its own formula, in Fractions; it imports nothing from plrv). plrv runs the
program shipped (``examples/programs``) once per path, replaying the path's prefix, and merges
the outputs into an exact ``Dist``. Both enumerate the same paths (every weight is positive),
so paths per second compare like with like.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from collections.abc import Callable, Iterator
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "examples" / "programs")]

Law = list[tuple[int, Fraction]]


def clamped(alpha: Fraction, lo: int, hi: int) -> Law:
    """The two-sided geometric law P[z] ∝ α^|z| on the integers, clamped to lo..hi (lo ≤ 0 ≤
    hi): the tails' mass (α^|lo|/(1+α), α^hi/(1+α)) on the ends."""
    if lo == hi:
        return [(0, Fraction(1))]
    inner = (1 - alpha) / (1 + alpha)
    return [(z, alpha ** abs(z) / (1 + alpha) if z in (lo, hi) else inner * alpha ** abs(z))
            for z in range(lo, hi + 1)]


def noisy(centre: int, alpha: Fraction, lo: int, hi: int) -> Law:
    return [(centre + z, w) for z, w in clamped(alpha, lo - centre, hi - centre)]


def rr_paths(db: tuple) -> Iterator[tuple[object, Fraction]]:
    def go(i: int, out: tuple, w: Fraction) -> Iterator[tuple[object, Fraction]]:
        if i == len(db):
            yield out, w
            return
        x = db[i]
        yield from go(i + 1, (*out, x), w * Fraction(3, 4))
        yield from go(i + 1, (*out, 1 - x), w * Fraction(1, 4))
    return go(0, (), Fraction(1))


def svt_paths(q: tuple) -> Iterator[tuple[object, Fraction]]:
    """Sparse vector (examples/programs/zoo_programs.py:sparse_vector): threshold 1 + noise
    (α = 1/4), queries + noise (α = 1/2), all clamped to −1..3; the first query ≥ the
    threshold, else len(q)."""
    half, quarter = Fraction(1, 2), Fraction(1, 4)

    def go(i: int, rho: int, w: Fraction) -> Iterator[tuple[object, Fraction]]:
        if i == len(q):
            yield len(q), w
            return
        for x, wx in noisy(q[i], half, -1, 3):
            if x >= rho:
                yield i, w * wx
            else:
                yield from go(i + 1, rho, w * wx)
    for rho, w in noisy(1, quarter, -1, 3):
        yield from go(0, rho, w)


def max_paths(q: tuple) -> Iterator[tuple[object, Fraction]]:
    """Report noisy max (zoo_programs.report_noisy_max): noise α = 1/2 clamped to −2..4."""
    half = Fraction(1, 2)

    def go(i: int, best: int, top: int | None, w: Fraction) -> Iterator[tuple[object, Fraction]]:
        if i == len(q):
            yield best, w
            return
        for x, wx in noisy(q[i], half, -2, 4):
            if top is None or x > top:
                yield from go(i + 1, i, x, w * wx)
            else:
                yield from go(i + 1, best, top, w * wx)
    return go(0, 0, None, Fraction(1))


def reference(paths: Iterator[tuple[object, Fraction]]) -> tuple[dict, int]:
    law: dict = {}
    count = 0
    for out, w in paths:
        law[out] = law.get(out, 0) + w
        count += 1
    return law, count


def best_of(runs: int, f: Callable[[], object]) -> tuple[float, object]:
    times, out = [], None
    for _ in range(runs):
        start = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - start)
    return min(times), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one run of each")
    args = parser.parse_args()
    runs = 1 if args.quick else 3

    from rr import rr
    from zoo_programs import report_noisy_max, sparse_vector

    from verifier.model.program_enum import enumerate_program

    cases = [("randomized response, 14 records", rr, (0, 1) * 7, rr_paths),
             ("sparse vector, 6 queries", sparse_vector, (0, 1, 0, 1, 0, 0), svt_paths),
             ("report noisy max, 5 queries", report_noisy_max, (0, 1, 2, 1, 0), max_paths)]
    print(f"{platform.machine()}, Python {platform.python_version()}, best of {runs}")
    print("| program | paths | plrv (paths/s) | reference (paths/s) | ratio |")
    print("|---|---|---|---|---|")
    for label, program, arg, ref in cases:
        print(f"  {label}: enumerating …", file=sys.stderr, flush=True)
        t_plrv, law = best_of(runs, lambda p=program, a=arg: enumerate_program(
            p, (a,), name=p.__name__, paths=10**7))
        t_ref, (expected, count) = best_of(runs, lambda r=ref, a=arg: reference(r(a)))
        got = {o: Fraction(int(w.numerator), int(w.denominator)) for o, w in law.items()}
        assert got == expected, f"{label}: the laws differ"
        print(f"| {label} | {count} | {count / t_plrv:,.0f} ({t_plrv:.2f} s) | "
              f"{count / t_ref:,.0f} ({t_ref:.2f} s) | ×{t_plrv / t_ref:.2f} |", flush=True)


if __name__ == "__main__":
    main()
