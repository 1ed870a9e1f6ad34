"""Parameter families: z3 decides, the exact engine confirms; unknown stays unknown."""

import json
from pathlib import Path

import pytest
from gmpy2 import mpq
from typer.testing import CliRunner

import verifier.symbolic.family as family_module
from verifier.cli import app
from verifier.core.errors import InvalidArgument
from verifier.symbolic.family import check_family
from verifier.symbolic.solver import Answer

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()


def rr(lo, hi, eps, delta, **kw):
    return check_family("randomized_response", "truth", lo, hi, values=[0, 1], records=2,
                        epsilon=eps, delta=delta, **kw)


def test_rr_holds_exactly_up_to_the_boundary():
    # binary RR: the ratio is t/(1−t) ≤ 3 iff t ≤ 3/4, so ln 3-DP holds on [1/2, 3/4]
    assert rr("1/2", "3/4", "ln(3)", "0").status == "holds"


def test_rr_counterexample_is_confirmed():
    res = rr("1/2", "4/5", "ln(3)", "0")
    assert res.status == "fails"
    t = res.counterexample
    assert mpq(3, 4) < t <= mpq(4, 5)
    # by hand: δ(ln 3) = max(0, t − 3(1 − t)) = 4t − 3 for t > 3/4
    assert res.exact.delta == 4 * t - 3 and not res.exact.holds


def test_geometric_family():
    # P[j|c]/P[j|c+1] ∈ {α, 1/α}: ln 2-DP iff 1/α ≤ 2 iff α ≥ 1/2
    ok = check_family("geometric_count", "alpha", "1/2", "9/10", values=[0, 1], records=3,
                      epsilon="ln(2)")
    assert ok.status == "holds"
    bad = check_family("geometric_count", "alpha", "1/3", "9/10", values=[0, 1], records=3,
                       epsilon="ln(2)")
    assert bad.status == "fails" and bad.counterexample < mpq(1, 2) and not bad.exact.holds


def test_unknown_is_never_holds(monkeypatch):
    monkeypatch.setattr(family_module, "find_parameter",
                        lambda *a, **k: Answer("unknown", reason="timeout"))
    res = rr("1/2", "4/5", "ln(3)", "0")
    assert res.status == "unknown" and res.detail == "z3: timeout"


def test_unconfirmed_witness_is_unknown(monkeypatch):
    # a solver "counterexample" at t = 1/2, where the claim holds: the exact engine refutes it
    monkeypatch.setattr(family_module, "find_parameter",
                        lambda *a, **k: Answer("sat", mpq(1, 2)))
    res = rr("1/2", "4/5", "ln(3)", "0")
    assert res.status == "unknown" and res.counterexample is None


@pytest.mark.parametrize("call, message", [
    (lambda: rr("1/2", "3/4", "1/2", "0"),
     "epsilon = 1/2 : a family check needs ε = ln(q) (or 0) so that e^ε is rational"),
    (lambda: check_family("count", "counts", 0, 1, values=[0, 1], records=2),
     "no parameter family count.counts; known: randomized_response.truth, "
     "geometric_count.alpha"),
    (lambda: rr("3/4", "1/2", "ln(3)", "0"), "range 3/4..1/2 is empty"),
], ids=["irrational-eps", "unknown-family", "empty-range"])
def test_bad_family_input(call, message):
    with pytest.raises(InvalidArgument) as info:
        call()
    assert str(info.value) == message


def test_family_cli():
    spec = str(ROOT / "examples" / "randomized_response.toml")  # ε = ln 2, δ = 1/4
    fails = runner.invoke(app, ["family", spec, "--param", "truth", "--range", "1/2..4/5",
                                "--json"])
    assert fails.exit_code == 1
    out = json.loads(fails.stdout)
    t = mpq(out["counterexample"]["truth"])
    assert out["status"] == "fails" and mpq(out["counterexample"]["delta"]) == 3 * t - 2
    holds = runner.invoke(app, ["family", spec, "--param", "truth", "--range", "1/2..3/4"])
    assert holds.exit_code == 0 and "holds" in holds.stdout
