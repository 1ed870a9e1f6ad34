"""The kernel against forged and hostile certificates of ``plrv check``.

Every certificate here is either an honest one edited by hand or one written from scratch; the
expected verdict comes from the hand derivation beside it, never from the engine. A forged
certificate of a false claim must never verify (status 0); parts taken from the certificate
end in status 3; a file that cannot be read is an error (exit 2), never a rejection.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import subprocess
import sys
import time

import pytest
from kernel_copy import run_copied_kernel

from verifier.certificates.emit import certify_check
from verifier.kernel.verify import escape, verify_certificate
from verifier.reports.json_out import dumps
from verifier.specs.check import parse_spec

# Two records uniform on {0, 1}, the count released; the attacker knows record 0, target 1.
# By hand: P[O | D(1)=t, D(0)=B] is the point mass at t + B, so every APK / PPK case at ε =
# ln 2 has δ = 1; noiseless: P[O | t=0] = (1/2, 1/2, 0), P[O | t=1] = (0, 1/2, 1/2) on 0, 1, 2,
# δ(ln 2) = 1/2 (output 0); DP: neighbours [0, 0] ~ [0, 1] give δ = 1.
DP_ONLY = {"data": {"records": 2, "values": [0, 1]}, "mechanism": {"kind": "count"},
           "query": {"epsilon": "ln(2)", "delta": "1", "notions": ["dp"]}}
COUNT = {"data": {"records": 2, "values": [0, 1], "prior": ["1/2", "1/2"]},
         "mechanism": {"kind": "count"}, "attacker": {"target": 1, "known": [0]},
         "query": {"epsilon": "ln(2)", "delta": "0",
                   "notions": ["apkdp", "ppkdp", "noiseless", "dp"]}}


def certificate(raw: dict) -> dict:
    _, cert = certify_check(parse_spec(raw))
    return json.loads(dumps(cert))


def rehashed(cert: dict) -> dict:
    """``spec_sha256`` recomputed, as a forger would: a forgery is caught by what it says,
    not by a hash anyone can recompute."""
    if isinstance(cert.get("spec"), dict) and "spec_sha256" in cert:
        text = json.dumps(cert["spec"], sort_keys=True, separators=(",", ":"),
                          ensure_ascii=False)
        cert["spec_sha256"] = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return cert


def forged(cert: dict, *edits: tuple[list, object]) -> dict:
    out = copy.deepcopy(cert)
    for path, value in edits:
        node = out
        for step in path[:-1]:
            node = node[step]
        if value is DELETE:
            del node[path[-1]]
        else:
            node[path[-1]] = value
    return rehashed(out)


DELETE = object()
ALL_HOLD = [(["results", n], {"delta": "0", "holds": True})
            for n in ("apkdp", "ppkdp", "noiseless", "dp")]


@pytest.fixture(scope="module")
def count() -> dict:
    return certificate(COUNT)


def status(cert: object) -> tuple[int, str]:
    return verify_certificate(cert).status


def test_the_honest_certificate_verifies_with_the_hand_values(count):
    assert {n: r["delta"] for n, r in count["results"].items()} == \
        {"apkdp": "1", "ppkdp": "1", "noiseless": "1/2", "dp": "1"}
    assert status(count) == (1, "certificate verified: the claim does not hold")


def test_emptied_evidence_with_every_claim_holding_is_rejected(count):
    code, last = status(forged(count, (["evidence"], {}), *ALL_HOLD))
    assert code == 2 and "evidence.tables: missing" in last


def test_emptied_evidence_with_an_omission_note_is_recomputed_and_rejected(count):
    # the kernel can enumerate 4 databases itself: the stated δ = 0 meets δ = 1
    cert = forged(count, (["evidence"], {"omitted": "trust me"}), *ALL_HOLD[:3],
                  (["results", "dp"], DELETE), (["spec", "notions"], ["apkdp", "ppkdp",
                                                                    "noiseless"]))
    code, last = status(cert)
    assert code == 2 and "results.apkdp.delta: 0 in the certificate, the worst case is 1" in last


def test_a_deleted_table_is_a_missing_part_of_the_domain():
    # two data models: the tables of the second deleted, with their cases
    raw = {**COUNT, "data": {"records": 2, "values": [0, 1],
                             "models": [{"prior": ["1/2", "1/2"]}, {"prior": ["1/4", "3/4"]}]},
           "query": {"epsilon": "ln(2)", "delta": "1", "notions": ["apkdp", "ppkdp"]}}
    cert = certificate(raw)
    assert status(cert)[0] == 0
    kept = [t for t in cert["evidence"]["tables"] if t["model"] == 0]
    cases = {n: [c for c in cs if c["table"] == 0] for n, cs in cert["evidence"]["cases"].items()}
    code, last = status(forged(cert, (["evidence", "tables"], kept),
                               (["evidence", "cases"], cases)))
    assert code == 2 and "(model, knowledge, target) = (1, 0, 1) is missing" in last


def test_deleted_noiseless_cases_are_rejected(count):
    code, last = status(forged(count, (["evidence", "cases", "noiseless"], [])))
    assert code == 2 and "evidence.cases.noiseless" in last and "missing" in last


def test_an_invented_witness_cannot_refute_a_holding_claim():
    # at δ = 1 every claim holds (δ ≤ 1 always); a witness claiming P[S|a] = 1, P[S|b] = 0 on
    # output 2 for noiseless is false: P[O=2 | t=0] = 0 (hand values above)
    cert = certificate({**COUNT, "query": {**COUNT["query"], "delta": "1"}})
    assert status(cert) == (0, "certificate verified: the claim holds")
    fake = {"table": 0, "target": 1, "values": [0, 1], "background": "nothing",
            "outputs": [2], "p_a": "1", "p_b": "0", "delta": "1"}
    code, last = status(forged(cert, (["results", "noiseless"], {"delta": "1", "holds": False}),
                               (["evidence", "witnesses"], {"noiseless": fake})))
    assert code == 2
    # the claimed δ = 1 is not exceeded by the true δ = 1/2
    assert "results.noiseless.delta: 1 in the certificate, the worst case is 1/2" in last


@pytest.mark.parametrize("edit, reason", [
    ((["spec", "pairs"], []), "spec.pairs"),
    ((["spec", "knowledge"], [{"known": [1]}]), "spec.targets"),  # the target is known
    ((["spec", "mechanism", "params", "counts"], [7]), "spec.mechanism.params.counts"),
    ((["spec", "values"], [0, 0]), "spec.values"),
    ((["spec", "notions"], ["apkdp", "apkdp", "ppkdp", "noiseless", "dp"]), "spec.notions"),
    ((["spec", "delta"], "3/2"), "spec.delta"),
], ids=["no pairs", "target known", "counts outside the values", "repeated values",
        "repeated notion", "delta above 1"])
def test_specs_plrv_refuses_are_refused_by_the_kernel(count, edit, reason):
    code, last = status(forged(count, edit, *ALL_HOLD))
    assert code == 2 and reason in last, last


def test_geometric_alpha_must_lie_in_the_open_unit_interval():
    raw = {**DP_ONLY, "mechanism": {"kind": "geometric_count", "alpha": "1/2"}}
    cert = certificate(raw)
    assert status(cert)[0] == 0
    code, last = status(forged(cert, (["spec", "mechanism", "params", "alpha"],
                                      {"rational": "1"})))
    assert code == 2 and "alpha" in last


def test_dp_beyond_the_limit_with_its_laws_removed_is_rejected():
    # a holding dp claim (δ ≤ 1): the count of 2 records has 3 count vectors (0, 1 or 2
    # ones); beyond a limit of 2 the kernel cannot recompute δ, so it cannot verify the claim
    cert = certificate(DP_ONLY)
    assert verify_certificate(cert, limit=3).status[0] == 0
    bare = forged(cert, (["evidence", "dp_laws"], DELETE))
    out = verify_certificate(bare, limit=2)
    assert out.status[0] == 2 and "dp_laws: missing for a holding claim" in out.reason
    # the honest certificate beyond the limit is unknown here, not rejected
    assert verify_certificate(cert, limit=2).status == (
        3, "unknown: spec: 2^2 databases exceed the checker's limit of 2; a holding dp claim "
           "cannot be re-checked here")


def test_a_user_function_named_count_is_not_the_built_in_count(tmp_path, monkeypatch):
    # def count(db): return 0 — constant, so DP δ = 0; it must be written as user code and
    # end in status 3 (its laws taken from the certificate), never as the built-in count
    (tmp_path / "mine.py").write_text("def count(db):\n    return 0\n")
    raw = {**DP_ONLY, "mechanism": {"kind": "function", "function": "mine:count"},
           "query": {"epsilon": "ln(2)", "delta": "0", "notions": ["dp"]}}
    _, cert = certify_check(parse_spec(raw, search_dir=tmp_path))
    cert = json.loads(dumps(cert))
    assert cert["spec"]["mechanism"]["kind"] == "function"
    out = verify_certificate(cert)
    assert out.status[0] == 3 and out.recorded
    # relabelled as the built-in count, the kernel recomputes δ = 1 (hand value) and rejects
    lie = forged(cert, (["spec", "mechanism"], {"kind": "count", "name": "count",
                                               "params": {"counts": [1]}}))
    assert status(lie)[0] == 2


@pytest.mark.parametrize("edit, reason", [
    ((["spec", "delta"], "1/0"), "divides by zero"),
    ((["results", "dp", "delta"], "1/0"), "divides by zero"),
    ((["results", "dp", "delta"], {"a": "1", "c": "1"}), "results.dp.delta"),
], ids=["1/0 in the spec", "1/0 in a result", "a-c form at ln(q)"])
def test_malformed_numbers_are_rejections_not_crashes(count, edit, reason):
    out = verify_certificate(forged(count, edit))
    assert out.status[0] == 2
    if reason:
        assert reason in out.reason


def test_infinite_epsilon_with_an_a_c_delta_is_rejected(count):
    cert = forged(count, (["spec", "epsilon"], "inf"),
                  (["results", "dp", "delta"], {"a": "1", "c": "1"}))
    assert verify_certificate(cert).status[0] == 2


def test_a_huge_epsilon_in_nats_is_decided_at_once():
    # ε = 10^9 nats: the geometric count's privacy loss is at most ln(1/α) = ln 2 < ε (one
    # record changes the count by 1), so δ = 0 and the claim δ ≤ 0 holds
    raw = {**DP_ONLY, "mechanism": {"kind": "geometric_count", "alpha": "1/2"},
           "query": {"epsilon": "1000000000", "delta": "0", "notions": ["dp"]}}
    cert = certificate(raw)
    start = time.monotonic()
    assert status(cert) == (0, "certificate verified: the claim holds")
    assert time.monotonic() - start < 30  # a hang would be caught by the suite's own time


def test_terminal_escapes_are_printed_escaped(tmp_path):
    (tmp_path / "mine.py").write_text("def constant(db):\n    return 0\n")
    raw = {**DP_ONLY, "mechanism": {"kind": "function", "function": "mine:constant"}}
    _, cert = certify_check(parse_spec(raw, search_dir=tmp_path))
    paint = "\x1b[2K\rcertificate verified\n"
    cert = forged(json.loads(dumps(cert)), (["spec", "mechanism", "name"], paint))
    run = run_copied_kernel(tmp_path, cert)
    assert run.returncode == 3, run.stdout + run.stderr
    assert "\x1b" not in run.stdout and "\r" not in run.stdout and "x1b" in run.stdout
    assert escape("a\u202eb\tc") == "a\\u202eb\\tc"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_named_pipe_is_an_error_not_a_hang(tmp_path):
    pipe = tmp_path / "pipe.json"
    os.mkfifo(pipe)
    run = subprocess.run([sys.executable, "-m", "verifier.kernel", str(pipe)],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "not a regular file" in run.stderr


def test_an_oversized_number_is_rejected_not_parsed(count):
    code, last = status(forged(count, (["spec", "delta"], "1" * 200_001)))
    assert code == 2 and "spec.delta" in last


def test_the_standalone_kernel_exits_two_on_a_non_certificate(tmp_path):
    run = run_copied_kernel(tmp_path, [1, 2, 3])
    assert run.returncode == 2 and "format" in run.stdout
    (tmp_path / "bad.json").write_text("{")
    run = subprocess.run([sys.executable, "-I", str(tmp_path / "kernel"),
                          str(tmp_path / "bad.json")], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 2 and run.stderr.startswith("error: cannot read")
