"""``python -m proofs.mutants``: plant known bugs in a copy of plrv and see which records fail.

Each mutant is a patch ``(file, old snippet, new snippet)``. For each one the package and the
records are copied to a temporary directory (the working tree is never touched), the snippet
replaced, and every record of :mod:`proofs.registry` run there in a fresh interpreter that
imports the copy. A mutant is *caught* when at least one record stops giving its expected
verdict. A snippet no longer found in its file is reported (the code moved on: update the
mutant) and counts as a failure of this check.

Options: ``-j N`` runs N mutants at once (default 2); names select mutants; ``--targeted``
runs, for a mutant that names the records written to catch it, only those records, and
counts it caught only when every one of them fails (minutes instead of a full run each; the
other mutants still run every record). Exit status: 0 every mutant caught, 1 one was not, 2
a snippet was not found or a run broke.
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
    records: tuple[str, ...] = ()  # the records written to catch it (all must, --targeted)


MUTANTS = [
    Mutant("loss-convention", "Definition 5, condition 1: an impossible b gives L = +∞, not 0",
           "verifier/notions/partial/cases.py",
           "return PrivacyLoss.from_rows(pa, pb, ratios) if pb else PrivacyLoss.none()",
           "return PrivacyLoss.from_rows(pa, pb, ratios) if pb else PrivacyLoss((), "
           "mpz(sum(pa.values())), mpz(sum(pa.values())), mpz(1))"),
    Mutant("delta-formula", "δ = A − C·e^ε with C on the wrong scale",
           "verifier/notions/loss.py",
           "return Delta.make(mpq(sp[start], self.p_scale), mpq(sq[start], self.q_scale), eps)",
           "return Delta.make(mpq(sp[start], self.p_scale), mpq(sq[start], self.p_scale), eps)"),
    Mutant("ppk-weights", "PPK mixes the APK losses with equal weights, not P[B | D(i)=a]",
           "verifier/notions/partial/cases.py",
           "(jt.p_background(a, bg), loss) for bg, loss in losses.items())",
           "(mpq(1), loss) for bg, loss in losses.items())"),
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
           "w = w * ((u - x) * s) // ((x + 1) * r)  # exact: C(u, x+1)",
           "w = w * (u - x) // (x + 1)  # exact: C(u, x+1)"),
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
    Mutant("profiles-by-support",
           "Θ-reducibility compares which outputs are possible, not their probabilities",
           "verifier/notions/partial/reducible.py",
           "return {o: tuple(None if (d := conds[t]) is None else d[o] for t in jt.values)",
           "return {o: tuple(None if (d := conds[t]) is None else d[o] > 0 for t in jt.values)",
           records=("knowledge-choice",)),
    Mutant("binomial-off-by-one", "the binomial recurrence uses (u − x + 1) for (u − x)",
           "verifier/engines/count_law.py",
           "w = w * ((u - x) * s) // ((x + 1) * r)  # exact: C(u, x+1)",
           "w = w * ((u - x + 1) * s) // ((x + 1) * r)  # exact: C(u, x+1)",
           records=("theorem4-lemma1",)),
    Mutant("product-law", "the law of a count of records with different priors skips the "
           "last record", "verifier/engines/count_law.py",
           "    for r, s in weights:\n        nxt = [w * r for w in out] + [mpz(0)]",
           "    for r, s in weights[:-1] if len(weights) > 2 else weights:\n"
           "        nxt = [w * r for w in out] + [mpz(0)]",
           records=("theorem4",)),
    Mutant("loss-atoms", "δ leaves out the outputs whose ratio is in (1, 2]",
           "verifier/notions/loss.py",
           "            if r > 1:\n                acc = merged.get(r)",
           "            if r > 2:\n                acc = merged.get(r)",
           records=("lemma2-event-sets",)),
    Mutant("joint-output-weights",
           "the brute-force joint table drops the mechanism's output probabilities",
           "verifier/engines/joint.py",
           "row[o] = row.get(o, mpq(0)) + pbb * po",
           "row[o] = row.get(o, mpq(0)) + pbb",
           records=("convexity-apk",)),
    Mutant("baseline-admissible", "the baseline ignores the admissible weights",
           "verifier/pso/baseline.py",
           "ok = sorted(w for w in sums if admissible(w))",
           "ok = sorted(sums)",
           records=("pso-corollary-3.2",)),
    Mutant("collection-first", "full singling out scores only a collection's first predicate",
           "verifier/pso/success.py",
           "hits = [_isolated_row(p.members, rows) for p in choice]",
           "hits = [_isolated_row(p.members, rows) for p in choice[:1]]",
           records=("pso-last-bits",)),
    Mutant("isolation-duplicates", "two equal rows matching a predicate count as one isolated "
           "row", "verifier/pso/success.py",
           "            if hit is not None:\n                return None",
           "            if hit is not None and rows[hit] != u:\n                return None",
           records=("pso-theorem-4.9",)),
    Mutant("optimal-admissible", "the optimal adversary may use any predicate holding the "
           "first value, whatever its weight", "verifier/pso/success.py",
           "if admissible(universe.weight(values[j] for j in range(len(values)) if m >> j & 1))]",
           "if admissible(universe.weight(values[j] for j in range(len(values)) if m >> j & 1))"
           " or m & 1]",
           records=("pso-theorem-5.4",)),
    Mutant("converse-bound", "the lower bound on the posterior uses e^{εR/2} for e^{εR}",
           "verifier/guessing/converse.py",
           "lo, hi = _exp_times(eps, R, prec)",
           "lo, hi = _exp_times(eps, R / 2, prec)",
           records=("guess-converse",)),
    Mutant("diameter-count", "the diameter counts the values of an attribute, not its range",
           "verifier/guessing/model.py",
           "return max(mpq(max(_coords(x)[j] for x in self.domain)",
           "return max(mpq(1 + max(_coords(x)[j] for x in self.domain)",
           records=("guess-unknown-prior",)),
    Mutant("advantage-joint", "the advantage uses P[g, z] where it needs P[g | z]",
           "verifier/guessing/model.py",
           "post = sum((row[y] for y in g if y in row), mpq(0)) / totals[z]",
           "post = sum((row[y] for y in g if y in row), mpq(0))",
           records=("guess-less-knowledge",)),
    Mutant("inversion-formula", "the inverted ε drops p from 1 − p − η",
           "verifier/guessing/bounds.py",
           "return ScaledLog.make((1 - p) * (p + eta) / (p * (1 - p - eta)), R)",
           "return ScaledLog.make((1 - p) * (p + eta) / (p * (1 - eta)), R)",
           records=("guess-worst-prior-search", "guess-figure")),
    Mutant("shift-cut", "the shift loss compares p/q with e^ε's numerator, its denominator "
           "dropped", "verifier/notions/partial/shift_loss.py",
           "        return lambda p, q: p * den > num * q\n    return lambda p, q: compare_exp(",
           "        return lambda p, q: p > num * q\n    return lambda p, q: compare_exp(",
           records=("referendum-2000",)),
    Mutant("or-goal", "an OR goal is read as AND (every attribute within its precision)",
           "verifier/guessing/model.py",
           'near = all if self.mode == "and" or k is not None else any',
           "near = all",
           records=("guess-or-goals",)),
    Mutant("composition-multinomial", "k runs: a histogram's mass leaves out the multinomial "
           "k!/Π h_o! (the ratios keep it, the masses do not)",
           "verifier/notions/composition/partial.py",
           "                    cells[ri][h] = value * multinomial",
           "                    cells[ri][h] = value",
           records=("composition-histograms", "composition-full-knowledge")),
    Mutant("composition-unknown-weights", "k runs: the unknown records' count vectors get "
           "equal weights in the mixture, not their law",
           "verifier/engines/mixtures.py",
           "p_t * mpq(n_k * n_u, scale_k * scale_u))",
           "p_t * mpq(n_k, scale_k * len(law_u)))",
           records=("composition-histograms",)),
    Mutant("composition-histogram-enumeration", "k runs: histograms where an output other "
           "than the last was given by no run are never enumerated",
           "verifier/notions/composition/partial.py",
           "for h_j in range(r, -1, -1):", "for h_j in range(r, 0, -1):",
           records=("composition-histograms",)),
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

_RUN_SOME = """
import json, sys
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in type(f).__module__]
sys.path.insert(0, {root!r})
import verifier
assert verifier.__file__.startswith({root!r}), verifier.__file__
from proofs.registry import RECORDS, outcome
print(json.dumps([{{"id": t.name, "status": outcome(t)[1]}} for t in RECORDS
                  if t.name in {names!r}]))
"""


def _copy(dest: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for part in ("verifier", "proofs", "examples", "typings"):
        if (ROOT / part).exists():
            shutil.copytree(ROOT / part, dest / part, ignore=ignore)


def run_mutant(m: Mutant, targeted: bool = False) -> dict:
    """Apply ``m`` to a temporary copy, run every record there (``targeted``: only the records
    written to catch it, each of which must fail), and report the failures."""
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
        some = targeted and m.records
        script = _RUN_SOME.format(root=str(root), names=set(m.records)) if some else \
            _RUN.format(root=str(root))
        run = subprocess.run([sys.executable, "-c", script], cwd=root,
                             capture_output=True, text=True, env=env, timeout=3600)
        try:
            rows = json.loads(run.stdout)
        except ValueError:
            return {"name": m.name, "status": "the run broke: " + run.stderr.strip()[-300:],
                    "caught_by": []}
        caught = [r["id"] for r in rows
                  if r["status"] not in ("holds", "refuted, as the seeds say")]
        if some and (len(rows) != len(m.records) or len(caught) != len(rows)):
            missed = sorted(set(m.records) - set(caught))
            return {"name": m.name, "status": "NOT CAUGHT", "caught_by": caught,
                    "missed": missed}
        return {"name": m.name, "status": "caught" if caught else "NOT CAUGHT",
                "caught_by": caught}


def main(argv: list[str]) -> int:
    jobs = 2
    if "-j" in argv:
        i = argv.index("-j")
        jobs = int(argv[i + 1])
        argv = argv[:i] + argv[i + 2:]
    targeted = "--targeted" in argv
    argv = [a for a in argv if a != "--targeted"]
    chosen = [m for m in MUTANTS if not argv or m.name in argv]
    what = "its own records (every record if it names none)" if targeted else "every record"
    print(f"{len(chosen)} planted bugs, {jobs} at a time; each runs {what} in a fresh copy "
          f"(a full run takes minutes); one line per bug as it finishes", flush=True)
    results = []
    with ThreadPoolExecutor(max_workers=jobs) as pool:  # map yields in order, as they finish
        runs = pool.map(lambda m: run_mutant(m, targeted), chosen)
        for i, (m, r) in enumerate(zip(chosen, runs, strict=True), 1):
            results.append(r)
            print(f"[{i}/{len(chosen)}] {r['status']:>18}  {m.name}: {m.what} ({m.file})",
                  flush=True)
            if r["caught_by"]:
                print(f"{'':>20}caught by {len(r['caught_by'])}: {', '.join(r['caught_by'])}",
                      flush=True)
            if r.get("missed"):
                print(f"{'':>20}its records not failing: {', '.join(r['missed'])}", flush=True)
    if any(r["status"] not in ("caught", "NOT CAUGHT") for r in results):
        return 2
    caught = sum(r["status"] == "caught" for r in results)
    print(f"{caught} of {len(results)} planted bugs caught")
    return 0 if caught == len(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
