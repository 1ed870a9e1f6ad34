"""Benchmarks of the count engine (run: python benchmarks/run.py [--json PATH] [--quick]).

1. count engine against brute force on the same instance, n = 8..20 (same exact results);
2. count engine against the straightforward Fraction implementation (fraction_baseline.py) at
   n = 500, in the same run: the speed-up ratio, with identical exact results;
3. growth of the Example 7 analysis from n = 125 to n = 1000 (p = 10^-6, threshold n/10,
   n/10 known votes): time for each n and the ratio of each doubling.

Timings are wall-clock seconds on this machine; the ratios are what carries over. Results go
to benchmarks/results/latest.json (or --json PATH).
"""

from __future__ import annotations

import json
import platform
import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fraction_baseline import apk_ppk

from verifier import analyse, iid, known_indices, threshold_count

P = "1/1000000"


def example7(n: int, engine: str = "auto", p: str = P):
    """APK and PPK δ at ε = ln 2 for n voters, threshold n/10, n/10 known (Example 7 scaled)."""
    t = m = n // 10
    prior = [str(1 - Fraction(p)), p]
    start = time.perf_counter()
    a = analyse(threshold_count([1], t), values=[0, 1], records=n, models=iid(prior, [0, 1], n),
                knowledge=known_indices(range(m)), targets=n - 1, engine=engine)
    r = a.report(["apkdp", "ppkdp"], "ln(2)")
    elapsed = time.perf_counter() - start
    return elapsed, r.results["apkdp"].delta.value, r.results["ppkdp"].delta.value


def log(msg: str) -> None:
    print(msg, flush=True)


def bench_brute(sizes) -> list[dict]:
    rows = []
    for n in sizes:
        fast, fa, fp = example7(n, "counts", p="1/10")
        slow, sa, sp = example7(n, "brute", p="1/10")
        assert (fa, fp) == (sa, sp), f"engines disagree at n = {n}"
        rows.append({"n": n, "counts_s": round(fast, 4), "brute_s": round(slow, 4),
                     "speedup": round(slow / fast, 1)})
        log(f"  n = {n:3}: counts {fast:8.3f} s, brute force {slow:8.3f} s, ×{slow / fast:.0f}")
    return rows


def bench_fraction(n: int) -> dict:
    fast, fa, fp = example7(n)
    start = time.perf_counter()
    ba, bp = apk_ppk(n, Fraction(P), n // 10, n // 10, Fraction(2))
    slow = time.perf_counter() - start
    same = (Fraction(int(fa.numerator), int(fa.denominator)) == ba and
            Fraction(int(fp.numerator), int(fp.denominator)) == bp)
    assert same, "the count engine and the Fraction baseline disagree"
    log(f"  n = {n}: plrv {fast:.2f} s, Fraction baseline {slow:.2f} s, ×{slow / fast:.1f}, "
        f"identical exact δ: {same}")
    return {"n": n, "plrv_s": round(fast, 3), "fraction_s": round(slow, 3),
            "speedup": round(slow / fast, 1), "identical": same}


def bench_growth(sizes, repeats: int = 3) -> list[dict]:
    """Best of ``repeats`` runs for each n (the minimum is the least disturbed by the machine)."""
    rows, previous = [], None
    for n in sizes:
        runs = [example7(n) for _ in range(repeats)]
        elapsed, apk, ppk = min(runs, key=lambda r: r[0])
        row = {"n": n, "seconds": round(elapsed, 3),
               "apk_delta_digits": len(str(apk)), "ppk_delta_digits": len(str(ppk))}
        if previous:
            row["ratio_to_half"] = round(elapsed / previous, 2)
        rows.append(row)
        previous = elapsed
        log(f"  n = {n:4}: {elapsed:6.2f} s" + (f"  (×{row['ratio_to_half']} for 2n)"
                                                  if "ratio_to_half" in row else ""))
    return rows


def main() -> None:
    quick = "--quick" in sys.argv
    out = Path(sys.argv[sys.argv.index("--json") + 1]) if "--json" in sys.argv else \
        Path(__file__).resolve().parent / "results" / "latest.json"
    results = {"machine": f"{platform.machine()}, {platform.python_version()}",
               "date": time.strftime("%Y-%m-%d")}
    log("1. count engine vs brute force (p = 1/10, threshold n/10, n/10 known)")
    results["vs_brute_force"] = bench_brute([8, 12, 16] if quick else [8, 10, 12, 14, 16, 18, 20])
    log("2. count engine vs the straightforward Fraction implementation")
    results["vs_fraction"] = bench_fraction(200 if quick else 500)
    log("3. growth of the Example 7 analysis")
    results["growth"] = bench_growth([125, 250] if quick else [125, 250, 500, 1000])
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1))
    log(f"written to {out}")


if __name__ == "__main__":
    main()
