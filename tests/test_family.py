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


# ------------------------------------------------------------- the spec's neighbouring relation

def geometric(lo, hi, eps, relation, **kw):
    from verifier.notions.dp.neighbours import vector_relation, vectors

    rel = relation if relation is not None else vector_relation("l1", 1, vectors(2, 0, 1))
    return check_family("geometric_count", "alpha", lo, hi, values=[0, 1], records=2,
                        epsilon=eps, relation=rel, **kw)


def test_geometric_family_under_l1_holds_where_e_eps_reaches_one_over_alpha():
    # l1 distance 1 on {0, 1}^2 moves the count by one: every ratio is α or 1/α (the clamped
    # ends too), so ln 2-DP holds iff 1/α ≤ 2, i.e. for all of [1/2, 3/4]
    res = geometric("1/2", "3/4", "ln(2)", None)
    assert res.status == "holds" and res.neighbours == "l1 (distance 1) over 4 inputs"


def test_geometric_family_under_l1_counterexample_is_exact():
    # at ε = ln(3/2) it fails for α < 2/3; by hand, counts 0 against 1 on n = 2 give
    # δ = (1 − 3α/2)/(1 + α) on output 0 (the other outputs fall below e^ε), both directions
    res = geometric("1/2", "3/4", "ln(3/2)", None)
    assert res.status == "fails"
    t = res.counterexample
    assert mpq(1, 2) <= t < mpq(2, 3)
    assert res.exact.delta.value == (1 - mpq(3, 2) * t) / (1 + t)
    assert res.exact.witness["relation"] == "l1"


def test_geometric_family_under_add_remove_one_fails_everywhere():
    # the count is clamped to 0..n, which leaks n. One record against none, M(()) = {0: 1}:
    # (1,) → () gives 1/(1 + α) on the output 1 that () never gives; (0,) → () gives
    # α/(1 + α); () → (1,) gives 1 − 2·α/(1 + α) = (1 − α)/(1 + α); () → (0,) nothing.
    # So δ(ln 2) = 1/(1 + α) and ε = ∞ for every α
    from verifier.notions.dp.neighbours import add_remove_one

    res = check_family("geometric_count", "alpha", "1/2", "3/4", values=[0, 1], records=1,
                       epsilon="ln(2)", relation=add_remove_one([0, 1], 1))
    assert res.status == "fails"
    t = res.counterexample
    assert res.exact.delta.value == 1 / (1 + t) and str(res.exact.epsilon) == "inf"
    assert res.neighbours == "add-remove-one over databases of 1 record over 2 values"


def test_no_neighbours_holds_vacuously():
    from verifier.notions.dp.neighbours import vector_relation

    far = vector_relation("linf", 1, [(0, 0), (2, 2)])  # ‖x − y‖∞ = 2: nobody is related
    res = check_family("randomized_response", "truth", "1/2", "1", values=[0, 1, 2],
                       records=2, epsilon="0", relation=far)
    assert res.status == "holds" and "vacuously" in res.detail


FAMILY_SPEC = """
[input]
coordinates = 2
range = [0, 1]
[neighbours]
relation = "l1"
[mechanism]
kind = "geometric_count"
alpha = "1/2"
[query]
epsilon = "{eps}"
notions = ["dp"]
"""


def test_family_cli_reads_the_relation(tmp_path):
    spec = tmp_path / "spec.toml"
    spec.write_text(FAMILY_SPEC.format(eps="ln(2)"))
    holds = runner.invoke(app, ["family", str(spec), "--param", "alpha", "--range", "1/2..3/4"])
    assert holds.exit_code == 0, holds.output
    assert "neighbours: l1 (distance 1) over 4 inputs" in holds.stdout
    spec.write_text(FAMILY_SPEC.format(eps="ln(3/2)"))
    fails = runner.invoke(app, ["family", str(spec), "--param", "alpha", "--range", "1/2..3/4",
                                "--json"])
    assert fails.exit_code == 1, fails.output
    out = json.loads(fails.stdout)
    t = mpq(out["counterexample"]["alpha"])
    assert out["neighbours"] == "l1 (distance 1) over 4 inputs"
    assert mpq(out["counterexample"]["delta"]) == (1 - mpq(3, 2) * t) / (1 + t)
