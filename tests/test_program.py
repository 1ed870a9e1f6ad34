"""Programs drawing with verifier.program's primitives: their exact laws by enumeration
(expected values derived by hand), sampling outside plrv, and the refusals."""

from __future__ import annotations

import random

import pytest
from gmpy2 import mpq

from verifier import Dist, check_dp, geometric_count, randomized_response, replace_one
from verifier.core.errors import BudgetExceeded, InvalidArgument, InvalidNumber, UserCodeError
from verifier.program import (
    bernoulli,
    binomial,
    choose,
    clamped_geometric_noise,
    flip,
    geometric_noise,
    program,
    seed,
    uniform,
    uniform_int,
)


def law(f, *args) -> dict:
    return {k: str(v) for k, v in program(lambda db: f(*args))(()).items()}


def test_primitive_laws_by_hand():
    assert law(flip, "3/4") == {False: "1/4", True: "3/4"}
    assert law(bernoulli, {"f64": "0x1p-2"}) == {0: "3/4", 1: "1/4"}
    assert law(uniform, ["a", "b", "c"]) == {"a": "1/3", "b": "1/3", "c": "1/3"}
    assert law(uniform_int, -1, 1) == {-1: "1/3", 0: "1/3", 1: "1/3"}
    assert law(choose, {"x": 1, "y": "3"}) == {"x": "1/4", "y": "3/4"}
    # C(2,k) (1/3)^k (2/3)^(2-k)
    assert law(binomial, 2, "1/3") == {0: "4/9", 1: "4/9", 2: "1/9"}
    # masses 1/2, 1, 1/2 over -1..1, renormalised
    assert law(geometric_noise, "1/2", -1, 1) == {-1: "1/4", 0: "1/2", 1: "1/4"}
    # P[-1] = α/(1+α) = 1/3 (the tail below 0), P[0] = (1−α)/(1+α) = 1/3, P[1] = 1/6,
    # P[2] = α²/(1+α) = 1/6 (the tail from 2 up)
    assert law(clamped_geometric_noise, "1/2", -1, 2) == {-1: "1/3", 0: "1/3", 1: "1/6",
                                                          2: "1/6"}
    assert law(flip, 1) == {True: "1"}  # a value of weight 0 is no choice


def test_floats_refused_with_the_f64_hint():
    with pytest.raises(InvalidNumber, match="f64"):
        flip(0.5)


def rr(db):
    return tuple(x if flip("3/4") else 1 - x for x in db)


def test_randomized_response_program_by_hand_and_as_the_builtin():
    got = program(rr)((0, 1))
    assert got == Dist({(0, 0): "3/16", (0, 1): "9/16", (1, 0): "1/16", (1, 1): "3/16"})
    assert got == randomized_response("3/4", [0, 1])((0, 1))
    a = check_dp(program(rr), replace_one([0, 1], 3), epsilon="ln(2)", delta="0")
    b = check_dp(randomized_response("3/4", [0, 1]), replace_one([0, 1], 3), epsilon="ln(2)",
                 delta="0")
    assert (a.delta, a.epsilon) == (b.delta, b.epsilon)
    assert str(a.epsilon) == "ln(3)"


def noisy_count(db):
    c = sum(db)
    return c + clamped_geometric_noise("1/3", -c, len(db) - c)


def test_noisy_count_is_geometric_count():
    for db in ((0, 0, 0), (0, 1, 1), (1, 1, 1)):
        assert program(noisy_count)(db) == geometric_count([1], "1/3")(db)
    # and the symmetric declaration reaches the count engine with the same answer
    a = check_dp(program(noisy_count, symmetric=True), replace_one([0, 1], 4), epsilon="ln(2)",
                 delta="0")
    b = check_dp(geometric_count([1], "1/3"), replace_one([0, 1], 4), epsilon="ln(2)", delta="0")
    assert (a.delta, a.epsilon) == (b.delta, b.epsilon)


def test_a_program_returning_a_dist_is_mixed_in():
    m = program(lambda db: Dist({0: "1/2", 1: "1/2"}) if flip("1/2") else 1)
    assert m(()) == Dist({0: "1/4", 1: "3/4"})


def test_sampling_outside_plrv_is_exact_and_reproducible():
    class Fixed(random.Random):
        def __init__(self, r):
            super().__init__(0)
            self.r = r

        def randrange(self, n, *a, **k):  # flip(3/4): denominator 4, True below 3
            assert n == 4
            return self.r
    with seed(Fixed(2)):
        assert flip("3/4") is True
    with seed(Fixed(3)):
        assert flip("3/4") is False
    with seed(random.Random(11)):
        first = [rr((0, 1, 1)) for _ in range(20)]
    with seed(random.Random(11)):
        assert [rr((0, 1, 1)) for _ in range(20)] == first


def test_python_random_is_refused_naming_the_program():
    def coin(db):
        return int(random.random() < 0.5)
    with pytest.raises(UserCodeError, match="program '.*coin'.*random module"):
        program(coin)((0,))


def test_divergence_names_the_program_and_the_choice():
    calls = []

    def drift(db):
        calls.append(1)
        try:
            return flip("1/2") and flip("1/3" if len(calls) > 1 else "1/2")
        except Exception:  # a program's own except does not swallow the refusal
            return 0
    with pytest.raises(UserCodeError,
                       match=r"program '.*drift' diverged at choice 2: flip\(1/3\) where "
                             r"flip\(1/2\) was recorded"):
        program(drift)((0,))


def test_paths_limit_counts_paths_and_choices():
    assert len(program(rr, paths=8)((0, 1, 0))) == 8
    with pytest.raises(BudgetExceeded, match="limits.paths") as info:
        program(rr, paths=7)((0, 1, 0))
    assert info.value.key == "limits.paths"

    def forever(db):
        n = 0
        while flip("1/2"):
            n += 1
        return n
    with pytest.raises(BudgetExceeded, match="limits.paths: .*more than 50 choices"):
        program(forever, paths=50)(())


def test_unhashable_outputs_and_exceptions_are_refused_naming_the_program():
    with pytest.raises(UserCodeError, match="hashable"):
        program(lambda db: {"a": flip()}, name="tabled")(())
    with pytest.raises(UserCodeError, match=r"program 'boom' raised ZeroDivisionError"):
        program(lambda db: 1 // (0 if flip() else 1), name="boom")(())


def test_lists_are_tuples_and_the_weights_are_exact():
    m = program(lambda db: [flip("1/3"), [bernoulli("1/5")]])
    assert m(())[(True, (1,))] == mpq(1, 15)


def test_the_python_api_and_the_plugin_take_a_program_function_directly():
    from verifier import check_renyi, compose_mechanisms, replace_one
    from verifier.testing import assert_dp, assert_not_dp

    one = replace_one([0, 1], 1)
    # D_2 of (3/4, 1/4) against (1/4, 3/4): ln((3/4)²/(1/4) + (1/4)²/(3/4)) = ln(7/3)
    r = check_renyi(rr, one, orders=[2], rho="2")
    assert str(r.results["rdp"].orders[0].value) == "ln(7/3)"
    # two independent runs: the worst ratio is 3·3 = 9
    assert compose_mechanisms([rr, rr], one, "ln(9)", "0").holds
    assert not compose_mechanisms([rr, rr], one, "ln(8)", "0").holds
    assert_dp(rr, replace_one([0, 1], 2), "ln(3)")
    assert_not_dp(rr, replace_one([0, 1], 2), "ln(2)")
    with pytest.raises(InvalidArgument, match="neither a Mechanism nor a function"):
        check_renyi(3, one, orders=[2], rho="2")


def test_a_stop_the_program_raises_itself_is_its_own_exception():
    # the enumerator's private stop, raised by the program and not by a choice: before, the
    # run was read as having returned and failed on its unset output (UnboundLocalError)
    from verifier.model.program_enum import _Stop

    def fake(db):
        raise _Stop("made up")
    with pytest.raises(UserCodeError, match=r"program '.*fake' raised made up on path 1"):
        program(fake)((0,))
