"""Every command's ``--json`` output, in every mode the README shows, against its published JSON
Schema (schemas/<command>-output.v1.json, draft 2020-12).

A schema that drifted from the output (a key renamed, a mode added) fails here; so does a
schema that accepts anything (:func:`test_each_schema_refuses_another_commands_output`).
"""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator
from test_schemas import validator as schema_validator
from typer.testing import CliRunner

from verifier.cli import app

EX = "examples/"
runner = CliRunner()

# (schema, arguments, exit status): the README's commands with --json, one per mode
RUNS: dict[str, tuple[str, list[str], int]] = {
    "check-exact-dp": ("check", ["check", EX + "randomized_response.toml"], 0),
    "check-exact-partial": ("check", ["check", EX + "threshold_partial.toml"], 1),
    "check-full": ("check", ["check", EX + "example7_small.toml", "--full"], 1),
    "check-overrides": ("check", ["check", EX + "randomized_response.toml", "--epsilon",
                                  "ln(3)", "--delta", "0"], 0),
    "check-certified": ("check", ["check", EX + "example7_small.toml", "--mode",
                                  "certified"], 1),
    "check-symbolic-spec": ("check", ["check", EX + "rr_symbolic.toml"], 0),
    "check-symbolic-at": ("check", ["check", EX + "tally_symbolic.toml", "--at", "p=1/3"],
                          None),
    "check-closed-form": ("check", ["check", EX + "randomized_response.toml",
                                    "--closed-form"], 0),
    "check-closed-form-partial": ("check", ["check", EX + "threshold_partial.toml",
                                            "--closed-form"], 1),
    "check-noise": ("check", ["check", EX + "opendp_discrete_laplace.toml"], 1),
    "check-renyi": ("check", ["check", EX + "renyi_randomized_response.toml"], None),
    "check-zcdp": ("check", ["check", EX + "discrete_gaussian_zcdp.toml"], None),
    "sweep": ("sweep", ["sweep", EX + "threshold_partial.toml", "--threshold", "2..4"], None),
    "guess-spec": ("guess", ["guess", EX + "guess_geometric.toml"], None),
    "guess-eta": ("guess", ["guess", "--eta", "1/2", "--diameter", "1"], 0),
    "guess-eta-prior": ("guess", ["guess", "--eta", "1/2", "--diameter", "1", "--prior",
                                  "1/10"], 0),
    "pso": ("pso", ["pso", EX + "pso_composition.toml"], None),
    "pso-full": ("pso", ["pso", EX + "pso_count_optimal.toml", "--full"], None),
    "family-holds": ("family", ["family", EX + "randomized_response.toml", "--param", "truth",
                                "--range", "1/2..3/4"], 0),
    "family-fails": ("family", ["family", EX + "randomized_response.toml", "--param", "truth",
                                "--range", "1/2..4/5"], 1),
    "prove-lemma6": ("prove", ["prove", EX + "rr_symbolic.toml", "--claim", "lemma6",
                               "--every-known-set"], 0),
    "prove-every-epsilon": ("prove", ["prove", EX + "tally_symbolic.toml", "--claim",
                                      "apk <= 2*ppk", "--every-epsilon"], 0),
    "prove-counterexample": ("prove", ["prove", EX + "threshold_partial.toml", "--claim",
                                       "apk-le-ppk"], 1),
    "prove-dp": ("prove", ["prove", EX + "randomized_response.toml", "--claim", "dp <= 0"], 1),
    "reducible-yes": ("reducible", ["reducible", EX + "referendum_tally.toml"], 0),
    "reducible-no": ("reducible", ["reducible", EX + "threshold_partial.toml"], 1),
    "reducible-symbolic": ("reducible", ["reducible", EX + "tally_symbolic.toml"], 0),
    "search-found": ("search", ["search", "apk-le-ppk", "--records", "2", "--examples", "10"],
                     1),
    "search-none": ("search", ["search", "lemma5", "--records", "2", "--examples", "10"], 3),
    "compose-k": ("compose", ["compose", EX + "randomized_response.toml", "--k", "3"], None),
    "compose-adaptive": ("compose", ["compose", EX + "compose/adaptive_rr.toml"], None),
    "compose-partial": ("compose", ["compose", EX + "compose/noisy_count.toml", "--k", "12"],
                        1),
    "compose-renyi": ("compose", ["compose", EX + "renyi_randomized_response.toml", "--k",
                                  "2"], None),
    "curve-dp": ("curve", ["curve", EX + "randomized_response.toml"], 0),
    "curve-partial": ("curve", ["curve", EX + "threshold_partial.toml"], 1),
    "curve-symbolic": ("curve", ["curve", EX + "rr_symbolic.toml", "--at", "t=2/3"], 0),
    "curve-accounting": ("curve", ["curve", EX + "randomized_response.toml", "--accounting",
                                   "--points", "4"], 0),
}
EXTRAS = {"curve-accounting": "dp_accounting"}  # runs that need an optional extra
_OUTPUTS: dict[str, object] = {}


def validator(command: str) -> Draft202012Validator:
    """The checked schema of ``command``'s output (tests/test_schemas.py reads it)."""
    return schema_validator(f"{command}-output")


def output(name: str) -> object:
    """The JSON a run prints (each run once per test session)."""
    if name not in _OUTPUTS:
        _, args, status = RUNS[name]
        out = runner.invoke(app, [*args, "--json"], catch_exceptions=False)
        assert out.exit_code in ((0, 1, 3) if status is None else (status,)), out.output
        _OUTPUTS[name] = json.loads(out.stdout)
    return _OUTPUTS[name]


@pytest.mark.parametrize("name", sorted(RUNS))
@pytest.mark.slow
def test_output_matches_its_schema(name):
    if name in EXTRAS:
        pytest.importorskip(EXTRAS[name])
    errors = sorted(validator(RUNS[name][0]).iter_errors(output(name)), key=str)
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])


def test_every_command_with_json_has_a_schema_and_a_run():
    """Every command that takes --json (but audit, whose schema is its own module's) has a
    schema, and this file runs it."""
    from typer.main import get_command

    group = get_command(app)
    with_json = {name for name, cmd in group.commands.items()  # type: ignore[attr-defined]
                 if any("--json" in p.opts for p in cmd.params)} - {"audit"}
    assert with_json <= {schema for schema, _, _ in RUNS.values()} | {"theorems"}
    for command in with_json:
        validator(command)


@pytest.mark.parametrize("command, other", [
    ("family", "prove-lemma6"), ("prove", "family-holds"), ("reducible", "search-none"),
    ("search", "reducible-yes"), ("curve", "check-exact-dp"), ("check", "curve-dp"),
    ("guess", "pso"), ("sweep", "guess-eta"),
])
def test_each_schema_refuses_another_commands_output(command, other):
    assert not validator(command).is_valid(output(other))


def test_closed_form_pieces_are_checked():
    """A closed form whose variable is the old ambiguous "E" is refused."""
    doc = json.loads(json.dumps(output("check-closed-form")))
    doc["closed_form"]["dp"]["variable"] = "E = e^epsilon >= 1"
    assert not validator("check").is_valid(doc)
