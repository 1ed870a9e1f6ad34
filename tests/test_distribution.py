"""Distributions: validation, canonical form, and the operations."""

import pytest
from gmpy2 import mpq

from verifier.core.distribution import BOTTOM, Dist
from verifier.core.errors import InvalidDistribution, InvalidNumber, NullEvent

MPQ = type(mpq(0))


@pytest.mark.parametrize("weights, error, message", [
    ({0: "1/2", 1: "1/3"}, InvalidDistribution, "distribution sums to 5/6, not 1"),
    ({0: "3/2", 1: "-1/2"}, InvalidDistribution, "distribution[1] = -1/2 is a negative weight"),
    ({0: 0.5, 1: "1/2"}, InvalidNumber, 'distribution[0] = 0.5 is a float, which is not '
                                        'exact; write it as a string such as "0.5" or "1/2", or, '
                                        'to mean the double itself, {f64 = "0.5"} '
                                        '(verifier.f64 in Python)'),
    ({}, InvalidDistribution, "distribution sums to 0, not 1"),
], ids=["total-5/6", "negative", "float", "empty"])
def test_bad_distributions(weights, error, message):
    with pytest.raises(error) as info:
        Dist(weights)
    assert str(info.value) == message


def test_canonical_and_equal():
    a = Dist({1: "1/2", 0: "2/4", 2: 0})
    b = Dist([(0, "1/4"), (1, "1/2"), (0, "1/4")])
    assert a == b and hash(a) == hash(b)
    assert a.support == (0, 1)  # sorted, zero weight dropped
    assert type(a[0]) is MPQ and a[0] == mpq(1, 2) and a[7] == 0
    with pytest.raises(AttributeError):
        a.foo = 1


def test_mixed_outcomes_sort_with_bottom_first():
    d = Dist({3: "1/3", BOTTOM: "1/3", "x": "1/3"})
    assert d.support == (BOTTOM, 3, "x")


def test_map_bind_condition_product_marginal():
    die = Dist.uniform(range(1, 7))
    parity = die.map(lambda x: x % 2)
    assert parity == Dist({0: "1/2", 1: "1/2"})
    assert die.prob(lambda x: x >= 5) == mpq(1, 3)
    assert die.expectation() == mpq(7, 2)
    high = die.condition(lambda x: x >= 5)
    assert high == Dist({5: "1/2", 6: "1/2"})
    # bind: flip a coin that is heads with probability x/6
    coin = die.bind(lambda x: Dist({"H": mpq(x, 6), "T": 1 - mpq(x, 6)}))
    assert coin["H"] == mpq(21, 36)  # (1+…+6)/36
    pair = Dist.product([parity, parity])
    assert pair[(1, 1)] == mpq(1, 4) and pair.marginal(0) == parity
    assert (parity * parity) == pair


def test_null_event():
    with pytest.raises(NullEvent) as info:
        Dist.point(1).condition(lambda x: x == 2)
    assert str(info.value) == "conditioning on an event of probability 0"
    assert isinstance(info.value, ZeroDivisionError)


def test_product_lists_its_outcomes_in_sort_key_order():
    """Dist.product skips the sort when every factor's outcomes are strictly increasing: its
    outcomes must still come in the order sorted() by sort_key gives, over mixed outcomes
    (⊥, numbers, strings, tuples, sets, None), and with keys that tie (two objects of one type
    and one repr) the sort decides."""
    import random

    from verifier.core.distribution import sort_key

    class Same:
        def __repr__(self) -> str:
            return "same"

    rng = random.Random(7)
    pool = [0, 1, 2, -3, mpq(1, 2), "a", "b", (1, 2), (0,), BOTTOM, frozenset({1}), None,
            Same(), Same()]
    for _ in range(500):
        factors = []
        for _ in range(rng.randint(0, 4)):
            outs = rng.sample(pool, rng.randint(1, 4))
            factors.append(Dist({o: mpq(1, len(outs)) for o in outs}))
        items = list(Dist.product(factors).items())
        assert items == sorted(items, key=lambda kv: sort_key(kv[0]))
        assert len(items) == len({o for o, _ in items})
