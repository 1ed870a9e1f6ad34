"""Mutation testing of the modules a verdict depends on, with mutmut.

``python benchmarks/mutation.py [--module GLOB ...] [--tests PATH ...] [-j N] [--json]``

The repository is copied to a temporary directory (the working tree is never touched), a
``[tool.mutmut]`` section naming the chosen modules and tests is added to the copy's
``pyproject.toml``, and ``mutmut run`` mutates every function of those modules (operators,
constants, comparisons, arguments …), running for each mutant the tests that cover it. The
report counts per module the mutants **killed** (a test failed), **survived** (every test
passed: a missing test, or an equivalent mutant — see ``benchmarks/mutation_equivalents.md``),
timed out and not covered, and prints the survivors' names (``mutmut show NAME`` in the copy,
kept with ``--keep``, shows the change).

Defaults: the verdict-critical modules below against the whole test suite, which takes hours
on two cores; choose modules and tests to bound a run, e.g.
``--module verifier/kernel/exact.py --tests tests/test_kernel_hostile.py``.
Requires ``pip install -e '.[mutation]'`` (mutmut 3) and a system with ``fork``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

VERDICT_MODULES = [  # the modules a verdict depends on
    "verifier/core/*", "verifier/notions/*", "verifier/engines/*",
    "verifier/symbolic/encoding.py", "verifier/symbolic/reducibility.py",
    "verifier/guessing/bounds.py", "verifier/pso/success.py", "verifier/pso/baseline.py",
    "verifier/kernel/*", "verifier/audit/judge.py",
]
COPIED = ("verifier", "tests", "proofs", "examples", "schemas", "docs", "pyproject.toml",
          "README.md")
STATUS = {1: "killed", 3: "killed", 0: "survived", 36: "timeout", 24: "timeout",
          -24: "timeout", 152: "timeout", 255: "timeout", 5: "no tests", 33: "no tests",
          34: "skipped", 37: "caught by type check", None: "not checked"}


def _toml_list(items: list[str]) -> str:
    return "[" + ", ".join(json.dumps(x) for x in items) + "]"


def prepare(dest: Path, modules: list[str], tests: list[str]) -> None:
    """Copy the repository to ``dest`` and configure mutmut there."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "mutants")
    for part in COPIED:
        src = ROOT / part
        if src.is_dir():
            shutil.copytree(src, dest / part, ignore=ignore)
        elif src.exists():
            shutil.copy2(src, dest / part)
    config = (
        "\n[tool.mutmut]\n"
        'source_paths = ["verifier"]\n'
        f"only_mutate = {_toml_list(modules)}\n"
        f"pytest_add_cli_args_test_selection = {_toml_list(tests)}\n"
        'pytest_add_cli_args = ["-p", "no:cacheprovider", "-q", "--no-header"]\n'
        'also_copy = ["proofs", "examples", "schemas", "docs", "README.md"]\n'
        "use_git_change_detection = false\n"
    )
    with open(dest / "pyproject.toml", "a", encoding="utf-8") as f:
        f.write(config)


def collect(dest: Path) -> dict[str, Counter]:
    """``{source file: Counter(status)}`` from mutmut's ``.meta`` files, with the
    survivors' names under the key ``"survivors"`` of a parallel dict."""
    out: dict[str, Counter] = {}
    for meta in sorted((dest / "mutants").rglob("*.py.meta")):
        data = json.loads(meta.read_text(encoding="utf-8"))
        source = str(meta.relative_to(dest / "mutants"))[: -len(".meta")]
        counts = Counter(STATUS.get(code, "suspicious")
                         for code in data.get("exit_code_by_key", {}).values())
        if counts:
            out[source] = counts
    return out


def survivors(dest: Path) -> list[str]:
    names = []
    for meta in sorted((dest / "mutants").rglob("*.py.meta")):
        data = json.loads(meta.read_text(encoding="utf-8"))
        names += [k for k, code in data.get("exit_code_by_key", {}).items() if code == 0]
    return names


def score(counts: dict[str, Counter]) -> tuple[int, int, float]:
    killed = sum(c["killed"] + c["timeout"] for c in counts.values())
    survived = sum(c["survived"] for c in counts.values())
    return killed, survived, killed / (killed + survived) if killed + survived else 1.0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--module", action="append", help="a glob of modules to mutate "
                    "(repeatable; default: the verdict-critical modules)")
    ap.add_argument("--tests", action="append", help="tests to run (repeatable; default: "
                    "tests/ and proofs/)")
    ap.add_argument("-j", "--max-children", type=int, default=2, help="parallel mutants")
    ap.add_argument("--json", action="store_true", help="print the report as JSON")
    ap.add_argument("--keep", action="store_true", help="keep the working copy")
    args = ap.parse_args(argv)
    modules = args.module or VERDICT_MODULES
    tests = args.tests or ["tests", "proofs"]
    dest = Path(tempfile.mkdtemp(prefix="plrv-mutation-"))
    try:
        prepare(dest, modules, tests)
        run = subprocess.run([sys.executable, "-m", "mutmut", "run", "--max-children",
                              str(args.max_children)], cwd=dest, stdout=sys.stderr,
                             stderr=sys.stderr)  # mutmut's progress goes to stderr
        counts = collect(dest)
        if not counts:
            print(f"mutmut produced no results (exit {run.returncode})", file=sys.stderr)
            return 2
        killed, survived, ratio = score(counts)
        if run.returncode != 0 or killed + survived == 0:  # e.g. the clean test run failed
            print(f"mutmut tested no mutant to the end (exit {run.returncode}): no score",
                  file=sys.stderr)
            return 2
        report = {"modules": modules, "tests": tests,
                  "files": {f: dict(c) for f, c in counts.items()},
                  "killed": killed, "survived": survived, "score": round(ratio, 4),
                  "survivors": survivors(dest)}
        if args.json:
            print(json.dumps(report, indent=2))
        else:
            for f, c in counts.items():
                print(f"{f:48} killed {c['killed'] + c['timeout']:5}  survived "
                      f"{c['survived']:4}  not covered {c['no tests']:4}")
            print(f"score: {killed} killed, {survived} survived ({100 * ratio:.1f} %)")
            for name in report["survivors"]:
                print(f"  survived: {name}")
        if args.keep:
            print(f"working copy kept in {dest}", file=sys.stderr)
        return 0 if survived == 0 else 1
    finally:
        if not args.keep:
            shutil.rmtree(dest, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
