"""The counterexample search: exhaustive, Hypothesis, z3, then minimisation."""

from contextlib import nullcontext

import pytest
from gmpy2 import mpq

from verifier.search.conjectures import Conjecture, SearchBudget, conjecture, search
from verifier.search.small import law
from verifier.search.small_families import exhaustive

SMALL = SearchBudget(max_records=2, examples=25, z3_timeout_ms=10_000)


def test_converse_of_lemma5_is_refuted_and_minimised():
    """The minimised counterexample, derived by hand: θ uniform on (0,1), (1,0), (1,1); the
    target is record 0; M releases 0 on the first two and 2 on (1,1); ζ reveals 1 except on
    (1,1), where it is a fair coin. For a = 1, b = 0 and B = 1: P[O | 1, B] = {0: 2/3, 2: 1/3}
    and P[O | 0, B] = {0: 1}, so APK = 1/3 (output 2 has infinite loss); B = 0 is impossible
    with b, so APK = 0 there. PPK = P[B=1 | D0=1]·1/3 = (1/2)/(2/3)·1/3 = 1/4 < 1/3."""
    res = search(conjecture("apk-le-ppk"), SMALL)
    assert res.found and res.stage == "exhaustive"
    small = res.counterexample
    assert small.size() <= res.first.size() and small.size() != res.first.size()
    assert small.prior == law({(0, 1): mpq(1, 3), (1, 0): mpq(1, 3), (1, 1): mpq(1, 3)})
    assert small.target == 0 and small.rate == 2
    assert res.deltas["apk"] == mpq(1, 3) and res.deltas["ppk"] == mpq(1, 4)
    assert type(res.deltas["apk"]) is type(mpq(0))


@pytest.mark.slow
def test_lemma5_has_no_counterexample_and_says_how_far_the_search_went():
    res = search(conjecture("lemma5"), SMALL)
    assert not res.found and res.counterexample is None
    exhaustive_line, hypothesis_line, *z3_lines = res.evidence
    count = sum(1 for _ in exhaustive(2))
    assert exhaustive_line.startswith(f"exhaustive: {count} instances, every one with 1..2 ")
    assert hypothesis_line.startswith("hypothesis: 25 random instances")
    assert z3_lines and all(line.endswith(": proved") for line in z3_lines)


@pytest.mark.slow
def test_hypothesis_stage_finds_and_shrinks():
    """With no exhaustive family, Hypothesis finds a counterexample to APK δ = PPK δ."""
    base = conjecture("apk-eq-ppk")
    conj = Conjecture("random-only", base.statement, base.predicate, family=lambda n: [],
                      strategy=base.strategy)
    res = search(conj, SearchBudget(max_records=1, examples=100))
    assert res.found and res.stage == "hypothesis"
    assert res.deltas["apk"] != res.deltas["ppk"]


def test_z3_stage_finds_a_counterexample_on_a_template():
    base = conjecture("apk-le-ppk")
    conj = Conjecture("z3-only", base.statement, base.predicate, family=lambda n: [],
                      strategy=None, claim=base.claim)
    res = search(conj, SMALL)
    assert res.found and res.stage == "z3"
    assert res.deltas["apk"] > res.deltas["ppk"]


def test_family_has_correlated_data_and_randomized_knowledge():
    labels = {i.label for i in exhaustive(2)}
    assert any("all records equal" in x for x in labels)
    assert any("mixture of two iid laws" in x for x in labels)
    assert any("noisy view of record" in x for x in labels)


class _InOrderParallel:
    """A parallel executor of two workers that runs its shards here, in order (the sharded
    path of the exhaustive stage, without Dask)."""

    parallel = True
    workers = 2

    def map(self, fn, shards, labels, progress=None):
        return [fn(s) for s in shards]


def _without_time(res):
    return (res.found, res.counterexample, res.first, res.stage, res.deltas, res.evidence)


@pytest.mark.slow
def test_sharded_exhaustive_stage_reports_the_serial_counterexample_and_count():
    """Chunks of the family in rounds: the first counterexample in the family's order (not
    the first to complete), the same count of instances, the same evidence."""
    from verifier.parallel import use_executor

    late = Conjecture("late", "no instance has 3 records, target 2 and a noisy view of "
                      "record 1 (false, late in the family)",
                      lambda i: not (i.n == 3 and i.target == 2 and "noisy view of record 1"
                                     in i.label), strategy=None)
    cases = [(conjecture("apk-le-ppk"), SMALL),
             (late, SearchBudget(max_records=3, examples=1, shrink_steps=0)),
             (Conjecture("none", "true", lambda i: True, strategy=None),
              SearchBudget(max_records=3)),
             (Conjecture("budget", "true", lambda i: True, strategy=None),
              SearchBudget(max_records=3, instances=300))]
    for conj, budget in cases:
        serial = search(conj, budget)
        with use_executor(_InOrderParallel()):
            assert _without_time(search(conj, budget)) == _without_time(serial), conj.name
        opened = search(conj, budget, exhaustive_on=lambda: nullcontext(_InOrderParallel()))
        assert _without_time(opened) == _without_time(serial), conj.name
    assert "at instance" in search(late, cases[1][1]).evidence[0]
    assert search(*cases[3]).evidence[0].startswith("exhaustive: stopped at the budget of 300")


def test_no_hypothesis_examples_skips_the_stage():
    conj = Conjecture("none", "true", lambda i: True, family=lambda n: [])
    assert search(conj, SearchBudget(examples=0)).evidence[1] == (
        "hypothesis: skipped (0 examples asked)")


def test_records_bounds_the_exhaustive_stages_and_says_the_z3_templates_do_not_obey_it():
    # with one record there is nothing to know, so APK = PPK and no instance of the family
    # or of Hypothesis refutes apk-le-ppk; the counterexample found comes from z3's template of
    # 3 records (minimised to 2), more than --records 1: the option's help must say so
    from typer.testing import CliRunner

    from verifier.cli import app

    res = search(conjecture("apk-le-ppk"), SearchBudget(max_records=1, examples=0))
    assert res.found and "z3: counterexample on the template" in " ".join(res.evidence)
    assert "none a counterexample" in res.evidence[0]
    text = " ".join(CliRunner().invoke(app, ["search", "--help"]).output.split())
    assert "z3 templates keep their own 2 and 3" in text
