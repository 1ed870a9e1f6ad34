"""Certificates of ``plrv reducible`` and ``plrv prove``: re-checked, tampering caught.

Expected values are derived by hand (stated beside them), never taken from the engine.
"""

import copy
import json
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

from verifier.cli import app
from verifier.kernel.verify import verify_certificate

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
runner = CliRunner()

# A thresholded tally of 3 records with P[yes] = p, threshold 2, the attacker knows record 0
# and targets record 2 (record 1 is X ~ Bernoulli(p)). By hand, at ε = ln 2:
# knowing record 0 = yes, a no-voter's tally is ⊥ (1 − p) where a yes-voter's never is: APK ≥
# 1 − p; a yes-voter's tally is 3 (p) where a no-voter's never is: APK ≥ p; so APK = max(p, 1−p).
# PPK mixes over record 0: pair (yes, no) gives p·p + (1−p)·p = p; pair (no, yes) gives
# p·(1−p) + (1−p)·max(0, 2p − 1). So APK ≤ PPK fails for every p < 1/2.
THRESHOLD = """
[parameters]
p = { gt = "0", lt = "1" }
[data]
records = 3
values = [0, 1]
prior = ["1 - p", "p"]
[mechanism]
kind = "threshold_count"
counts = [1]
threshold = 2
[attacker]
target = 2
known = [0]
[query]
epsilon = "ln(2)"
delta = "1/10"
notions = ["apkdp", "ppkdp"]
"""


def _run(args: list[str], path: Path, code: int) -> dict:
    out = runner.invoke(app, [*args, "--certificate", str(path)])
    assert out.exit_code == code, out.output
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def tally(tmp_path_factory) -> dict:
    path = tmp_path_factory.mktemp("cert") / "tally.json"
    return _run(["reducible", str(EXAMPLES / "referendum_tally.toml")], path, 0)


@pytest.fixture(scope="module")
def counterexample(tmp_path_factory) -> dict:
    d = tmp_path_factory.mktemp("cert")
    (d / "spec.toml").write_text(THRESHOLD)
    return _run(["prove", str(d / "spec.toml"), "--claim", "apk-le-ppk"], d / "p.json", 1)


def test_a_reducible_tally_verifies_by_re_enumeration(tally):
    out = verify_certificate(tally)
    assert out.verified, out.reason
    assert tally["independently_checkable"] is True
    assert any("re-derived by enumeration" in n for n in out.notes)
    # By hand (thesis Proposition 26): knowing k more yes votes shifts the tally by k, so the
    # bijection from 4 known yes votes to 3 known yes votes is c ↦ c − 1.
    b = tally["evidence"]["tables"][0]["bijections"][0]
    assert b["source"]["known_counts"] == [0, 4] and b["target"]["known_counts"] == [1, 3]
    assert all(o - p == 1 for o, p in b["mapping"])


def test_a_wrong_bijection_or_profile_is_rejected(tally):
    bad = copy.deepcopy(tally)
    m = bad["evidence"]["tables"][0]["bijections"][0]["mapping"]
    m[0][1], m[1][1] = m[1][1], m[0][1]
    out = verify_certificate(bad)
    assert not out.verified and "φ(4) = 4 but the profiles differ" in out.reason, out.reason
    bad = copy.deepcopy(tally)
    bad["evidence"]["tables"][0]["backgrounds"][0]["profiles"][0][1][0] = "1/4"
    out = verify_certificate(bad)
    assert not out.verified and "sums to 9/8, not 1" in out.reason, out.reason


def test_a_non_reducible_witness_verifies_and_cannot_be_forged(tmp_path):
    cert = _run(["reducible", str(EXAMPLES / "threshold_partial.toml")], tmp_path / "r.json", 1)
    out = verify_certificate(cert)
    assert out.verified, out.reason
    assert cert["results"]["reducible"] is False
    bad = copy.deepcopy(cert)
    w = bad["evidence"]["witness"]
    w["profiles"][1] = w["profiles"][0]
    out = verify_certificate(bad)
    assert not out.verified and "evidence.witness: the profile of output" in out.reason


def test_symbolic_bijections_are_marked_not_independently_checkable(tmp_path):
    cert = _run(["reducible", str(EXAMPLES / "tally_symbolic.toml")], tmp_path / "r.json", 0)
    assert cert["independently_checkable"] is False
    out = verify_certificate(cert)
    assert out.verified and "not independently checkable" in out.notes[0]
    # consistent, but nothing the verdict rests on was re-checked: not "verified"
    assert out.recorded == [out.notes[0]] and out.status[0] == 3


def test_a_counterexample_is_re_derived(counterexample):
    out = verify_certificate(counterexample)
    assert out.verified, out.reason
    (inst,) = counterexample["instances"]
    assert inst["independently_checkable"] is True and inst["status"] == "counterexample"
    p = Fraction(inst["point"]["p"])
    ppk = max(p, p * (1 - p) + (1 - p) * max(0, 2 * p - 1))
    assert Fraction(inst["deltas"]["apk"]) == max(p, 1 - p)
    assert Fraction(inst["deltas"]["ppk"]) == ppk


@pytest.mark.parametrize("change,reason", [
    (lambda c: c["instances"][0]["deltas"].update(apk="1/8"),
     "instances[0] (target 2, records [0]).deltas.apk: 1/8 but the check certificate gives"),
    (lambda c: c["instances"][0]["check"]["results"]["apkdp"].update(delta="1/8"),
     "instances[0] (target 2, records [0]).check: results.apkdp.delta: 1/8"),
    (lambda c: c["claim"].update(text="apk >= ppk", tree=[">=", ["delta", "apk"],
                                                          ["delta", "ppk"]]),
     "instances[0] (target 2, records [0]): the claim 'apk >= ppk' holds"),
    (lambda c: c.update(status="proved"), "status: 'proved' but the instances give"),
], ids=["delta", "nested-table", "claim", "status"])
def test_a_tampered_counterexample_is_rejected(counterexample, change, reason):
    bad = copy.deepcopy(counterexample)
    change(bad)
    out = verify_certificate(bad)
    assert not out.verified and out.reason.startswith(reason), out.reason


def test_a_z3_proof_is_recorded_with_the_solver(tmp_path):
    import z3

    cert = _run(["prove", str(EXAMPLES / "tally_symbolic.toml"), "--claim", "lemma5"],
                tmp_path / "p.json", 0)
    (inst,) = cert["instances"]
    assert inst["independently_checkable"] is False
    assert inst["solver"] == {"name": "z3", "version": z3.get_version_string()}
    out = verify_certificate(cert)
    assert out.verified and "not independently checkable" in out.notes[-1]
    assert out.recorded == [out.notes[-1]] and out.status[0] == 3
    path = tmp_path / "p.json"
    result = runner.invoke(app, ["verify-certificate", str(path)])
    assert result.exit_code == 3, result.output
    # the last line that is not a continuation of a wrapped one
    last = [x for x in result.output.strip().splitlines() if not x.startswith(" ")][-1]
    assert last.startswith("not verified: consistent")


def test_every_known_set_counterexamples_verify(tmp_path):
    (tmp_path / "spec.toml").write_text(THRESHOLD)
    cert = _run(["prove", str(tmp_path / "spec.toml"), "--claim", "apk-le-ppk",
                 "--every-known-set"], tmp_path / "p.json", 1)
    out = verify_certificate(cert)
    assert out.verified, out.reason
    # knowing nothing, APK = PPK (Definition 6 with no background is Definition 7): proved;
    # knowing record 0 or 1 or both, the threshold leaks as above: three counterexamples
    assert [i["status"] for i in cert["instances"]] == ["proved"] + ["counterexample"] * 3
    assert sum("counterexample verified" in n for n in out.notes) == 3
    # the refutation is re-checked; the recorded proof of the first instance does not matter
    assert out.recorded == [] and out.status == (1, "certificate verified: the claim does not hold")


def test_certificates_match_the_published_schema(tally, counterexample):
    from jsonschema import Draft202012Validator

    path = EXAMPLES.parent / "schemas" / "certificate.v1.json"
    v = Draft202012Validator(json.loads(path.read_text(encoding="utf-8")))
    v.validate(tally)
    v.validate(counterexample)
    bad = copy.deepcopy(counterexample)
    bad["instances"][0]["independently_checkable"] = "yes"
    assert not v.is_valid(bad)


def test_a_dp_counterexample_of_a_spec_with_an_attacker_verifies(tmp_path):
    """A claim on dp alone, in a spec that also names apkdp and an attacker: the witness's
    check certificate carries dp's defaults (no model, every target, no knowledge), which is
    what the kernel requires of a dp-only certificate. At t = 3/4 on two records, dp's δ at
    ε = ln 2 is 3/4 − 2·(1/4) = 1/4 > 1/10: a counterexample, re-derived by the kernel."""
    spec = tmp_path / "s.toml"
    spec.write_text('[parameters]\nt = { gt = "1/2", lt = "1" }\n[data]\nrecords = 2\n'
                    'values = [0, 1]\nprior = ["1/2", "1/2"]\n[mechanism]\n'
                    'kind = "randomized_response"\ntruth = "t"\n[attacker]\ntarget = 0\n'
                    'known = []\n[query]\nepsilon = "ln(2)"\ndelta = "1/10"\n'
                    'notions = ["dp", "apkdp"]\n')
    cert = tmp_path / "c.json"
    out = runner.invoke(app, ["prove", str(spec), "--claim", "dp <= 1/10", "--certificate",
                              str(cert)])
    assert out.exit_code == 1, out.output
    checked = runner.invoke(app, ["verify-certificate", str(cert)])
    assert checked.exit_code == 1, checked.output
    assert "certificate verified: the claim does not hold" in checked.output
