"""Exact composition of privacy losses."""

from __future__ import annotations

import json

import pytest
from gmpy2 import mpq
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from verifier.cli import app
from verifier.core.distribution import Dist
from verifier.core.epsilon import Epsilon, parse_epsilon
from verifier.core.errors import BudgetExceeded, InvalidArgument
from verifier.model.mechanisms import mechanism, randomized_response
from verifier.model.noise import geometric
from verifier.notions.composition.exact import LossDistribution, compose, compose_mechanisms
from verifier.notions.dp.neighbours import check_relation, replace_one
from verifier.notions.loss import privacy_loss

RR = randomized_response("3/4", [0, 1])


def test_three_fold_randomized_response_by_hand():
    """Randomized response with truth 3/4 on one record, D1 = (0), D2 = (1): the output 0
    has ratio (3/4)/(1/4) = 3 and the output 1 ratio 1/3. Three runs: with a outputs equal to
    0, the ratio is 3^(2a − 3), P = C(3,a)(3/4)^a(1/4)^(3−a), Q = C(3,a)(1/4)^a(3/4)^(3−a):

        ratio 27: P = 27/64, Q = 1/64      ratio 3: P = 27/64, Q = 9/64
        ratio 1/3: P = 9/64, Q = 27/64     ratio 1/27: P = 1/64, Q = 27/64

    δ(ln 2) = Σ_{r > 2} (P − 2Q) = (27 − 2)/64 + (27 − 18)/64 = 34/64 = 17/32; on the piece
    E ∈ [1, 3) δ(E) = 54/64 − 10E/64, so ε(17/32) = ln 2; δ(0) = (26 + 18)/64 = 11/16. The
    swapped pair (D2, D1) gives the same values by symmetry."""
    r = compose_mechanisms([RR] * 3, replace_one([0, 1], 1), "ln(2)", "17/32")
    assert r.delta.value == mpq(17, 32) and isinstance(r.delta.value, type(mpq(0)))
    assert r.epsilon == Epsilon.log(2) and r.holds
    assert compose_mechanisms([RR] * 3, replace_one([0, 1], 1), "0").delta.value == mpq(11, 16)


def test_composition_equals_the_product_mechanism():
    """The composed loss against another engine: the mechanism that releases the three
    outputs jointly (its law built as a product Dist), checked pair by pair."""
    def joint(db):
        return Dist.product([RR(db), noisy(db), RR(db)])

    def noisy(db):
        return geometric(sum(db), "1/3", 0, 2)

    rel = replace_one([0, 1], 2)
    noisy_m = mechanism(noisy)
    for eps in ("0", "ln(2)", "1/2", "ln(7)"):
        composed = compose_mechanisms([RR, noisy_m, RR], rel, eps, "1/10")
        direct = check_relation(mechanism(joint), rel, eps, "1/10")
        assert composed.delta == direct.delta and composed.epsilon == direct.epsilon


def test_infinite_mass_composes():
    """P = (1/2, 1/2) on {a, b}, Q = point a: P[L = ∞] = 1/2, and for two runs the P-mass
    where Q vanishes is 1 − (1/2)² = 3/4 (δ at every ε is at least that)."""
    one = LossDistribution.of(Dist({"a": "1/2", "b": "1/2"}), Dist.point("a"))
    two = compose([one, one])
    assert mpq(two.infinite, two.p_scale) == mpq(3, 4)
    assert two.privacy_loss().delta(parse_epsilon("inf")).value == mpq(3, 4)
    assert two.privacy_loss().epsilon("1/2") == Epsilon.INF


def test_ratios_below_one_matter():
    """A ratio 1/2 composed with a ratio 4 gives 2 > 1: a composition cannot drop the
    ratios ≤ 1 as a single δ(ε) does. P = (1/3, 2/3), Q = (2/3, 1/3): ratios 1/2 and 2; two
    runs: ratio 4 (P 4/9, Q 1/9), 1 (P 4/9, Q 4/9), 1/4 (P 1/9, Q 4/9); δ(0) = 3/9 = 1/3."""
    one = LossDistribution.of(Dist({0: "1/3", 1: "2/3"}), Dist({0: "2/3", 1: "1/3"}))
    two = compose([one, one])
    assert [a[0] for a in two.atoms] == [mpq(1, 4), 1, 4]
    assert two.privacy_loss().delta(Epsilon.ZERO).value == mpq(1, 3)


def test_distinct_values_budget():
    """Ratios 1/3, 1, 3; three runs have the ratios 3^j, j = −3..3: seven values."""
    one = LossDistribution.of(Dist({0: "1/6", 1: "1/3", 2: "1/2"}),
                              Dist({0: "1/2", 1: "1/3", 2: "1/6"}))
    with pytest.raises(BudgetExceeded, match="limits.loss_values: .* more than 4 .*at most 27"):
        compose([one] * 3, max_values=4)
    assert compose([one] * 3, max_values=7).values == 7  # ratios 3^j, j = −3..3


def test_nothing_to_compose():
    with pytest.raises(InvalidArgument, match="at least one"):
        compose([])


RR_SPEC = """
[data]
records = 1
values = [0, 1]
[mechanism]
kind = "randomized_response"
truth = "3/4"
[query]
epsilon = "ln(2)"
delta = "1/2"
notions = ["dp"]
"""


def test_plrv_compose_command(tmp_path):
    """The same hand value (17/32 at ln 2, above the claimed δ = 1/2: exit 1)."""
    path = tmp_path / "rr.toml"
    path.write_text(RR_SPEC)
    result = CliRunner().invoke(app, ["compose", "--json", str(path), "--k", "3"])
    assert result.exit_code == 1, result.output
    out = json.loads(result.output)
    assert out["tight_delta"] == "17/32" and out["holds"] is False
    assert CliRunner().invoke(app, ["compose", "--json", str(path), "--k", "0"]).exit_code == 2


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=1, max_size=4)
       .filter(lambda rows: sum(a for a, _ in rows) > 0 and sum(b for _, b in rows) > 0),
       st.integers(1, 3), st.sampled_from(["0", "ln(2)", "1/3", "ln(5/2)", "inf"]))
def test_composed_loss_is_the_loss_of_the_product_laws(rows, k, eps):
    """Law: the composed loss of (P, Q) k times equals the loss of (P^k, Q^k) computed by
    :func:`privacy_loss` on the product distributions (the other route)."""
    sp, sq = sum(a for a, _ in rows), sum(b for _, b in rows)
    p = Dist({j: mpq(a, sp) for j, (a, _) in enumerate(rows) if a})
    q = Dist({j: mpq(b, sq) for j, (_, b) in enumerate(rows) if b})
    composed = compose([LossDistribution.of(p, q)] * k).privacy_loss()
    direct = privacy_loss(Dist.product([p] * k), Dist.product([q] * k))
    e = parse_epsilon(eps)
    assert composed.delta(e) == direct.delta(e)
    assert composed.epsilon("1/7") == direct.epsilon("1/7")
