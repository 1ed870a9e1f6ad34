"""``plrv prove`` under DP's neighbouring relation, Theorem 2's premise, and reducibility on a
closed parameter interval. Expected values by hand."""

from __future__ import annotations

import json
import textwrap
from fractions import Fraction

from test_certificates_symbolic import THRESHOLD
from typer.testing import CliRunner

from verifier.cli import app

runner = CliRunner()

GEOMETRIC = """
[data]
records = 2
values = [0, 1]
[parameters]
a = {{ ge = "1/2", lt = "1" }}
{neighbours}
[mechanism]
kind = "geometric_count"
alpha = "a"
[query]
epsilon = "ln(2)"
notions = ["dp"]
"""


def _prove(tmp_path, text: str, claim: str):
    spec = tmp_path / "spec.toml"
    spec.write_text(textwrap.dedent(text))
    out = runner.invoke(app, ["prove", str(spec), "--claim", claim, "--json"])
    return out.exit_code, json.loads(out.stdout) if out.stdout.startswith("{") else out.output


def test_prove_honours_add_remove_one(tmp_path):
    # The geometric count clamped to 0..m on m records. Add-remove-one joins (1, 1) (count 2
    # of 2) and (1) (count 1 of 1): on output 2, P = 1/(1+a) against P[output 2 | (1)] —
    # output 1 is the clamped top there, so output 2 never occurs: δ ≥ 1/(1 + a) > 0 for
    # every a. Under replace-one α ≥ 1/2 gives δ(ln 2) = max(0, (1 − 2a)/(1 + a)) = 0.
    code, rep = _prove(tmp_path, GEOMETRIC.format(neighbours=""), "dp == 0")
    assert code == 0, rep
    code, rep = _prove(tmp_path, GEOMETRIC.format(
        neighbours='[neighbours]\nrelation = "add-remove-one"'), "dp == 0")
    assert code == 1, rep
    assert len(rep["instances"]) == 1  # dp reads no target or attacker: one instance
    for inst in rep["instances"]:
        a = Fraction(inst["counterexample"]["parameters"]["a"])
        assert Fraction(inst["counterexample"]["deltas"]["dp"]) == 1 / (1 + a)




def test_theorem2_with_a_failing_premise_holds_vacuously(tmp_path):
    # the threshold hides the tally below 2: knowing record 0 = yes or no gives profiles
    # that no bijection matches (not Θ-reducible), so Theorem 2 says nothing: vacuous
    code, rep = _prove(tmp_path, THRESHOLD, "theorem2")
    assert code == 0, rep
    (inst,) = rep["instances"]
    assert inst["status"] == "proved"
    assert "premise fails" in inst["method"] and "vacuously" in inst["method"]


def test_reducible_on_a_closed_interval(tmp_path):
    # the count of 3 records, record 0 known: knowing one more yes shifts the tally by one,
    # c ↦ c + 1 for every p in (0, 1); at p = 0 and p = 1 every record is 0 (resp. 1), one
    # background value is possible and reducibility holds trivially
    spec = tmp_path / "spec.toml"
    spec.write_text(textwrap.dedent(THRESHOLD).replace('p = { gt = "0", lt = "1" }',
                                                       'p = { ge = "0", le = "1" }')
                    .replace('kind = "threshold_count"\ncounts = [1]\nthreshold = 2',
                             'kind = "count"'))
    out = runner.invoke(app, ["reducible", str(spec), "--json"])
    assert out.exit_code == 0, out.output
    rep = json.loads(out.stdout)
    assert rep["reducible"] is True
    assert "p = 0, p = 1" in rep["method"]
