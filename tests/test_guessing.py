"""Guessing advantage (seed 004): hand-derived values, the bounds' order, inversions, errors."""

import json
from itertools import chain, combinations

import pytest
from gmpy2 import mpq
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import distributions
from typer.testing import CliRunner

from verifier import Dist
from verifier.cli import app
from verifier.core.errors import InvalidArgument, InvalidNumber, SpecError
from verifier.guessing.bounds import (
    max_advantage,
    precise_bound,
    precise_epsilon,
    simplified_bound,
    simplified_epsilon,
    worst_case_epsilon,
    worst_prior_for_epsilon,
    worst_prior_for_eta,
)
from verifier.guessing.metric import ScaledLog, tight_epsilon, truncated_geometric
from verifier.guessing.model import GuessModel, advantage, vulnerability
from verifier.specs.guess import load_guess_spec

runner = CliRunner()
DOMAIN = tuple(range(21))


def geometric_model():
    return GuessModel(DOMAIN, Dist.uniform(DOMAIN), truncated_geometric("1/2", 0, 20), (1,))


def test_inversion_at_eta_one_half():
    # q = (1−p)(p+η) / (p(1−p−η)) = (3/4)(3/4) / ((1/4)(1/4)) = 9, R = 1
    assert simplified_epsilon("1/4", "1/2", 1) == ScaledLog(mpq(9), 1)
    assert worst_prior_for_eta("1/2") == mpq(1, 4)  # (1 − η)/2
    # the worst-case formula 2·ln((1+η)/(1−η))/R = 2·ln 3 = ln 9
    assert worst_case_epsilon("1/2", 1) == ScaledLog(mpq(9), 1)
    # at ε = ln 9, R = 1: e^{Rε/2} = 3, worst prior 1/(1+3) = 1/4, tanh(Rε/4) = (3−1)/(3+1)
    assert worst_prior_for_epsilon("ln(9)", 1).value == mpq(1, 4)
    assert max_advantage("ln(9)", 1).value == mpq(1, 2)
    out = runner.invoke(app, ["guess", "--eta", "1/2", "--diameter", "1", "--json"])
    assert out.exit_code == 0, out.stderr
    data = json.loads(out.stdout)
    assert (data["epsilon"], data["prior"]) == ("ln(9)", "1/4")


def test_precise_inversion_matches_closed_form():
    """Two values at distance R = 2 (precision 1/2): the precise bound is the simplified one,
    1/(1 + e^{−2ε}·3), equal to 1/4 + 1/2 exactly at e^{2ε} = 9, i.e. ε = ln 3."""
    m = GuessModel((0, 1), Dist({0: "1/4", 1: "3/4"}), Dist.point, (mpq(1, 2),))
    lo, hi = precise_epsilon(m, 0, "1/2")
    assert lo == hi == ScaledLog(mpq(3), 1)
    assert simplified_epsilon("1/4", "1/2", 2) == ScaledLog(mpq(3), 1)  # ln(9)/2 = ln 3


def test_precise_inversion_interval_is_certified():
    m = geometric_model()
    lo, hi = precise_epsilon(m, 10, "1/2", tolerance="1/1000000000")
    assert lo.compare(hi) <= 0
    below = precise_bound(m, 10, lo).compare(mpq(1, 7) + mpq(1, 2))
    above = precise_bound(m, 10, hi).compare(mpq(1, 7) + mpq(1, 2))
    assert below <= 0 <= above


def test_truncated_geometric_target_10_by_hand():
    """Uniform prior on {0..20}, α = 1/2, goal within 1, target 10.

    Output 10 is interior, so P[10|x] = (1/3)·2^{−|10−x|} for every x and
    P[g | 10] = (1 + 1/2 + 1/2) / (1 + 2·(1 − 2^{−10})) = 1024/1535.
    Precise bound at ε = ln 2: a point k ≥ 2 away from 10 has Σ_{x'∈g} 2^{d} = 7·2^{k−1}, so
    S = 2·(1/7)·Σ_{k=2}^{10} 2^{−(k−1)} = (2/7)(511/512) and the bound is 1/(1+S) = 256/329.
    Simplified: 1/(1 + 2^{−20}·(18/21)/(3/21)) = 2^20/(2^20 + 6) = 524288/524291.
    """
    m = geometric_model()
    eps, witness = tight_epsilon(m.kernel, m.domain, m.distance)
    assert eps == ScaledLog(mpq(2), 1)
    row = advantage(m, [10])[0]
    assert (row.prior, row.posterior, row.output) == (mpq(1, 7), mpq(1024, 1535), 10)
    assert precise_bound(m, 10, eps).value == mpq(256, 329)
    assert simplified_bound(m, 10, eps).value == mpq(524288, 524291)


def test_every_target_in_order():
    m = geometric_model()
    eps, _ = tight_epsilon(m.kernel, m.domain, m.distance)
    for row in advantage(m):
        post = row.posterior
        precise = precise_bound(m, row.target, eps).value
        simple = simplified_bound(m, row.target, eps).value
        assert post <= precise <= simple, row.target


def test_vulnerability_by_hand():
    """V_pre = 3/21. V_post: each interior z gives (1/21)(1/3)(1 + 1/2 + 1/2) = 2/63 (19 of
    them); each end z gives (1/21)(2/3)(1 + 1/2 + 1/4) = 1/18 (guess 1 or 19): 5/7 in all."""
    assert vulnerability(geometric_model()) == (mpq(1, 7), mpq(5, 7))


def _subsets(items):
    return chain.from_iterable(combinations(items, k) for k in range(1, len(items) + 1))


@settings(max_examples=60, deadline=None)
@given(distributions((0, 1, 2, 3), allow_zero=False), st.data())
def test_single_output_attains_the_supremum(prior, data):
    kernel_table = {x: data.draw(distributions(("a", "b", "c"))) for x in range(4)}
    m = GuessModel((0, 1, 2, 3), prior, kernel_table.__getitem__, (1,))
    joint = m.joint()
    for row in advantage(m):
        g = m.goal(row.target)
        best = None
        for ys in _subsets(list(joint)):
            total = sum((w for z in ys for w in joint[z].values()), mpq(0))
            if total:
                hit = sum((w for z in ys for x, w in joint[z].items() if x in g), mpq(0))
                best = hit / total if best is None else max(best, hit / total)
        assert best - row.prior == row.advantage


def test_scaled_log_canonical():
    assert ScaledLog.make(4, 2) == ScaledLog(mpq(2), 1)
    assert ScaledLog.make(2, mpq(1, 5)) == ScaledLog(mpq(32), 1)
    assert str(ScaledLog.make(mpq(54, 5), 20)) == "ln(54/5)/20"
    assert ScaledLog.make(3, 2).compare(ScaledLog.make(2, 1)) == -1  # ln3/2 < ln2 ⇔ 3 < 4
    assert ScaledLog.make(5, 2).compare(ScaledLog.make(2, 1)) == 1  # ln5/2 > ln2 ⇔ 5 > 4


def test_randomized_response_tight_epsilon():
    rr = {0: Dist({0: "3/4", 1: "1/4"}), 1: Dist({0: "1/4", 1: "3/4"})}
    m = GuessModel((0, 1), Dist.uniform((0, 1)), rr.__getitem__, (1,))
    eps, _ = tight_epsilon(m.kernel, m.domain, m.distance)
    assert str(eps) == "ln(3)"


@pytest.mark.parametrize("call, error, message", [
    (lambda: simplified_epsilon("1/4", "3/2", 1), InvalidNumber,
     "eta = 3/2 must lie strictly between 0 and 1"),
    (lambda: simplified_epsilon("1/4", "0", 1), InvalidNumber,
     "eta = 0 must lie strictly between 0 and 1"),
    (lambda: simplified_epsilon("1/4", "1/2", 0), InvalidNumber, "diameter = 0 must be > 0"),
    (lambda: GuessModel((0, 1), Dist.uniform((0, 1)), Dist.point, (0,)), InvalidArgument,
     "precision = 0 must be > 0"),
    (lambda: GuessModel((0, 1), Dist.uniform((0, 1)), Dist.point, (mpq(-1),)), InvalidArgument,
     "precision = -1 must be > 0"),
], ids=["eta>1", "eta=0", "diameter", "precision-0", "precision-negative"])
def test_bad_input(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message


@pytest.mark.parametrize("text, key, message", [
    ('[domain]\nrange = [0, 3]\n[prior]\nweights = ["1/2", "1/2", "1/2", "0"]\n',
     "prior.weights", "prior sums to 3/2, not 1"),
    ('[domain]\nrange = [0, 3]\n[goal]\nprecision = "-2"\n', "goal.precision",
     "precision = -2 must be > 0"),
    ('[domain]\nrange = [0, 3]\n[query]\neta = "1"\n', "query.eta",
     "eta = 1 must lie strictly between 0 and 1"),
    ('[domain]\nrange = [0, 3]\n[mechanism]\nkind = "laplace"\n', "mechanism.kind",
     "kind = 'laplace' is not one of truncated_geometric, exponential, identity, function"),
], ids=["prior-sum", "precision", "eta", "kind"])
def test_bad_guess_specs(tmp_path, text, key, message):
    path = tmp_path / "g.toml"
    path.write_text(text)
    with pytest.raises(SpecError) as info:
        load_guess_spec(path)
    assert (info.value.key, info.value.detail) == (key, message)
    out = runner.invoke(app, ["guess", str(path)])
    assert out.exit_code == 2


def test_guess_cli_json_and_plot(tmp_path):
    from pathlib import Path
    spec = Path(__file__).resolve().parent.parent / "examples" / "guess_geometric.toml"
    png = tmp_path / "adv.png"
    out = runner.invoke(app, ["guess", str(spec), "--json", "--plot", str(png)])
    assert out.exit_code == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["epsilon"] == "ln(2)" and len(data["targets"]) == 21
    assert all(row["order_holds"] for row in data["targets"])
    row10 = data["targets"][10]
    assert (row10["posterior"], row10["precise_bound"]["value"]) == ("1024/1535", "256/329")
    assert png.stat().st_size > 10_000


def test_or_goal_adds_single_attribute_bounds():
    grid = tuple((a, b) for a in range(3) for b in range(3))
    m = GuessModel(grid, Dist.uniform(grid), Dist.point, (1, 1), "or")
    assert m.goal((0, 0)) == frozenset(x for x in grid if x[0] <= 1 or x[1] <= 1)
    both = [simplified_bound(m, (0, 0), "ln(2)", k).value for k in (0, 1)]
    assert both == [1 / (1 + mpq(1, 4) * mpq(3, 6)), 1 / (1 + mpq(1, 4) * mpq(3, 6))]


def _pairwise_tight(kernel, domain, distance):
    """Independent: every (x, x', z) candidate ln(P[M(x)=z]/P[M(x')=z])/d, compared exactly."""
    best = ScaledLog(mpq(1), 1)
    for x in domain:
        for y in domain:
            if x == y:
                continue
            for z, w in kernel(x).items():
                if kernel(y)[z] == 0:
                    return ScaledLog.inf()
                if w > kernel(y)[z]:
                    cand = ScaledLog.make(w / kernel(y)[z], distance(x, y))
                    best = cand if cand.compare(best) > 0 else best
    return best


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 5), st.data())
def test_tight_epsilon_and_diameter_against_every_pair(k, data):
    """The per-pair maximum ratio and the closed-form diameter against the full scan."""
    domain = [(a, b) for a in range(k) for b in range(2)]
    rows = {x: data.draw(distributions(range(3))) for x in domain}
    prec = (mpq(data.draw(st.integers(1, 3))), mpq(1, data.draw(st.integers(1, 2))))
    model = GuessModel(tuple(domain), Dist.uniform(domain), rows.__getitem__, prec)
    got, _ = tight_epsilon(model.kernel, model.domain, model.distance)
    assert got.compare(_pairwise_tight(model.kernel, model.domain, model.distance)) == 0
    assert model.diameter() == max(model.distance(x, y) for x in domain for y in domain)
    for j in (0, 1):
        assert model.diameter(j) == max(model.distance(x, y, j) for x in domain for y in domain)


# ------------------------------------------- spec keys and options: honoured or refused

def _guess(tmp_path, text: str, *options: str):
    from typer.testing import CliRunner

    from verifier.cli import app

    spec = tmp_path / "g.toml"
    spec.write_text(text)
    return CliRunner().invoke(app, ["guess", str(spec), *options])


_GEOMETRIC = '[domain]\nrange = [0, 3]\n[mechanism]\nkind = "truncated_geometric"\nalpha = "1/2"\n'


@pytest.mark.parametrize("mechanism, key", [
    ('alpha = "1/2"\n', "alpha"),  # the default kind is identity
    ('kind = "identity"\nalpha = "1/2"\n', "alpha"),
    ('kind = "truncated_geometric"\nalpha = "1/2"\nbeta = "1/3"\n', "beta"),
    ('kind = "exponential"\nbeta = "1/2"\nalpha = "1/3"\n', "alpha"),
    ('kind = "identity"\nfunction = "m:f"\n', "function"),
])
def test_a_mechanism_parameter_of_another_kind_is_refused(tmp_path, mechanism, key):
    out = _guess(tmp_path, "[domain]\nrange = [0, 3]\n[mechanism]\n" + mechanism)
    assert out.exit_code == 2
    assert f"mechanism.{key}: {key} is the parameter of kind" in out.stderr


def test_query_tolerance_without_eta_is_refused(tmp_path):
    out = _guess(tmp_path, _GEOMETRIC + '[query]\ntolerance = "1/100"\n')
    assert out.exit_code == 2 and "query.tolerance: " in out.stderr
    assert _guess(tmp_path, _GEOMETRIC + '[query]\ntolerance = "1/100"\neta = "1/10"\n'
                  ).exit_code == 0


def test_an_or_goal_over_one_attribute_is_inverted_as_the_and_goal(tmp_path):
    import json

    def inversion(mode: str, *options: str) -> dict:
        out = _guess(tmp_path, _GEOMETRIC + f'[goal]\nmode = "{mode}"\n[query]\neta = "1/10"\n',
                     "--json", *options)
        assert out.exit_code == 0, out.stderr
        return json.loads(out.stdout)["inversion"]

    # one attribute: "some attribute within r" is "every attribute within r"
    assert inversion("or") == inversion("and")
    assert inversion("or")["precise_epsilon"] is not None
    assert inversion("or", "--tolerance", "1/10") == inversion("and", "--tolerance", "1/10")


def test_tolerance_with_an_or_goal_over_two_attributes_is_refused(tmp_path):
    spec = ('[domain]\ngrid = [[0, 1, 2], [0, 1, 2]]\n[goal]\nmode = "or"\nprecision = [1, 1]\n'
            '[query]\neta = "1/10"\n')
    out = _guess(tmp_path, spec, "--tolerance", "1/10")
    assert out.exit_code == 2
    assert "--tolerance: plrv guess SPEC does not apply --tolerance" in out.stderr
    out = _guess(tmp_path, spec + 'tolerance = "1/10"\n')
    assert out.exit_code == 2 and "query.tolerance: " in out.stderr
