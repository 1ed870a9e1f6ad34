"""plrv prove, reducible and search: output, JSON and the exit-code contract."""

import json

from typer.testing import CliRunner

from verifier.cli import app

runner = CliRunner()


def _run(*args):
    return runner.invoke(app, list(args))


def test_reducible_prints_the_shift_bijection():
    r = _run("reducible", "examples/referendum_tally.toml")
    assert r.exit_code == 0, r.output
    assert "c ↦ c − 1" in r.output and "c ↦ c − 4" in r.output


def test_reducible_threshold_names_backgrounds_without_bijection():
    r = _run("reducible", "examples/threshold_partial.toml", "--json")
    assert r.exit_code == 1, r.output
    out = json.loads(r.output)
    assert out["reducible"] is False
    assert out["witness"]["unmatched"]["first"][0] == {"output": "⊥",
                                                       "profile": ["1024/3125", "0"]}


def test_reducible_for_every_p():
    r = _run("reducible", "examples/tally_symbolic.toml")
    assert r.exit_code == 0, r.output
    assert "reducible for every 0 < p < 1" in r.output
    assert "numerator 0" in r.output
    j = json.loads(_run("reducible", "examples/tally_symbolic.toml", "--json").output)
    assert j["reducible"] is True
    assert [m["shift"] for m in j["bijections"][0]["maps"]] == ["1", "1", "2"]


def test_prove_lemma6_with_times_per_instance():
    r = _run("prove", "examples/rr_symbolic.toml", "--claim", "lemma6", "--every-known-set")
    assert r.exit_code == 0, r.output
    assert r.output.count("proved in ") == 4  # target 2 with each of the 4 known sets


def test_prove_counterexample_json_is_rechecked():
    r = _run("prove", "examples/threshold_partial.toml", "--claim", "apk-le-ppk", "--json")
    assert r.exit_code == 1, r.output
    out = json.loads(r.output)
    assert out["status"] == "counterexample"
    assert out["recheck"]["deltas"] == {"apk": "1024/3125", "ppk": "459/3125"}
    assert out["counterexample"]["deltas"] == out["recheck"]["deltas"]
    assert out["counterexample"]["target"] == 7


def test_prove_bad_claim_is_an_error():
    r = _run("prove", "examples/tally_symbolic.toml", "--claim", "apk <=")
    assert r.exit_code == 2
    assert "the claim ends too early at position 7" in r.output


def test_search_exit_codes():
    found = _run("search", "apk-le-ppk", "--records", "2", "--examples", "10", "--json")
    assert found.exit_code == 1, found.output
    assert json.loads(found.output)["recheck"] == {"apk": "1/3", "ppk": "1/4",
                                                   "noiseless": "1/2"}
    assert _run("search", "nope").exit_code == 2


def test_check_at_a_point():
    """Tally, 2 known votes, one other vote D2 ~ Bernoulli(p), target 0 against 1: the count
    takes k or k+1 (under 0) against k+1 or k+2 (under 1); output k has infinite loss, so
    APK δ(ln 2) = max(1 − p, p − 2(1 − p), p, (1 − p) − 2p)⁺-sums = 1 − p = 2/3 at p = 1/3."""
    r = _run("check", "examples/tally_symbolic.toml", "--at", "p=1/3", "--json")
    assert r.exit_code == 1, r.output
    out = json.loads(r.output)
    assert out["apkdp"]["delta"] == "2/3" and out["ppkdp"]["delta"] == "2/3"
    assert out["parameters"] == "checked at p = 1/3"
    sample = _run("check", "examples/tally_symbolic.toml")
    assert "checked at the sample point p = 2/7" in sample.output
    assert _run("check", "examples/tally_symbolic.toml", "--at", "p=1").exit_code == 2
    assert _run("check", "examples/referendum_tally.toml", "--at", "p=1/2").exit_code == 2
