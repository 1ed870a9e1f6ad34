"""Certified enclosures of composed δ(ε) and ε(δ): hand values, containment, direction."""

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
from verifier.model.mechanisms import randomized_response
from verifier.notions.composition.adaptive import adaptive_step
from verifier.notions.composition.enclosure import CompositionEnclosure, enclose_composition
from verifier.notions.composition.exact import LossDistribution, compose, compose_mechanisms
from verifier.notions.composition.grid import Grid, GridLoss, parse_grid
from verifier.notions.dp.neighbours import replace_one

RR = randomized_response("3/4", [0, 1])
ONE = replace_one([0, 1], 1)
EPSILONS = ["0", "ln(2)", "1/2", "ln(5/2)", "3", "inf"]
DELTAS = ["0", "1/100", "1/4", "1/2", "9/10"]


def test_two_fold_randomized_response_on_grid_ln2_by_hand():
    """RR (truth 3/4) on one record, x = (0), y = (1): ratios 3 (P = 3/4) and 1/3 (P = 1/4).
    On the grid {2^j}: up, 3 → 4 = 2^2 and 1/3 → 1/2 = 2^-1; down, 3 → 2 and 1/3 → 1/4.
    Two runs, up: exponents 4 (P 9/16), 1 (P 6/16), −2 (P 1/16); down: 2 (9/16), −1 (6/16),
    −4 (1/16). At E = 2 only 2^j > 2 counts: upper δ = 9/16·(1 − 2/16) = 63/128, lower
    δ = 9/16·(1 − 2/4) = 9/32; the exact δ(ln 2) = 9/16 − 2/16 = 7/16 lies between.
    Tight ε at δ = 1/2: upper δ(E) = 15/16 − 57E/256 on [1, 2) (C = 9/16·1/16 + 6/16·1/2),
    = 1/2 at E = 112/57; lower δ(1) = 9/16·3/4 = 27/64 ≤ 1/2, so ε_lo = 0 (exact ε = 0)."""
    r = enclose_composition([RR] * 2, ONE, "ln(2)", "1/2", mode="always", grid="ln(2)")
    assert isinstance(r, CompositionEnclosure)
    assert r.delta_lo == mpq(9, 32) and r.delta_hi == mpq(63, 128)
    assert r.epsilon_lo == Epsilon.ZERO and r.epsilon_hi == Epsilon.log(mpq(112, 57))
    assert r.holds is True  # 63/128 ≤ 1/2: decided by the enclosure
    assert r.grids == (Grid(mpq(2)),) and r.enclosed == r.cases == 2
    assert enclose_composition([RR] * 2, ONE, "ln(2)", "2/5", mode="always",
                               grid="ln(2)").holds is None  # 9/32 ≤ 2/5 < 63/128
    assert enclose_composition([RR] * 2, ONE, "ln(2)", "1/4", mode="always",
                               grid="ln(2)").holds is False  # 9/32 > 1/4


def test_adaptive_scheme_on_grid_ln2_by_hand():
    """The adaptive scheme of test_composition_adaptive (exact δ(ln 2) = 1/3). Pair (0),(1):
    ratios 3, 2/3, 1/6 (P 3/4, 1/6, 1/12) go up to 4, 1, 1/4 and down to 2, 1/2, 1/8;
    pair (1),(0): ratios 1/3, 3/2, 6 (P 1/4, 1/4, 1/2) go up to 1/2, 2, 8 and down to 1/4, 1,
    4. At E = 2: upper max(3/4·(1 − 2/4), 1/2·(1 − 2/8)) = 3/8; lower max(0, 1/2·(1 − 2/4))
    = 1/4."""
    def first(x, h):
        return Dist({x[0]: "3/4", 1 - x[0]: "1/4"})

    def again(x, h):
        return Dist({x[0]: "2/3", 1 - x[0]: "1/3"}) if h[0] == 1 else "stop"

    steps = [adaptive_step(first), adaptive_step(again)]
    r = enclose_composition(steps, ONE, "ln(2)", "1/3", mode="always", grid="ln(2)")
    assert isinstance(r, CompositionEnclosure)
    assert (r.delta_lo, r.delta_hi, r.holds) == (mpq(1, 4), mpq(3, 8), None)


def _laws(rows):
    sp, sq = sum(a for a, _ in rows), sum(b for _, b in rows)
    p = Dist({j: mpq(a, sp) for j, (a, _) in enumerate(rows) if a})
    q = Dist({j: mpq(b, sq) for j, (_, b) in enumerate(rows) if b})
    return LossDistribution.of(p, q)


def _bounds(losses, grid, up):
    parts = [GridLoss.of([(r, p) for r, p, _ in loss.atoms], loss.infinite, loss.p_scale,
                         grid, up) for loss in losses]
    out = parts[0]
    for nxt in parts[1:]:
        out = out.compose(nxt)
    return out


ROWS = st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), min_size=1, max_size=4) \
    .filter(lambda rows: sum(a for a, _ in rows) > 0 and sum(b for _, b in rows) > 0)


@settings(max_examples=60, deadline=None)
@given(st.lists(ROWS, min_size=1, max_size=3),
       st.sampled_from(["ln(2)", "ln(5/4)", "ln(17/16)", "ln(3)"]),
       st.sampled_from(EPSILONS), st.sampled_from(DELTAS))
def test_exact_value_lies_in_the_enclosure(laws, grid, eps, delta):
    """Law: on instances small enough to compose exactly, the exact δ(ε) and ε(δ) lie in
    the enclosure of the down- and up-rounded grid losses."""
    losses = [_laws(rows) for rows in laws]
    exact = compose(losses).privacy_loss()
    g, e = parse_grid(grid), parse_epsilon(eps)
    lo, hi = _bounds(losses, g, False), _bounds(losses, g, True)
    d = exact.delta(e)
    assert lo.delta(e).compare(d) <= 0 <= hi.delta(e).compare(d)
    t = exact.epsilon(delta)
    assert lo.epsilon(delta).compare(t) <= 0 <= hi.epsilon(delta).compare(t)


def test_a_wrong_rounding_direction_is_caught():
    """The containment above is strict on this instance, so swapping the directions (down
    for the upper bound) would put the exact value outside: the exact δ of three runs of
    P = (1/6, 1/3, 1/2), Q = (1/2, 1/4, 1/4) (ratios 1/3, 4/3, 2) at several ε is strictly
    inside (lower, upper) on the grid ln(5/4), and outside the swapped pair."""
    loss = _laws([(1, 2), (2, 1), (3, 1)])
    exact = compose([loss] * 3).privacy_loss()
    g = parse_grid("ln(5/4)")
    lo, hi = _bounds([loss] * 3, g, False), _bounds([loss] * 3, g, True)
    for eps in ("0", "ln(2)", "1/2"):
        e = parse_epsilon(eps)
        d = exact.delta(e)
        assert lo.delta(e).compare(d) < 0 < hi.delta(e).compare(d)
        # swapped: the "upper" bound would be below the exact value
        assert lo.delta(e) < d and not hi.delta(e) < d
    t = exact.epsilon("1/10")
    assert lo.epsilon("1/10").compare(t) < 0 < hi.epsilon("1/10").compare(t)


def test_auto_encloses_beyond_the_budget():
    """Four randomized responses (truths 3/4, 5/7, 7/10, 11/15) twice: more distinct values
    than max_values = 40, so "never" refuses and "auto" encloses; the exact value (computed
    with a larger budget) lies inside, at a rational and at an irrational ε."""
    ms = [randomized_response(t, [0, 1]) for t in ("3/4", "5/7", "7/10", "11/15")] * 2
    with pytest.raises(BudgetExceeded, match=r"limits\.loss_values"):
        enclose_composition(ms, ONE, "ln(2)", "1/10", mode="never", max_values=40)
    for eps in ("ln(2)", "1/2"):
        exact = compose_mechanisms(ms, ONE, eps, "1/10")
        r = enclose_composition(ms, ONE, eps, "1/10", max_values=40)
        assert isinstance(r, CompositionEnclosure) and "limits.loss_values" in r.reason
        assert r.delta_lo <= exact.delta <= r.delta_hi
        assert r.epsilon_lo.compare(exact.epsilon) <= 0 <= r.epsilon_hi.compare(exact.epsilon)
        assert r.holds in (exact.holds, None)
    # within the budget the answer is the exact one
    assert enclose_composition(ms[:2], ONE, "ln(2)", "1/10").delta == \
        compose_mechanisms(ms[:2], ONE, "ln(2)", "1/10").delta


def test_grid_and_mode_arguments():
    with pytest.raises(InvalidArgument, match="grid"):
        parse_grid("ln(1)")
    with pytest.raises(InvalidArgument, match="grid"):
        parse_grid("1/2")
    with pytest.raises(InvalidArgument, match="enclosure"):
        enclose_composition([RR], ONE, mode="sometimes")
    with pytest.raises(BudgetExceeded, match="coarser grid"):
        enclose_composition([RR] * 3, ONE, mode="always", grid="ln(101/100)", max_values=3)


def test_grid_index_is_exact_at_powers():
    """3 is 3^1 exactly: both roundings keep it; 10 lies between 3^2 and 3^3."""
    g = Grid(mpq(3))
    assert (g.index(mpq(3), True), g.index(mpq(3), False)) == (1, 1)
    assert (g.index(mpq(10), True), g.index(mpq(10), False)) == (3, 2)
    assert (g.index(mpq(1, 9), True), g.index(mpq(1, 10), True)) == (-2, -2)
    assert g.index(mpq(1, 10), False) == -3


RR_SPEC = """
[data]
records = 1
values = [0, 1]
[mechanism]
kind = "randomized_response"
truth = "3/4"
[query]
epsilon = "ln(2)"
delta = "2/5"
notions = ["dp"]
"""


@pytest.mark.parametrize("delta, code, verdict", [("2/5", 3, "unknown"), ("1/2", 0, "holds"),
                                                  ("1/4", 1, "fails")])
def test_cli_enclosure(tmp_path, delta, code, verdict):
    """The hand values above through plrv compose: exit 3 only when undecided."""
    path = tmp_path / "rr.toml"
    path.write_text(RR_SPEC.replace('"2/5"', f'"{delta}"'))
    result = CliRunner().invoke(app, ["compose", "--json", str(path), "--k", "2", "--enclosure",
                                      "always", "--grid", "ln(2)"])
    assert result.exit_code == code, result.output
    out = json.loads(result.stdout)
    assert out["exact"] is False and out["verdict"] == verdict
    assert out["tight_delta"] == {"lower": "9/32", "upper": "63/128"}
    assert out["enclosure"]["grid"] == ["ln(2)"] and "not exact" in out["enclosure"]["note"]


STEP_MODULE = """
from verifier import Dist


def ask(x, earlier):
    # P = (1/6, 1/3, 1/2) for the record 0, (1/2, 1/4, 1/4) for 1: ratios 1/3, 4/3, 2
    return Dist({"a": "1/6", "b": "1/3", "c": "1/2"}) if x[0] == 0 else \\
        Dist({"a": "1/2", "b": "1/4", "c": "1/4"})
"""

STEP_SPEC = """
[data]
records = 1
values = [0, 1]
[composition]
steps = ["steps_mod:ask"]
[query]
epsilon = "ln(2)"
delta = "1/2"
"""


def test_cli_budget_enclosure(tmp_path):
    """Three runs of one step with ratios 1/3, 4/3, 2 (products of powers of 2 and 3 with
    exponents that do not collapse: more than 6 distinct ratios); --max-values 6 makes the
    automatic enclosure, and the exact value (the independent engine, same laws) lies in
    it. --max-values 1 leaves no grid: refused naming the limit."""
    (tmp_path / "steps_mod.py").write_text(STEP_MODULE)
    path = tmp_path / "steps.toml"
    path.write_text(STEP_SPEC)
    result = CliRunner().invoke(app, ["compose", "--json", str(path), "--k", "3",
                                      "--max-values", "6"])
    assert result.exit_code in (0, 1, 3), result.output
    out = json.loads(result.stdout)
    assert out["exact"] is False and "limits.loss_values" in out["enclosure"]["reason"]
    ln2 = parse_epsilon("ln(2)")
    forward = compose([_laws([(1, 2), (2, 1), (3, 1)])] * 3).privacy_loss().delta(ln2)
    backward = compose([_laws([(2, 1), (1, 2), (1, 3)])] * 3).privacy_loss().delta(ln2)
    worst = max(forward, backward)
    lo, hi = (mpq(out["tight_delta"][k]) for k in ("lower", "upper"))
    assert lo <= worst.value <= hi
    assert CliRunner().invoke(app, ["compose", "--json", str(path), "--k", "3", "--max-values",
                                    "1"]).exit_code == 2


@pytest.mark.slow
def test_the_budget_counts_distinct_grid_values_not_the_span():
    """100 runs of randomized response (ratio 3) on the grid ln(1025/1024): the composed
    loss spans 2·100·1125 grid points, but has 101 values — within a budget of 101."""
    grid = "ln(1025/1024)"
    exact = compose_mechanisms([RR] * 100, ONE, "ln(2)", "1/10")
    r = enclose_composition([RR] * 100, ONE, "ln(2)", "1/10", mode="always", grid=grid,
                            max_values=101)
    assert isinstance(r, CompositionEnclosure)
    assert r.delta_lo <= exact.delta <= r.delta_hi
    assert r.epsilon_lo.compare(exact.epsilon) <= 0 <= r.epsilon_hi.compare(exact.epsilon)
    with pytest.raises(BudgetExceeded, match="distinct grid values"):
        enclose_composition([RR] * 100, ONE, "ln(2)", "1/10", mode="always", grid=grid,
                            max_values=100)
    with pytest.raises(BudgetExceeded, match="powers"):  # the exact bounds would be huge
        enclose_composition([RR] * 100, ONE, "ln(2)", "1/10", mode="always",
                            grid=f"ln({2 ** 40 + 1}/{2 ** 40})")


def test_a_grid_holding_the_support_encloses_exactly():
    """Every ratio of k-fold randomized response (truth 3/4) is a power of 3: on the grid
    ln(3) neither rounding moves a loss, so both bounds are the exact values."""
    exact = compose_mechanisms([RR] * 40, ONE, "ln(2)", "1/10")
    r = enclose_composition([RR] * 40, ONE, "ln(2)", "1/10", mode="always", grid="ln(3)")
    assert isinstance(r, CompositionEnclosure)
    assert r.delta_lo == r.delta_hi == exact.delta
    assert r.epsilon_lo == r.epsilon_hi == exact.epsilon
