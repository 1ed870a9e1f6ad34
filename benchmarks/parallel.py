"""Speed-up of ``plrv check --workers N`` over the serial run on a brute-force check.

The instance: ``n`` records with values 0..2 drawn independently (prior 1/2, 1/3, 1/6), a
mechanism that is not symmetric (a weighted sum of the records modulo 5, released through a
noisy channel, written to a user module beside the spec), an attacker who learns record 0
through a noisy channel, and the notions read off the joint tables (apkdp, ppkdp,
noiseless): the brute-force engine enumerates every database, sharded over the workers.
Both runs are ``plrv check --engine brute --json --full`` subprocesses; their outputs must
be byte-for-byte identical, and the wall times and the load average (other processes share
the machine) are printed.

Run: ``python benchmarks/parallel.py [--records 11] [--workers 2] [--repeat 1] [--dp]``
(``--dp``: classical DP alone, every neighbouring pair, instead of the joint-table notions).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MODULE = '''
from verifier import Dist

COEFFS = {coeffs!r}


def mech(db):
    s = sum(c * v for c, v in zip(COEFFS, db, strict=True)) % 5
    return Dist({{s: "3/5", (s + 1) % 5: "1/5", (s + 3) % 5: "1/5"}})


def know(db):
    return Dist({{db[0]: "3/4", (db[0] + 1) % 3: "1/4"}})
'''

SPEC = '''
[data]
records = {n}
values = [0, 1, 2]
prior = ["1/2", "1/3", "1/6"]

[mechanism]
kind = "function"
function = "bench_mech:mech"

{attacker}
[query]
epsilon = "ln(3)"
delta = "1/10"
notions = {notions}

[limits]
databases = 10000000
work = 1000000000
'''


def _run(spec: Path, extra: list[str]) -> tuple[float, bytes]:
    plrv = Path(sys.executable).parent / "plrv"
    start = time.perf_counter()
    done = subprocess.run([str(plrv), "check", str(spec), "--engine", "brute", "--json",
                           "--full", *extra], capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"plrv check {' '.join(extra)} exited {done.returncode}: "
                         f"{done.stderr.decode()}")
    return elapsed, done.stdout


BURN = """
import time
from gmpy2 import mpq
start, s = time.perf_counter(), mpq(0)
for i in range(1, 600_000):
    s += mpq(1, i % 97 + 1) * mpq(3, 7)
print(time.perf_counter() - start)
"""


def ceiling(workers: int) -> float:
    """What the machine allows now: ``workers`` copies of a fixed exact-arithmetic loop run
    at once against one alone (the speed-up of perfectly independent work; a shared or
    throttled host shows here, not only in plrv's figure)."""
    def burn(k: int) -> list[float]:
        procs = [subprocess.Popen([sys.executable, "-c", BURN], stdout=subprocess.PIPE)
                 for _ in range(k)]
        return [float(p.communicate()[0]) for p in procs]

    alone = burn(1)[0]
    return workers * alone / max(burn(workers))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=11)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--dp", action="store_true",
                    help="check classical DP alone (every neighbouring pair, sharded by the "
                         "first records of D1) instead of the joint-table notions")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        n = args.records
        (folder / "bench_mech.py").write_text(MODULE.format(
            coeffs=[(7 * j + 3) % 5 for j in range(n)]))
        spec = folder / "bench.toml"
        attacker = "" if args.dp else (f'[attacker]\ntarget = {n - 1}\n'
                                       f'knowledge = "bench_mech:know"\n')
        notions = '["dp"]' if args.dp else '["apkdp", "ppkdp", "noiseless"]'
        # dp reads no data model: its spec leaves the prior out
        text = SPEC.format(n=n, attacker=attacker, notions=notions)
        spec.write_text(text.replace('prior = ["1/2", "1/3", "1/6"]\n', "") if args.dp
                        else text)
        print(f"brute-force check: {n} records over 3 values = {3 ** n} databases, "
              f"{os.cpu_count()} cores")
        for _ in range(args.repeat):
            load_before = os.getloadavg()
            t_serial, out_serial = _run(spec, [])
            t_par, out_par = _run(spec, ["--workers", str(args.workers)])
            load_after = os.getloadavg()
            if out_serial != out_par:
                raise SystemExit("the parallel answer differs from the serial one")
            print(f"serial {t_serial:.1f} s, --workers {args.workers} {t_par:.1f} s: "
                  f"speed-up {t_serial / t_par:.2f}x (identical JSON output); load average "
                  f"before {load_before[0]:.2f}, after {load_after[0]:.2f}; independent "
                  f"processes now: {ceiling(args.workers):.2f}x")


if __name__ == "__main__":
    main()
