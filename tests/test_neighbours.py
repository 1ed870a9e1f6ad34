"""Neighbouring relations: exact values of hand-derived cases.

Two-sided geometric noise with α = 1/2, released clamped to {0, 1, 2}
(``K = (1 − α)/(1 + α) = 1/3``, tails ``α^m/(1 + α)``):

    centre 0: (2/3, 1/6, 1/6)    centre 1: (1/3, 1/3, 1/3)    centre 2: (1/6, 1/6, 2/3)

Adjacent centres have likelihood ratios in {1/2, 1, 2}, so a sensitivity-1 query is exactly
ln 2-DP (δ = 0) and its δ at ε = 0 is the total variation 2/3 − 1/3 = 1/3; centres 0 and 2
have ratio 4 at output 0, so a sensitivity-2 query is ln 4-DP with δ(0) = 2/3 − 1/6 = 1/2.
"""

from __future__ import annotations

import json
import textwrap

import pytest
from gmpy2 import mpq
from typer.testing import CliRunner

from verifier.cli import app
from verifier.core.epsilon import Epsilon, parse_epsilon
from verifier.core.errors import InvalidArgument, SpecError
from verifier.model.mechanisms import geometric_count, mechanism
from verifier.model.noise import Noisy, at_most, geometric, geometric_mass, noisy_sum
from verifier.notions.check import check_notions
from verifier.notions.dp.neighbours import (
    add_remove_one,
    check_relation,
    explicit_pairs,
    predicate_relation,
    replace_one,
    vector_relation,
    vectors,
)
from verifier.specs.check import load_spec, run_spec


def noisy_count(db):
    return geometric(sum(1 for x in db if x == 1), "1/2", 0, 2)


def noisy_sum_of(x):
    return geometric(sum(x), "1/2", 0, 2)


# ------------------------------------------------------------------ noise helpers

def test_geometric_clamped_matches_hand_values():
    assert [geometric(0, "1/2", 0, 2)[j] for j in range(3)] == [mpq(2, 3), mpq(1, 6), mpq(1, 6)]
    assert [geometric(1, "1/2", 0, 2)[j] for j in range(3)] == [mpq(1, 3)] * 3
    assert geometric_mass(-2, "1/2") == mpq(1, 12)
    assert at_most(-1, 0, "1/2") == mpq(1, 3)  # P[Z ≤ −1] = α/(1 + α)


def test_noisy_sum_closed_forms():
    """P[Z1 = Z2] = K²·(1 + α²)/(1 − α²) = (1/9)(5/3) = 5/27, so by symmetry
    P[Z2 < Z1] = (1 − 5/27)/2 = 11/27; and the masses of one Z sum to 1."""
    assert noisy_sum([Noisy(0, "="), Noisy(0, "=")], "1/2") == mpq(5, 27)
    assert noisy_sum([Noisy(0, "="), Noisy(0, "<")], "1/2") == mpq(11, 27)
    assert noisy_sum([Noisy(4, "=")], "1/3") == 1
    # P[X2 ≤ X1] + P[X2 > X1] = 1 for X1 = 3 + Z1, X2 = Z2
    le = noisy_sum([Noisy(3, "="), Noisy(0, "<=")], "1/3")
    gt = noisy_sum([Noisy(3, "="), Noisy(0, ">")], "1/3")
    assert le + gt == 1 and isinstance(le, type(mpq(0)))


# ------------------------------------------------------------------ add-remove-one

@pytest.mark.parametrize("symmetric", [True, False], ids=["counts", "brute"])
def test_count_add_remove_one_geometric_is_ln2(symmetric):
    mech = mechanism(noisy_count, symmetric=symmetric)
    r = check_relation(mech, add_remove_one([0, 1], 2), "ln(2)", "0")
    assert r.holds and r.epsilon == Epsilon.log(2)
    r0 = check_relation(mech, add_remove_one([0, 1], 2), "0", "0")
    assert r0.delta.value == mpq(1, 3) and not r0.holds
    assert r0.witness["relation"] == "add-remove-one"
    sizes = sorted(len(d) for d in r0.witness["databases"])
    assert sizes == [1, 2]


def test_clamping_to_the_database_size_leaks_it():
    """geometric_count clamps to {0..n}: under add-remove-one the database of 2 records with
    count 2 releases 2 with mass 1/(1 + α) = 2/3, which the database of 1 record never
    releases: L = +∞, tight ε = ∞ below δ = 2/3, and δ(∞) = 2/3."""
    mech = geometric_count([1], "1/2")
    rel = add_remove_one([0, 1], 2)
    assert check_relation(mech, rel, "ln(2)", "1/2").epsilon == Epsilon.INF
    assert check_relation(mech, rel, "inf", "0").delta.value == mpq(2, 3)
    assert check_relation(mech, rel, "ln(2)", "2/3").epsilon != Epsilon.INF


def test_replace_one_is_todays_relation():
    mech = mechanism(noisy_count, symmetric=True)
    r = check_relation(mech, replace_one([0, 1], 2), "0", "0")
    assert r.delta.value == mpq(1, 3) and r.epsilon == Epsilon.log(2)


# ------------------------------------------------------------------ vectors

def test_sum_of_a_vector_linf_is_ln4_and_l1_is_ln2():
    mech = mechanism(noisy_sum_of)
    xs = vectors(2, 0, 1)
    linf = check_relation(mech, vector_relation("linf", 1, xs), "0", "0")
    assert linf.epsilon == Epsilon.log(4) and linf.delta.value == mpq(1, 2)
    assert sorted(linf.witness["inputs"]) == [[0, 0], [1, 1]]
    l1 = check_relation(mech, vector_relation("l1", 1, xs), "ln(2)", "0")
    assert l1.holds and l1.epsilon == Epsilon.log(2)


def test_explicit_pairs_and_predicate():
    mech = mechanism(noisy_sum_of)
    r = check_relation(mech, explicit_pairs([[[0, 0], [1, 1]]]), "ln(2)", "0")
    assert not r.holds and r.epsilon == Epsilon.log(4)
    same_first = predicate_relation("same_first", lambda x, y: x[0] == y[0], vectors(2, 0, 1))
    assert check_relation(mech, same_first, "0", "0").epsilon == Epsilon.log(2)


def test_check_notions_routes_dp_through_the_relation():
    mech = mechanism(noisy_sum_of)
    rel = vector_relation("linf", 1, vectors(2, 0, 1))
    report = check_notions(mech, values=[0, 1], records=2, epsilon="ln(4)", relation=rel)
    assert report.holds and report.results["dp"].epsilon == Epsilon.log(4)


@pytest.mark.parametrize("call, message", [
    (lambda: vector_relation("l2", 1, [[0], [1]]), "relation = 'l2' is not a vector distance"),
    (lambda: vector_relation("linf", 0, [[0], [1]]), "distance = 0 is not a positive integer"),
    (lambda: explicit_pairs([[[0], [0]]]), "pairs[0] = [[0], [0]]: an input is not its own"),
    (lambda: vectors(2, 3, 1), "range = [3, 1] is empty"),
    (lambda: add_remove_one([0, 1], 0), "records = 0 is not a positive integer"),
], ids=["norm", "distance", "self-pair", "range", "records"])
def test_bad_relations(call, message):
    with pytest.raises(InvalidArgument) as info:
        call()
    assert str(info.value).startswith(message)


def test_predicate_must_return_a_boolean():
    rel = predicate_relation("bad", lambda x, y: 1, vectors(1, 0, 1))
    with pytest.raises(InvalidArgument, match="returned 1, not a boolean"):
        check_relation(mechanism(noisy_sum_of), rel)


# ------------------------------------------------------------------ spec files

ALGOS = """
from verifier.model.noise import geometric

def noisy_sum_of(x):
    return geometric(sum(x), "1/2", 0, 2)

def noisy_count(db):
    return geometric(sum(1 for v in db if v == 1), "1/2", 0, 2)

def same_first(x, y):
    return x[0] == y[0]
"""

VECTOR_SPEC = """
[input]
coordinates = 2
range = [0, 1]
[neighbours]
relation = "linf"
distance = 1
[mechanism]
kind = "function"
function = "algos15:noisy_sum_of"
[query]
epsilon = "ln(4)"
notions = ["dp"]
"""

COUNT_SPEC = """
[data]
records = 2
values = [0, 1]
[neighbours]
relation = "add-remove-one"
[mechanism]
kind = "function"
function = "algos15:noisy_count"
symmetric = true
[query]
epsilon = "ln(2)"
notions = ["dp"]
"""


def spec_file(tmp_path, text):
    (tmp_path / "algos15.py").write_text(ALGOS)
    path = tmp_path / "spec.toml"
    path.write_text(textwrap.dedent(text))
    return str(path)


def test_vector_spec_check_json_holds_with_tight_epsilon(tmp_path):
    result = CliRunner().invoke(app, ["check", spec_file(tmp_path, VECTOR_SPEC), "--json"])
    assert result.exit_code == 0, result.output
    dp = json.loads(result.output)["dp"]
    assert dp["holds"] is True and dp["epsilon"] == "ln(4)"
    assert dp["worst_case"]["relation"] == "linf" and len(dp["worst_case"]["inputs"]) == 2


def test_add_remove_one_spec(tmp_path):
    result = CliRunner().invoke(app, ["check", spec_file(tmp_path, COUNT_SPEC), "--json"])
    assert result.exit_code == 0, result.output
    dp = json.loads(result.output)["dp"]
    assert dp["holds"] is True and dp["epsilon"] == "ln(2)"
    assert dp["worst_case"]["relation"] == "add-remove-one"


@pytest.mark.parametrize("relation, epsilon", [
    ('relation = "l1"', "ln(2)"),
    ('relation = "pairs"\npairs = [[[0, 0], [1, 1]]]', "ln(4)"),
    ('relation = "algos15:same_first"', "ln(2)"),
], ids=["l1", "pairs", "predicate"])
def test_other_relations_in_a_spec(tmp_path, relation, epsilon):
    text = VECTOR_SPEC.replace('relation = "linf"\ndistance = 1', relation)
    report = run_spec(load_spec(spec_file(tmp_path, text)))
    assert report.results["dp"].epsilon == parse_epsilon(epsilon)


def test_attacker_pairs_with_dp_are_refused(tmp_path):
    """Before, [attacker] pairs was silently ignored by dp."""
    text = COUNT_SPEC.replace("[neighbours]\nrelation = \"add-remove-one\"\n",
                              "[attacker]\npairs = [[0, 1]]\n")
    with pytest.raises(SpecError) as info:
        load_spec(spec_file(tmp_path, text))
    assert info.value.key == "attacker.pairs"
    assert "give it in [neighbours]" in str(info.value)


@pytest.mark.parametrize("old, new, key, fragment", [
    ('relation = "linf"', 'relation = "l3"', "neighbours.relation", "is not one of"),
    ("distance = 1", "distance = 0", "neighbours.distance", "distance = 0"),
    ('relation = "linf"\ndistance = 1', 'relation = "add-remove-one"', "neighbours.relation",
     "compares databases"),
    ("range = [0, 1]", "range = [2, 1]", "input.range", "is empty"),
    ("coordinates = 2", "coordinates = 2\nvectors = [[0, 1]]", "input.vectors",
     "either vectors or"),
    ('notions = ["dp"]', 'notions = ["dp", "apkdp"]', "query.notions", 'notions = ["dp"]'),
    ("distance = 1", 'distance = 1\npairs = [[[0, 0], [0, 1]]]', "neighbours.pairs",
     "takes no pairs"),
], ids=["relation", "distance", "databases-on-vectors", "range", "vectors-and-range",
        "notions", "pairs-without-relation"])
def test_bad_input_and_neighbours(tmp_path, old, new, key, fragment):
    with pytest.raises(SpecError) as info:
        load_spec(spec_file(tmp_path, VECTOR_SPEC.replace(old, new)))
    assert info.value.key == key and fragment in str(info.value)


def test_input_and_data_together_are_refused(tmp_path):
    text = VECTOR_SPEC + "[data]\nrecords = 2\nvalues = [0, 1]\n"
    with pytest.raises(SpecError, match="either \\[input\\]"):
        load_spec(spec_file(tmp_path, text))


def test_an_attacker_table_with_dp_alone_is_refused(tmp_path):
    """dp compares neighbouring databases; it has no target or background knowledge, so an
    [attacker] table with notions = ["dp"] would be ignored: it is refused, naming its key."""
    text = COUNT_SPEC.replace("[neighbours]\nrelation = \"add-remove-one\"\n",
                              "[attacker]\ntarget = 1\n")
    with pytest.raises(SpecError) as info:
        load_spec(spec_file(tmp_path, text))
    assert info.value.key == "attacker.target"
    assert "would ignore it" in str(info.value)
