"""plrv's exact composition beside dp_accounting (skipped without the accounting extra)."""

from __future__ import annotations

import math
import sys

import pytest
from gmpy2 import mpq

from verifier.core.distribution import Dist
from verifier.core.epsilon import parse_epsilon
from verifier.interop import accounting
from verifier.interop.accounting import MissingExtra, ceil_log, compare_composition, to_pld
from verifier.model.mechanisms import mechanism, randomized_response
from verifier.model.noise import geometric
from verifier.notions.composition.exact import LossDistribution, compose
from verifier.notions.dp.neighbours import replace_one, vector_relation, vectors


def test_missing_extra_names_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "dp_accounting", None)  # import raises ImportError
    with pytest.raises(MissingExtra, match=r"pip install -e '\.\[accounting\]'"):
        accounting.dp_accounting()


def test_ceil_log_is_the_pessimistic_rounding():
    """⌈ln(r)/h⌉ for h = 1/10: ln 3 = 1.0986… → 11, ln(1/3) → −10, ln 2 = 0.693… → 7."""
    h = mpq(1, 10)
    assert [ceil_log(mpq(r), h) for r in ("3", "1/3", "1", "2", "1/2")] == [11, -10, 0, 7, -6]


dp = pytest.importorskip("dp_accounting")


def test_three_fold_randomized_response_below_dp_accounting():
    """The exact δ(ln 2) = 17/32 (hand computation in tests/test_composition.py) sits below
    dp_accounting's pessimistic estimates: from plrv's exact loss, and from its own
    randomized-response PLD (noise parameter 1/2: truthful with probability 1 − 1/2 + 1/4)."""
    rr = randomized_response("3/4", [0, 1])
    c = compare_composition(rr, replace_one([0, 1], 1), 3, "ln(2)")
    assert c.exact.value == mpq(17, 32)
    assert c.accountant >= mpq(17, 32) and c.difference == c.accountant - mpq(17, 32)
    own = dp.pld.privacy_loss_distribution.from_randomized_response(0.5, 2).self_compose(3)
    assert mpq(own.get_delta_for_epsilon(math.log(2))) >= mpq(17, 32)


@pytest.mark.parametrize("k", [1, 2, 4])
def test_geometric_never_exceeds_dp_accounting(k):
    """The two-sided geometric count (α = 1/2) for neighbouring counts 0 and 1: its loss is
    ±ln 2 (clamping to {0, 1} keeps every ratio), so its k-fold δ is dp_accounting's discrete
    Laplace with parameter ln 2 — which must be at least the exact one."""
    noisy = mechanism(lambda x: geometric(x[0], "1/2", 0, 1))
    rel = vector_relation("linf", 1, vectors(1, 0, 1))
    for eps in ("0", "1/2", "ln(2)"):
        c = compare_composition(noisy, rel, k, eps)
        assert c.exact.compare(c.accountant) <= 0
        theirs = dp.pld.privacy_loss_distribution.from_discrete_laplace_mechanism(
            math.log(2)).self_compose(k).get_delta_for_epsilon(
                accounting.epsilon_float(parse_epsilon(eps)))
        assert c.exact.compare(mpq(theirs)) <= 0


def test_to_pld_infinite_mass():
    """P[L = ∞] = 1/2 stays the accountant's δ at every ε (rounded up to a float)."""
    one = LossDistribution.of(Dist({"a": "1/2", "b": "1/2"}), Dist.point("a"))
    assert to_pld(compose([one])).get_delta_for_epsilon(5.0) >= 0.5
