"""Specs with [input] / [neighbours] on every path that reads them: ``check --certificate``,
``check --closed-form``, ``sweep``, ``family`` and ``verify-certificate`` of their
certificates. Bad input is exit 2 with one line naming the file and the key or option; a
decided verdict alone exits 0 or 1; a forged certificate is never verified."""

from __future__ import annotations

import copy
import json

import pytest
from harness import (
    assert_contract,
    assert_error,
    assert_verdict,
    invoke,
    mutate,
    write,
)

# geometric count (α = 1/2) on {0, 1}^2 with l1 neighbours: ln 2-DP holds, δ = 0 (exit 0);
# at ln(3/2) it fails (δ = 1/6)
VECTORS = {
    "input": {"coordinates": 2, "range": [0, 1]},
    "neighbours": {"relation": "l1"},
    "mechanism": {"kind": "geometric_count", "alpha": "1/2"},
    "query": {"epsilon": "ln(2)", "delta": "0", "notions": ["dp"]},
}
# a thresholded count of 2 records under add-remove-one, for plrv sweep
SWEEP_AR = {
    "data": {"records": 2, "values": [0, 1]},
    "neighbours": {"relation": "add-remove-one"},
    "mechanism": {"kind": "threshold_count", "threshold": 1},
    "query": {"epsilon": "ln(2)", "delta": "0", "notions": ["dp"]},
}

BAD_SPECS = [
    ("neighbours.relation", "l3", "neighbours.relation"),
    ("neighbours.relation", "add-remove-one", "neighbours.relation"),
    ("neighbours.distance", 0, "neighbours.distance"),
    ("neighbours.relation", "no_such_module_xyz:f", "neighbours.relation"),
    ("input.range", [1, 0], "input.range"),
    ("input.coordinates", 40, "input.coordinates"),
]
IDS = ["unknown-relation", "databases-on-vectors", "distance-0", "missing-module",
       "empty-range", "too-many-vectors"]


@pytest.mark.parametrize("key, value, needle", BAD_SPECS, ids=IDS)
@pytest.mark.parametrize("options", [["--certificate", "CERT"], ["--closed-form"]],
                         ids=["certificate", "closed-form"])
def test_check_options_name_the_bad_key(tmp_path, key, value, needle, options):
    spec = write(tmp_path, mutate(VECTORS, key, value))
    args = [str(tmp_path / "c.json") if a == "CERT" else a for a in options]
    assert_error(invoke(["check", str(spec), *args]), needle, file=spec)
    assert not (tmp_path / "c.json").exists()


@pytest.mark.parametrize("key, value, needle", BAD_SPECS, ids=IDS)
@pytest.mark.parametrize("command", [["family", "--param", "alpha", "--range", "1/2..3/4"],
                                     ["sweep", "--threshold", "1..2"]], ids=["family", "sweep"])
def test_family_and_sweep_name_the_bad_key(tmp_path, key, value, needle, command):
    spec = write(tmp_path, mutate(VECTORS, key, value))
    assert_error(invoke([command[0], str(spec), *command[1:]]), needle, file=spec)


@pytest.mark.parametrize("args, needle", [
    (["sweep", "SWEEP", "--threshold", "1", "--p", "1/2"], "--p"),
    (["sweep", "VECTORS", "--threshold", "1"], "kind"),
    (["family", "VECTORS", "--param", "truth", "--range", "1/2..1"], "--param"),
    (["family", "VECTORS", "--param", "alpha", "--range", "0..1/2"], "--range"),
    (["family", "MANY", "--param", "alpha", "--range", "1/2..3/4"], "input"),
    (["family", "ATTACKER", "--param", "alpha", "--range", "1/2..3/4"], "attacker"),
    (["check", "VECTORS", "--certificate", "DIR"], "--certificate"),
], ids=["sweep-prior", "sweep-kind", "family-param", "family-range", "family-inputs",
        "family-attacker", "certificate-directory"])
def test_refusals_name_the_option_or_key(tmp_path, args, needle):
    paths = {"SWEEP": write(tmp_path, SWEEP_AR, "sweep.toml"),
             "VECTORS": write(tmp_path, VECTORS),
             "MANY": write(tmp_path, mutate(mutate(VECTORS, "input.coordinates", 9),
                                            "neighbours.relation", "linf"), "many.toml"),
             "ATTACKER": write(tmp_path, mutate(VECTORS, "attacker", {"target": 0}),
                               "attacker.toml"),
             "DIR": tmp_path}
    assert_error(invoke([str(paths.get(a, a)) for a in args]), needle)


@pytest.mark.parametrize("args, expected", [
    (["check", "VECTORS", "--closed-form"], 0),
    (["check", "FAILS", "--closed-form"], 1),
    (["check", "VECTORS", "--certificate", "CERT"], 0),
    (["check", "FAILS", "--certificate", "CERT"], 1),
    (["sweep", "SWEEP", "--threshold", "3"], 0),     # threshold 3 > every count: all ⊥
    (["sweep", "SWEEP", "--threshold", "0..1"], 1),  # the count itself: δ = 1
    (["family", "VECTORS", "--param", "alpha", "--range", "1/2..3/4"], 0),
    (["family", "FAILS", "--param", "alpha", "--range", "1/2..3/4"], 1),
], ids=["closed-form-holds", "closed-form-fails", "certificate-holds", "certificate-fails",
        "sweep-holds", "sweep-fails", "family-holds", "family-fails"])
def test_controls_still_decide(tmp_path, args, expected):
    paths = {"VECTORS": write(tmp_path, VECTORS),
             "FAILS": write(tmp_path, mutate(VECTORS, "query.epsilon", "ln(3/2)"), "f.toml"),
             "SWEEP": write(tmp_path, SWEEP_AR, "sweep.toml"), "CERT": tmp_path / "c.json"}
    assert_verdict(invoke([str(paths.get(a, a)) for a in args]), expected)


def _set(doc: dict, path: list, value) -> dict:
    out = copy.deepcopy(doc)
    node = out
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    return out


@pytest.mark.parametrize("path, value", [
    (["spec", "neighbours"], None),
    (["spec", "neighbours"], ["relation"]),
    (["spec", "neighbours", "relation"], 5),
    (["spec", "neighbours", "relation"], "pairs"),
    (["spec", "neighbours", "distance"], "1"),
    (["spec", "neighbours", "distance"], True),
    (["spec", "neighbours", "inputs"], "x"),
    (["spec", "neighbours", "inputs"], [[0, 0], [0, 0], [1, 1]]),
    (["spec", "neighbours", "inputs"], [[{"a": 1}], [[0]]]),
    (["spec", "neighbours", "inputs"], [["a", "b"], [0, 1]]),
    (["evidence", "dp_relation"], None),
    (["evidence", "dp_relation", "pairs"], [[[0, 0]]]),
    (["evidence", "dp_relation", "pairs"], "all"),
    (["evidence", "dp_relation", "laws"], []),
    (["evidence", "dp_relation", "laws", 0, "law"], [[0, 1]]),
    (["evidence", "dp_relation", "laws", 0, "input"], [9, 9]),
    (["evidence", "dp_relation", "laws", 0, "law"],  # the last mass of 0 alone sums to 1
     [[0, "1/2"], [0, "2/3"], [1, "1/6"], [2, "1/6"]]),
    (["spec", "neighbours"], {"relation": "add-remove-one"}),
    (["results", "dp", "holds"], "yes"),
], ids=lambda v: json.dumps(v)[:40])
def test_forged_relation_certificates_are_never_verified(tmp_path, path, value):
    spec = write(tmp_path, VECTORS)
    cert = tmp_path / "c.json"
    assert_verdict(invoke(["check", str(spec), "--certificate", str(cert)]), 0)
    forged = _set(json.loads(cert.read_text(encoding="utf-8")), path, value)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(forged), encoding="utf-8")
    o = invoke(["verify-certificate", str(bad)])
    assert_contract(o)
    assert o.exit_code == 2 and "rejected:" in o.stderr
