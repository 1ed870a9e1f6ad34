"""Each claim of docs/how-to/renyi-zcdp.md, run: what is decided, what is refused (exit 2
naming the key), and the numbers the page quotes (derived by hand in the page or in
tests/test_renyi_optimal_order.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "hostile"))
from harness import assert_error, assert_verdict, invoke, write

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "how-to" / "renyi-zcdp.md").read_text()
RR = ROOT / "examples" / "renyi_randomized_response.toml"
DG = ROOT / "examples" / "discrete_gaussian_zcdp.toml"
GAUSS = {"data": {"records": 2, "values": [0, 2]},
         "mechanism": {"kind": "discrete_gaussian", "sigma": "3/2"},
         "query": {"notions": ["zcdp"], "rho": "8/9"}}


def test_examples_decide_as_the_page_says():
    out = json.loads(invoke(["check", RR, "--json"]).stdout)
    assert out["rdp"]["orders"][0]["value"] == "ln(7/3)"
    (delta,) = [c for c in out["zcdp"]["conversions"] if c["quantity"] == "delta"
                and "Corollary 13" in c["source"]]
    assert delta["order"] == "130739/62500" and delta["approx"].startswith("0.24836")
    assert "0.24837" in DOC and "130739/62500" in DOC
    dg = json.loads(invoke(["check", DG, "--json"]).stdout)
    assert dg["zcdp"]["rho"] == "8/9" and dg["zcdp"]["exactness"] == "exact"


def test_compose_of_rational_laws_runs_and_of_the_gaussian_is_refused():
    o = invoke(["compose", "--json", RR, "--k", "2"])
    assert_verdict(o, 1)  # two runs: ρ* = ln 3 > 11/20; D_2 = ln((7/3)²)
    assert json.loads(o.stdout)["rdp"]["orders"][0]["value"] == "ln(49/9)"
    assert_error(invoke(["compose", "--json", DG, "--k", "2"]), "mechanism.kind")


def test_the_gaussian_on_a_sum_is_replace_one_only(tmp_path):
    spec = {**GAUSS, "neighbours": {"relation": "add-remove-one"}}
    assert_error(invoke(["check", write(tmp_path, spec)]), "[neighbours]")
    assert "replace-one neighbours only" in DOC


@pytest.mark.parametrize("rho, code", [("8/9", 0), ("1/2", 3)])
def test_a_clamped_gaussian_is_an_upper_bound(tmp_path, rho, code):
    spec = {**GAUSS, "mechanism": {**GAUSS["mechanism"], "lo": -2, "hi": 6},
            "query": {"notions": ["zcdp"], "rho": rho}}
    o = invoke(["check", write(tmp_path, spec), "--json"])
    assert_verdict(o, code)
    z = json.loads(o.stdout)["zcdp"]
    assert z["enclosure"] == ["0", "8/9"] and "upper bound" in z["attained"]
    rdp = {**spec, "query": {"notions": ["rdp"], "orders": [2], "rho": rho}}
    assert_error(invoke(["check", write(tmp_path, rdp, "r.toml")]), "query.notions")


@pytest.mark.parametrize("mech", [{"kind": "discrete_laplace", "scale": "2"},
                                  {"kind": "discrete_gaussian", "sigma": "2"}])
def test_noise_on_each_coordinate_is_dp_only(tmp_path, mech):
    spec = {"input": {"vectors": [[0, 0], [1, 1]]}, "neighbours": {"relation": "linf"},
            "mechanism": mech, "query": {"notions": ["zcdp"]}}
    assert_error(invoke(["check", write(tmp_path, spec)]), "query.notions")


def test_the_discrete_laplace_on_a_sum_is_dp_only(tmp_path):
    spec = {**GAUSS, "mechanism": {"kind": "discrete_laplace", "scale": "3/2"}}
    assert_error(invoke(["check", write(tmp_path, spec)]), "query.notions")


def test_rdp_over_input_vectors_of_a_user_free_mechanism(tmp_path):
    """Randomized response 3/4 over [input] vectors (0) ~ (1): D_2 = ln(7/3), as in the page."""
    spec = {"input": {"vectors": [[0], [1]]}, "neighbours": {"relation": "linf"},
            "mechanism": {"kind": "randomized_response", "truth": "3/4"},
            "query": {"notions": ["rdp"], "orders": [2], "rho": "1"}}
    o = invoke(["check", write(tmp_path, spec), "--json"])
    assert_verdict(o, 0)
    assert json.loads(o.stdout)["rdp"]["orders"][0]["value"] == "ln(7/3)"
