"""The count engine against brute force: identical exact joint tables and δ values."""


import pytest
from gmpy2 import mpq
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import distributions

from verifier import (
    Dist,
    check_dp,
    check_partial,
    count,
    geometric_count,
    iid,
    independent,
    known_indices,
    mean_query,
    mechanism,
    replace_one,
    sum_query,
    threshold_count,
)
from verifier.core.epsilon import parse_epsilon
from verifier.core.errors import BudgetExceeded, InvalidArgument
from verifier.engines.choice import joint_tables
from verifier.engines.counts import compositions, count_law
from verifier.engines.known_counts import KnownCounts

EPSILONS = [parse_epsilon(e) for e in ("0", "ln(2)", "1/2")]
DELTAS = ["0", "1/100", "1/3"]  # tight ε at δ = 0 (the largest loss) and on a linear piece


def symmetric_table_mechanism(draw, values, n):
    """A random kernel on count vectors, declared symmetric."""
    table = {c: draw(distributions(("x", "y", 7))) for c in compositions(n, len(values))}
    return mechanism(lambda db: table[tuple(db.count(v) for v in values)], "random-symmetric",
                     symmetric=True)


@st.composite
def instances(draw):
    k = draw(st.sampled_from([2, 2, 3]))
    n = draw(st.integers(2, 5 if k == 2 else 4))
    values = tuple(range(k))
    if draw(st.booleans()):
        model = iid(draw(distributions(values)), values, n)
    else:
        model = independent([draw(distributions(values)) for _ in range(n)], values)
    choice = draw(st.integers(0, 5))
    mech = [lambda: count([1]), lambda: threshold_count([1, 2][:k - 1], draw(st.integers(0, n))),
            lambda: geometric_count([1], draw(st.sampled_from(["1/2", "1/3", "2/5"]))),
            sum_query, mean_query, lambda: symmetric_table_mechanism(draw, values, n)][choice]()
    target = draw(st.integers(0, n - 1))
    others = [j for j in range(n) if j != target]
    known = tuple(sorted(draw(st.lists(st.sampled_from(others), unique=True)))) if others else ()
    return model, mech, target, known


def classes(values):
    return lambda b: KnownCounts(values, tuple(b.count(v) for v in values))


@settings(max_examples=300, deadline=None)
@given(instances())
@pytest.mark.slow
def test_engines_agree(inst):
    model, mech, target, known = inst
    know = known_indices(known)
    brute, _ = joint_tables(model, mech, know, [target], engine="brute")
    fast, desc = joint_tables(model, mech, know, [target], engine="counts")
    assert desc.startswith("count engine")
    expected = brute[target]
    expected = expected.merge_backgrounds(classes(model.values)) if known else \
        expected.without_background()
    assert fast[target] == expected
    for eps, delta in zip(EPSILONS, DELTAS, strict=True):
        a = check_partial(mech, model, knowledge=know, targets=target, epsilon=eps,
                          delta=delta, notions=["apkdp", "ppkdp", "noiseless"], engine="brute")
        b = check_partial(mech, model, knowledge=know, targets=target, epsilon=eps,
                          delta=delta, notions=["apkdp", "ppkdp", "noiseless"], engine="counts")
        for notion in ("apkdp", "ppkdp", "noiseless"):
            assert a.results[notion].delta == b.results[notion].delta
            assert a.results[notion].epsilon == b.results[notion].epsilon


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 5), st.sampled_from([2, 3]), st.integers(0, 3))
def test_dp_by_counts_agrees_with_brute_force(n, k, which):
    values = list(range(k))
    mech = [count([1]), threshold_count([1], 2), geometric_count([1], "1/3"), sum_query()][which]
    for eps in ("0", "ln(3/2)", "1/3"):
        a = check_dp(mech, replace_one(values, n), eps, "1/10", engine="brute")
        b = check_dp(mech, replace_one(values, n), eps, "1/10", engine="counts")
        assert a.delta == b.delta and a.epsilon == b.epsilon


def test_count_law_by_hand():
    # 3 i.i.d. records with P[1] = 1/4: P[#1 = j] = C(3, j) 3^(3−j) / 4^3
    law, scale = count_law([Dist({0: "3/4", 1: "1/4"})] * 3, (0, 1))
    assert scale == 64
    assert {c: law[c] for c in law} == {(3, 0): 27, (2, 1): 27, (1, 2): 9, (0, 3): 1}
    # non-identical: P[1] = 1/2 and 1/3: P[#1 = 0] = 1/3, 1: 1/2, 2: 1/6
    law, scale = count_law([Dist({0: "1/2", 1: "1/2"}), Dist({0: "2/3", 1: "1/3"})], (0, 1))
    assert {c: mpq(w, scale) for c, w in law.items()} == {
        (2, 0): mpq(1, 3), (1, 1): mpq(1, 2), (0, 2): mpq(1, 6)}


def test_known_counts_multiplicity():
    assert KnownCounts((0, 1), (98, 2)).multiplicity == 4950  # C(100, 2) = 100·99/2
    assert KnownCounts((0, 1, 2), (1, 1, 1)).multiplicity == 6


def test_counts_engine_refuses_when_it_does_not_apply():
    with pytest.raises(InvalidArgument) as info:
        joint_tables(iid(["1/2", "1/2"], [0, 1], 3), mechanism(lambda db: db[0]),
                     known_indices([1]), [0], engine="counts")
    assert str(info.value) == ("engine = 'counts' does not apply: the mechanism <lambda> is not "
                               "declared symmetric")


def test_count_budget():
    # a randomized mechanism takes the general route: target value (2) × other counts (50)
    from verifier import Budget
    with pytest.raises(BudgetExceeded) as info:
        joint_tables(iid(["1/2", "1/2"], [0, 1], 50), geometric_count([1], "1/2"),
                     known_indices([]), [0], Budget(max_combinations=10))
    assert str(info.value) == (
        "limits.combinations: the count engine's combinations of counts: 100, over the limit "
        "of 10; raise it with limits.combinations in the spec or --budget-counts, or use fewer "
        "records or values")


def test_auto_picks_counts_and_scales():
    r = check_partial(threshold_count([1], 20), iid(["9/10", "1/10"], [0, 1], 200),
                      knowledge=known_indices(range(10)), targets=199, epsilon="ln(2)",
                      notions=["apkdp", "ppkdp"])
    assert r.info[0].startswith("count engine")
    assert r.results["apkdp"].delta >= r.results["ppkdp"].delta  # Lemma 5


@pytest.mark.parametrize("name, f", [
    ("count mod 3", lambda db: sum(db) % 3),                     # outputs with many intervals
    ("middle band", lambda db: "band" if 2 <= sum(db) <= 4 else sum(db)),
    ("two-sided threshold", lambda db: sum(db) if sum(db) in (0, 1, 6, 7) else None),
])
def test_non_monotone_functions_of_the_count(name, f):
    # deterministic, not thresholds: preimages are unions of intervals, singletons in runs
    mech = mechanism(f, name, symmetric=True)
    model = iid(["2/3", "1/3"], [0, 1], 7)
    for known in ((), (0,), (0, 1, 2)):
        for eps, delta in zip(EPSILONS, DELTAS, strict=True):
            kw = dict(knowledge=known_indices(known), targets=6, epsilon=eps, delta=delta,
                      notions=["apkdp", "ppkdp", "noiseless"])
            a = check_partial(mech, model, engine="brute", **kw)
            b = check_partial(mech, model, engine="counts", **kw)
            for notion in ("apkdp", "ppkdp", "noiseless"):
                assert a.results[notion].delta == b.results[notion].delta, (name, known, notion)
                assert a.results[notion].epsilon == b.results[notion].epsilon


def test_built_in_counts_have_the_preimages_of_their_outputs():
    """The closed-form preimages of the built-in count and thresholded count (read from their
    parameters) equal those found by calling the mechanism on every total, for every
    threshold around 0..n, counted set and order of the two values."""
    from dataclasses import replace

    from verifier.engines import shift_table
    from verifier.model.mechanisms import count

    checked = 0
    for n in range(9):
        for values in ((0, 1), (1, 0), ("a", "b")):
            for counted in ([1], [0], [0, 1], [2], ["a"], ["b"], ["a", "b"]):
                for m in [count(counted)] + [threshold_count(counted, t) for t in range(-1, n + 3)]:
                    fast = shift_table._closed_form(m, values, n)
                    slow = shift_table.preimages(replace(m, kind=None), values, n)
                    assert fast is not None and slow is not None
                    assert list(fast.at) == list(slow.at)
                    assert (fast.runs, fast.groups) == (slow.runs, slow.groups)
                    checked += 1
    assert checked == 1701
