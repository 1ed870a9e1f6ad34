"""The count engine's frontier: Example 7 exact at 10^4–10^5 records, certified at 10^6.

    python benchmarks/count_engine.py                 # n = 10,000, 50,000 and 100,000
    python benchmarks/count_engine.py 100000          # chosen sizes

Example 7 scaled (seed 003, Example 1): ``n`` i.i.d. votes with ``P[yes] = 10⁻⁶``, the count
released when it reaches ``T = n/10``, an attacker knowing ``n/10`` votes; worst APK and PPK δ
at ε = ln 2. For each ``n``, in fresh processes (so each peak memory is its own), plrv's
count engine (``verifier.analyse``, best of three) and the independent reference
``benchmarks/reference_example7.py`` (integer prefix sums of the closed form, best of three)
are timed and their exact δ asserted equal. The certified enclosure (ball arithmetic) of the
same instance at ``n = 10⁶`` is timed best of three and its widths printed. The machine's
load average is printed at the start and the end: other work on the machine slows both.
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
P = "1/1000000"
LIMITS = dict(max_memory=2 ** 34, max_work=2 ** 60, max_combinations=2 ** 60,
              max_records=10 ** 7)


def plrv_example7(n: int) -> tuple[float, Fraction, Fraction]:
    from verifier import analyse, iid, known_indices, threshold_count
    from verifier.core.budget import Budget

    t = m = n // 10
    start = time.perf_counter()
    a = analyse(threshold_count([1], t), values=[0, 1], records=n,
                models=iid([str(1 - Fraction(P)), P], [0, 1], n),
                knowledge=known_indices(range(m)), targets=n - 1, budget=Budget(**LIMITS))
    r = a.report(["apkdp", "ppkdp"], "ln(2)")
    elapsed = time.perf_counter() - start
    apk, ppk = (r.results[k].delta.value for k in ("apkdp", "ppkdp"))
    return elapsed, Fraction(int(apk.numerator), int(apk.denominator)), \
        Fraction(int(ppk.numerator), int(ppk.denominator))


def reference_example7(n: int) -> tuple[float, Fraction, Fraction]:
    sys.path.insert(0, str(HERE))
    from reference_example7 import apk_ppk

    start = time.perf_counter()
    apk, ppk = apk_ppk(n)
    return time.perf_counter() - start, apk, ppk


def one(which: str, n: int, runs: int) -> dict:
    """In this (fresh) process: ``runs`` timings of one side, its δ and its peak memory."""
    sys.set_int_max_str_digits(0)
    f = plrv_example7 if which == "plrv" else reference_example7
    times, out = [], None
    for _ in range(runs):
        elapsed, apk, ppk = f(n)
        times.append(elapsed)
        out = (str(apk), str(ppk))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"times": times, "apk": out[0] if out else "", "ppk": out[1] if out else "",
            "peak_mb": round(peak)}


def fresh(which: str, n: int, runs: int) -> dict:
    out = subprocess.run([sys.executable, __file__, "--one", which, str(n), str(runs)],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def certified(n: int, runs: int = 3) -> None:
    from verifier import iid, known_indices, threshold_count
    from verifier.engines.enclosure import certified_partial

    model = iid([str(1 - Fraction(P)), P], [0, 1], n)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        r = certified_partial(threshold_count([1], n // 10), model, known_indices(range(n // 10)),
                              n - 1, "ln(2)", "1e-100")
        times.append(time.perf_counter() - start)
    widths = {k: f"{float(v.relative_width):.1e}" for k, v in r.results.items()}
    print(f"certified enclosure n={n}: best {min(times):.2f} s (runs "
          f"{', '.join(f'{t:.2f}' for t in times)}), relative widths {widths}, verdicts "
          f"{r.verdicts} (δ ≤ 1e-100)", flush=True)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--one"]:
        print(json.dumps(one(argv[1], int(argv[2]), int(argv[3]))))
        return 0
    sizes = [int(a) for a in argv] or [10_000, 50_000, 100_000]
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
          f"{sys.version.split()[0]}, load average {os.getloadavg()[0]:.2f} at the start",
          flush=True)
    for n in sizes:
        mine, ref = fresh("plrv", n, 3), fresh("reference", n, 3)
        assert (mine["apk"], mine["ppk"]) == (ref["apk"], ref["ppk"]), f"δ differ at n = {n}"
        print(f"Example 7 n={n}: plrv best {min(mine['times']):.2f} s (runs "
              f"{', '.join(f'{t:.2f}' for t in mine['times'])}), peak {mine['peak_mb']} MB; "
              f"reference best {min(ref['times']):.2f} s, peak {ref['peak_mb']} MB; exact APK "
              f"and PPK δ equal ({len(mine['ppk'])} characters)", flush=True)
    certified(10 ** 6)
    print(f"# load average {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
