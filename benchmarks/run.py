"""Benchmarks of the count engine (run: python benchmarks/run.py [--out PATH] [--quick]).

1. count engine against brute force on the same instance, n = 8..16 (same exact results);
2. Example 7 (p = 10^-6, threshold n/10, n/10 votes known, ε = ln 2) at n = 1000 and
   10,000 against the reference (reference_example7.py: an independent integer
   prefix/suffix-sum implementation of the closed form), both timed in this run, each n in a
   fresh process (so its peak memory is its own), the exact δ asserted equal;
3. certified enclosures (ball arithmetic) of Example 7 at n = 10^6: time and relative width;
4. the Figure 3.4 sweep (29 thresholds × 3 values of p, 87 analyses);
5. brute-force DP: the cost per pair of output distributions, and the pairs memoised;
6. singling out: Theorem 4.6 lumped against value by value; 7. start-up: ``plrv --help``.

Timings are wall-clock seconds on this machine; the ratios are what carries over. Results go
to benchmarks/results/run.json, which git ignores (or --out PATH; never to a file git tracks).
"""

from __future__ import annotations

import json
import os
import platform
import resource
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from reference_example7 import apk_ppk  # noqa: E402

from verifier import analyse, iid, known_indices, threshold_count  # noqa: E402

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


def _fraction(x) -> Fraction:
    return Fraction(int(x.numerator), int(x.denominator))


def bench_brute(sizes) -> list[dict]:
    rows = []
    for n in sizes:
        fast, fa, fp = example7(n, "counts", p="1/10")
        slow, sa, sp = example7(n, "brute", p="1/10")
        assert (fa, fp) == (sa, sp), f"engines disagree at n = {n}"
        rows.append({"n": n, "counts_s": round(fast, 4), "brute_s": round(slow, 4),
                     "speedup": round(slow / fast, 1)})
        log(f"  n = {n:3}: counts {fast:8.4f} s, brute force {slow:8.3f} s, ×{slow / fast:.0f}")
    return rows


def one_reference_run(n: int, repeats: int) -> dict:
    """In a fresh process: plrv and the reference on Example 7 at n (best of ``repeats``),
    exact equality asserted, and the process's peak memory."""
    plrv = [example7(n) for _ in range(repeats)]
    elapsed, apk, ppk = min(plrv, key=lambda r: r[0])
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    ref = []
    for _ in range(repeats):
        start = time.perf_counter()
        values = apk_ppk(n)
        ref.append((time.perf_counter() - start, values))
    ref_s, (ref_apk, ref_ppk) = min(ref, key=lambda r: r[0])
    same = _fraction(apk) == ref_apk and _fraction(ppk) == ref_ppk
    assert same, f"plrv and the reference disagree at n = {n}"
    return {"n": n, "plrv_s": round(elapsed, 4), "reference_s": round(ref_s, 4),
            "ratio": round(elapsed / ref_s, 1), "identical": same,
            "peak_memory_mb": round(peak / 2**20), "apk_delta_digits": len(str(apk.denominator)),
            "ppk_delta_digits": len(str(ppk.denominator))}


def bench_reference(sizes) -> list[dict]:
    rows = []
    for n in sizes:
        out = subprocess.run([sys.executable, __file__, "--one", str(n)], check=True,
                             capture_output=True, text=True).stdout
        row = json.loads(out.strip().splitlines()[-1])
        rows.append(row)
        log(f"  n = {n:5}: plrv {row['plrv_s']:.3f} s, reference {row['reference_s']:.4f} s, "
            f"×{row['ratio']}, peak memory {row['peak_memory_mb']} MB, identical exact δ: "
            f"{row['identical']}")
    return rows


def bench_certified(n: int) -> dict:
    from verifier.engines.enclosure import certified_partial
    t = m = n // 10
    model = iid([str(1 - Fraction(P)), P], [0, 1], n)
    start = time.perf_counter()
    r = certified_partial(threshold_count([1], t), model, known_indices(range(m)), n - 1,
                          "ln(2)", "1e-100")
    elapsed = time.perf_counter() - start
    widths = {k: f"{float(v.relative_width):.1e}" for k, v in r.results.items()}
    log(f"  n = {n}: {elapsed:.1f} s, relative widths {widths}, verdicts {r.verdicts}")
    return {"n": n, "seconds": round(elapsed, 2), "relative_width": widths,
            "verdicts": {k: v for k, v in r.verdicts.items()}, "precision_bits": r.precision}


def bench_sweep() -> dict:
    from verifier.notions.sweep import parse_range, threshold_sweep
    from verifier.specs.check import load_spec
    spec = load_spec(HERE.parent / "examples" / "figure_3_4.toml")
    start = time.perf_counter()
    threshold_sweep(spec, parse_range("2..30"), ["1/10000", "1/2000", "1/1000"])
    elapsed = time.perf_counter() - start
    log(f"  Figure 3.4, 87 analyses: {elapsed:.2f} s")
    return {"analyses": 87, "seconds": round(elapsed, 2)}


def bench_pairs(n: int) -> list[dict]:
    """DP by brute force: time per distinct pair of output laws; pairs met again are free."""
    from gmpy2 import mpq

    from verifier import Budget, count, randomized_response
    from verifier.core.epsilon import parse_epsilon
    from verifier.notions.dp.brute import dp_cases
    from verifier.notions.dp.pairs import LossMemo
    from verifier.notions.result import summarize
    rows = []
    for mech in (randomized_response("3/4", [0, 1]), count([1])):
        memo = LossMemo()
        start = time.perf_counter()
        summarize("dp", dp_cases(mech, [0, 1], n, Budget(max_work=1 << 40), "brute", memo),
                  parse_epsilon("ln(2)"), mpq(0))
        elapsed = time.perf_counter() - start
        per = elapsed / max(memo.computed, 1)
        rows.append({"mechanism": mech.name, "n": n, "seconds": round(elapsed, 3),
                     "pairs_computed": memo.computed, "pairs_reused": memo.reused,
                     "ms_per_computed_pair": round(per * 1000, 3)})
        log(f"  {mech.name}, n = {n}: {elapsed:.2f} s, {memo.computed} pairs of laws computed "
            f"({per * 1000:.2f} ms each), {memo.reused} met again (memoised)")
    return rows


def bench_pso() -> dict:
    """Singling out, Theorem 4.6's instance (6 bits, n = 4): lumped against value by value."""
    from gmpy2 import mpq

    from verifier.pso.attacks import composition_attack, composition_counts
    from verifier.pso.predicates import Universe, parse_predicate
    from verifier.pso.success import Admissible, success
    u = Universe.bit_strings(6)
    mech = composition_counts(u, parse_predicate("x < 16", u))
    adm = Admissible(at_most=mpq(1, 64))
    row = {}
    for label, lump in (("lumped", True), ("value_by_value", False)):
        start = time.perf_counter()
        res = success(u, 4, mech, composition_attack(u), adm, lump=lump)
        row[label] = {"seconds": round(time.perf_counter() - start, 3),
                      "datasets": res.datasets, "success": str(res.success)}
    assert row["lumped"]["success"] == row["value_by_value"]["success"]  # exact, identical
    log(f"  Theorem 4.6 (6 bits, n = 4): lumped {row['lumped']['datasets']} multisets "
        f"{row['lumped']['seconds']:.3f} s, value by value {row['value_by_value']['datasets']} "
        f"multisets {row['value_by_value']['seconds']:.2f} s, identical success "
        f"{row['lumped']['success']}")
    return row


def bench_startup() -> dict:
    runs = []
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run(["plrv", "--help"], check=True, capture_output=True)
        runs.append(time.perf_counter() - start)
    log(f"  plrv --help: {min(runs):.2f} s")
    return {"help_s": round(min(runs), 3)}


DEFAULT_OUT = Path(__file__).resolve().parent / "results" / "run.json"  # git-ignored


def output_path(argv: list[str]) -> Path:
    """Where the results go: ``--out PATH`` (or ``--json PATH``), by default
    benchmarks/results/run.json, which git ignores; a file git tracks is never overwritten."""
    flag = next((f for f in ("--out", "--json") if f in argv), None)
    if flag is not None and argv.index(flag) + 1 >= len(argv):
        sys.exit(f"error: {flag} needs a file name")
    out = Path(argv[argv.index(flag) + 1]) if flag is not None else DEFAULT_OUT
    tracked = subprocess.run(["git", "ls-files", "--error-unmatch", out.name],
                             cwd=out.resolve().parent if out.resolve().parent.is_dir() else None,
                             capture_output=True).returncode == 0
    if tracked:
        sys.exit(f"error: {out} is tracked by git; write the results elsewhere (--out PATH)")
    return out


def main() -> None:
    if sys.argv[1:2] == ["--one"]:
        n = int(sys.argv[2])
        print(json.dumps(one_reference_run(n, 3 if n <= 2000 else 1)))
        return
    quick = "--quick" in sys.argv
    out = output_path(sys.argv)
    results = {"machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
                          f"{platform.python_version()}",
               "date": time.strftime("%Y-%m-%d")}
    log("1. count engine vs brute force (p = 1/10, threshold n/10, n/10 known)")
    results["vs_brute_force"] = bench_brute([8, 12] if quick else [8, 10, 12, 14, 16])
    log("2. Example 7 against the reference (integer prefix/suffix sums)")
    results["vs_reference"] = bench_reference([1000] if quick else [1000, 10000])
    log("3. certified enclosures (ball arithmetic)")
    results["certified"] = bench_certified(10**5 if quick else 10**6)
    log("4. sweep")
    results["sweep"] = bench_sweep()
    log("5. brute-force DP: pairs of output laws")
    results["brute_pairs"] = bench_pairs(6 if quick else 8)
    log("6. singling out: lumped values")
    results["pso"] = bench_pso()
    log("7. start-up")
    results["startup"] = bench_startup()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1))
    log(f"written to {out}")


if __name__ == "__main__":
    main()
