"""One vocabulary across every command's ``--json`` (docs/reference/json.md): every object
carries ``schema`` {name, version} naming its schema file and ``verdict`` matching the exit
status; the commands that decide an (ε, δ) claim give it as ``claim`` and their tight values
as ``tight`` (inside each notion's entry where there are several). Each run also validates
against its schema (tests/test_output_schemas.py runs the same commands)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from test_output_schemas import EXTRAS, RUNS, output, validator
from typer.testing import CliRunner

from verifier.cli import app

runner = CliRunner()
WORD = {0: "holds", 1: "fails", 3: "unknown"}
# the runs whose command decides an (ε, δ) claim at the top (check, sweep, curve, compose
# of dp and of the partial notions) — the Rényi forms carry their own claim (rho)
PAIR_CLAIM = ("check-exact-dp", "check-exact-partial", "check-full", "check-overrides",
              "check-certified", "check-closed-form", "check-noise", "sweep", "curve-dp",
              "curve-partial", "compose-k", "compose-adaptive", "compose-partial")
NOTIONS = ("dp", "apkdp", "ppkdp", "noiseless")


@pytest.mark.parametrize("name", sorted(RUNS))
@pytest.mark.slow
def test_every_output_speaks_the_shared_vocabulary(name):
    if name in EXTRAS:
        pytest.importorskip(EXTRAS[name])
    command, args, _ = RUNS[name]
    out = output(name)
    assert out["schema"] == {"name": f"{command}-output", "version": 1}
    assert out["verdict"] in ("holds", "fails", "unknown")
    code = runner.invoke(app, [*args, "--json"]).exit_code
    assert out["verdict"] == WORD[code]
    validator(command).validate(out)
    if name in PAIR_CLAIM:
        assert set(out["claim"]) >= {"epsilon", "delta"}
    entries = [out[n] for n in NOTIONS if isinstance(out.get(n), dict)]
    entries += list(out.get("results", {}).values())
    if isinstance(out.get("notions"), dict):  # curve's entries (compose lists their names)
        entries += list(out["notions"].values())
    if command == "compose" and "tight" in out:
        entries.append(out)
    for entry in entries:
        assert entry["verdict"] in ("holds", "fails", "unknown")
        assert set(entry["claim"]) >= {"epsilon", "delta"}
        assert set(entry["tight"]) == {"epsilon", "delta"}


def test_check_claim_and_tight_are_the_hand_values():
    # randomized response 3/4 on 3 records, claim (ln 2, 1/4): every report has ratio 3, so
    # δ(ln 2) = 3/4 − 2·1/4 = 1/4 and the tight ε at δ = 1/4 is ln 2 (examples/ comment)
    out = output("check-exact-dp")
    dp = out["dp"]
    assert out["claim"] == dp["claim"] == {"epsilon": "ln(2)", "delta": "1/4"}
    assert dp["tight"] == {"epsilon": "ln(2)", "delta": "1/4"} and dp["verdict"] == "holds"


def test_compose_claim_tight_and_the_old_names():
    # 3 runs of randomized response 3/4: δ(ln 2) = (27 − 2)/64 + 3·(9 − 2·3)/64 = 17/32 > 1/4
    out = json.loads(runner.invoke(app, ["compose", "examples/randomized_response.toml",
                                         "--k", "3", "--json"]).stdout)
    assert out["claim"] == {"epsilon": "ln(2)", "delta": "1/4"}
    assert out["tight"]["delta"] == out["tight_delta"] == "17/32"  # (the deprecated alias)
    assert out["verdict"] == "fails" and out["holds"] is False


def test_an_enclosure_is_lower_and_upper():
    out = json.loads(runner.invoke(app, ["compose", "examples/randomized_response.toml", "--k",
                                         "3", "--enclosure", "always", "--grid", "ln(3)",
                                         "--json"]).stdout)
    # on the grid ln 3 every loss (±ln 3) is on the grid: both bounds are the exact 17/32
    assert out["tight"]["delta"] == {"lower": "17/32", "upper": "17/32"}


# ---------------------------------------------------------- a k-fold witness is (mechanism, k)

def test_a_k_fold_witness_names_the_mechanism_once(tmp_path: Path):
    """k = 10^5 runs once gave 2.6 MB of JSON (the name repeated k times). Randomized
    response 1/2 has loss 0 everywhere, so the composition itself is instant: what is
    measured is the report. Two runs: the witness is ([name], k)."""
    spec = tmp_path / "rr.toml"
    spec.write_text('[data]\nrecords = 1\nvalues = [0, 1]\n[mechanism]\n'
                    'kind = "randomized_response"\ntruth = "1/2"\n[query]\nepsilon = "0"\n'
                    'delta = "0"\nnotions = ["dp"]\n')
    start = time.monotonic()
    run = runner.invoke(app, ["compose", str(spec), "--k", "100000", "--json"])
    seconds = time.monotonic() - start
    assert run.exit_code == 0, run.output
    out = json.loads(run.stdout)
    assert out["worst_case"]["mechanisms"] == ["randomized_response"]
    assert out["worst_case"]["k"] == 100000
    assert len(run.stdout) < 2000 and seconds < 20


def test_an_enclosed_and_an_adaptive_witness_say_k_too():
    out = json.loads(runner.invoke(app, ["compose", "examples/randomized_response.toml", "--k",
                                         "40", "--enclosure", "always", "--json"]).stdout)
    witness = out["enclosure"]["witness"]
    assert witness["mechanisms"] == ["randomized_response"] and witness["k"] == 40
    out = json.loads(runner.invoke(app, ["compose", "examples/compose/adaptive_rr.toml", "--k",
                                         "3", "--json"]).stdout)
    side = out.get("witness") or out["worst_case"]
    assert side["steps"] == ["first", "again"] and side["k"] == 3


def test_repetition_finds_the_round():
    from verifier.notions.composition.exact import repetition

    assert repetition(["a", "b"] * 3) == {"mechanisms": ["a", "b"], "k": 3}
    assert repetition(["a", "b", "a"]) == {"mechanisms": ["a", "b", "a"], "k": 1}
    assert repetition(["a"] * 6 + ["b"]) == {"mechanisms": ["a"] * 6 + ["b"], "k": 1}


# ---------------------------------------------------------------- plrv compose like plrv check

def test_compose_prints_text_by_default():
    run = runner.invoke(app, ["compose", "examples/randomized_response.toml", "--k", "3"])
    assert run.exit_code == 1
    assert not run.stdout.lstrip().startswith("{")
    assert "does not hold" in run.stdout and "17/32" in run.stdout


@pytest.mark.parametrize("text, needle", [
    ("randomised_response truth=3/4", "did you mean `randomized_response`?"),
    ("randomized_response truht=3/4", "did you mean `truth`?"),
    ("randomized_response truth=5/4", "truth"),
    ("randomized_response", "needs truth=VALUE"),
    ("function function=m:f", "spec file"),
    ("randomized_response truth", "KEY=VALUE"),
])
def test_a_bad_mechanism_is_exit_2_naming_it(text, needle):
    run = runner.invoke(app, ["compose", "--mechanism", text, "--k", "2", "--epsilon", "0"])
    assert run.exit_code == 2 and run.stdout == ""
    assert "--mechanism" in run.stderr and needle in run.stderr


def test_a_mechanism_needs_epsilon_and_no_spec():
    run = runner.invoke(app, ["compose", "--mechanism", "randomized_response truth=3/4",
                              "--k", "2"])
    assert run.exit_code == 2 and "--epsilon" in run.stderr
    run = runner.invoke(app, ["compose", "examples/randomized_response.toml", "--mechanism",
                              "randomized_response truth=3/4", "--k", "2", "--epsilon", "0"])
    assert run.exit_code == 2 and "--mechanism" in run.stderr


def test_a_mechanism_with_data_keys():
    # count of 1s over 2 records of {0, 1}, no noise: the count differs between neighbours,
    # so the tight ε is ∞ and δ at ε = 0 is 1 (one output has all the mass on one side)
    run = runner.invoke(app, ["compose", "--mechanism", "count records=2 values=0,1",
                              "--k", "1", "--epsilon", "0", "--json"])
    out = json.loads(run.stdout)
    assert run.exit_code == 1 and out["tight"] == {"epsilon": "inf", "delta": "1"}


def test_accountant_difference_is_explained_where_it_is_null():
    pytest.importorskip("dp_accounting")
    # at ε = 1/2 nats the exact δ of randomized response is 3/4 − e^(1/2)/4: irrational, so
    # accountant − exact is no rational; the accountant's pessimistic δ is above it
    run = runner.invoke(app, ["compose", "--mechanism", "randomized_response truth=3/4",
                              "--k", "1", "--epsilon", "1/2", "--accounting", "--json"])
    acc = json.loads(run.stdout)["accountant"]
    assert acc["difference"] is None and "irrational" in acc["difference_note"]
    assert acc["pessimistic"] is True


# ------------------------------------------------- the commands test_output_schemas leaves out

def test_audit_speaks_the_vocabulary():
    pytest.importorskip("dp_accounting")
    run = runner.invoke(app, ["audit", "examples/audit/dp_accounting.toml", "--json"])
    out = json.loads(run.stdout)
    assert out["schema"] == {"name": "audit-output", "version": 1}
    assert out["verdict"] == WORD[run.exit_code]
    validator("audit").validate(out)
    for case in out["cases"]:
        assert set(case["claim"]) == set(case["tight"]) == {"epsilon", "delta"}


def test_theorems_speaks_the_vocabulary():
    from unittest import mock

    row = {"id": "x", "seed": "s", "statement": "st", "method": "m", "instances": 1,
           "vacuous": 0, "status": "holds"}
    with mock.patch("verifier.certificates.records.theorem_rows", lambda progress=None:
                    ([row], False)):
        run = runner.invoke(app, ["theorems", "--json"])
    out = json.loads(run.stdout)
    assert run.exit_code == 1 and out["verdict"] == "fails" and out["theorems"] == [row]
    assert out["schema"] == {"name": "theorems-output", "version": 1}
    validator("theorems").validate(out)
