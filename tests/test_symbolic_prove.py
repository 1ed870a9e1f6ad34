"""Claims decided by z3 for every parameter value, and witnesses re-checked exactly."""

import pytest
from gmpy2 import mpq

from verifier.core.epsilon import Epsilon
from verifier.core.errors import InvalidArgument
from verifier.model.knowledge import known_indices
from verifier.notions.check import check_partial
from verifier.specs.symbolic import load_symbolic, parse_symbolic
from verifier.symbolic.claims import evaluate, parse_claim
from verifier.symbolic.prove import prove

THRESHOLD = {"parameters": {"p": {"gt": "0", "lt": "1"}},
             "data": {"records": 3, "values": [0, 1], "prior": ["1 - p", "p"]},
             "mechanism": {"kind": "threshold_count", "threshold": 2},
             "query": {"epsilon": "ln(2)", "notions": ["apkdp", "ppkdp"]}}


@pytest.mark.parametrize("claim", ["lemma4", "lemma5", "lemma6"])
@pytest.mark.parametrize("path", ["examples/rr_symbolic.toml", "examples/tally_symbolic.toml"])
@pytest.mark.slow
def test_seed_lemmas_are_proved_for_every_parameter(path, claim):
    rep = prove(load_symbolic(path), claim, every_known_set=True)
    assert rep.status == "proved"
    assert all(p.status == "proved" and p.seconds >= 0 for p in rep.proofs)


def test_lemmas_at_every_epsilon_on_a_thresholded_count():
    sym = parse_symbolic(THRESHOLD)
    for claim in ("lemma5", "lemma6"):
        assert prove(sym, claim, every_epsilon=True, every_known_set=True).status == "proved"


def test_converse_of_lemma5_has_a_rechecked_counterexample():
    sym = parse_symbolic(THRESHOLD)
    rep = prove(sym, "apk-le-ppk", every_known_set=True)
    assert rep.status == "counterexample"
    proof = next(p for p in rep.proofs if p.status == "counterexample")
    r = proof.counterexample
    p = r.point["p"]
    assert type(p) is type(mpq(0)) and 0 < p < 1
    assert r.deltas["apk"] > r.deltas["ppk"]
    # the exact engine, called directly at the witness, agrees
    spec = sym.at(r.point)
    know = known_indices([int(x) for x in proof.knowledge.split("[")[1].rstrip("]").split(",")
                          if x.strip()])
    again = check_partial(spec.mechanism, spec.model, knowledge=know, targets=proof.target,
                          epsilon=Epsilon.log(2))
    assert again.results["apkdp"].delta.value == r.deltas["apk"]
    assert again.results["ppkdp"].delta.value == r.deltas["ppk"]
    # z3's own values at the witness are the exact ones
    assert proof.solver["apk"] == r.deltas["apk"] and proof.solver["ppk"] == r.deltas["ppk"]


def test_concrete_threshold_counterexample_matches_the_readme():
    """examples/threshold_partial.toml: APK δ = 1024/3125, PPK δ = 459/3125 (README)."""
    rep = prove(load_symbolic("examples/threshold_partial.toml"), "apk-le-ppk")
    (proof,) = rep.proofs
    assert proof.status == "counterexample"
    assert proof.counterexample.deltas == {"apk": mpq(1024, 3125), "ppk": mpq(459, 3125)}


def test_theorem2_via_certified_bijection():
    rep = prove(load_symbolic("examples/tally_symbolic.toml"), "theorem2", every_epsilon=True)
    (proof,) = rep.proofs
    assert proof.status == "proved"
    assert proof.method.startswith("Θ-reducible (identity of rational functions")
    assert "Theorem 2" in proof.method


def test_claim_expressions():
    sym = load_symbolic("examples/tally_symbolic.toml")
    assert prove(sym, "apk <= 2*ppk and not (ppk > apk)").status == "proved"
    assert prove(sym, "apk < 0").status == "counterexample"  # δ is never negative


def test_irrational_epsilon_needs_every_epsilon():
    raw = dict(THRESHOLD, query={"epsilon": "1/2", "notions": ["apkdp"]})
    with pytest.raises(InvalidArgument, match="ε = ln\\(q\\)"):
        prove(parse_symbolic(raw), "lemma5")


@pytest.mark.parametrize("text, message", [
    ("apk", "the claim is a number, not a statement"),
    ("apk <= ", "the claim ends too early at position 8"),
    ("apk <= foo", "unexpected 'foo'"),
    ("apk / ppk <= 1", "divide only by a non-zero number"),
    ("not apk", "a number where a statement is expected"),
    ("apk $ 1", "unexpected character '$' at position 5"),
    ("", "give a named claim"),
    # a number beside a connective was passed to z3, which failed on a sort mismatch
    ("apk and ppk <= 1", "--claim 'apk and ppk <= 1': a number where a statement is expected"),
    ("apk <= 1 or ppk", "a number where a statement is expected"),
    ("apk implies ppk <= 1", "a number where a statement is expected"),
    ("apk <= 1 iff dp", "a number where a statement is expected"),
    # a misspelt named claim was read as an expression: "unexpected 'lemma55' (the claim
    # reads apk, ppk, noiseless, dp)", naming no named claim
    ("lemma55", "--claim 'lemma55' is neither a named claim (lemma4, lemma5, lemma6, "
                "theorem2, apk-le-ppk) nor an expression"),
    ("lemma55", "; did you mean `lemma5`?"),
    ("apk-le-pk", "; did you mean `apk-le-ppk`?"),
], ids=["number", "dangling", "unknown-name", "division", "not-number", "character", "empty",
        "and-number", "or-number", "implies-number", "iff-number", "misspelt-name",
        "misspelt-did-you-mean", "misspelt-hyphenated"])
def test_claim_parser_rejects(text, message):
    with pytest.raises(InvalidArgument, match=None) as info:
        parse_claim(text)
    assert message in str(info.value)


def test_claim_evaluation_is_exact():
    c = parse_claim("apk <= 2*ppk + 1/10 implies noiseless == 0 iff dp >= 0")
    assert c.uses == {"apk", "ppk", "noiseless", "dp"}
    assert evaluate(parse_claim("apk <= 2*ppk"), {"apk": mpq(2, 3), "ppk": mpq(1, 3)})
    assert not evaluate(parse_claim("apk < 2*ppk"), {"apk": mpq(2, 3), "ppk": mpq(1, 3)})
    assert evaluate(parse_claim("lemma6"), {"apk": mpq(0), "ppk": mpq(0)})
