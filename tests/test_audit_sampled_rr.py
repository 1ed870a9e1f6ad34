"""dp_accounting's Poisson-subsampled randomized response against a hand derivation.

With sampling probability q, noise parameter p and m buckets, the output with the record is
x w.p. q(1 − p + p/m) + (1 − q)/m and each other bucket q·p/m + (1 − q)/m; without it, 1/m
each. At q = p = 1/2, m = 2 that is P = (5/8, 3/8) against Q = (1/2, 1/2):

* remove order (P‖Q): δ(ε) = [5/8 − e^ε/2]₊ + [3/8 − e^ε/2]₊, zero from ε = ln(5/4);
* add order (Q‖P): δ(ε) = [1/2 − 5e^ε/8]₊ + [1/2 − 3e^ε/8]₊ = 1/2 − (3/8)e^ε for
  ln(4/5) ≤ ε ≤ ln(4/3), zero from ε = ln(4/3).

So at ε = ln(9/8) the add order gives 1/2 − 27/64 = 5/64 > 1/16 (remove), and the tight ε at
δ = 0 is ln(4/3) for one run. For two runs the largest ratio is (1/2)²/(3/8)² = 16/9 in the
add order against (5/4)² = 25/16 in the remove one: ln(16/9).
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from gmpy2 import mpq
from typer.testing import CliRunner

from verifier.audit.adapters.accountants_sampled import subsampled_rr_pair
from verifier.cli import app

pytest.importorskip("dp_accounting")

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "audit" / \
    "dp_accounting_sampled_rr.toml"
CASE = ('[[case]]\nlibrary = "dp_accounting"\nconstructor = "PoissonSampledDpEvent"\n'
        'args = {{ sampling_probability = {{ f64 = "0.5" }}, noise_parameter = '
        '{{ f64 = "0.5" }}, num_buckets = 2 }}\n{options}compose = 1\ndelta = "0"\n')


def _audit(tmp_path, text: str, *extra: str):
    cfg = tmp_path / "c.toml"
    cfg.write_text(text)
    return CliRunner().invoke(app, ["audit", str(cfg), *extra])


def test_the_pair_by_hand() -> None:
    p, q = subsampled_rr_pair(mpq(1, 2), mpq(1, 2), 2)
    assert (p["x"], p["others"], q["x"], q["others"]) == (mpq(5, 8), mpq(3, 8), mpq(1, 2),
                                                          mpq(1, 2))
    # q = 1/10, p = 1/2, m = 4: x w.p. (1/10)(5/8) + (9/10)(1/4) = 23/80
    p, q = subsampled_rr_pair(mpq(1, 10), mpq(1, 2), 4)
    assert (p["x"], p["others"], q["x"], q["others"]) == (mpq(23, 80), mpq(57, 80), mpq(1, 4),
                                                          mpq(3, 4))


def test_the_example_by_hand() -> None:
    mpmath = pytest.importorskip("mpmath")
    with mpmath.workprec(200):
        d = Fraction(float(mpmath.log(mpmath.mpf(9) / 8)))  # the double nearest ln(9/8)
    out = CliRunner().invoke(app, ["audit", str(EXAMPLE), "--json"])
    assert out.exit_code == 0, out.output
    rows = json.loads(out.output)["cases"]
    assert rows[0]["tight"]["delta"]["value"] == f"1/2 - 3/8*exp({d})"
    assert "Q‖P (add)" in rows[0]["witness"]["order"]
    assert rows[1]["tight"]["epsilon"]["value"] == "ln(16/9)"
    assert [r["verdict"] for r in rows] == ["sound"] * 3


def test_one_run_at_delta_zero_is_ln_4_over_3(tmp_path) -> None:
    r = _audit(tmp_path, CASE.format(options='options = { route = "pmf" }\n'), "--json")
    (row,) = json.loads(r.output)["cases"]
    assert row["tight"]["epsilon"]["value"] == "ln(4/3)"
    assert any("P‖Q (remove): sound, tight ε ≈ 0.223143" in n for n in row["notes"])  # ln 5/4


def test_the_library_refuses_the_event_and_so_does_plrv_without_a_route(tmp_path) -> None:
    import dp_accounting
    from dp_accounting import pld, rdp

    event = dp_accounting.PoissonSampledDpEvent(
        0.5, dp_accounting.RandomizedResponseDpEvent(noise_parameter=0.5, num_buckets=2))
    relation = dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE
    assert not pld.PLDAccountant(relation).supports(event)
    assert not rdp.RdpAccountant(neighboring_relation=relation).supports(event)
    for options in ("", 'options = { route = "accountant" }\n'):
        r = _audit(tmp_path, CASE.format(options=options))
        assert r.exit_code == 2
        assert "case[0].constructor" in r.output and "GaussianDpEvent" in r.output
    r = _audit(tmp_path, CASE.format(options='options = { route = "sampled" }\n'))
    assert r.exit_code == 2 and "case[0].options.route" in r.output


def test_the_discretisation_interval_is_applied(tmp_path) -> None:
    """A coarser grid (v = 1/64, a double) rounds ln(4/3) up to 19/64 (⌈64·0.28768⌉ = 19):
    the claim at δ = 0 becomes exactly that grid point."""
    opts = 'options = { route = "pmf", value_discretization_interval = { f64 = "0.015625" } }\n'
    r = _audit(tmp_path, CASE.format(options=opts), "--json")
    (row,) = json.loads(r.output)["cases"]
    assert mpq(row["claim"]["epsilon"]["value"]) == mpq(19, 64)
    assert row["verdict"] == "sound"


def test_the_report_script_gives_the_claim_with_the_library_alone() -> None:
    """The script --report writes for this constructor (the library only) prints that the
    accountant refuses the event and the same claim the audit read (two runs, δ = 0)."""
    import subprocess
    import sys

    from verifier.reports.audit_repro import accountant_script
    from verifier.specs.audit import load_audit_config

    case = load_audit_config(EXAMPLE).cases[1]
    script = accountant_script(case)
    assert script is not None and "verifier" not in script
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, check=True)
    lines = done.stdout.splitlines()
    assert lines[0] == "the PLD accountant supports the event: False"
    printed = float(lines[1].rsplit("=", 1)[1])
    out = CliRunner().invoke(app, ["audit", str(EXAMPLE), "--json"])
    claim = json.loads(out.output)["cases"][1]["claim"]["epsilon"]["f64"]
    assert printed == float.fromhex(claim)
