"""The kernel's classical DP (seed 003, Lemma 1) against forged laws and witnesses.

The count of 2 records over {0, 1} fails ε = ln 2 with δ = 1 (neighbours with counts 0 and 1
release point masses at 0 and 1); at δ = 1 the claim holds and the certificate carries the
law of every count vector (3 of them: 0, 1 or 2 ones).
"""

from __future__ import annotations

import copy
import json

import pytest

from verifier.certificates.emit import certify_check
from verifier.kernel.verify import verify_certificate
from verifier.reports.json_out import dumps
from verifier.specs.check import parse_spec

DP = {"data": {"records": 2, "values": [0, 1]}, "mechanism": {"kind": "count"},
      "query": {"epsilon": "ln(2)", "delta": "0", "notions": ["dp"]}}


def certificate(raw: dict, search_dir=None) -> dict:
    _, cert = certify_check(parse_spec(raw, search_dir=search_dir))
    return json.loads(dumps(cert))


@pytest.fixture(scope="module")
def fails() -> dict:
    return certificate(DP)


@pytest.fixture(scope="module")
def holds() -> dict:
    return certificate({**DP, "query": {**DP["query"], "delta": "1"}})


def reason(cert: dict, limit: int | None = None) -> str:
    out = verify_certificate(cert) if limit is None else verify_certificate(cert, limit)
    assert out.status[0] == 2, out.status
    return out.reason or ""


@pytest.mark.parametrize("databases", [
    [[0, 0], [0, 1, 1]],        # another length
    [[0], [1]],                 # not the spec's number of records
    [0, 1],                     # not databases
    [[0, 0], [0, 7]],           # a value outside the spec
    [[0, 0], [1, 1]],           # two records differ
    [[0, 1], [0, 1]],           # none differs
])
def test_a_witness_that_is_not_two_neighbouring_databases(fails, databases):
    forged = copy.deepcopy(fails)
    forged["evidence"]["witnesses"]["dp"]["databases"] = databases
    assert reason(forged) == (f"evidence.witnesses.dp.databases: {databases} are not "
                              f"neighbouring databases")


def test_witness_masses_the_mechanism_does_not_give(fails):
    forged = copy.deepcopy(fails)
    w = forged["evidence"]["witnesses"]["dp"]
    assert w["p_a"] == "1" and w["p_b"] == "0"
    w["p_b"], w["delta"] = "1/4", "1/2"  # 1 − 2·1/4
    assert reason(forged) == (f"evidence.witnesses.dp.p_b: 1/4 in the certificate, the "
                              f"mechanism gives 0 on {w['databases'][1]}")


def test_laws_listed_twice_negative_or_not_summing_to_one(holds):
    laws = holds["evidence"]["dp_laws"]
    assert laws["by"] == "counts" and len(laws["laws"]) == 3
    twice = copy.deepcopy(holds)
    twice["evidence"]["dp_laws"]["laws"][0]["law"] = [[0, "1/2"], [0, "1/2"]]
    assert reason(twice) == ("evidence.dp_laws.laws[0]: an output is listed twice or has a "
                             "negative mass")
    negative = copy.deepcopy(holds)
    negative["evidence"]["dp_laws"]["laws"][0]["law"] = [[0, "3/2"], [1, "-1/2"]]
    assert reason(negative) == ("evidence.dp_laws.laws[0]: an output is listed twice or has "
                                "a negative mass")
    short = copy.deepcopy(holds)
    short["evidence"]["dp_laws"]["laws"][0]["law"] = [[0, "1/2"]]
    assert reason(short) == "evidence.dp_laws.laws[0]: the output law sums to 1/2, not 1"
    zero = copy.deepcopy(holds)
    zero["evidence"]["dp_laws"]["laws"][0]["law"] = [[0, "1"], [1, "0"]]  # a zero is allowed
    assert verify_certificate(zero).status[0] == 0


def test_laws_must_cover_every_count_vector(holds):
    forged = copy.deepcopy(holds)
    del forged["evidence"]["dp_laws"]["laws"][2]
    assert reason(forged) == ("evidence.dp_laws: the laws do not cover exactly every count "
                              "vector of the spec")
    twice = copy.deepcopy(holds)
    twice["evidence"]["dp_laws"]["laws"][2] = copy.deepcopy(twice["evidence"]["dp_laws"]
                                                            ["laws"][1])
    assert reason(twice).endswith(": [1, 1] has two laws")


def test_laws_by_database_for_a_mechanism_that_reads_the_order():
    cert = certificate({**DP, "mechanism": {"kind": "identity"},
                        "query": {**DP["query"], "delta": "1"}})
    assert cert["evidence"]["dp_laws"]["by"] == "databases"
    assert verify_certificate(cert).status[0] == 0
    forged = copy.deepcopy(cert)
    del forged["evidence"]["dp_laws"]["laws"][0]
    assert reason(forged) == ("evidence.dp_laws: the laws do not cover exactly every database "
                              "of the spec")
    relabel = copy.deepcopy(cert)
    relabel["evidence"]["dp_laws"]["by"] = "counts"
    assert reason(relabel).startswith("evidence.dp_laws.by: 'identity' is not a symmetric")


def test_beyond_the_limit_a_failing_claim_rests_on_its_witness(fails):
    # 3 count vectors over a limit of 2: δ is taken from the certificate (status 3), and it
    # must still be a δ
    out = verify_certificate(fails, 2)
    assert out.status[0] == 3
    assert any("δ taken from the certificate (2^2 databases exceed the checker's limit of 2)"
               in n for n in out.recorded)
    forged = copy.deepcopy(fails)
    forged["results"]["dp"]["delta"] = "one"
    assert reason(forged, 2).startswith("results.dp.delta: 'one' is not an exact rational")


def test_user_code_without_laws(tmp_path):
    (tmp_path / "mine.py").write_text("def ones(db):\n    return sum(db)\n")
    raw = {**DP, "mechanism": {"kind": "function", "function": "mine:ones"}}
    cert = certificate(raw, tmp_path)
    assert "dp_laws" not in cert["evidence"]
    out = verify_certificate(cert)
    assert out.status[0] == 3
    assert any("no output laws of user code given" in n for n in out.recorded)
    assert "dp: the witness's masses under user code 'ones' were taken from the certificate" \
        in out.recorded


def test_the_worst_pair_is_kept_wherever_it_comes(tmp_path):
    # a thresholded count of the 0s (T = 2): the first count vector (two 0s) releases 2, the
    # others ⊥, so δ(ln 2) = 1 comes from the first pairs and the last pairs give 0
    cert = certificate({**DP, "mechanism": {"kind": "threshold_count", "counts": [0],
                                            "threshold": 2},
                        "query": {**DP["query"], "delta": "1"}})
    assert cert["results"]["dp"]["delta"] == "1"
    assert verify_certificate(cert).status[0] == 0


def test_the_limit_counts_databases_for_a_mechanism_read_in_order():
    # identity on 3 records: 2^3 = 8 databases (not 4 count vectors), over a limit of 6
    cert = certificate({"data": {"records": 3, "values": [0, 1]},
                        "mechanism": {"kind": "identity"},
                        "query": {"epsilon": "ln(2)", "delta": "1", "notions": ["dp"]}})
    assert verify_certificate(cert, 8).status[0] == 0
    assert verify_certificate(cert, 6).status == (
        3, "unknown: spec: 2^3 databases exceed the checker's limit of 6; a holding dp claim "
           "cannot be re-checked here")


def test_witness_shapes_and_sides(fails):
    forged = copy.deepcopy(fails)
    forged["evidence"]["witnesses"]["dp"]["databases"] = [0, [0, 1]]
    assert reason(forged) == ("evidence.witnesses.dp.databases: [0, [0, 1]] are not "
                              "neighbouring databases")
    side = copy.deepcopy(fails)
    w = side["evidence"]["witnesses"]["dp"]
    w["p_a"], w["delta"] = "1/2", "1/2"  # 1/2 − 2·0
    assert reason(side) == (f"evidence.witnesses.dp.p_a: 1/2 in the certificate, the "
                            f"mechanism gives 1 on {w['databases'][0]}")


def test_messages_of_missing_and_unknown_laws(holds):
    bare = copy.deepcopy(holds)
    del bare["evidence"]["dp_laws"]
    assert reason(bare) == "evidence.dp_laws: missing for a holding claim"
    odd = copy.deepcopy(holds)
    odd["evidence"]["dp_laws"]["by"] = "rows"
    assert reason(odd) == "evidence.dp_laws.by: 'rows' is neither 'counts' nor 'databases'"


def test_user_code_laws_are_recorded(tmp_path):
    (tmp_path / "mine.py").write_text("def ones(db):\n    return sum(db)\n")
    raw = {**DP, "mechanism": {"kind": "function", "function": "mine:ones", "symmetric": True},
           "query": {**DP["query"], "delta": "1"}}
    cert = certificate(raw, tmp_path)
    assert cert["evidence"]["dp_laws"]["by"] == "counts"  # declared symmetric
    out = verify_certificate(cert)
    assert out.status[0] == 3
    assert ("dp: the output laws of user code 'ones' were taken from the certificate, not "
            "re-derived") in out.recorded
