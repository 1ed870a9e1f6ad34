"""The published JSON Schemas (schemas/, draft 2020-12) accept what plrv reads and writes."""

import json
import tomllib
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from typer.testing import CliRunner

from verifier.cli import app

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = ROOT / "schemas"
EXAMPLES = ROOT / "examples"
runner = CliRunner()


def validator(name: str) -> Draft202012Validator:
    schema = json.loads((SCHEMAS / f"{name}.v1.json").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    assert schema["version"] == 1 and schema["$id"].endswith(f"{name}.v1.json")
    return Draft202012Validator(schema)


def kind(raw: dict) -> str:
    if "case" in raw:
        return "audit-spec"
    return "pso-spec" if "universe" in raw else "guess-spec" if "domain" in raw else "check-spec"


def _specs() -> list[Path]:
    """The bundled spec files and audit configs: every TOML under examples/ but the example
    project's pyproject.toml."""
    return sorted(p for p in EXAMPLES.rglob("*.toml") if p.name != "pyproject.toml")


@pytest.mark.parametrize("path", _specs(), ids=lambda p: str(p.relative_to(EXAMPLES)))
def test_every_bundled_example_matches_its_spec_schema(path):
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    validator(kind(raw)).validate(raw)


def test_a_misspelt_table_is_refused_by_the_schema():
    raw = tomllib.loads((EXAMPLES / "threshold_partial.toml").read_text(encoding="utf-8"))
    raw["atacker"] = raw.pop("attacker")
    assert not validator("check-spec").is_valid(raw)


def _json(args: list[str]) -> object:
    out = runner.invoke(app, args)
    assert out.exit_code in (0, 1), out.output
    return json.loads(out.stdout)


@pytest.mark.parametrize("example", ["threshold_partial.toml", "randomized_response.toml",
                                     "referendum_tally.toml", "example7_small.toml"])
def test_check_json_and_certificates_match_their_schemas(example, tmp_path):
    cert = tmp_path / "c.json"
    validator("check-output").validate(
        _json(["check", str(EXAMPLES / example), "--json", "--certificate", str(cert)]))
    validator("certificate").validate(json.loads(cert.read_text(encoding="utf-8")))


@pytest.mark.parametrize("example", ["pso_bit_suppression.toml", "pso_count_optimal.toml"])
@pytest.mark.slow
def test_pso_json_matches_its_schema(example):
    validator("pso-output").validate(_json(["pso", str(EXAMPLES / example), "--json"]))


def test_guess_json_matches_its_schema():
    validator("guess-output").validate(
        _json(["guess", str(EXAMPLES / "guess_geometric.toml"), "--json"]))


@pytest.mark.slow
@pytest.mark.xdist_group("theorems")  # the records' results, computed once on that worker
def test_theorems_json_matches_its_schema():
    from proofs.registry import rows  # the rows the test run computes once
    from verifier.reports.json_out import theorems_json

    validator("theorems-output").validate(theorems_json(rows(), True))


def test_the_spec_schema_takes_one_kind_of_input_and_a_mechanism_or_steps():
    """[data] or [input], not both nor neither (the reader's rule); [mechanism] or
    [composition] steps."""
    rr = tomllib.loads((EXAMPLES / "randomized_response.toml").read_text(encoding="utf-8"))
    check = validator("check-spec")
    assert check.is_valid(rr)
    both = dict(rr, input={"coordinates": 2, "range": [0, 1]})
    neither = {k: v for k, v in rr.items() if k != "data"}
    no_mechanism = {k: v for k, v in rr.items() if k != "mechanism"}
    steps = dict(no_mechanism, composition={"steps": ["m:f"]})
    only_grid = dict(no_mechanism, composition={"grid": "ln(2)"})
    assert not check.is_valid(both) and not check.is_valid(neither)
    assert not check.is_valid(no_mechanism) and not check.is_valid(only_grid)
    assert check.is_valid(steps)


@pytest.mark.parametrize("args", [
    ["compose", "examples/compose/adaptive_rr.toml"],
    ["compose", "examples/randomized_response.toml", "--k", "2", "--accounting"],
    ["compose", "examples/randomized_response.toml", "--k", "3", "--enclosure", "always",
     "--grid", "ln(5/4)"],
    ["compose", "examples/compose/noisy_count.toml", "--k", "12"],
    ["compose", "examples/compose/threshold_rr.toml", "--k", "2"],
], ids=["adaptive", "k-fold-with-accountant", "enclosure", "partial-fails", "partial-holds"])
def test_compose_json_matches_its_schema(args):
    validator("compose-output").validate(_json([*args, "--json"]))


def test_an_audit_config_with_an_unknown_key_or_a_float_is_refused_by_the_schema():
    raw = tomllib.loads((EXAMPLES / "audit" / "prv_accountant.toml").read_text(encoding="utf-8"))
    assert validator("audit-spec").is_valid(raw)
    bad = {"case": [dict(raw["case"][0], colour="red")]}
    assert not validator("audit-spec").is_valid(bad)
    bad = {"case": [dict(raw["case"][0], delta=0.001)]}
    assert not validator("audit-spec").is_valid(bad)
