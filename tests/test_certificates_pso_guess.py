"""Certificates of ``plrv pso`` and ``plrv guess``: emitted, re-checked, tampering caught.

Expected values are derived by hand (stated beside them), never taken from the engine.
"""

import copy
import json
from fractions import Fraction
from pathlib import Path

import pytest

from verifier.certificates.emit_guess import certify_guess
from verifier.certificates.emit_pso import certify_pso
from verifier.kernel.verify import verify_certificate
from verifier.reports.json_out import dumps
from verifier.specs.guess import load_guess_spec
from verifier.specs.pso import load_pso_spec

# Universe {0,1,2,3} uniform, n = 2, the count of [x < 2], the optimal adversary with
# w(p) ≤ 1/4 (singletons). By hand: output 1 (probability 1/2) has one row in {0,1} and one in
# {2,3}, and {0} isolates with probability 1/2; outputs 0 and 2 (1/4 each) have both rows in
# one half, and {2} (or {0}) isolates with probability 2·(1/2)·(1/2) = 1/2. Success
# 1/2·1/2 + 2·1/4·1/2 = 1/2. Baseline B(2, 1/4) = 2·(1/4)·(3/4) = 3/8. So the claim fails
# with factor 1 (1/2 > 3/8) and holds with factor n + 1 = 3 (1/2 ≤ 9/8).
PSO = """
[universe]
values = [0, 1, 2, 3]
[rows]
n = 2
[mechanism]
kind = "count"
predicate = "x < 2"
[adversary]
kind = "optimal"
weight_at_most = "1/4"
[claim]
factor = {factor}
"""

# The truncated geometric mechanism on {0..6}, α = 1/2, uniform prior, goal: within 1.
GUESS = """
[domain]
range = [0, 6]
[mechanism]
kind = "truncated_geometric"
alpha = "1/2"
[goal]
precision = 1
{query}
"""


def _pso(tmp_path: Path, factor: int) -> dict:
    f = tmp_path / f"pso{factor}.toml"
    f.write_text(PSO.format(factor=factor))
    _, cert = certify_pso(load_pso_spec(f))
    return json.loads(dumps(cert))


def _guess(tmp_path: Path, query: str) -> dict:
    f = tmp_path / "guess.toml"
    f.write_text(GUESS.format(query=query))
    _, cert = certify_guess(load_guess_spec(f))
    return json.loads(dumps(cert))


@pytest.fixture()
def pso_fails(tmp_path) -> dict:
    return _pso(tmp_path, 1)


@pytest.fixture()
def guess_fails(tmp_path) -> dict:
    return _guess(tmp_path, '[query]\nepsilon = "ln(3/2)"')


@pytest.mark.parametrize("factor,holds", [(1, False), (3, True)])
def test_pso_certificates_verify(tmp_path, factor, holds):
    cert = _pso(tmp_path, factor)
    out = verify_certificate(cert)
    assert out.verified, out.reason
    res = cert["results"]
    assert (Fraction(res["success"]), Fraction(res["baseline"])) == (Fraction(1, 2),
                                                                      Fraction(3, 8))
    assert res["baseline_weight"] == "1/4" and res["holds"] is holds
    assert any("beats all" in n for n in out.notes)


def _tamper(cert: dict, path: list, value) -> dict:
    bad = copy.deepcopy(cert)
    node = bad
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    return bad


@pytest.mark.parametrize("path,value,reason", [
    (["spec", "universe", "weights", 0], "1/2", "spec.universe.weights: sum to 5/4"),
    (["results", "baseline_weight"], "1/2", "results.baseline_weight: 1/2 but the listed "
                                            "predicate has weight 1/4"),
    (["results", "baseline"], "1/2", "results.baseline: 1/2 in the certificate, B(n, w) = 3/8"),
    (["evidence", "datasets", 0, "probability"], "1/8", "evidence.datasets[0]: P[x] = 1/8"),
    (["results", "success"], "3/8", "results.success: 3/8 in the certificate, 1/2 summed"),
    (["results", "holds"], True, "results.holds: True but success 1/2 > bound 3/8"),
], ids=["weight", "baseline-weight", "baseline", "probability", "success", "verdict"])
def test_pso_tampering_is_rejected(pso_fails, path, value, reason):
    out = verify_certificate(_tamper(pso_fails, path, value))
    assert not out.verified and out.reason.startswith(reason), out.reason


def test_pso_a_changed_output_law_is_named(pso_fails):
    bad = copy.deepcopy(pso_fails)
    bad["evidence"]["datasets"][0]["law"][0][1] = "1/2"
    out = verify_certificate(bad)
    assert not out.verified and "evidence.datasets[0]: the output law sums to 1/2" in out.reason


def test_pso_a_weakened_optimal_adversary_is_caught(pso_fails):
    # Output 0 answered with the empty predicate: success drops by 1/4·1/2 = 1/8 to 3/8, the
    # claim then holds (3/8 ≤ 3/8) — consistent sums, but {2} isolates with mass 1/8 there.
    bad = copy.deepcopy(pso_fails)
    for answer in bad["evidence"]["adversary"]:
        if answer[0] == 0:
            answer[1] = [[[], "1"]]
    bad["results"].update(success="3/8", holds=True)
    out = verify_certificate(bad)
    assert not out.verified
    assert out.reason.startswith("evidence.adversary (output 0): the optimal adversary's "
                                 "predicate isolates with mass 0"), out.reason


@pytest.mark.parametrize("query,holds", [('[query]\nepsilon = "ln(3/2)"', False),
                                         ("", True)])
def test_guess_certificates_verify(tmp_path, query, holds):
    cert = _guess(tmp_path, query)
    out = verify_certificate(cert)
    assert out.verified, out.reason
    assert cert["results"]["holds"] is holds
    # By hand, target 3 (goal {2,3,4}, prior 3/7): at output 3, M(3|x) = (1/3)(1/2)^|x−3|,
    # so P[g | 3] = (1/3)(1/2 + 1 + 1/2) / ((1/3)(1/8+1/4+1/2+1+1/2+1/4+1/8)) = 8/11.
    row = cert["results"]["targets"][3]
    assert (row["prior"], row["posterior"], row["output"], row["advantage"]) == \
        ("3/7", "8/11", 3, "23/77")
    if not holds:
        # precise bound at ε = ln(3/2): x'' ∈ {0, 6} give 1/((3/2)^2+(3/2)^3+(3/2)^4) = 16/171,
        # x'' ∈ {1, 5} give 8/57; 1/(1 + 2·(16/171 + 24/171)) = 171/251 < 8/11.
        assert row["precise"] == "171/251"
        assert cert["results"]["private_at_epsilon"] is False


@pytest.mark.parametrize("path,value,reason", [
    (["spec", "prior", 0], "2/7", "spec.prior: sums to 8/7"),
    (["evidence", "kernel", 0, 1, 0, 1], "1/3", "evidence.kernel[0] (x = 0): M(· | x) sums to"),
    (["results", "targets", 3, "output"], 0, "results.targets[3] (target 3).output: 0 does not "
                                             "attain the posterior 8/11"),
    (["results", "targets", 3, "posterior"], "2/3", "results.targets[3] (target 3).posterior: "
                                                    "2/3 in the certificate, the best output "
                                                    "gives 8/11"),
    (["results", "targets", 3, "precise"], "3/4", "results.targets[3] (target 3).precise: 3/4 "
                                                  "in the certificate, 171/251 recomputed"),
    (["results", "private_at_epsilon"], True, "results.private_at_epsilon: True but M is not"),
    (["results", "holds"], True, "results.holds: True but posterior ≤ precise ≤ simplified "
                                 "fails"),
], ids=["prior", "probability", "output", "posterior", "bound", "private", "verdict"])
def test_guess_tampering_is_rejected(guess_fails, path, value, reason):
    out = verify_certificate(_tamper(guess_fails, path, value))
    assert not out.verified and out.reason.startswith(reason), out.reason


def test_cli_writes_pso_and_guess_certificates(tmp_path):
    from typer.testing import CliRunner

    from verifier.cli import app

    runner = CliRunner()
    (tmp_path / "p.toml").write_text(PSO.format(factor=1))
    (tmp_path / "g.toml").write_text(GUESS.format(query=""))
    r = runner.invoke(app, ["pso", str(tmp_path / "p.toml"), "--certificate",
                            str(tmp_path / "p.json")])
    assert r.exit_code == 1, r.output
    r = runner.invoke(app, ["guess", str(tmp_path / "g.toml"), "--certificate",
                            str(tmp_path / "g.json")])
    assert r.exit_code == 0, r.output
    for name, code, last in (("p.json", 1, "the claim does not hold"),
                             ("g.json", 0, "the claim holds")):
        r = runner.invoke(app, ["verify-certificate", str(tmp_path / name)])
        assert r.exit_code == code, r.output
        assert r.output.strip().endswith(f"certificate verified: {last}"), r.output
    r = runner.invoke(app, ["guess", "--eta", "1/2", "--diameter", "4", "--certificate",
                            str(tmp_path / "x.json")])
    assert r.exit_code == 2 and "--certificate" in r.output and "SPEC" in r.output


def test_certificates_match_the_published_schema(tmp_path, pso_fails, guess_fails):
    from jsonschema import Draft202012Validator

    path = Path(__file__).resolve().parent.parent / "schemas" / "certificate.v1.json"
    schema = json.loads(path.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    v = Draft202012Validator(schema)
    for cert in (pso_fails, _pso(tmp_path, 3), guess_fails, _guess(tmp_path, "")):
        v.validate(cert)
    assert not v.is_valid(_tamper(pso_fails, ["results", "success"], 0.5))
    assert not v.is_valid(_tamper(guess_fails, ["kind"], "gues"))
