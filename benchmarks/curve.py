"""Benchmark of the exact δ(ε) curve (``plrv curve``, ``plrv check --closed-form``) on
Example 7 (run: python benchmarks/curve.py [--quick] [--out PATH]).

For n = 100, 300, 1000 (``--quick``: 100, 300) voters, threshold n/10, n/10 votes known,
p = 10⁻⁶: plrv's whole APK and PPK curves (:func:`verifier.symbolic.closed_form.notion_curves`,
the upper envelope over every background class and ordered pair) against the yardstick of the
same exact answer, the independent O(n) integer implementation of Example 7
(reference_example7.py) evaluated at E = 1 and at every breakpoint of plrv's curves (δ is
linear in E between them, so these values fix the curve). Both are timed in one fresh process
per n (peak RSS its own) and every value is asserted equal. Results go to
benchmarks/results/curve.json (git-ignored; or --out PATH, never a file git tracks).
"""

from __future__ import annotations

import json
import platform
import resource
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from reference_example7 import example7_reference  # noqa: E402

P = Fraction(1, 10 ** 6)


def _fraction(x) -> Fraction:
    return Fraction(int(x.numerator), int(x.denominator))


def measure(n: int) -> dict:
    """One n, meant to run alone in a fresh process."""
    from verifier import analyse, iid, known_indices, threshold_count
    from verifier.symbolic.closed_form import notion_curves

    sys.set_int_max_str_digits(0)
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t = m = n // 10
    start = time.perf_counter()
    a = analyse(threshold_count([1], t), values=[0, 1], records=n,
                models=iid([str(1 - P), str(P)], [0, 1], n), knowledge=known_indices(range(m)),
                targets=n - 1)
    curves = notion_curves(a, ["apkdp", "ppkdp"])
    plrv_s = time.perf_counter() - start
    plrv_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    rates = sorted({Fraction(1)} | {_fraction(b) for c in curves.values() for b in c.breakpoints})
    start = time.perf_counter()
    for q in rates:
        ref = example7_reference(n, P, q=q)
        assert _fraction(curves["apkdp"](q)) == ref.apk_worst()[0], (n, q, "apkdp")
        assert _fraction(curves["ppkdp"](q)) == ref.ppk_worst()[0], (n, q, "ppkdp")
    ref_s = time.perf_counter() - start
    return {"n": n, "pieces": {k: len(c.pieces) for k, c in curves.items()},
            "points_checked": len(rates), "plrv_curves_s": round(plrv_s, 3),
            "reference_at_every_breakpoint_s": round(ref_s, 3),
            "maxrss_before_mb": round(base / 1024, 1),
            "maxrss_after_plrv_mb": round(plrv_rss / 1024, 1), "equal": True}


def main(argv: list[str]) -> None:
    if argv[:1] == ["--one"]:
        print(json.dumps(measure(int(argv[1]))))
        return
    out = HERE / "results" / "curve.json"
    if "--out" in argv:
        out = Path(argv[argv.index("--out") + 1])
    tracked = subprocess.run(["git", "ls-files", "--error-unmatch", str(out)], cwd=HERE,
                             capture_output=True).returncode == 0
    if tracked:
        raise SystemExit(f"{out} is tracked by git; choose another --out")
    rows = []
    for n in ((100, 300) if "--quick" in argv else (100, 300, 1000)):
        res = subprocess.run([sys.executable, __file__, "--one", str(n)], capture_output=True,
                             text=True, check=True)
        rows.append(json.loads(res.stdout))
        print(json.dumps(rows[-1]))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"machine": platform.platform(), "python": sys.version.split()[0],
                               "example7_curves": rows}, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main(sys.argv[1:])
