"""The command line's small contracts: --epsilon/--delta overrides read exactly as the spec's
keys would be, plain usage lines, compose --json, verify-certificate's documented codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from verifier.cli import app

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
RR = str(EXAMPLES / "randomized_response.toml")  # truth 3/4, 3 records, ε = ln 2, δ = 1/4
runner = CliRunner()


def _json(*args: str) -> tuple[int, dict]:
    out = runner.invoke(app, list(args))
    return out.exit_code, json.loads(out.stdout)


def test_epsilon_override_changes_the_claim_and_the_exact_delta():
    # one record differs: P = 3/4 against Q = 1/4 on the outputs that favour it, so
    # δ(ε) = 3/4 − e^ε/4 for ε < ln 3 (a hand derivation), and 0 from ln 3 on
    code, out = _json("check", RR, "--json", "--epsilon", "1/2")
    assert code == 1 and out["dp"]["delta"] == "3/4 - 1/4*exp(1/2)"
    assert out["dp"]["query"]["epsilon"] == "1/2"
    code, out = _json("check", RR, "--json", "--epsilon", "ln(3)", "--delta", "0")
    assert code == 0 and out["dp"]["delta"] == "0" and out["dp"]["query"]["delta"] == "0"


def test_delta_override_alone():
    # at ε = ln 2 the tight δ is 3/4 − 2/4 = 1/4: δ = 1/5 fails, 1/4 holds
    assert runner.invoke(app, ["check", RR, "--delta", "1/5"]).exit_code == 1
    assert runner.invoke(app, ["check", RR, "--delta", "1/4"]).exit_code == 0


@pytest.mark.parametrize("args, option", [
    (["--delta", "2"], "--delta"),
    (["--epsilon", "ln(1/2)"], "--epsilon"),
    (["--epsilon", "nan"], "--epsilon"),
])
def test_bad_overrides_exit_2_naming_the_option(args, option):
    out = runner.invoke(app, ["check", RR, *args])
    assert out.exit_code == 2 and option in out.output


def test_a_decimal_override_is_the_exact_rational():
    code, out = _json("check", RR, "--json", "--delta", "0.1")  # as "0.1" in a spec: 1/10
    assert code == 1 and out["dp"]["query"]["delta"] == "1/10"


def test_overrides_reach_the_renyi_conversions():
    code, out = _json("check", str(EXAMPLES / "renyi_randomized_response.toml"), "--json",
                      "--delta", "1/100")
    assert code == 0
    assert {c["at"]["delta"] for c in out["rdp"]["conversions"] if "delta" in c["at"]} == \
        {"1/100"}


@pytest.mark.parametrize("command", ["check", "sweep", "pso", "compose", "prove", "family"])
def test_usage_lines_name_the_argument_plainly(command):
    first = runner.invoke(app, [command, "--help"]).output.splitlines()[0]
    # (compose's SPEC is optional: --mechanism stands for it)
    assert "{" not in first and first.endswith("[SPEC]" if command == "compose" else " SPEC"), \
        first


def test_compose_takes_json():
    code, out = _json("compose", RR, "--k", "3", "--json")
    assert code in (0, 1) and out["k"] == 3 and out["exact"] is True


def test_verify_certificate_documents_its_codes():
    text = runner.invoke(app, ["verify-certificate", "--help"]).output
    flat = " ".join(text.split())
    assert "Exit status, as plrv check's: 0 verified and the certified claim holds, 1 verified " \
        "and it does not hold, 2 rejected (the first discrepancy named)" in flat
    assert "A path that starts with - goes after --: plrv verify-certificate -- -h.json" in flat


@pytest.mark.parametrize("mask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_output_files_follow_the_umask_and_are_confirmed(tmp_path, mask, mode):
    import os
    import subprocess
    import sys

    cert = tmp_path / "c.json"
    old = os.umask(mask)
    try:
        out = subprocess.run([sys.executable, "-m", "verifier.cli", "check", RR,
                              "--certificate", str(cert)], capture_output=True, text=True,
                             check=False)
    finally:
        os.umask(old)
    assert out.returncode == 0, out.stderr
    assert cert.stat().st_mode & 0o777 == mode
    assert f"wrote {cert} (--certificate)" in out.stderr
