"""Spec files and the plrv command: exact JSON, exit status, and a table of bad specs."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from verifier.cli import app
from verifier.core.errors import SpecError
from verifier.specs.check import load_spec

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()

RR = """
[data]
records = 3
values = [0, 1]
[mechanism]
kind = "randomized_response"
truth = "3/4"
[query]
epsilon = "ln(2)"
delta = "0"
notions = ["dp"]
"""


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "spec.toml"
    p.write_text(textwrap.dedent(text))
    return p


def test_check_json_rr(tmp_path):
    result = runner.invoke(app, ["check", str(write(tmp_path, RR)), "--json"])
    assert result.exit_code == 1  # δ(ln 2) = 1/4 > 0: the claim does not hold
    out = json.loads(result.stdout)
    assert list(out) == ["schema", "verdict", "claim", "dp"]
    assert out["verdict"] == "fails" and out["claim"] == {"epsilon": "ln(2)", "delta": "0"}
    # RR 3/4 on one record: δ(ln 2) = 3/4 − 2·1/4 = 1/4, ε at δ = 0 is ln(3/4 ÷ 1/4)
    assert out["dp"]["tight"] == {"epsilon": "ln(3)", "delta": "1/4"}
    assert out["dp"]["delta"] == "1/4" and out["dp"]["epsilon"] == "ln(3)"  # old names kept
    assert out["dp"]["holds"] is False and out["dp"]["verdict"] == "fails"
    assert out["dp"]["witness"]["databases"][0] != out["dp"]["witness"]["databases"][1]


def test_check_holds_exit_zero(tmp_path):
    spec = write(tmp_path, RR.replace('delta = "0"', 'delta = "1/4"'))
    result = runner.invoke(app, ["check", str(spec)])
    assert result.exit_code == 0
    assert "1/4" in result.stdout and "ln(2)" in result.stdout


def test_irrational_epsilon_in_json(tmp_path):
    spec = write(tmp_path, RR.replace('epsilon = "ln(2)"', 'epsilon = "1/2"'))
    out = json.loads(runner.invoke(app, ["check", str(spec), "--json"]).stdout)
    # δ = 3/4 − e^(1/2)/4 = 0.3378196823...
    assert out["dp"]["delta"] == "3/4 - 1/4*exp(1/2)"
    assert out["dp"]["approx"]["delta"] == "0.337819"


BAD = [
    ("float", RR.replace('truth = "3/4"', "truth = 0.75"), "mechanism.truth",
     'truth = 0.75 is a float, which is not exact; write it as a string such as "0.75" or '
     '"3/4", or, to mean the double itself, {f64 = "0.75"} (verifier.f64 in Python)'),
    ("unknown-kind", RR.replace('"randomized_response"', '"laplace"'), "mechanism.kind",
     "kind = 'laplace' is not a mechanism kind; known kinds: above_threshold, count, "
     "discrete_gaussian, discrete_laplace, function, geometric_count, identity, mean, "
     "noisy_max, program, randomized_response, sum, threshold_count; did you mean "
     "`discrete_laplace`?"),
    ("bad-epsilon", RR.replace('"ln(2)"', '"log(2)"'), "query.epsilon",
     "epsilon = 'log(2)' is not an ε; write \"ln(q)\" with rational q ≥ 1, a rational number "
     "of nats such as \"1/2\", \"0\" or \"inf\""),
    ("prior-total", RR.replace("values = [0, 1]", 'values = [0, 1]\nprior = ["1/2", "1/3"]')
     .replace('["dp"]', '["noiseless"]'),
     "data.prior", "prior sums to 5/6, not 1"),
    ("negative", RR.replace("values = [0, 1]", 'values = [0, 1]\nprior = ["3/2", "-1/2"]')
     .replace('["dp"]', '["noiseless"]'),
     "data.prior", "prior[1] = -1/2 is a negative weight"),
    ("unknown-notion", RR.replace('["dp"]', '["renyi"]'), "query.notions",
     "unknown notion 'renyi'; known notions: dp, apkdp, ppkdp, noiseless, rdp, zcdp, "
     "apkrdp, ppkrdp, noiselessrdp, apkzcdp, ppkzcdp, noiselesszcdp"),
    ("no-records", RR.replace("records = 3\n", ""), "data.records",
     "missing: the number of records n"),
    ("unknown-key", RR.replace("[query]", "[query]\nepsillon = 1"), "query.epsillon",
     "unknown key; query takes delta, epsilon, notions, orders, rdp_epsilon, rho; did you mean "
     "`epsilon`?"),
    ("delta>1", RR.replace('delta = "0"', 'delta = "3/2"'), "query.delta",
     "delta = 3/2 is not a probability in [0, 1]"),
]


@pytest.mark.parametrize("name, text, key, message", BAD, ids=[b[0] for b in BAD])
def test_bad_specs(tmp_path, name, text, key, message):
    path = write(tmp_path, text)
    with pytest.raises(SpecError) as info:
        load_spec(path)
    assert info.value.key == key and info.value.file == str(path)
    assert info.value.detail == message
    assert str(info.value) == f"{path}: {key}: {message}"
    result = runner.invoke(app, ["check", str(path)])
    assert result.exit_code == 2
    assert result.stderr.strip() == f"error: {path}: {key}: {message}"


def test_budget_error_exit_2(tmp_path):
    spec = write(tmp_path, RR.replace("records = 3", "records = 25"))
    result = runner.invoke(app, ["check", str(spec)])
    assert result.exit_code == 2
    assert "limits.databases: databases for brute force (2 values, 25 records): 2^25, over " \
        "the limit of 2^20" in result.stderr
    small = runner.invoke(app, ["check", str(spec), "--budget", "10"])
    assert small.exit_code == 2 and "over the limit of 10;" in small.stderr


def test_missing_file():
    result = runner.invoke(app, ["check", "/nonexistent/spec.toml"])
    assert result.exit_code == 2
    assert result.stderr.strip() == "error: /nonexistent/spec.toml: cannot read the file " \
                                    "(No such file or directory)"


def test_cli_starts_without_heavy_libraries():
    code = ("import sys, verifier.cli, verifier; "
            "print(any(m in sys.modules for m in ('sympy', 'z3', 'matplotlib')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_bundled_rr_example_runs():
    result = runner.invoke(app, ["check", str(ROOT / "examples" / "randomized_response.toml"),
                                 "--json"])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["dp"]["delta"] == "1/4"


EXAMPLES = sorted((ROOT / "examples").glob("*.toml"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
@pytest.mark.slow
def test_every_example_spec_runs(path):
    command = "pso" if path.stem.startswith("pso_") else \
        "guess" if path.stem in ("guess_geometric", "cafeteria") else "check"
    result = runner.invoke(app, [command, str(path), "--json"])
    assert result.exit_code in (0, 1), result.stderr
    assert json.loads(result.stdout)


@pytest.mark.parametrize("script", ["example7_small.py", "cafeteria.py"])
def test_example_scripts_run(script):
    out = subprocess.run([sys.executable, str(ROOT / "examples" / script)], capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip()
