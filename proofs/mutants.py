"""``python -m proofs.mutants``: plant known bugs in a copy of plrv and see which records fail.

Each mutant is a patch ``(file, old snippet, new snippet)``. For each one the package and the
records are copied to a temporary directory (the working tree is never touched), the snippet
replaced, and every record of :mod:`proofs.registry` run there in a fresh interpreter that
imports the copy. A mutant is *caught* when at least one record stops giving its expected
verdict. A snippet no longer found in its file is reported (the code moved on: update the
mutant) and counts as a failure of this check.

Options: ``-j N`` runs N mutants at once (default 2); names select mutants. Exit status: 0
every mutant caught, 1 one was not, 2 a snippet was not found or a run broke.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Mutant:
    name: str
    what: str
    file: str
    old: str
    new: str


MUTANTS = [
    Mutant("loss-convention", "Definition 5, condition 1: an impossible b gives L = +∞, not 0",
           "verifier/notions/partial/cases.py",
           "return PrivacyLoss.from_rows(pa, pb, ratios) if pb else PrivacyLoss.none()",
           "return PrivacyLoss.from_rows(pa, pb, ratios) if pb else PrivacyLoss((), "
           "mpz(sum(pa.values())), mpz(sum(pa.values())), mpz(1))"),
    Mutant("delta-formula", "δ = A − C·e^ε with C on the wrong scale",
           "verifier/notions/loss.py",
           "return Delta.make(mpq(p, self.p_scale), mpq(q, self.q_scale), eps)",
           "return Delta.make(mpq(p, self.p_scale), mpq(q, self.p_scale), eps)"),
    Mutant("ppk-weights", "PPK mixes the APK losses with equal weights, not P[B | D(i)=a]",
           "verifier/notions/partial/cases.py",
           "(jt.p_background(a, bg), loss) for bg, loss in t.apk_losses(a, b).items())",
           "(mpq(1), loss) for bg, loss in t.apk_losses(a, b).items())"),
    Mutant("reducibility-test", "Θ-reducibility compares the number of output profiles only",
           "verifier/notions/partial/reducible.py",
           "if _profiles(jt, bg) != reference:",
           "if len(_profiles(jt, bg)) != len(reference):"),
    Mutant("pso-baseline", "the baseline looks only at the realisable weight just above 1/n",
           "verifier/pso/baseline.py",
           "candidates = [ok[j] for j in (i - 1, i) if 0 <= j < len(ok)]",
           "candidates = [ok[j] for j in (i,) if 0 <= j < len(ok)] or ok[-1:]"),
    Mutant("optimal-adversary", "the optimal adversary only tries predicates of one value",
           "verifier/pso/success.py",
           "if inter and inter & (inter - 1) == 0 and inter & once:",
           "if inter and inter & (inter - 1) == 0 and inter & once and m & (m - 1) == 0:"),
    Mutant("guessing-bound", "the simplified bound uses e^{−εR/2} instead of e^{−εR}",
           "verifier/guessing/bounds.py",
           "lo, hi = _exp_eps(eps, -R, prec)",
           "lo, hi = _exp_eps(eps, -R / 2, prec)"),
    Mutant("count-weights", "the count engine's multinomial drops the power of each prior",
           "verifier/engines/counts.py",
           "n = n // fac(cv) * w ** cv",
           "n = n // fac(cv) * w"),
    Mutant("binomial-weights", "the count engine's binomial recurrence misses a factor s",
           "verifier/engines/count_law.py",
           "w = w * ((u - x) * s) // ((x + 1) * r)",
           "w = w * (u - x) // (x + 1)"),
    Mutant("symbolic-reducibility-first-pair",
           "symbolic Θ-reducibility compares the first background value with the second only",
           "verifier/symbolic/reducibility.py",
           "    for bg in backgrounds[1:]:",
           "    for bg in backgrounds[1:2]:"),
    Mutant("z3-cross-multiplication",
           "the z3 encoding of max(0, P[O|a,B] − E·P[O|b,B]) cross-multiplies by the wrong "
           "weights",
           "verifier/symbolic/encoding.py",
           "return self.z.positive_part(self.poly(ja * wb) - self.E * self.poly(jb * wa))",
           "return self.z.positive_part(self.poly(ja * wa) - self.E * self.poly(jb * wb))"),
    Mutant("precise-bound-rounding",
           "the certified precise guessing bound rounds its sum the wrong way",
           "verifier/guessing/bounds.py",
           "            s_lo += w2 / den_hi\n            s_hi += w2 / den_lo",
           "            s_lo += w2 / den_lo\n            s_hi += w2 / den_hi"),
    Mutant("dp-neighbours", "DP by counts compares only neighbouring values of the domain",
           "verifier/notions/dp/brute.py",
           "                if a == b:\n                    continue\n                q = run(",
           "                if a == b or abs(ai - bi) > 1:\n                    continue\n"
           "                q = run("),
    Mutant("renyi-ppk-weights", "the PPK Rényi moment weights each background by "
           "P[D(i)=a, ζ(D)=B], not P[B | D(i)=a]",
           "verifier/notions/renyi/partial.py",
           "t = _weighted(jt, a, b, bg, w / pv)", "t = _weighted(jt, a, b, bg, w)"),
    Mutant("renyi-apk-last-background", "APK-RDP skips the last background value",
           "verifier/notions/renyi/partial.py",
           "                for bg in jt.backgrounds():\n                    terms = apk_terms(",
           "                for bg in jt.backgrounds()[:-1]:\n                    terms = "
           "apk_terms("),
    Mutant("renyi-convention-one", "a background impossible under b makes S_α infinite, "
           "not 1 (Definition 5, condition 1)",
           "verifier/notions/renyi/partial.py",
           "return ((w, mpq(1)),)", "return None"),
    Mutant("renyi-conversion-power", "the converted δ divides by e^{αε}, not e^{(α−1)ε}",
           "verifier/notions/renyi/conversions.py",
           "return Conversion(min(s * c / rate ** (a - 1), mpq(1)), mpq(a), CKS_RDP)",
           "return Conversion(min(s * c / rate ** a, mpq(1)), mpq(a), CKS_RDP)"),
    Mutant("renyi-apk-as-ppk", "APK-RDP averages over the background value like PPK-RDP",
           "verifier/notions/renyi/partial.py",
           '    out: list[PartialCase] = []\n    if form == "noiseless":',
           '    out: list[PartialCase] = []\n    form = "ppk" if form == "apk" else form\n'
           '    if form == "noiseless":'),
]

_RUN = """
import sys
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in type(f).__module__]
sys.path.insert(0, {root!r})
import verifier
assert verifier.__file__.startswith({root!r}), verifier.__file__
from proofs.registry import main
sys.exit(main(["--json"]))
"""


def _copy(dest: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for part in ("verifier", "proofs", "examples", "typings"):
        if (ROOT / part).exists():
            shutil.copytree(ROOT / part, dest / part, ignore=ignore)


def run_mutant(m: Mutant) -> dict:
    """Apply ``m`` to a temporary copy, run every record there, and report the failures."""
    with tempfile.TemporaryDirectory(prefix="plrv-mutant-") as tmp:
        root = Path(tmp)
        _copy(root)
        path = root / m.file
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        found = text.count(m.old)
        if found != 1:
            return {"name": m.name, "status": "snippet not found" if found == 0 else
                    f"snippet found {found} times", "caught_by": []}
        path.write_text(text.replace(m.old, m.new), encoding="utf-8")
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        env.pop("PYTHONPATH", None)
        run = subprocess.run([sys.executable, "-c", _RUN.format(root=str(root))], cwd=root,
                             capture_output=True, text=True, env=env, timeout=3600)
        try:
            rows = json.loads(run.stdout)
        except ValueError:
            return {"name": m.name, "status": "the run broke: " + run.stderr.strip()[-300:],
                    "caught_by": []}
        caught = [r["id"] for r in rows
                  if r["status"] not in ("holds", "refuted, as the seeds say")]
        return {"name": m.name, "status": "caught" if caught else "NOT CAUGHT",
                "caught_by": caught}


def main(argv: list[str]) -> int:
    jobs = 2
    if "-j" in argv:
        i = argv.index("-j")
        jobs = int(argv[i + 1])
        argv = argv[:i] + argv[i + 2:]
    chosen = [m for m in MUTANTS if not argv or m.name in argv]
    print(f"{len(chosen)} planted bugs, {jobs} at a time; each runs every record in a fresh "
          f"copy (about a minute or more each); one line per bug as it finishes", flush=True)
    results = []
    with ThreadPoolExecutor(max_workers=jobs) as pool:  # map yields in order, as they finish
        for i, (m, r) in enumerate(zip(chosen, pool.map(run_mutant, chosen), strict=True), 1):
            results.append(r)
            print(f"[{i}/{len(chosen)}] {r['status']:>18}  {m.name}: {m.what} ({m.file})",
                  flush=True)
            if r["caught_by"]:
                print(f"{'':>20}caught by {len(r['caught_by'])}: {', '.join(r['caught_by'])}",
                      flush=True)
    if any(r["status"] not in ("caught", "NOT CAUGHT") for r in results):
        return 2
    caught = sum(r["status"] == "caught" for r in results)
    print(f"{caught} of {len(results)} planted bugs caught")
    return 0 if caught == len(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
