"""A neighbouring relation with no pair of inputs: every notion holds vacuously (δ = 0 at
every ε, tight ε 0), the JSON validates against ``schemas/check-output.v1.json`` with
``"cases": 0``, and the note speaks of the relation — not of target probabilities, which a
relation has none of — in the JSON and in the text report. Two vectors at ‖·‖∞ distance 2 under
``linf`` with distance 1 have no neighbouring pair: that is the hand derivation."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import jsonschema
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "hostile"))
from harness import assert_verdict, invoke, write

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = json.loads((ROOT / "schemas" / "check-output.v1.json").read_text())
FAR = {"input": {"vectors": [[0, 0], [2, 2]]}, "neighbours": {"relation": "linf"}}
QUERY = {"epsilon": "1/2", "delta": "0", "notions": ["dp"]}
RELATION_NOTE = "the neighbouring relation has no pair of inputs"
TARGET_NOTE = "for every target"


@pytest.mark.parametrize("mech", [
    {"kind": "randomized_response", "truth": "3/4"},                 # the exact engine
    {"kind": "discrete_laplace", "scale": "2"},                        # on each coordinate
    {"kind": "discrete_gaussian", "sigma": "2"},
    {"kind": "noisy_max", "noise": "discrete_laplace", "scale": "2"},
    {"kind": "above_threshold", "noise": "discrete_laplace", "scale": "2",
     "threshold_scale": "4", "threshold": 1},
])
def test_dp_over_an_empty_relation_holds_vacuously(tmp_path, mech):
    spec = {**FAR, "mechanism": mech, "query": QUERY}
    o = invoke(["check", write(tmp_path, spec), "--json"])
    assert_verdict(o, 0)
    out = json.loads(o.stdout)
    jsonschema.validate(out, SCHEMA)
    dp = out["dp"]
    assert (dp["holds"], dp["delta"], dp["epsilon"], dp["cases"]) == (True, "0", "0", 0)
    note = dp["worst_case"]["note"]
    assert RELATION_NOTE in note and TARGET_NOTE not in note and "vacuously" in note
    text = invoke(["check", write(tmp_path, spec)])
    assert_verdict(text, 0)
    assert RELATION_NOTE in " ".join(text.stdout.split())  # wherever the line folds


def test_rdp_and_zcdp_over_an_empty_relation_hold_vacuously(tmp_path):
    """No pair: nothing to convert (a conversion of D_α = 0 would still print a positive δ
    from its formula), every order's worst case is the note."""
    spec = {**FAR, "mechanism": {"kind": "randomized_response", "truth": "3/4"},
            "query": {"notions": ["rdp", "zcdp"], "orders": [2, 3], "rho": "1",
                      "epsilon": "1/2", "delta": "1/1000"}}
    o = invoke(["check", write(tmp_path, spec), "--json"])
    assert_verdict(o, 0)
    out = json.loads(o.stdout)
    jsonschema.validate(out, SCHEMA)
    for name in ("rdp", "zcdp"):
        assert out[name]["cases"] == 0 and out[name]["conversions"] == []
        assert out[name]["holds"] is True
    assert [r["value"] for r in out["rdp"]["orders"]] == ["0", "0"]
    assert all(RELATION_NOTE in r["worst_case"]["note"] for r in out["rdp"]["orders"])
    assert out["zcdp"]["rho"] == "0" and RELATION_NOTE in out["zcdp"]["worst_case"]["note"]
    text = invoke(["check", write(tmp_path, spec)])
    lines = text.stdout.replace("\n", " ")
    assert "rdp holds vacuously" in lines and "zcdp holds vacuously" in lines


def test_partial_knowledge_keeps_its_target_note():
    """The note of a partial-knowledge notion with nothing to compare is about targets."""
    from gmpy2 import mpq

    from verifier.core.epsilon import Epsilon
    from verifier.notions.result import VACUOUS_NOTE, Summary

    r = Summary(Epsilon.ZERO, mpq(0)).result("apkdp")
    assert r.witness["note"] == VACUOUS_NOTE and r.cases == 0 and r.holds
    d = Summary(Epsilon.ZERO, mpq(0)).result("dp")
    assert RELATION_NOTE in d.witness["note"]


@pytest.mark.parametrize("query", [QUERY, {"notions": ["rdp", "zcdp"], "orders": [2],
                                           "rho": "1", "epsilon": "1/2"}])
def test_compose_over_an_empty_relation_holds_vacuously(tmp_path, query):
    spec = {**FAR, "mechanism": {"kind": "randomized_response", "truth": "3/4"},
            "query": query}
    o = invoke(["compose", "--json", write(tmp_path, spec), "--k", "3"])
    assert_verdict(o, 0)
    out = json.loads(o.stdout)
    jsonschema.validate(out, json.loads((ROOT / "schemas" / "compose-output.v1.json")
                                        .read_text()))
    if "dp" in query["notions"]:
        assert (out["tight_delta"], out["tight_epsilon"]) == ("0", "0")
        assert RELATION_NOTE in out["worst_case"]["note"]
    else:
        assert out["zcdp"]["cases"] == 0 and out["rdp"]["conversions"] == []
