"""The polynomial route of exact composition against independent computations.

Expected values come from the binomial expansion written out here, from hand derivations,
and — for hundreds of random mechanisms, relations and run counts — from the other engine
(the convolution route, which multiplies every pair of atoms and merges them by ratio).
"""

from __future__ import annotations

import random
from fractions import Fraction
from math import comb

import pytest
from gmpy2 import mpq, mpz

from verifier.core.distribution import Dist
from verifier.core.epsilon import parse_epsilon
from verifier.core.errors import BudgetExceeded, InvalidArgument
from verifier.model.mechanisms import Mechanism, randomized_response
from verifier.notions.composition import polynomial
from verifier.notions.composition.basis import basis_of, coprime_base
from verifier.notions.composition.exact import (
    LossDistribution,
    compose,
    compose_law,
    compose_mechanisms,
)
from verifier.notions.composition.polynomial import miller_power, plan_polynomial
from verifier.notions.dp.neighbours import add_remove_one, replace_one


def _law(p: dict, q: dict) -> LossDistribution:
    return LossDistribution.of(Dist(p), Dist(q))


RR = _law({0: "3/4", 1: "1/4"}, {0: "1/4", 1: "3/4"})


# -- the multiplicative basis ----------------------------------------------------------------

def test_coprime_base_by_hand():
    assert coprime_base([12, 18]) == (2, 3)
    assert coprime_base([6, 36]) == (6,)
    assert coprime_base([4, 6, 9]) == (2, 3)
    assert coprime_base([1, 1]) == ()
    assert coprime_base([10, 15, 21]) == (2, 3, 5, 7)


def test_basis_finds_one_generator_where_primes_are_two():
    """Truth 3/5 has ratios 3/2 and 2/3: two primes, one generator 3/2 (oriented > 1)."""
    b = basis_of([mpq(3, 2), mpq(2, 3), mpq(9, 4), mpq(1)])
    assert b.generators == (mpq(3, 2),)
    assert [b.exponents(r) for r in (mpq(2, 3), mpq(27, 8), mpq(1))] == [(-1,), (3,), (0,)]
    with pytest.raises(InvalidArgument):
        b.exponents(mpq(2))
    two = basis_of([mpq(2), mpq(3), mpq(1, 6)])
    assert two.rank == 2
    for r in (mpq(2), mpq(3), mpq(1, 6), mpq(12), mpq(2, 27)):
        e = two.exponents(r)
        value = mpq(1)
        for g, k in zip(two.generators, e, strict=True):
            value *= g ** k
        assert value == r


# -- powers ------------------------------------------------------------------------------------

@pytest.mark.parametrize("a,b,k", [(1, 3, 1), (1, 3, 7), (2, 5, 40), (3, 1, 100)])
def test_miller_power_is_the_binomial_expansion(a, b, k):
    assert miller_power([mpz(a), mpz(b)], k) == [comb(k, j) * a ** (k - j) * b ** j
                                                 for j in range(k + 1)]


def test_miller_power_agrees_with_repeated_products_on_longer_polynomials():
    rng = random.Random(3)
    for _ in range(30):
        a = [mpz(rng.randint(1, 9))] + [mpz(rng.randint(0, 9)) for _ in range(rng.randint(1, 5))]
        k = rng.randint(1, 9)
        expected = [1]
        for _ in range(k):
            out = [0] * (len(expected) + len(a) - 1)
            for i, x in enumerate(expected):
                for j, y in enumerate(a):
                    out[i + j] += x * y
            expected = out
        assert [int(c) for c in miller_power(a, k)] == expected


def test_the_flint_power_and_miller_agree(monkeypatch):
    """Above SMALL_TERMS terms the power is flint's: force both on the same law."""
    law = _law({o: f"{o + 1}/21" for o in range(6)}, {o: f"{6 - o}/21" for o in range(6)})
    results = []
    for small in (0, 100):
        monkeypatch.setattr(polynomial, "SMALL_TERMS", small)
        loss, route = compose_law([law] * 9)
        assert route == "polynomial"
        results.append((loss.delta(parse_epsilon("ln(2)")), loss.epsilon("1/100")))
    assert results[0] == results[1]


# -- k-fold randomized response: the binomial closed form --------------------------------------

def _rr_delta(k: int, e_rate: Fraction) -> Fraction:
    """δ(ln E) of k-fold randomized response (truth 3/4) by its binomial sum: j truthful
    answers have P = C(k,j)·3^j/4^k, Q = C(k,j)·3^{k−j}/4^k and ratio 3^{2j−k}."""
    total = Fraction(0)
    for j in range(k + 1):
        if Fraction(3) ** (2 * j - k) > e_rate:
            total += Fraction(comb(k, j) * (3 ** j - e_rate * 3 ** (k - j)), 4 ** k)
    return total


@pytest.mark.parametrize("k", [1, 2, 3, 10, 57])
@pytest.mark.parametrize("rate", ["1", "2", "3", "100"])
def test_k_fold_randomized_response_is_the_binomial_sum(k, rate):
    loss, route = compose_law([RR] * k)
    assert route == "polynomial"
    d = loss.delta(parse_epsilon(f"ln({rate})"))
    value = d.a - d.c * mpq(rate)  # the exact rational: ε = ln(rate)
    assert isinstance(value, type(mpq(0)))
    assert Fraction(int(value.numerator), int(value.denominator)) == _rr_delta(k, Fraction(rate))


def test_three_runs_by_hand():
    """k = 3, truth 3/4: ratios 27, 3 (P-masses 27/64, 27/64); δ(ln 2) = 27/64 − 2/64 +
    27/64 − 2·9/64 = 34/64 = 17/32, and ε(17/32) = ln 2."""
    loss, _ = compose_law([RR] * 3)
    d = loss.delta(parse_epsilon("ln(2)"))
    assert d.a - 2 * d.c == mpq(17, 32)
    assert str(loss.epsilon("17/32")) == "ln(2)"


# -- the differential test: hundreds of random mechanisms, relations and k --------------------

def _random_dist(rng: random.Random, outputs: int, den: int, zero: bool) -> dict:
    weights = [rng.randint(0 if zero else 1, 6) for _ in range(outputs)]
    if not any(weights):
        weights[0] = 1
    total = sum(weights)
    return {o: f"{w}/{total}" for o, w in enumerate(weights) if w}


def _random_mechanism(rng: random.Random, name: str) -> Mechanism:
    outputs = rng.randint(2, 4)
    table = {v: _random_dist(rng, outputs, 6, zero=rng.random() < 0.3) for v in (0, 1, 2)}

    def f(x: tuple) -> Dist:
        return Dist(table[sum(x) % 3])

    return Mechanism(name, f)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.slow
def test_polynomial_and_convolution_routes_agree(seed):
    """25 random compositions per seed (300 in all): one to four random mechanisms with
    2–4 outputs (some masses zero: infinite losses), repeated up to 6 times, under
    replace-one or add/remove on 2 records; tight δ at four ε and tight ε at three δ."""
    rng = random.Random(seed)
    for case in range(25):
        mechs = [_random_mechanism(rng, f"m{seed}_{case}_{i}") for i in range(rng.randint(1, 4))]
        parts = [rng.choice(mechs) for _ in range(rng.randint(1, 6))]
        relation = (replace_one([0, 1, 2], 2) if rng.random() < 0.6
                    else add_remove_one([0, 1, 2], 2))
        for eps in ("0", "ln(2)", "1/2", "ln(7/3)"):
            answers = [compose_mechanisms(parts, relation, eps, "1/20", route=route)
                       for route in ("polynomial", "convolution")]
            a, b = answers
            assert a.delta == b.delta and a.epsilon == b.epsilon and a.holds == b.holds, (
                seed, case, eps)
        pair = [LossDistribution.of(m((0, 1)), m((1, 1))) for m in parts]
        poly, route = compose_law(pair, route="polynomial")
        conv = compose(pair).privacy_loss()
        assert route == "polynomial"
        for d in ("0", "1/3", "1/1000"):
            assert poly.epsilon(d) == conv.epsilon(d)


def test_pairs_sharing_a_composed_law_answer_as_when_each_is_composed(monkeypatch):
    """compose_mechanisms composes once per distinct tuple of the pairs' losses (a mechanism
    of sum(x) mod 3 gives a few for many pairs): the δ, ε, verdict and witness are those of
    composing every pair on its own (the sharing switched off)."""
    from verifier.notions.composition import exact

    rng = random.Random(36)
    for case in range(6):
        mechs = [_random_mechanism(rng, f"s{case}_{i}") for i in range(rng.randint(1, 3))]
        parts = [rng.choice(mechs) for _ in range(rng.randint(1, 4))]
        relation = (replace_one([0, 1, 2], 2) if case % 2 else add_remove_one([0, 1, 2], 2))
        for eps, delta in (("0", "1/20"), ("ln(2)", "0")):
            shared = compose_mechanisms(parts, relation, eps, delta)
            with monkeypatch.context() as m:
                m.setattr(exact, "_SHARED_PARTS", 0)
                alone = compose_mechanisms(parts, relation, eps, delta)
            assert (shared.delta, shared.epsilon, shared.holds, shared.witness) == (
                alone.delta, alone.epsilon, alone.holds, alone.witness), (case, eps)


def test_several_generators_order_by_value():
    """Ratios 2, 3, 1/2, 1/3, 1: two generators; every atom's ratio and masses match the
    convolution's, in the same increasing order."""
    law = _law({0: "2/10", 1: "3/10", 2: "1/10", 3: "1/10", 4: "3/10"},
               {0: "1/10", 1: "1/10", 2: "2/10", 3: "3/10", 4: "3/10"})
    loss, _ = compose_law([law] * 7)
    assert len(loss.generators) == 2
    assert loss.masses() == list(compose([law] * 7).privacy_loss().masses())


def test_too_many_generators_take_the_convolution_route():
    primes = [2, 3, 5, 7, 11, 13, 17, 19, 23]
    law = _law({o: f"{p}/101" for o, p in enumerate(primes)} | {9: "1/101"},
               {o: "1/10" for o in range(10)})
    loss, route = compose_law([law] * 2)
    assert route == "convolution"
    with pytest.raises(InvalidArgument):
        compose_law([law], route="polynomial")


def test_degenerate_laws():
    same = _law({0: "1/2", 1: "1/2"}, {0: "1/2", 1: "1/2"})  # every ratio is 1
    loss, _ = compose_law([same] * 5)
    assert loss.delta(parse_epsilon("0")).a == 0 and str(loss.epsilon("0")) == "0"
    reveal = _law({0: "1"}, {1: "1"})  # disjoint supports: L = +∞ surely
    loss, _ = compose_law([RR, reveal])
    assert str(loss.epsilon("1/2")) == "inf"
    assert loss.delta(parse_epsilon("ln(5)")).a == 1


def test_the_distinct_values_are_counted_before_the_work():
    """k-fold randomized response has k + 1 values: 11 exceed a budget of 10."""
    with pytest.raises(BudgetExceeded) as err:
        plan_polynomial([RR] * 10, max_values=10)
    assert err.value.key == "limits.loss_values"
    assert plan_polynomial([RR] * 9, max_values=10) is not None


def test_compose_names_the_route(tmp_path):
    from verifier.commands.compose import compose_spec

    spec = tmp_path / "rr.toml"
    spec.write_text('[data]\nrecords = 1\nvalues = [0, 1]\n[mechanism]\n'
                    'kind = "randomized_response"\ntruth = "3/4"\n[query]\n'
                    'epsilon = "ln(2)"\ndelta = "1/2"\nnotions = ["dp"]\n')
    out, holds = compose_spec(spec, 3)
    assert out["route"] == "polynomial" and out["tight_delta"] == "17/32" and holds is False
    assert randomized_response("3/4", [0, 1]).name == "randomized_response"
