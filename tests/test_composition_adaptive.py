"""Exact adaptive composition: hand-derived values, the independent engine, budgets, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gmpy2 import mpq
from typer.testing import CliRunner

from verifier.cli import app
from verifier.core.budget import Budget
from verifier.core.distribution import Dist
from verifier.core.epsilon import Epsilon
from verifier.core.errors import BudgetExceeded, InvalidArgument, UserCodeError
from verifier.model.mechanisms import mechanism, randomized_response
from verifier.model.noise import geometric
from verifier.notions.composition.adaptive import adaptive_step, compose_adaptive, step_of
from verifier.notions.composition.exact import compose_mechanisms
from verifier.notions.dp.neighbours import replace_one

ROOT = Path(__file__).resolve().parent.parent
MPQ = type(mpq(0))


def _first(x, earlier):
    return Dist({x[0]: "3/4", 1 - x[0]: "1/4"})


def _again(x, earlier):
    if earlier[0] != 1:
        return "stop"
    return Dist({x[0]: "2/3", 1 - x[0]: "1/3"})


STEPS = [adaptive_step(_first), adaptive_step(_again)]
ONE = replace_one([0, 1], 1)


@pytest.mark.parametrize("eps, expected", [
    ("0", mpq(1, 2)), ("ln(2)", mpq(1, 3)), ("ln(4)", mpq(1, 6)), ("ln(6)", mpq(0)),
    ("ln(7)", mpq(0)),
])
def test_two_step_adaptive_by_hand(eps, expected):
    """Step 1 is randomized response (truth 3/4) on one bit; step 2 runs randomized response
    (truth 2/3) only if step 1 released 1, else releases "stop".

    x = (0) against y = (1): (0, stop) has P = 3/4, Q = 1/4 (ratio 3); (1, 0) has
    P = 1/4·2/3 = 1/6, Q = 3/4·1/3 = 1/4 (ratio 2/3); (1, 1) has P = 1/4·1/3 = 1/12,
    Q = 3/4·2/3 = 1/2 (ratio 1/6). So δ(E) = 3/4 − E/4 for E < 3, then 0.

    x = (1) against y = (0): (0, stop) P = 1/4, Q = 3/4 (ratio 1/3); (1, 0) P = 3/4·1/3 = 1/4,
    Q = 1/4·2/3 = 1/6 (ratio 3/2); (1, 1) P = 3/4·2/3 = 1/2, Q = 1/4·1/3 = 1/12 (ratio 6).
    δ(E) = 3/4 − E/4 for E < 3/2, 1/2 − E/12 for 3/2 ≤ E < 6, then 0.

    The worst: δ(0) = 1/2; δ(ln 2) = max(1/4, 1/2 − 2/12) = 1/3; δ(ln 4) = max(0, 1/6) = 1/6;
    δ(ln 6) = 0."""
    r = compose_adaptive(STEPS, ONE, eps, "0")
    assert r.delta == expected and isinstance(r.delta.value, MPQ)


def test_two_step_adaptive_tight_epsilon_by_hand():
    """Same scheme. At δ = 1/4: the first pair needs 3/4 − E/4 ≤ 1/4, E ≥ 2; the second
    1/2 − E/12 ≤ 1/4 on [3/2, 6), E ≥ 3: ε = ln 3. At δ = 0: ε = ln 6 (the largest ratio).
    At δ = 1/2: δ(0) = 1/2, so ε = 0."""
    assert compose_adaptive(STEPS, ONE, "ln(2)", "1/4").epsilon == Epsilon.log(3)
    assert compose_adaptive(STEPS, ONE, "ln(2)", "0").epsilon == Epsilon.log(6)
    assert compose_adaptive(STEPS, ONE, "ln(2)", "1/2").epsilon == Epsilon.ZERO
    r = compose_adaptive(STEPS, ONE, "ln(2)", "1/3")
    assert r.holds and r.witness["databases"] == [[1], [0]]


def test_adaptive_infinite_loss_by_hand():
    """Step 1 releases the bit with probability 1/2, else "hidden"; step 2 runs randomized
    response (truth 3/4) only after "hidden". For x = (0), y = (1): the output 0 has Q = 0, so
    P[L = ∞] = 1/2; after "hidden" (P = Q = 1/2) the ratios are 3 and 1/3. δ(ln 2) =
    1/2 + 1/2·(3/4 − 2·1/4) = 5/8; at δ = 1/2 the tight ε is where 1/2 + (3/4 − E/4)/2 ≤ 1/2,
    E = 3: ln 3; at δ < 1/2 it is ∞ (the symmetric pair gives the same)."""
    def reveal(x, earlier):
        return Dist({x[0]: "1/2", "hidden": "1/2"})

    def then(x, earlier):
        return Dist({x[0]: "3/4", 1 - x[0]: "1/4"}) if earlier[0] == "hidden" else "done"

    steps = [adaptive_step(reveal), adaptive_step(then)]
    r = compose_adaptive(steps, ONE, "ln(2)", "1/2")
    assert r.delta == mpq(5, 8) and r.epsilon == Epsilon.log(3)
    assert compose_adaptive(steps, ONE, "inf", "1/3").delta == mpq(1, 2)
    assert compose_adaptive(steps, ONE, "ln(2)", "1/3").epsilon == Epsilon.INF


@pytest.mark.parametrize("eps", ["0", "ln(2)", "1/2", "ln(7)", "inf"])
def test_non_adaptive_kernels_equal_independent_composition(eps):
    """Kernels that ignore the earlier outputs: the tree enumeration must give exactly the
    product composition of :func:`compose_mechanisms` (the other engine)."""
    rr = randomized_response("3/4", [0, 1])
    noisy = mechanism(lambda db: geometric(sum(db), "1/3", 0, 2))
    rel = replace_one([0, 1], 2)
    kernels = [adaptive_step(lambda x, h: rr(x)), adaptive_step(lambda x, h: noisy(x)),
               adaptive_step(lambda x, h: rr(x))]
    for delta in ("0", "1/10", "1/2"):
        tree = compose_adaptive(kernels, rel, eps, delta)
        product = compose_mechanisms([rr, noisy, rr], rel, eps, delta)
        assert tree.delta == product.delta and tree.epsilon == product.epsilon
        assert tree.holds == product.holds
    # mechanisms given directly are steps that ignore the history
    assert compose_adaptive([rr, noisy], rel, eps).delta == \
        compose_mechanisms([rr, noisy], rel, eps).delta


def test_sequences_budget_says_how_big():
    """The scheme has 3 finished sequences per pair; a limit of 2 is refused at step 2."""
    with pytest.raises(BudgetExceeded, match=r"limits\.sequences: .*step 2 of 2.*more than 2"):
        compose_adaptive(STEPS, ONE, "ln(2)", budget=Budget(max_sequences=2))
    assert compose_adaptive(STEPS, ONE, "ln(2)", budget=Budget(max_sequences=3)).delta == \
        mpq(1, 3)


def test_loss_values_budget_exact_only():
    """Three distinct ratios per pair: max_values = 2 is refused in the exact engine."""
    with pytest.raises(BudgetExceeded, match=r"limits\.loss_values: .*3.*enclosure"):
        compose_adaptive(STEPS, ONE, "ln(2)", max_values=2)


def test_bad_step_answers():
    with pytest.raises(InvalidArgument, match="at least one"):
        compose_adaptive([], ONE)
    bad = adaptive_step(lambda x, h: {0: 1})  # enumerated: its output must be hashable
    with pytest.raises(UserCodeError, match="must be hashable"):
        compose_adaptive([bad], ONE)
    assert step_of(randomized_response("3/4", [0, 1])).name


def test_example_spec_runs():
    """examples/compose/adaptive_rr.toml is the scheme above: δ(ln 2) = 1/3 ≤ 1/3 (exit 0);
    with --k 1 the same; and the values are exact."""
    path = ROOT / "examples" / "compose" / "adaptive_rr.toml"
    result = CliRunner().invoke(app, ["compose", "--json", str(path)])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["exact"] is True and out["tight_delta"] == "1/3"
    assert out["tight_epsilon"] == "ln(2)" and out["steps"] == ["first", "again"]


def test_compose_json_names_the_worst_pair():
    """examples/compose/adaptive_rr.toml by hand (step 1: randomized response, truth 3/4;
    step 2, only after a 1: truth 2/3). Input 1 against 0: sequences (0), (1, 0), (1, 1)
    have P = 1/4, 1/4, 1/2 and Q = 3/4, 1/6, 1/12, so δ(E) = max(0, 1/2 − E/12) +
    max(0, 1/4 − E/6), and δ = 1/3 at E = 2. Input 0 against 1: δ(E) = max(0, 3/4 − E/4)
    (+ terms that vanish for E ≥ 1), δ = 1/3 at E = 5/3. The tight ε at δ = 1/3 is ln 2,
    reached by 1 against 0: that pair is the worst case."""
    out = CliRunner().invoke(app, ["compose", "--json", "examples/compose/adaptive_rr.toml"])
    assert out.exit_code == 0, out.output
    d = json.loads(out.stdout)
    assert d["tight_epsilon"] == "ln(2)" and d["tight_delta"] == "1/3"
    assert d["worst_case"] == {"relation": "replace-one", "databases": [[1], [0]],
                               "steps": ["first", "again"], "k": 1}
