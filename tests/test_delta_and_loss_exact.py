"""The exact δ type and the privacy-loss type on cases derived by hand.

``δ = A − C·e^ε``: at ε = 1/2 nat, ``e^{1/2} = 1.6487212707…`` (so ``1 − e^{1/2}/2 ≈ 0.1756``
and ``1 − e^{1/2}/4 ≈ 0.5878``); at ε = ln(q) the form collapses to the rational ``A − C·q``.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from gmpy2 import mpq

from verifier.core.delta import Delta
from verifier.core.epsilon import Epsilon
from verifier.core.errors import InvalidArgument, InvalidNumber
from verifier.notions.loss import Loss, PrivacyLoss

HALF = Epsilon.of_nats("1/2")
THIRD = Epsilon.of_nats("1/3")
D1 = Delta.make(mpq(1), mpq(1, 2), HALF)   # ≈ 0.1756
D2 = Delta.make(mpq(1), mpq(1, 4), HALF)   # ≈ 0.5878


def test_a_rational_e_to_the_epsilon_collapses_the_form():
    d = Delta.make(mpq(3), mpq(1), Epsilon.log(2))  # 3 − 1·2
    assert (d.a, d.c) == (1, 0) and d == 1


def test_an_infinite_epsilon_has_no_e_to_the_epsilon_term():
    with pytest.raises(InvalidNumber, match="^a δ at ε = inf cannot depend on e\\^ε$"):
        Delta.make(mpq(1), mpq(1, 2), Epsilon.INF)


def test_comparisons_at_an_irrational_epsilon():
    assert D1.compare(D2) == -1 and D2.compare(D1) == 1 and D1.compare(D1) == 0
    assert D1 < D2 and not D2 < D1 and not D1 < D1
    assert D1 <= D1 and D1 <= D2 and not D2 <= D1
    assert D2 > D1 and not D1 > D1
    assert D1.compare(mpq(1, 5)) == -1 and D1.compare(mpq(1, 6)) == 1  # 0.1756 vs 0.2, 0.1667
    rational_elsewhere = Delta.make(mpq(1, 5), mpq(0), THIRD)  # a plain 1/5
    assert D1.compare(rational_elsewhere) == -1
    # at different ε, decided all the same (Lindemann–Weierstrass: 1, e^(1/2), e^(1/3) are
    # linearly independent): 1 − e^(1/3)/2 = 1 − 1.3956…/2 ≈ 0.3022 > D1 ≈ 0.1756
    other = Delta.make(mpq(1), mpq(1, 2), THIRD)
    assert D1.compare(other) == -1 and other.compare(D1) == 1 and other > D1 and other != D1
    with pytest.raises(InvalidNumber, match="^delta = 'x' is not a number"):
        D1.compare("x")


def test_equality_reads_the_epsilon_only_when_it_matters():
    assert Delta.make(mpq(1, 2), mpq(0), HALF) == Delta.make(mpq(1, 2), mpq(0), THIRD)
    assert Delta.make(mpq(1), mpq(1, 2), HALF) != Delta.make(mpq(1), mpq(1, 2), THIRD)
    assert D1 != 1  # A = 1, but δ = 1 − e^{1/2}/2
    assert Delta.make(mpq(1), mpq(0), HALF) == 1 and Delta.make(mpq(1), mpq(0), HALF) != True  # noqa: E712
    assert Delta.make(mpq(1, 2), mpq(0), HALF) == Fraction(1, 2)


def test_text_and_decimals():
    assert str(D1) == "1 - 1/2*exp(1/2)"
    assert str(Delta.make(mpq(1), mpq(-1, 2), HALF)) == "1 + 1/2*exp(1/2)"
    assert D1.approx(3) == "0.175" and D2.approx(4) == "0.5878"
    assert Delta.make(mpq(1, 3), mpq(0), HALF).approx(3) == "0.333"
    lo, hi = D1.bounds(64)  # 1 − e^{1/2}/2 = 0.17563936464…
    assert mpq(1756393646, 10 ** 10) < lo <= hi < mpq(1756393647, 10 ** 10)
    assert Delta.make(mpq(1, 3), mpq(0), HALF).bounds(8) == (mpq(1, 3), mpq(1, 3))


def test_a_loss_needs_two_distributions_of_positive_mass():
    with pytest.raises(InvalidArgument, match="^a privacy loss needs two distributions of "
                                              "positive mass$"):
        PrivacyLoss.from_rows({0: 1}, {})


def test_an_output_of_p_mass_zero_is_skipped_not_an_end():
    # P = (0, 1), Q = (1/2, 1/2) on outputs a, b: output b has ratio 1/(1/2) = 2
    loss = PrivacyLoss.from_rows({"a": 0, "b": 2}, {"a": 1, "b": 1})
    assert loss.atoms == ((mpq(2), 2, 1),) and loss.infinite == 0
    assert loss.delta(Epsilon.log(1)).value == mpq(1, 2)  # 1 − 1·1/2


def test_a_loss_equal_to_epsilon_does_not_exceed_it():
    # randomized response with truth 3/4: the loss is ln 3 exactly
    assert not Loss.of(mpq(3, 4), mpq(1, 4)).exceeds(Epsilon.log(3))
    assert Loss.of(mpq(3, 4), mpq(1, 4)).exceeds(Epsilon.log(2))


def test_the_epsilon_at_delta_names_its_argument():
    loss = PrivacyLoss.from_rows({0: 3, 1: 1}, {0: 1, 1: 3})
    with pytest.raises(InvalidArgument, match="^delta = 2 is not a probability"):
        loss.epsilon("2")


def test_a_mixture_of_weights_one_and_of_equal_parts():
    # randomized response 3/4: P = (3/4, 1/4), Q = (1/4, 3/4); δ(ln 2) = 3/4 − 2·1/4 = 1/4
    rr = PrivacyLoss.from_rows({0: 3, 1: 1}, {0: 1, 1: 3})
    assert rr.delta(Epsilon.log(2)).value == mpq(1, 4)
    for weights in ((1, 1), (mpq(1, 2), mpq(1, 2)), (2, 5)):
        mixed = PrivacyLoss.mixture([(weights[0], rr), (weights[1], rr)])
        assert mixed.delta(Epsilon.log(2)).value == mpq(1, 4)  # the same loss, mixed
    # a mixture with a loss-free part halves δ: (1/2)·1/4 + (1/2)·0
    assert PrivacyLoss.mixture([(1, rr), (1, PrivacyLoss.none())]).delta(
        Epsilon.log(2)).value == mpq(1, 8)


def test_bounds_and_decimals_of_every_form():
    two = Delta.make(mpq(2), mpq(1), HALF)  # 2 − e^{1/2} = 0.35127872…
    lo, hi = two.bounds(64)
    assert mpq(3512787292, 10 ** 10) < lo <= hi < mpq(3512787293, 10 ** 10)
    assert two.approx(3) == "0.351" and D1.approx() == "0.175639"
    third = Delta.make(mpq(1, 3), mpq(0), Epsilon.log(2))  # rational: no e^ε to enclose
    assert third.bounds(8) == (mpq(1, 3), mpq(1, 3)) and third.approx() == "0.333333"
    assert D2 >= D1 and D1 >= D1 and not D1 >= D2
    assert repr(D1) == "Delta('1 - 1/2*exp(1/2)')"


def test_a_loss_reads_as_its_logarithm():
    assert str(Loss.of(mpq(1, 2), mpq(1, 2))) == "0"
    assert str(Loss.of(mpq(3, 4), mpq(1, 4))) == "ln(3)"
