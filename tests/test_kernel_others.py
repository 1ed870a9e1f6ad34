"""The kernel against forged certificates of ``pso``, ``guess``, ``reducible`` and ``prove``.

Hand derivations stand beside every expected value; a forged certificate of a false claim
must never verify (status 0), and parts taken from the certificate end in status 3.
"""

from __future__ import annotations

import copy
import json
from fractions import Fraction

import pytest
from test_certificates_pso_guess import PSO, _guess, _pso
from test_certificates_symbolic import EXAMPLES, THRESHOLD, _run

from verifier.kernel.claim import claim_tree
from verifier.kernel.verify import verify_certificate


def status(cert: object) -> tuple[int, str]:
    return verify_certificate(cert).status


# ------------------------------------------------------------------------------ pso

def test_pso_laws_are_re_derived_for_the_built_in_count(tmp_path):
    cert = _pso(tmp_path, 1)
    assert cert["spec"]["mechanism"]["kind"] == "count"
    assert cert["spec"]["mechanism"]["params"] == {"predicate": [0, 1]}  # x < 2
    assert status(cert) == (1, "certificate verified: the claim does not hold")
    # By hand (see PSO): success 1/2 > 3/8. Send every dataset's count to an output on which
    # the optimal adversary's singleton isolates less often, and shrink the success: the
    # forged laws are not the count's, whatever the totals say.
    forged = copy.deepcopy(cert)
    for d in forged["evidence"]["datasets"]:
        d["law"] = [[1, "1"]]
    code, last = status(forged)
    assert code == 2 and "differs from the count mechanism's" in last


def test_pso_with_a_forged_kind_is_rejected(tmp_path):
    cert = _pso(tmp_path, 1)
    forged = copy.deepcopy(cert)
    forged["spec"]["mechanism"]["params"] = {"predicate": [0, 1, 2]}  # a count of x < 3
    assert status(forged)[0] == 2


def test_pso_laws_of_user_code_end_in_status_3(tmp_path):
    (tmp_path / "mine.py").write_text("def below_two(rows):\n"
                                      "    return sum(1 for x in rows if x < 2)\n")
    spec = PSO.format(factor=1).replace('kind = "count"\npredicate = "x < 2"',
                                        'kind = "function"\nfunction = "mine:below_two"\n'
                                        'symmetric = true')
    (tmp_path / "u.toml").write_text(spec)
    from verifier.certificates.emit_pso import certify_pso
    from verifier.reports.json_out import dumps
    from verifier.specs.pso import load_pso_spec
    _, cert = certify_pso(load_pso_spec(tmp_path / "u.toml"))
    cert = json.loads(dumps(cert))
    assert cert["spec"]["mechanism"]["kind"] == "function"
    out = verify_certificate(cert)
    assert out.status[0] == 3 and "taken from the certificate" in out.recorded[0]


# ---------------------------------------------------------------------------- guess

def test_guess_kernel_table_is_re_derived_with_alpha_recorded(tmp_path):
    cert = _guess(tmp_path, "")
    assert cert["spec"]["mechanism"] == {"kind": "truncated_geometric",
                                         "params": {"alpha": "1/2"}}
    assert status(cert)[0] == 0
    # By hand: M(0 | 0) = 1/(1 + α) = 2/3 at the clamped end; a forged table fails
    forged = copy.deepcopy(cert)
    row = forged["evidence"]["kernel"][0][1]
    assert row[0] == [0, "2/3"]
    row[0][1], row[1][1] = row[1][1], row[0][1]
    code, last = status(forged)
    assert code == 2 and "differs from the truncated_geometric mechanism's" in last
    other = copy.deepcopy(cert)
    other["spec"]["mechanism"]["params"]["alpha"] = "1/3"
    assert status(other)[0] == 2


def test_a_guess_bound_the_kernel_computes_cannot_be_written_as_a_decimal(tmp_path):
    # at ε = ln(b)/s every e^{ε·d} here is rational: a decimal in place of the exact bound
    # would make the verdict rest on the certificate (exit 3); it is refused instead
    cert = _guess(tmp_path, "")
    forged = copy.deepcopy(cert)
    forged["results"]["targets"][0]["precise"] = {"approx": "0.5"}
    code, last = verify_certificate(forged).status
    assert code == 2 and "results.targets[0] (target 0).precise: {'approx': '0.5'}" in last


def test_guess_at_irrational_powers_is_not_verified(tmp_path):
    # ε = 1/2 nat: e^{ε·d} is irrational for every d ≠ 0, so the bounds rest on the engine
    cert = _guess(tmp_path, '[query]\nepsilon = "1/2"')
    assert verify_certificate(cert).status[0] == 3


# ------------------------------------------------------------------------ reducible

def test_a_witness_outside_the_spec_is_rejected(tmp_path):
    cert = _run(["reducible", str(EXAMPLES / "threshold_partial.toml")], tmp_path / "r.json", 1)
    assert status(cert)[0] == 1  # verified: the mechanism is not reducible
    for name, value in (("target", 99), ("model", 5), ("knowledge", -1), ("target", "0")):
        forged = copy.deepcopy(cert)
        forged["evidence"]["witness"][name] = value
        code, last = status(forged)
        assert code == 2 and f"evidence.witness.{name}" in last, last


# ---------------------------------------------------------------------------- prove

@pytest.fixture()
def counterexample(tmp_path) -> dict:
    (tmp_path / "spec.toml").write_text(THRESHOLD)
    return _run(["prove", str(tmp_path / "spec.toml"), "--claim", "apk-le-ppk"],
                tmp_path / "p.json", 1)


def test_no_instances_prove_nothing(counterexample):
    forged = copy.deepcopy(counterexample)
    forged["instances"], forged["status"] = [], "proved"
    code, last = status(forged)
    assert code == 2 and "instances: none listed" in last


def test_the_claim_text_and_its_tree_are_linked(counterexample):
    assert status(counterexample) == (1, "certificate verified: the claim does not hold")
    forged = copy.deepcopy(counterexample)
    forged["claim"]["text"] = "lemma5"  # ppk <= apk: true (seed 003, Lemma 5), not refuted
    code, last = status(forged)
    assert code == 2 and "claim.tree: not the claim 'lemma5'" in last


@pytest.mark.parametrize("text, tree", [
    ("lemma5", ["<=", ["delta", "ppk"], ["delta", "apk"]]),
    ("lemma6", ["iff", ["==", ["delta", "apk"], ["num", Fraction(0)]],
                ["==", ["delta", "ppk"], ["num", Fraction(0)]]]),
    ("not dp > 0.5 and apk <= 1/10",
     ["and", ["not", [">", ["delta", "dp"], ["num", Fraction(1, 2)]]],
      ["<=", ["delta", "apk"], ["/", ["num", Fraction(1)], ["num", Fraction(10)]]]]),
    ("-apk + 2*ppk >= 0 implies dp == 0 implies noiseless < 1",
     ["implies", [">=", ["+", ["-", ["num", Fraction(0)], ["delta", "apk"]],
                         ["*", ["num", Fraction(2)], ["delta", "ppk"]]], ["num", Fraction(0)]],
      ["implies", ["==", ["delta", "dp"], ["num", Fraction(0)]],
       ["<", ["delta", "noiseless"], ["num", Fraction(1)]]]]),
])
def test_the_kernel_parses_claims_itself(text, tree):
    assert claim_tree(text) == tree


@pytest.mark.parametrize("text", ["", "   ", "apk <=", "apk <= ppk)", "eps <= 1", "apk ! ppk",
                                  "x" * 401, 5, None, ["apk <= 1"]])
def test_text_plrv_would_not_read_is_rejected(text):
    from verifier.kernel.exact import Rejected
    with pytest.raises(Rejected, match="claim.text"):
        claim_tree(text)


def test_a_dp_counterexample_certificate_verifies(tmp_path):
    # the geometric count of 2 records clamped to 0..2, α ∈ [1/4, 1/2]: by hand at α = a,
    # counts 0 vs 1 differ on output 0 by 1/(1+a) − 2·a/(1+a) = (1 − 2a)/(1 + a) > 0 for
    # a < 1/2, so "dp == 0" is false and a counterexample is found
    spec = tmp_path / "s.toml"
    spec.write_text('[data]\nrecords = 2\nvalues = [0, 1]\n[parameters]\n'
                    'a = { ge = "1/4", le = "1/2" }\n[mechanism]\nkind = "geometric_count"\n'
                    'alpha = "a"\n[query]\nepsilon = "ln(2)"\nnotions = ["dp"]\n')
    cert = _run(["prove", str(spec), "--claim", "dp == 0"], tmp_path / "p.json", 1)
    out = verify_certificate(cert)
    assert out.status == (1, "certificate verified: the claim does not hold"), out.reason
    for inst in cert["instances"]:
        a = Fraction(inst["point"]["a"])
        assert Fraction(inst["deltas"]["dp"]) == (1 - 2 * a) / (1 + a)


def test_a_proved_claim_is_never_status_0(tmp_path):
    cert = _run(["prove", str(EXAMPLES / "tally_symbolic.toml"), "--claim", "lemma5"],
                tmp_path / "p.json", 0)
    assert verify_certificate(cert).status[0] == 3



@pytest.mark.parametrize("text, tree", [
    ("apk <= 1 or ppk != 0", ["or", ["<=", ["delta", "apk"], ["num", Fraction(1)]],
                              ["!=", ["delta", "ppk"], ["num", Fraction(0)]]]),
    ("apk - ppk <= 0", ["<=", ["-", ["delta", "apk"], ["delta", "ppk"]], ["num", Fraction(0)]]),
    ("lemma4", ["lemma4"]),
])
def test_the_kernel_parses_every_operator(text, tree):
    assert claim_tree(text) == tree


def test_claims_longer_than_plrv_reads_are_rejected():
    # plrv reads claims of at most 400 characters: 400 are read, 401 are not
    body = "apk <= " + "1+" * 196 + "1"
    assert len(body) == 400 and claim_tree(body)[0] == "<="
    from verifier.kernel.exact import Rejected
    with pytest.raises(Rejected, match="claim.text"):
        claim_tree(body + "0")


def test_trees_are_compared_node_by_node():
    from verifier.kernel.claim import same_tree
    from verifier.kernel.exact import Rejected
    own = claim_tree("apk <= 0.5")
    assert same_tree(own, ["<=", ["delta", "apk"], ["num", "1/2"]])
    assert not same_tree(own, "apk <= 0.5")  # not a tree
    assert not same_tree(own, ["<=", ["delta", "apk"]])  # a missing operand
    assert not same_tree(own, ["<=", ["delta", "ppk"], ["num", "1/2"]])  # another δ
    assert not same_tree(own, ["<=", ["delta", "apk"], ["num", "1/3"]])  # another number
    with pytest.raises(Rejected, match="^claim.tree: "):
        same_tree(own, ["<=", ["delta", "apk"], ["num", "half"]])


def test_a_reducible_certificate_of_a_spec_plrv_refuses_is_rejected(tmp_path):
    cert = _run(["reducible", str(EXAMPLES / "threshold_partial.toml")], tmp_path / "r.json", 1)
    for edit, key in ((("pairs", []), "spec.pairs"), (("targets", [0]), "spec.targets")):
        forged = copy.deepcopy(cert)
        forged["spec"][edit[0]] = edit[1]  # no pair; or the target among the known records
        code, last = status(forged)
        assert code == 2 and key in last, last
