"""Certificates: emitted by the engine, re-checked by the independent checker, tampering caught.

Expected values come from hand derivations (stated beside them), never from the engine.
"""

import ast
import copy
import json
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from kernel_copy import KERNEL, run_copied_kernel, under_mutation

from verifier.certificates.emit import certify_check
from verifier.kernel.verify import verify_certificate
from verifier.reports.json_out import dumps
from verifier.specs.check import parse_spec

STDLIB = set(sys.stdlib_module_names) | {"__future__"}

# Example 7 at 12 voters (examples/example7_small.toml): P[yes] = 1/100, threshold 4, the
# attacker knows votes 0..2 and targets voter 11.
EXAMPLE7 = {"data": {"records": 12, "values": [0, 1], "prior": ["99/100", "1/100"]},
            "mechanism": {"kind": "threshold_count", "counts": [1], "threshold": 4},
            "attacker": {"target": 11, "known": [0, 1, 2]},
            "query": {"epsilon": "ln(2)", "delta": "1/1000", "notions": ["apkdp", "ppkdp"]}}


def certificate(raw: dict) -> dict:
    _, cert = certify_check(parse_spec(raw))
    return json.loads(dumps(cert))


@pytest.fixture(scope="module")
def example7() -> dict:
    return certificate(EXAMPLE7)


def test_failing_and_holding_partial_claims_verify(example7):
    out = verify_certificate(example7)
    assert out.verified, out.reason
    assert example7["results"]["apkdp"]["holds"] is False
    assert example7["results"]["ppkdp"]["holds"] is True
    # By hand: the active attacker sets the 3 known votes to yes; if the target votes no the
    # tally is ⊥ exactly when the 8 other voters vote no, which cannot happen when the target
    # votes yes (the tally is then ≥ 4): L = +∞ with mass (99/100)^8.
    w = example7["evidence"]["witnesses"]["apkdp"]
    assert Fraction(w["delta"]) == Fraction(99, 100) ** 8
    assert w["values"] == [0, 1] and w["outputs"] == [{"bottom": True}]
    assert w["background"] == {"known_counts": [0, 3], "stands_for": 1}
    assert any("re-enumerated every database" in n for n in out.notes)
    # one (model, knowledge, target) table; 8 APK and 2 PPK cases (docs/how-to/certificates.md)
    assert "re-enumerated every database: 1 table matches" in out.notes
    assert ("recomputed 8 APK cases, 2 PPK cases and Theorem 1's identity over 1 table"
            in out.notes)


def test_count_classes_carry_their_multiplicity(example7):
    rows = example7["evidence"]["tables"][0]["rows"]
    # 3 known votes: classes of 0..3 yes votes stand for C(3, k) background values
    assert sorted((r["background"]["known_counts"][1], r["multiplicity"]) for r in rows
                  if r["value"] == 0) == [(0, 1), (1, 3), (2, 3), (3, 1)]


def _set(cert: dict, path: list, value) -> dict:
    out = copy.deepcopy(cert)
    node = out
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    return out


def _first_row(cert: dict, value: int, ones: int) -> int:
    rows = cert["evidence"]["tables"][0]["rows"]
    return next(j for j, r in enumerate(rows)
                if r["value"] == value and r["background"]["known_counts"][1] == ones)


@pytest.mark.parametrize("what, path, value, reason", [
    ("a prior", ["spec", "models", 0, "priors", 0], ["49/50", "1/50"], "by enumeration"),
    ("the δ of a case", ["evidence", "cases", "ppkdp", 0, "delta"], "1/7",
     "evidence.cases.ppkdp (table 0"),
    ("the witness δ", ["evidence", "witnesses", "apkdp", "delta"], "1/2",
     "evidence.witnesses.apkdp.delta"),
    ("the witness probability", ["evidence", "witnesses", "apkdp", "p_a"], "1/2",
     "evidence.witnesses.apkdp.delta"),
    ("the verdict", ["results", "ppkdp", "holds"], False, "results.ppkdp.holds: False"),
    ("the reported δ", ["results", "apkdp", "delta"], "1/2", "results.apkdp.delta"),
    ("the format version", ["version"], 2, "version: 2"),
], ids=lambda x: x if isinstance(x, str) and " " in x else "")
def test_tampering_is_rejected_with_the_reason(example7, what, path, value, reason):
    out = verify_certificate(_set(example7, path, value))
    assert not out.verified, what
    assert reason in out.reason


def test_a_changed_probability_is_named(example7):
    j = _first_row(example7, 0, 3)
    law = example7["evidence"]["tables"][0]["rows"][j]["law"]
    changed = [[o, "1/3"] if k == 0 else [o, p] for k, (o, p) in enumerate(law)]
    out = verify_certificate(_set(example7, ["evidence", "tables", 0, "rows", j, "law"], changed))
    assert not out.verified
    assert f"evidence.tables[0].rows[{j}]" in out.reason and "sums to" in out.reason


def test_a_renamed_output_is_caught_by_enumeration(example7):
    j = _first_row(example7, 0, 3)
    law = example7["evidence"]["tables"][0]["rows"][j]["law"]
    renamed = [[99, p] if o == {"bottom": True} else [o, p] for o, p in law]
    out = verify_certificate(_set(example7, ["evidence", "tables", 0, "rows", j, "law"], renamed))
    assert not out.verified
    assert "by enumeration" in out.reason and "P[O=" in out.reason


def test_a_consistent_forgery_is_caught_only_by_re_enumeration(example7):
    """Swapping two rows' laws keeps every sum: re-enumeration is what finds it."""
    rows = example7["evidence"]["tables"][0]["rows"]
    j, k = _first_row(example7, 0, 0), _first_row(example7, 0, 1)
    forged = _set(example7, ["evidence", "tables", 0, "rows", j, "law"], rows[k]["law"])
    out = verify_certificate(forged)
    assert not out.verified and "by enumeration" in out.reason


def test_dp_certificates():
    # randomized response with truth 3/4 on 2 records: δ at ε = ln 2 is 3/4 − 2·1/4 = 1/4 on
    # the output reporting the changed record truthfully (by hand, seed 003 Lemma 1)
    raw = {"data": {"records": 2, "values": [0, 1]},
           "mechanism": {"kind": "randomized_response", "truth": "3/4"},
           "query": {"epsilon": "ln(2)", "delta": "1/4", "notions": ["dp"]}}
    cert = certificate(raw)
    assert cert["results"]["dp"] == {"delta": "1/4", "holds": True}
    assert verify_certificate(cert).verified
    failing = certificate({**raw, "query": {"epsilon": "ln(2)", "delta": "1/5",
                                            "notions": ["dp"]}})
    assert verify_certificate(failing).verified
    bad = _set(failing, ["evidence", "witnesses", "dp", "databases"], [[0, 0], [1, 1]])
    assert "not neighbouring" in verify_certificate(bad).reason


def test_irrational_e_to_the_epsilon():
    """ε = 1/2 nats: δ = A − C·e^{1/2}, comparisons by certified bounds on e^{1/2}."""
    raw = {"data": {"records": 1, "values": [0, 1], "prior": ["1/2", "1/2"]},
           "mechanism": {"kind": "randomized_response", "truth": "3/4"},
           "query": {"epsilon": "1/2", "delta": "0", "notions": ["dp", "ppkdp"]}}
    cert = certificate(raw)
    # ratio 3 > e^{1/2}: δ = 3/4 − e^{1/2}·1/4 on the truthful report (by hand)
    assert cert["results"]["dp"]["delta"] == {"a": "3/4", "c": "1/4"}
    assert verify_certificate(cert).verified
    assert not verify_certificate(
        _set(cert, ["results", "dp", "delta"], {"a": "3/4", "c": "1/5"})).verified


def test_user_functions_are_not_re_enumerated_and_it_says_so():
    raw = {"data": {"records": 3, "values": [0, 1], "prior": ["1/2", "1/2"]},
           "mechanism": {"kind": "function", "function": "user_functions:largest_record"},
           "attacker": {"target": 2, "known": [0]},
           "query": {"epsilon": "ln(2)", "delta": "1/10", "notions": ["ppkdp"]}}
    examples = Path(__file__).resolve().parent.parent / "examples"
    _, cert = certify_check(parse_spec(raw, search_dir=examples))
    out = verify_certificate(json.loads(dumps(cert)))
    assert out.verified and out.status[0] == 3  # consistent, not verified: user code
    assert any("taken from the certificate" in n for n in out.recorded)


def test_the_checker_imports_nothing_from_the_engine(tmp_path, example7):
    if under_mutation():  # mutmut instruments the files read below
        pytest.skip("the kernel's files are instrumented by mutmut")
    modules = sorted(p.name for p in KERNEL.glob("*.py"))
    assert {"verify.py", "exact.py", "dp.py", "pso.py", "guess.py", "__main__.py"} <= set(modules)
    for module in modules:
        tree = ast.parse((KERNEL / module).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:  # relative: inside the kernel's own folder
                    continue
                names = [node.module or ""]
            else:
                continue
            for name in names:
                assert name.split(".")[0] in STDLIB, (module, name)
    run = run_copied_kernel(tmp_path, example7)
    assert run.returncode == 1, run.stdout + run.stderr
    assert run.stdout.strip().endswith("certificate verified: the claim does not hold")


def test_cli_writes_and_verifies_certificates(tmp_path, example7):
    from typer.testing import CliRunner

    from verifier.cli import app
    runner = CliRunner()
    spec = Path(__file__).resolve().parent.parent / "examples" / "example7_small.toml"
    cert = tmp_path / "c.json"
    assert runner.invoke(app, ["check", str(spec), "--certificate", str(cert)]).exit_code == 1
    out = runner.invoke(app, ["verify-certificate", str(cert)])
    assert out.exit_code == 1  # verified, and the claim (check's exit 1) does not hold
    assert out.stdout.strip().endswith("certificate verified: the claim does not hold")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(_set(example7, ["results", "ppkdp", "holds"], False)))
    out = runner.invoke(app, ["verify-certificate", str(bad)])
    assert out.exit_code == 2 and "rejected: results.ppkdp.holds" in out.stderr
    assert out.stderr.count("\n") == 1 and str(bad) in out.stderr
    assert runner.invoke(app, ["verify-certificate", str(tmp_path / "none.json")]).exit_code == 2


def test_large_failing_claims_keep_only_the_witness():
    from verifier.core.errors import BudgetExceeded
    raw = {**EXAMPLE7, "query": {"epsilon": "ln(2)", "delta": "1/1000", "notions": ["apkdp"]}}
    _, cert = certify_check(parse_spec(raw), max_cells=10)
    out = verify_certificate(json.loads(dumps(cert)))
    assert "tables" not in cert["evidence"] and out.status[0] == 1, out.reason
    assert any("recomputed 1 table by enumerating every database" in n for n in out.notes)
    with pytest.raises(BudgetExceeded, match="more than 10 cells"):
        certify_check(parse_spec(EXAMPLE7), max_cells=10)  # PPK holds: it needs its tables


@pytest.mark.parametrize("text", ["", "{not json", "[" * 200_000], ids=["empty", "broken", "deep"])
def test_unreadable_certificate_is_an_error_not_a_rejection(tmp_path, text):
    """Exit 1 means 'rejected': a file that is not JSON at all is exit 2, like any bad input."""
    from typer.testing import CliRunner

    from verifier.cli import app

    path = tmp_path / "c.json"
    path.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(app, ["verify-certificate", str(path)])
    assert result.exit_code == 2 and "not valid JSON" in result.stderr
    assert "internal error" not in result.stderr
