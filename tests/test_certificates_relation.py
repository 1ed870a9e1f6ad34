"""Certificates of DP under a neighbouring relation ([input], [neighbours]).

Expected values are derived by hand beside each test. The clamped geometric count with
α = 1/2 on n records (verifier.model.kernels) has at count c the law
P[0] = α^c/(1+α), P[j] = (1−α)/(1+α)·α^|j−c| (0 < j < n), P[n] = α^(n−c)/(1+α); for n = 2:
c = 0: (2/3, 1/6, 1/6), c = 1: (1/3, 1/3, 1/3), c = 2: (1/6, 1/6, 2/3).
"""

import copy
import json
import textwrap
from pathlib import Path

import pytest
from kernel_copy import run_copied_kernel
from typer.testing import CliRunner

from verifier.certificates.emit import certify_check
from verifier.cli import app
from verifier.kernel.verify import verify_certificate
from verifier.reports.json_out import dumps
from verifier.specs.check import parse_spec

SCHEMA = Path(__file__).resolve().parent.parent / "schemas" / "certificate.v1.json"

GEOMETRIC = {"kind": "geometric_count", "alpha": "1/2"}
VECTORS = {"input": {"coordinates": 2, "range": [0, 1]}, "mechanism": GEOMETRIC}


def certificate(raw: dict, search_dir: Path | None = None) -> dict:
    _, cert = certify_check(parse_spec(raw, search_dir=search_dir))
    return json.loads(dumps(cert))


def query(epsilon: str, delta: str = "0") -> dict:
    return {"query": {"epsilon": epsilon, "delta": delta, "notions": ["dp"]}}


@pytest.fixture(scope="module")
def l1() -> dict:
    # l1 distance 1 on {0, 1}^2: the four edges of the square, 8 ordered pairs; the count
    # moves by 1, so the ratios are α^{±1} and ε = ln 2 holds with δ = 0
    return certificate({**VECTORS, "neighbours": {"relation": "l1"}, **query("ln(2)")})


def _set(cert: dict, path: list, value) -> dict:
    out = copy.deepcopy(cert)
    node = out
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    return out


def test_l1_certificate_verifies_with_re_derived_pairs(l1):
    assert l1["spec"]["neighbours"] == {"relation": "l1", "distance": 1,
                                        "inputs": [[0, 0], [0, 1], [1, 0], [1, 1]]}
    assert l1["results"]["dp"] == {"delta": "0", "holds": True}
    assert len(l1["evidence"]["dp_relation"]["pairs"]) == 8
    out = verify_certificate(l1)
    assert out.verified, out.reason
    assert "dp: re-derived the 8 ordered pairs of l1 (distance 1) over 4 inputs: they equal " \
           "the certificate's" in out.notes
    assert "dp: re-derived the output laws of 4 inputs with the checker's own mechanism" \
        in out.notes


def test_a_failing_claim_carries_its_pair():
    # at ε = ln(3/2): count 0 against count 1, δ = (2/3 − 3/2·1/3) on output 0 = 1/6
    cert = certificate({**VECTORS, "neighbours": {"relation": "l1"}, **query("ln(3/2)")})
    assert cert["results"]["dp"] == {"delta": "1/6", "holds": False}
    w = cert["evidence"]["witnesses"]["dp"]
    assert w["delta"] == "1/6"
    assert verify_certificate(cert).verified
    moved = _set(cert, ["evidence", "witnesses", "dp", "inputs"], [[0, 0], [1, 1]])
    out = verify_certificate(moved)
    assert not out.verified and "is not one of the listed pairs" in out.reason


def test_add_remove_one_by_hand():
    # one record against none: M(()) = {0: 1}; M((1,)) = {0: 1/3, 1: 2/3} puts 2/3 on an
    # output the empty database never gives, so δ(ln 2) = 2/3 (clamping to 0..n leaks n);
    # 4 ordered pairs: (0,) ~ (), (1,) ~ (), both directions
    cert = certificate({"data": {"records": 1, "values": [0, 1]}, "mechanism": GEOMETRIC,
                        "neighbours": {"relation": "add-remove-one"}, **query("ln(2)")})
    assert cert["results"]["dp"] == {"delta": "2/3", "holds": False}
    assert sorted(map(json.dumps, cert["evidence"]["dp_relation"]["pairs"])) == \
        sorted(map(json.dumps, [[[0], []], [[], [0]], [[1], []], [[], [1]]]))
    w = cert["evidence"]["witnesses"]["dp"]
    assert w["inputs"] == [[1], []] and w["outputs"] == [1] and w["delta"] == "2/3"
    out = verify_certificate(cert)
    assert out.verified, out.reason
    assert "dp: re-derived the 4 ordered pairs of add-remove-one over the databases of 1 " \
           "record over 2 values: they equal the certificate's" in out.notes  # not "1 records"


def test_explicit_replace_one_and_pairs():
    # randomized response, truth 3/4, 2 records: δ(ln 2) = 1/4 (tests/test_certificates.py);
    # replace-one on {0, 1}^2 has 4 databases × 2 records = 8 ordered pairs
    rr = certificate({"data": {"records": 2, "values": [0, 1]},
                      "mechanism": {"kind": "randomized_response", "truth": "3/4"},
                      "neighbours": {"relation": "replace-one"}, **query("ln(2)", "1/4")})
    assert rr["results"]["dp"] == {"delta": "1/4", "holds": True}
    assert len(rr["evidence"]["dp_relation"]["pairs"]) == 8
    assert verify_certificate(rr).verified
    # pairs [0,0] ~ [1,1]: counts 0 and 2, δ(ln 2) = 2/3 − 2·1/6 = 1/3 on output 0
    pairs = certificate({**VECTORS, "neighbours": {"relation": "pairs",
                                                   "pairs": [[[0, 0], [1, 1]]]},
                         **query("ln(2)")})
    assert pairs["results"]["dp"] == {"delta": "1/3", "holds": False}
    assert pairs["evidence"]["dp_relation"]["pairs"] == [[[0, 0], [1, 1]], [[1, 1], [0, 0]]]
    assert verify_certificate(pairs).verified


@pytest.mark.parametrize("path, value, reason", [
    (["evidence", "dp_relation", "pairs", 0], [[0, 0], [1, 1]],
     "the certificate lists [0, 0] → [1, 1], which is not a pair of relation 'l1' "
     "(re-derived: l1 (distance 1) over 4 inputs)"),
    (["spec", "neighbours", "relation"], "linf", "omits the pair"),
    (["spec", "neighbours", "relation"], "replace-one",
     "relation 'replace-one' is defined by the databases of values and records"),
    (["spec", "neighbours", "relation"], "near", "'near' is not a relation this checker knows"),
    (["spec", "neighbours", "relation"], "m:f", "relation 'm:f' is defined by ['inputs']"),
    (["spec", "neighbours", "distance"], 2, "omits the pair"),
    (["results", "dp", "holds"], False, "results.dp.holds: False"),
    (["results", "dp", "delta"], "1/9", "results.dp.delta"),
], ids=["changed-pair", "relation-linf", "relation-replace-one", "relation-unknown",
        "relation-predicate", "distance", "verdict", "delta"])
def test_tampering_is_rejected(l1, path, value, reason):
    out = verify_certificate(_set(l1, path, value))
    assert not out.verified
    assert reason in out.reason


def test_a_dropped_pair_is_rejected(l1):
    pairs = l1["evidence"]["dp_relation"]["pairs"]
    out = verify_certificate(_set(l1, ["evidence", "dp_relation", "pairs"], pairs[1:]))
    assert not out.verified
    assert out.reason.startswith("evidence.dp_relation.pairs: the certificate omits the pair")


def test_altered_probabilities_are_rejected(l1):
    law = l1["evidence"]["dp_relation"]["laws"][0]["law"]
    assert law == [[0, "2/3"], [1, "1/6"], [2, "1/6"]]  # the input [0, 0]: count 0 (by hand)
    changed = [[0, "1/2"], [1, "1/6"], [2, "1/6"]]
    out = verify_certificate(_set(l1, ["evidence", "dp_relation", "laws", 0, "law"], changed))
    assert not out.verified and "laws[0] (input [0, 0]): the output law sums to 5/6" in out.reason
    swapped = [[0, "1/6"], [1, "1/6"], [2, "2/3"]]  # still a law: the mechanism catches it
    out = verify_certificate(_set(l1, ["evidence", "dp_relation", "laws", 0, "law"], swapped))
    assert not out.verified
    assert "laws[0]: the law of input [0, 0] differs from the mechanism's" in out.reason


ALGOS = """
from verifier.model.noise import geometric

def noisy_sum(x):
    return geometric(sum(x), "1/2", 0, 2)

def same_first(x, y):
    return x[0] == y[0]
"""


@pytest.fixture()
def predicate(tmp_path) -> dict:
    # x ~ y iff x[0] = y[0]: (0,0)~(0,1) and (1,0)~(1,1), 4 ordered pairs; the sum moves by 1
    # and its noise is geometric with α = 1/2 clamped to 0..2: ratios 2^{±1}, δ(ln 2) = 0
    (tmp_path / "algos_cert.py").write_text(ALGOS)
    raw = {"input": {"coordinates": 2, "range": [0, 1]},
           "neighbours": {"relation": "algos_cert:same_first"},
           "mechanism": {"kind": "function", "function": "algos_cert:noisy_sum"},
           **query("ln(2)")}
    return certificate(raw, tmp_path)


def test_predicate_pairs_are_taken_from_the_certificate_and_it_says_so(predicate):
    assert predicate["results"]["dp"] == {"delta": "0", "holds": True}
    assert len(predicate["evidence"]["dp_relation"]["pairs"]) == 4
    out = verify_certificate(predicate)
    assert out.verified and out.status[0] == 3, out.reason  # pairs and laws: user code
    assert ("dp: the 4 ordered pairs were taken from the certificate, not re-derived "
            "(relation 'algos_cert:same_first' is user code, which this checker does not "
            "run)") in out.notes
    assert not any("re-derived the" in n for n in out.notes)


def test_predicate_certificates_still_check_delta(predicate):
    # give [0, 1] (sum 1) the law of sum 2, (1/6, 1/6, 2/3): its pair with [0, 0] (sum 0,
    # law (2/3, 1/6, 1/6)) then has δ(ln 2) = 2/3 − 2·1/6 = 1/3 on output 0, not the stated 0
    laws = predicate["evidence"]["dp_relation"]["laws"]
    j = next(k for k, e in enumerate(laws) if e["input"] == [0, 1])
    forged = _set(predicate, ["evidence", "dp_relation", "laws", j, "law"],
                  [[0, "1/6"], [1, "1/6"], [2, "2/3"]])
    out = verify_certificate(forged)
    assert not out.verified
    assert out.reason == "results.dp.delta: 0 in the certificate, the worst case is 1/3"
    looped = _set(predicate, ["evidence", "dp_relation", "pairs", 0], [[0, 0], [0, 0]])
    assert "is not a pair of two inputs with laws" in verify_certificate(looped).reason


def test_relation_certificate_runs_standalone_and_matches_the_schema(tmp_path, l1):
    from jsonschema import Draft202012Validator

    Draft202012Validator(json.loads(SCHEMA.read_text(encoding="utf-8"))).validate(l1)
    run = run_copied_kernel(tmp_path, l1)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip().endswith("certificate verified: the claim holds")


def test_cli_certificate_for_a_relation(tmp_path):
    spec = tmp_path / "spec.toml"
    spec.write_text(textwrap.dedent("""
        [input]
        coordinates = 2
        range = [0, 1]
        [neighbours]
        relation = "linf"
        [mechanism]
        kind = "geometric_count"
        alpha = "1/2"
        [query]
        epsilon = "ln(2)"
        notions = ["dp"]
    """))
    cert = tmp_path / "c.json"
    runner = CliRunner()
    # linf 1 joins [0, 0] and [1, 1]: counts 0 and 2, δ(ln 2) = 1/3 (as for pairs above)
    assert runner.invoke(app, ["check", str(spec), "--certificate", str(cert)]).exit_code == 1
    assert json.loads(cert.read_text())["results"]["dp"]["delta"] == "1/3"
    out = runner.invoke(app, ["verify-certificate", str(cert)])
    assert out.exit_code == 1 and "12 ordered pairs of linf (distance 1)" in out.stdout
    bad = tmp_path / "bad.json"
    tampered = json.loads(cert.read_text())
    tampered["spec"]["neighbours"]["relation"] = "l1"
    bad.write_text(json.dumps(tampered))
    out = runner.invoke(app, ["verify-certificate", str(bad)])
    assert out.exit_code == 2 and "rejected: evidence.dp_relation.pairs" in out.stderr


def test_large_failing_claims_keep_only_the_pair_that_breaks_them():
    from verifier.core.errors import BudgetExceeded

    raw = {**VECTORS, "neighbours": {"relation": "l1"}, **query("ln(3/2)")}
    _, cert = certify_check(parse_spec(raw), max_cells=5)
    cert = json.loads(dumps(cert))
    assert "dp_relation" not in cert["evidence"] and "omitted" in cert["evidence"]
    out = verify_certificate(cert)
    assert out.status[0] == 1, out.reason  # small: the kernel derives the pairs itself
    assert any("recomputed δ over them with the checker's own mechanism" in n
               for n in out.notes)
    far = _set(cert, ["evidence", "witnesses", "dp", "inputs"], [[0, 0], [1, 1]])
    assert "are not neighbours" in verify_certificate(far).reason  # l1 distance 2
    with pytest.raises(BudgetExceeded, match="more than 5 cells"):
        certify_check(parse_spec({**raw, **query("ln(2)")}), max_cells=5)  # holds: needs all
