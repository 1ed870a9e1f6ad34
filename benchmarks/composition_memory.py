"""Time and peak memory of k-fold randomized response's exact δ(ε): plrv's streamed
polynomial route against an O(k) integer reference, each run in a process of its own.

    python benchmarks/composition_memory.py                 # k = 1000, 10,000, 100,000
    python benchmarks/composition_memory.py --k 1000 --progress

Mechanism: randomized response with truth 3/4 (replace-one on one bit), ε = ln 2. With ``i``
truthful answers out of ``k`` the masses over the common scale ``4^k`` are
``P_i = C(k, i)·3^i`` and ``Q_i = C(k, i)·3^(k−i)`` and the ratio is ``3^(2i−k)``, so

    δ(ln E) = Σ_{i : 3^(2i−k) > E} (P_i − E·Q_i) / 4^k.

Reference (:func:`reference_delta`, imports nothing from plrv; its integers are gmpy2's, the
GMP integers plrv uses, so the two differ by their algorithm and not by the integer library —
with Python's own integers it is about five times slower at k = 100,000): the binomial
coefficients by
the exact integer recurrence ``C(k, i+1) = C(k, i)·(k − i)/(i + 1)``, carried with their
powers of 3 (``P_{i+1} = P_i·3(k − i)/(i + 1)``, ``Q_{i+1} = Q_i·(k − i)/(3(i + 1))``, each
division exact), for ``i = 0 … k``; the sums are taken over the ``i`` whose loss exceeds ε
(the least such ``i`` found once by exact comparison of ``3^(2i−k)`` with ``E``). Each
coefficient is one product and one exact division of a big integer by a small one: the
O(k)-step algorithm for this exact answer. :func:`reference_tail` is the same recurrence run
from ``i = k`` down to that least ``i`` only (about half the steps).

plrv: :func:`verifier.notions.composition.exact.compose_law` on k copies of the pair's loss
(the streamed route of :mod:`verifier.notions.composition.stream`), then ``delta(ln 2)``.

Each (implementation, k) runs in a fresh Python process (``--one``), which reports its time
and its peak resident memory (``ru_maxrss``); the exact δs are written to a temporary file
and asserted equal, as hexadecimal strings of the reduced fraction, by the parent.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from fractions import Fraction

from gmpy2 import mpq, mpz

E_RATE = Fraction(2)  # ε = ln 2


def _least_above(k: int, rate: Fraction) -> int:
    """The least ``i`` with ``3^(2i−k) > rate`` (``k + 1`` if none), by bisection."""
    lo, hi = 0, k + 1
    while lo < hi:
        mid = (lo + hi) // 2
        if Fraction(3) ** (2 * mid - k) > rate:
            hi = mid
        else:
            lo = mid + 1
    return lo


def _report(progress: bool, done: int, total: int) -> None:
    if progress:
        print(f"\r  {done}/{total} coefficients", end="", file=sys.stderr, flush=True)


def reference_delta(k: int, rate: Fraction, progress: bool = False) -> mpq:
    """δ(ln rate) of k-fold randomized response (truth 3/4), i = 0 … k."""
    first = _least_above(k, rate)
    p, q = mpz(1), mpz(3) ** k  # P_0 = C(k, 0)·3^0, Q_0 = C(k, 0)·3^k
    sp = sq = mpz(0)
    step = max(1, k // 10)
    for i in range(k + 1):
        if i >= first:
            sp += p
            sq += q
        if i < k:
            p = p * 3 * (k - i) // (i + 1)
            q = q * (k - i) // (3 * (i + 1))
        if i % step == 0:
            _report(progress, i, k + 1)
    _report(progress, k + 1, k + 1)
    return mpq(sp * rate.denominator - rate.numerator * sq, rate.denominator * mpz(4) ** k)


def reference_tail(k: int, rate: Fraction, progress: bool = False) -> mpq:
    """The same sum, the recurrence run from ``i = k`` down to the least ``i`` above ε."""
    first = _least_above(k, rate)
    p, q = mpz(3) ** k, mpz(1)  # P_k, Q_k
    sp = sq = mpz(0)
    step = max(1, k // 10)
    for i in range(k, first - 1, -1):
        sp += p
        sq += q
        if i > 0:
            p = p * i // (3 * (k - i + 1))
            q = q * 3 * i // (k - i + 1)
        if i % step == 0:
            _report(progress, k - i, k + 1 - first)
    _report(progress, k + 1 - first, k + 1 - first)
    return mpq(sp * rate.denominator - rate.numerator * sq, rate.denominator * mpz(4) ** k)


def plrv_delta(k: int, rate: Fraction, progress: bool = False) -> mpq:
    from verifier.core.distribution import Dist
    from verifier.core.epsilon import Epsilon
    from verifier.notions.composition.exact import LossDistribution, compose_law

    rr = LossDistribution.of(Dist({0: "3/4", 1: "1/4"}), Dist({0: "1/4", 1: "3/4"}))
    shown = [0]

    def report(done: int, total: int) -> None:
        if done * 10 >= shown[0] * total:
            shown[0] += 1
            _report(progress, done, total)

    law, route = compose_law([rr] * k, max_values=10**7, progress=report)
    assert route == "polynomial" and type(law).__name__ == "StreamedLoss", route
    d = law.delta(Epsilon.log(f"{rate.numerator}/{rate.denominator}"))
    return d.a - d.c * mpq(rate.numerator, rate.denominator)


RUNS = {"plrv": plrv_delta, "reference": reference_delta, "reference-tail": reference_tail}


def one(name: str, k: int, out: str, progress: bool) -> None:
    """Run one implementation once in this process; print its time and peak memory (the
    imports are made, by a run at k = 2, before the clock starts)."""
    RUNS[name](2, E_RATE, False)
    t = time.perf_counter()
    d = RUNS[name](k, E_RATE, progress)
    seconds = time.perf_counter() - t
    if progress:
        print(file=sys.stderr)
    with open(out, "w") as f:
        f.write(f"{int(d.numerator):x}/{int(d.denominator):x}")  # hex: no digit limit
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # kilobytes on Linux
    print(json.dumps({"seconds": seconds, "peak_bytes": peak}))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", type=int, action="append", help="runs (repeatable)")
    ap.add_argument("--progress", action="store_true", help="coefficients done, on stderr")
    ap.add_argument("--one", nargs=3, metavar=("NAME", "K", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        one(args.one[0], int(args.one[1]), args.one[2], args.progress)
        return 0
    print(f"# {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{sys.version.split()[0]}, load average {os.getloadavg()[0]:.2f} at the start")
    print("| k | implementation | time | peak memory |\n|---|---|---|---|")
    for k in args.k or [1000, 10_000, 100_000]:
        values, times = {}, {}
        with tempfile.TemporaryDirectory() as tmp:
            for name in RUNS:
                out = os.path.join(tmp, name)
                if args.progress:
                    print(f"{name}, k = {k}:", file=sys.stderr)
                cmd = [sys.executable, __file__, "--one", name, str(k), out]
                done = subprocess.run(cmd + (["--progress"] if args.progress else []),
                                      check=True, stdout=subprocess.PIPE, text=True)
                r = json.loads(done.stdout)
                with open(out) as f:
                    values[name] = f.read()
                times[name] = r["seconds"]
                print(f"| {k:,} | {name} | {r['seconds']:.3f} s | "
                      f"{r['peak_bytes'] / 2**20:.0f} MB |", flush=True)
        assert len(set(values.values())) == 1, f"k = {k}: the exact δs differ"
        print(f"| {k:,} | exact δ(ln 2) equal ({len(values['plrv'])} hexadecimal "
              f"characters); plrv / reference {times['plrv'] / times['reference']:.2f} | | |",
              flush=True)
    print(f"# load average {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
