"""``to_dict()`` on every result object is its command's ``--json``: the command runs with a
spy on the function that builds its result, and the captured object's ``to_dict()`` must
equal what the command printed (timings included: it is the same object)."""

from __future__ import annotations

import importlib
import json
from unittest import mock

import pytest
from typer.testing import CliRunner

from verifier.cli import app

EX = "examples/"
runner = CliRunner()


def captured(target: str, argv: list[str]):
    """``(result, printed)``: the last value ``target`` returned while ``plrv argv --json``
    ran, and the JSON it printed."""
    module, _, name = target.rpartition(".")
    real = getattr(importlib.import_module(module), name)
    got: list = []

    def spy(*args, **kwargs):
        got.append(real(*args, **kwargs))
        return got[-1]

    with mock.patch(target, spy):
        run = runner.invoke(app, [*argv, "--json"], catch_exceptions=False)
    assert run.exit_code in (0, 1, 3), run.output
    assert got, f"{target} was not called"
    return got[-1], json.loads(run.stdout)


def _spec(path: str):
    from verifier.specs.check import load_spec
    return load_spec(path)


def test_report_and_notion_result():
    report, out = captured("verifier.specs.check.run_spec",
                           ["check", EX + "threshold_partial.toml"])
    assert type(report).__name__ == "Report"
    assert report.to_dict() == out
    for name, r in report.results.items():  # an entry less the engines the report ran
        assert type(r).__name__ == "NotionResult"
        assert r.to_dict() == {k: v for k, v in out[name].items() if k != "engine"}


def test_report_full():
    report, out = captured("verifier.specs.check.run_spec",
                           ["check", EX + "example7_small.toml", "--full"])
    assert report.to_dict(full=True) == out


def test_sweep_report():
    report, out = captured("verifier.notions.sweep.threshold_sweep",
                           ["sweep", EX + "threshold_partial.toml", "--threshold", "2..4"])
    assert type(report).__name__ == "SweepReport" and report.to_dict() == out


def test_certified_report():
    s = _spec(EX + "example7_small.toml")
    report, out = captured("verifier.specs.check.run_spec_certified",
                           ["check", EX + "example7_small.toml", "--mode", "certified"])
    assert type(report).__name__ == "CertifiedReport"
    assert report.to_dict(s.epsilon, s.delta) == out


def test_renyi_report():
    s = _spec(EX + "renyi_randomized_response.toml")
    report, out = captured("verifier.commands.renyi.renyi_report",
                           ["check", EX + "renyi_randomized_response.toml"])
    assert type(report).__name__ == "RenyiReport" and report.to_dict(s.renyi) == out


def test_noise_result(tmp_path):
    path = tmp_path / "dlap.toml"
    path.write_text('[data]\nrecords = 1\nvalues = [0, 1]\n[mechanism]\n'
                    'kind = "discrete_laplace"\nscale = "1"\n[query]\nepsilon = "1"\n'
                    'delta = "0"\nnotions = ["dp"]\n')
    s = _spec(str(path))
    r, out = captured("verifier.commands.noise.check_noise_dp", ["check", str(path)])
    assert type(r).__name__ == "NoiseResult"
    assert r.to_dict(s.epsilon, s.delta, s.noise.describe()) == out


def test_composition_enclosure():
    from verifier.model.mechanisms import randomized_response

    r, out = captured("verifier.commands.compose.enclose_composition",
                      ["compose", EX + "randomized_response.toml", "--k", "3", "--enclosure",
                       "always"])
    assert type(r).__name__ == "CompositionEnclosure"
    mechanism = randomized_response("3/4", [0, 1]).describe()
    assert r.to_dict(3, "replace-one", mechanism) == out


def test_guess_and_eta_reports():
    report, out = captured("verifier.guessing.report.guess_report",
                           ["guess", EX + "guess_geometric.toml"])
    assert type(report).__name__ == "GuessReport" and report.to_dict() == out
    report, out = captured("verifier.guessing.report.eta_report",
                           ["guess", "--eta", "1/2", "--diameter", "1"])
    assert type(report).__name__ == "EtaReport" and report.to_dict() == out


def test_pso_report():
    from verifier.specs.pso import load_pso_spec

    report, out = captured("verifier.pso.report.pso_report",
                           ["pso", EX + "pso_count_optimal.toml", "--full"])
    assert type(report).__name__ == "PSOReport"
    assert report.to_dict(load_pso_spec(EX + "pso_count_optimal.toml"), full=True) == out


def test_family_result():
    s = _spec(EX + "randomized_response.toml")
    res, out = captured("verifier.symbolic.family.check_family",
                        ["family", EX + "randomized_response.toml", "--param", "truth",
                         "--range", "1/2..4/5"])
    assert type(res).__name__ == "FamilyResult"
    assert res.to_dict(mechanism=s.mechanism.name, records=s.records, epsilon=s.epsilon,
                       delta=s.delta) == out


def test_proof_report_reducibility_and_search():
    rep, out = captured("verifier.symbolic.prove.prove",
                        ["prove", EX + "threshold_partial.toml", "--claim", "apk-le-ppk"])
    assert type(rep).__name__ == "ProofReport" and rep.to_dict() == out
    res, out = captured("verifier.symbolic.reducibility.decide_reducible",
                        ["reducible", EX + "referendum_tally.toml"])
    assert type(res).__name__ == "Reducibility" and res.to_dict() == out
    res, out = captured("verifier.search.conjectures.search",
                        ["search", "apk-le-ppk", "--records", "2", "--examples", "10"])
    assert type(res).__name__ == "SearchResult" and res.to_dict() == out


def test_audit_result():
    pytest.importorskip("dp_accounting")
    result, out = captured("verifier.audit.runner.run_audit",
                           ["audit", EX + "audit/dp_accounting.toml"])
    assert type(result).__name__ == "AuditResult" and result.to_dict() == out
