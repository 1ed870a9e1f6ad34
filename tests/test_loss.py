"""The privacy loss and its δ(ε) profile, against the seed's formula written directly."""

import itertools
from fractions import Fraction

import pytest
from gmpy2 import mpq
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import deltas, distributions, frac, rates

from verifier.core.distribution import Dist
from verifier.core.epsilon import Epsilon, parse_epsilon
from verifier.notions.loss import Loss, LossKind, privacy_loss

MPQ = type(mpq(0))


def direct_delta(p: Dist, q: Dist, E) -> Fraction:
    """Σ_O max(0, P(O) − E·Q(O)): seed 003 Lemma 1 rewritten, in plain Fractions."""
    outs = set(p.support) | set(q.support)
    return sum((max(Fraction(0), frac(p[o]) - frac(E) * frac(q[o])) for o in outs), Fraction(0))


def test_losses_and_tags():
    p = Dist({"x": "1/2", "y": "1/2"})
    q = Dist({"y": "1/4", "z": "3/4"})
    assert Loss.of(p["x"], q["x"]).kind is LossKind.PLUS_INF
    assert Loss.of(p["z"], q["z"]).kind is LossKind.MINUS_INF
    assert str(Loss.of(p["y"], q["y"])) == "ln(2)"
    loss = privacy_loss(p, q)
    assert loss.infinite_mass == mpq(1, 2)
    assert loss.masses() == ((mpq(2), mpq(1, 2), mpq(1, 4)),)


def test_binary_randomized_response_by_hand():
    # One record, truth 3/4: P = (3/4, 1/4), Q = (1/4, 3/4). Ratios 3 (mass 3/4) and 1/3.
    p, q = Dist({0: "3/4", 1: "1/4"}), Dist({0: "1/4", 1: "3/4"})
    loss = privacy_loss(p, q)
    # δ(ε) = 3/4·(1 − E/3) = 3/4 − E/4 for E < 3, else 0
    assert loss.delta(parse_epsilon("0")) == mpq(1, 2)
    assert loss.delta(parse_epsilon("ln(2)")) == mpq(1, 4)
    assert loss.delta(parse_epsilon("ln(3)")) == 0
    assert str(loss.delta(parse_epsilon("1/2"))) == "3/4 - 1/4*exp(1/2)"
    assert str(loss.epsilon("0")) == "ln(3)"
    assert str(loss.epsilon("1/8")) == "ln(5/2)"  # 3/4 − E/4 = 1/8  ⇔  E = 5/2
    assert loss.epsilon("1/2") == Epsilon.ZERO
    assert loss.profile() == ((mpq(1), mpq(1, 2)), (mpq(3), mpq(0)))


@settings(max_examples=300, deadline=None)
@given(distributions(), distributions(), rates)
@pytest.mark.slow
def test_delta_matches_the_formula(p, q, E):
    d = privacy_loss(p, q).delta(Epsilon.log(E))
    assert type(d.value) is MPQ
    assert frac(d.value) == direct_delta(p, q, E)


@settings(max_examples=300, deadline=None)
@given(distributions(), distributions(), rates, rates)
@pytest.mark.slow
def test_delta_is_non_increasing(p, q, e1, e2):
    loss = privacy_loss(p, q)
    lo, hi = min(e1, e2), max(e1, e2)
    assert loss.delta(Epsilon.log(hi)).value <= loss.delta(Epsilon.log(lo)).value


@settings(max_examples=300, deadline=None)
@given(distributions(), distributions(), deltas)
@pytest.mark.slow
def test_round_trip_delta_epsilon_delta(p, q, delta):
    loss = privacy_loss(p, q)
    eps = loss.epsilon(delta)
    if eps.infinite:
        assert loss.infinite_mass > delta
        return
    back = loss.delta(eps).value
    if eps.is_zero:
        assert back <= delta
        return
    # tight: δ(ε(δ)) = δ exactly, and a slightly smaller ε breaks the claim
    assert back == delta
    smaller = max(mpq(1), eps.rate * mpq(999, 1000))
    assert loss.delta(Epsilon.log(smaller)).value > delta


@settings(max_examples=200, deadline=None)
@given(distributions(), distributions(), rates)
@pytest.mark.slow
def test_profile_interpolates(p, q, E):
    loss = privacy_loss(p, q)
    points = loss.profile()
    expected = loss.delta(Epsilon.log(E)).value
    if points[-1][0] <= E:
        assert expected == loss.infinite_mass
        return
    for (e0, d0), (e1, d1) in itertools.pairwise(points):
        if e0 <= E <= e1:
            assert d0 + (d1 - d0) * (E - e0) / (e1 - e0) == expected
            return
    raise AssertionError("E not covered by the profile")


@settings(max_examples=100, deadline=None)
@given(distributions(), distributions(), st.sampled_from(["1/2", "1", "1/3", "2"]))
def test_irrational_epsilon_is_bracketed(p, q, nats):
    """At ε = x nats, δ lies between the rational δ at ln of bounds on e^x."""
    eps = parse_epsilon(nats)
    d = privacy_loss(p, q).delta(eps)
    # e^(1/3) ∈ (1.395, 1.396), e^(1/2) ∈ (1.648, 1.649), e ∈ (2.718, 2.719), e² ∈ (7.389, 7.39)
    lo, hi = {"1/3": ("1.395", "1.396"), "1/2": ("1.648", "1.649"), "1": ("2.718", "2.719"),
              "2": ("7.389", "7.39")}[nats]
    loss = privacy_loss(p, q)
    assert loss.delta(parse_epsilon(f"ln({hi})")) <= d.bounds(200)[0]
    assert d.bounds(200)[1] <= loss.delta(parse_epsilon(f"ln({lo})")).value
