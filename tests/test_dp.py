"""Classical DP: randomized response and other values derived by hand, and brute force agreement."""

import itertools
from fractions import Fraction

import pytest
from gmpy2 import mpq
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import dp_delta
from strategies import distributions, frac

from verifier import (
    InvalidArgument,
    add_remove_one,
    check_dp,
    discrete_laplace,
    geometric_count,
    mechanism,
    randomized_response,
    replace_one,
    threshold_count,
)
from verifier.core.distribution import BOTTOM
from verifier.core.epsilon import Epsilon
from verifier.core.errors import BudgetExceeded
from verifier.testing import assert_dp

MPQ = type(mpq(0))


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_binary_rr_truth_three_quarters_is_ln3(n):
    r = check_dp(randomized_response("3/4", [0, 1]), replace_one([0, 1], n), "ln(3)", "0")
    assert str(r.epsilon) == "ln(3)" and r.holds


@pytest.mark.parametrize("n", [1, 2, 3])
def test_ternary_rr_truth_two_thirds_is_ln4(n):
    # report the truth with 2/3, each other value with 1/6: the ratio is (2/3)/(1/6) = 4
    r = check_dp(randomized_response("2/3", [0, 1, 2]), replace_one([0, 1, 2], n), "ln(4)", "0")
    assert str(r.epsilon) == "ln(4)" and r.holds


@pytest.mark.parametrize("truth, values, epsilon, expected", [
    # Binary, truth 3/4. Neighbours differ in record i; the other reports cancel, so
    # δ = Σ_y max(0, P[y|a] − E·P[y|b]) over the one record = max(0, 3/4 − E/4) + 0.
    ("3/4", [0, 1], "0", "1/2"),          # E = 1: 3/4 − 1/4
    ("3/4", [0, 1], "ln(2)", "1/4"),      # E = 2: 3/4 − 2/4
    ("3/4", [0, 1], "ln(5/2)", "1/8"),    # E = 5/2: 3/4 − 5/8
    ("3/4", [0, 1], "ln(3)", "0"),
    # Ternary, truth 2/3, others 1/6: only y = a contributes: 2/3 − E/6 (E < 4)
    ("2/3", [0, 1, 2], "0", "1/2"),
    ("2/3", [0, 1, 2], "ln(2)", "1/3"),
    ("2/3", [0, 1, 2], "ln(3)", "1/6"),
    ("2/3", [0, 1, 2], "1/2", "2/3 - 1/6*exp(1/2)"),
    # Binary, truth 9/10: 9/10 − E/10 below E = 9
    ("9/10", [0, 1], "ln(4)", "1/2"),
], ids=repr)
def test_rr_delta_below_tight_epsilon_by_hand(truth, values, epsilon, expected):
    for n in (1, 2):
        r = check_dp(randomized_response(truth, values), replace_one(values, n), epsilon, "0")
        assert str(r.delta) == expected


def test_geometric_count_is_ln_one_over_alpha():
    # P[j|c]/P[j|c+1] is α^(|j−c| − |j−c−1|) ∈ {α, 1/α} inside, and α^c/α^(c+1) = 1/α at 0
    for alpha, tight in (("1/2", "ln(2)"), ("1/3", "ln(3)"), ("2/5", "ln(5/2)")):
        r = check_dp(geometric_count([1], alpha), replace_one([0, 1], 3), "0", "0")
        assert str(r.epsilon) == tight


def test_threshold_count_has_delta_one_with_witness():
    r = check_dp(threshold_count([1], 2), replace_one([0, 1], 3), "ln(10)", "1/2")
    assert r.delta == 1 and r.epsilon == Epsilon.INF and not r.holds
    d1, d2 = r.witness["databases"]
    # one database reaches the threshold and its neighbour does not: disjoint outputs
    assert sum(d1) == 1 and sum(d2) == 2 or sum(d1) == 2 and sum(d2) == 1
    assert all(loss == "+inf" for _, loss in r.witness["outputs"])


@st.composite
def random_mechanisms(draw):
    """A random kernel on databases of 2 binary records, as a table."""
    table = {db: draw(distributions()) for db in [(0, 0), (0, 1), (1, 0), (1, 1)]}
    return mechanism(lambda db: table[db], name="random")


@settings(max_examples=100, deadline=None)
@given(random_mechanisms(), st.sampled_from(["1", "3/2", "2", "5"]))
def test_brute_force_dp_agrees_with_direct_formula(mech, E):
    r = check_dp(mech, replace_one([0, 1], 2), f"ln({E})", "0")
    assert type(r.delta.value) is MPQ
    assert frac(r.delta.value) == dp_delta(mech, [0, 1], 2, Fraction(E))


@settings(max_examples=100, deadline=None)
@given(random_mechanisms(), st.fractions(0, 1, max_denominator=20))
def test_tight_epsilon_is_tight_for_dp(mech, delta):
    r = check_dp(mech, replace_one([0, 1], 2), "0", f"{delta.numerator}/{delta.denominator}")
    if r.epsilon.infinite or r.epsilon.is_zero:
        return
    E = frac(r.epsilon.rate)
    assert dp_delta(mech, [0, 1], 2, E) == delta


def test_budget_message():
    with pytest.raises(BudgetExceeded) as info:
        check_dp(randomized_response("3/4", [0, 1]), replace_one([0, 1], 30), "ln(3)", "0")
    # 2^30 databases against the default 2^20; 2^20 ≤ 2^20 < 2^21 gives records ≤ 20
    assert str(info.value) == (
        "limits.databases: databases for brute force (2 values, 30 records): 2^30, over the "
        "limit of 2^20; raise it with limits.databases in the spec or --budget, or use "
        "records ≤ 20")


def test_outputs_of_bottom_in_witness():
    r = check_dp(threshold_count([1], 1), replace_one([0, 1], 1), "0", "0")
    assert any(o is BOTTOM for o, _ in r.witness["outputs"])


def profile_value(points, E):
    """δ at E read off a profile's breakpoints (linear between them, constant after)."""
    if points[-1][0] <= E:
        return points[-1][1]
    for (e0, d0), (e1, d1) in itertools.pairwise(points):
        if e0 <= E <= e1:
            return d0 + (d1 - d0) * (E - e0) / (e1 - e0)
    raise AssertionError("E below 1")


@settings(max_examples=100, deadline=None)
@given(random_mechanisms(), st.sampled_from(["1", "4/3", "2", "3", "7"]))
def test_brute_force_dp_agrees_with_the_profiles(mech, E):
    from verifier.notions.dp.brute import dp_cases
    r = check_dp(mech, replace_one([0, 1], 2), f"ln({E})", "0")
    from_profiles = max(profile_value(c.loss.profile(), mpq(E)) for c in dp_cases(mech, [0, 1], 2))
    assert r.delta.value == from_profiles


# One record over {0, 1, 2} with the laws below. By hand, the largest ratio of each ordered
# pair: (0, 1): 5/4 (output 0), (0, 2): 2 (output 0: (1/2)/(1/4)), (1, 0): 6/5 (output 1),
# (1, 2): 8/5 (output 0), (2, 0): 3/2 (output 1), (2, 1): 5/4 (output 1). So the tight ε at
# δ = 0 is ln 2, reached only by the pair (0, 2) at output 0, while at the claimed ε = ln 2
# every pair has δ = 0.
_THREE_LAWS = {0: {0: "1/2", 1: "1/2"}, 1: {0: "2/5", 1: "3/5"}, 2: {0: "1/4", 1: "3/4"}}


def _three(db):
    from verifier import Dist
    return Dist(_THREE_LAWS[db[0]])


def test_a_claim_that_holds_names_the_pair_reaching_the_tight_epsilon():
    r = check_dp(mechanism(_three, "three"), replace_one([0, 1, 2], 1), "ln(2)", "0")
    assert r.holds and str(r.epsilon) == "ln(2)"
    # not the first pair in enumeration order, (0, 1), whose δ at ln 2 is 0 as well
    assert r.witness["databases"] == [[0], [2]]
    assert r.witness["outputs"] == [(0, "ln(2)")]


def test_a_claim_that_holds_with_delta_names_the_outputs_at_or_above_the_tight_epsilon():
    # δ(E) = Σ_O max(0, P − E·Q); where it equals 1/8: (0, 1): 1/2 − 2E/5, E = 15/16;
    # (0, 2): 1/2 − E/4, E = 3/2; (1, 0): 3/5 − E/2, E = 19/20; (1, 2): 2/5 − E/4,
    # E = 11/10; (2, 0): 3/4 − E/2, E = 5/4; (2, 1): 3/4 − 3E/5, E = 25/24. The tight ε at
    # δ = 1/8 is ln(3/2), at (0, 2), where output 0's loss ln 2 ≥ ln(3/2) and output 1's,
    # ln(2/3), is not; at the claimed ε = ln 2 every pair's δ is 0.
    r = check_dp(mechanism(_three, "three"), replace_one([0, 1, 2], 1), "ln(2)", "1/8")
    assert r.holds and str(r.epsilon) == "ln(3/2)" and str(r.delta) == "0"
    assert r.witness["databases"] == [[0], [2]]
    assert r.witness["outputs"] == [(0, "ln(2)")]


def test_a_claim_that_fails_names_the_first_pair_with_the_largest_delta():
    # at ε = 0: δ(0, 1) = 1/10, δ(0, 2) = 1/4, δ(1, 0) = 1/10, δ(1, 2) = 3/20, δ(2, 0) = 1/4,
    # δ(2, 1) = 3/20: the largest is 1/4, first at (0, 2) (the tie (2, 0) comes later)
    r = check_dp(mechanism(_three, "three"), replace_one([0, 1, 2], 1), "0", "0")
    assert not r.holds and str(r.delta) == "1/4"
    assert r.witness["databases"] == [[0], [2]]
    assert r.witness["outputs"] == [(0, "ln(2)")]


# ------------------------------------------------- one shape, shared with assert_dp

RR = randomized_response("3/4", [0, 1])


def test_check_dp_takes_what_assert_dp_takes():
    one = replace_one([0, 1], 1)
    # three runs of randomized response (truth 3/4) on one record: the outputs with j ones
    # have ratio 3^(2j−3), so δ(ln 2) = (27 − 2)/64 + 3·(9 − 2·3)/64 = 17/32
    r = check_dp([RR] * 3, one, "ln(2)", "17/32")
    assert r.holds is True and r.delta == Fraction(17, 32)
    # sum + discrete Laplace (scale 2) over bits: sensitivity 1, so exactly (1/2 nat)-DP
    assert check_dp(discrete_laplace("2"), replace_one([0, 1], 2), "1/2").holds is True
    assert check_dp(discrete_laplace("2"), replace_one([0, 1], 2), "1/4").holds is False
    # add-remove: M([b]) answers a tuple of one bit and M([]) the empty tuple, disjoint laws,
    # so δ = 1 at every finite ε and the tight ε is ∞ (replace-one would hold at ln 3)
    added = check_dp(RR, add_remove_one([0, 1], 1), "ln(3)")
    assert added.holds is False and added.delta == 1 and added.epsilon == Epsilon.INF
    kept = assert_dp(RR, one, "ln(3)")
    same = check_dp(RR, one, "ln(3)")
    assert (kept.delta, kept.epsilon, kept.holds, kept.witness) == \
        (same.delta, same.epsilon, same.holds, same.witness)


OLD = ("check_dp(mech, values, records, …) is the form of earlier releases; write "
       "check_dp(mech, replace_one([0, 1], 3), epsilon, delta)")


@pytest.mark.parametrize("call, message", [
    (lambda: check_dp(RR, [0, 1], 3, "ln(3)", "0"), OLD),
    (lambda: check_dp(RR, [0, 1], records=3, epsilon="ln(3)"), OLD),
    (lambda: check_dp(RR, [0, 1], records=3, delta="0"), OLD),
    (lambda: check_dp(RR, replace_one([0, 1], 1), "ln(3)", records=3),
     "check_dp: records = 3 is not an argument beside a relation; the relation carries the "
     "records: replace_one(values, records)"),
    (lambda: check_dp(RR, replace_one([0, 1], 1)),
     "check_dp: epsilon is required — the claim checked is (ε, δ)-DP, δ = 0 unless given; "
     "the result's .epsilon is the tight ε at that δ and .delta the tight δ at ε, whatever "
     "the claim"),
    (lambda: check_dp(RR, replace_one([0, 1], 1), delta="0"),
     "check_dp: epsilon is required — the claim checked is (ε, δ)-DP, δ = 0 unless given; "
     "the result's .epsilon is the tight ε at that δ and .delta the tight δ at ε, whatever "
     "the claim"),
    (lambda: check_dp([RR, RR], replace_one([0, 1], 1), "ln(9)", engine="brute"),
     "engine = 'brute' applies to a single mechanism, not to a composition (a list of "
     "mechanisms): leave it out"),
    (lambda: check_dp(RR, "replace-one", "ln(3)"),
     "check_dp(mech, relation, epsilon, delta): relation = 'replace-one' is not a Relation; "
     "make one with replace_one(values, records), add_remove_one(values, records) or "
     "vector_relation(…)"),
], ids=["old positional", "old records=", "old without epsilon", "records beside a relation",
        "no epsilon", "delta only", "engine of a composition", "relation by name"])
def test_check_dp_refuses_what_it_would_not_apply(call, message):
    with pytest.raises(InvalidArgument) as info:
        call()
    assert str(info.value) == message
