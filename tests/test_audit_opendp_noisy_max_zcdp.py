"""OpenDP's noisy max / top-k under zCDP: the softmax law and its tight ρ, against mpmath and
the library's own draws.

Independent sources: the law re-derived from the sampler (a uniform candidate with
replacement, accepted with probability e^{−(y*−y_j)/s}: candidate i wins with probability
e^{y_i/s}/Σ_j e^{y_j/s}; k rounds peel the winner off), ``sup_α D_α/α`` maximised with mpmath
at 40 digits (a grid of step 1/50 over α in (1, 60] refined by golden section), and the map's claim
re-derived from the source: ``k·(d/s)²/8``, ``d = d_in`` (monotonic) or ``2·d_in``.
"""

from __future__ import annotations

import math
from itertools import permutations
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("opendp")

from verifier.audit.adapters.opendp import ADAPTER
from verifier.audit.case import AuditCase, Enclosure
from verifier.cli import app
from verifier.core.binary64 import F64

mpmath = pytest.importorskip("mpmath")
RUNNER = CliRunner()
ZCDP = "zero_concentrated_divergence"


def case(constructor: str, args: dict, inputs: tuple, d_in: int = 1) -> AuditCase:
    return AuditCase("opendp", constructor, args, d_in, None, None, None, inputs, 0)


def run(c: AuditCase):
    return ADAPTER.constructors[c.constructor](c)


def plackett_luce(scores, scale, k):
    mpmath.mp.dps = 40
    w = [mpmath.exp(mpmath.mpf(y) / scale) for y in scores]
    law = {}
    for order in permutations(range(len(w)), k):
        left, p = list(range(len(w))), mpmath.mpf(1)
        for i in order:
            p *= w[i] / sum(w[j] for j in left)
            left.remove(i)
        law[order] = p
    return law


def sup_rho(p, q):
    def g(a):
        return mpmath.log(sum(p[o] ** a * q[o] ** (1 - a) for o in p)) / (a - 1) / a
    grid = [1 + mpmath.mpf(j) / 50 for j in range(1, 3000)]
    best = max(grid, key=g)
    lo, hi = max(best - mpmath.mpf(1) / 50, mpmath.mpf("1.000001")), best + mpmath.mpf(1) / 50
    r = (mpmath.sqrt(5) - 1) / 2
    for _ in range(80):
        a, b = hi - r * (hi - lo), lo + r * (hi - lo)
        lo, hi = (lo, b) if g(a) > g(b) else (a, hi)
    kl = sum(p[o] * mpmath.log(p[o] / q[o]) for o in p)
    return max(g(lo), kl)


def tight(scores_list, scale, k, d_in, monotonic):
    laws = {tuple(x): plackett_luce(x, scale, k) for x in scores_list}
    best = mpmath.mpf(0)
    for x in scores_list:
        for y in scores_list:
            diffs = [a - b for a, b in zip(x, y, strict=True)]
            if x == y or max(abs(d) for d in diffs) > d_in or (
                    monotonic and min(diffs) < 0 < max(diffs)):
                continue
            best = max(best, sup_rho(laws[tuple(x)], laws[tuple(y)]))
    return best


def _mp(x):
    return mpmath.mpf(int(x.numerator)) / int(x.denominator)


def _check(row, expected, claim) -> None:
    assert isinstance(row.tight_epsilon, Enclosure)
    lo, hi = _mp(row.tight_epsilon.lower), _mp(row.tight_epsilon.upper)
    assert lo - mpmath.mpf(10) ** -20 <= expected <= hi + mpmath.mpf(10) ** -20
    assert hi - lo < mpmath.mpf(10) ** -3 * hi
    assert isinstance(row.claim_epsilon, F64)
    assert row.claim_epsilon.exact == claim


@pytest.mark.parametrize(("inputs", "scale", "monotonic", "claim"), [
    (((0, 0), (1, 0)), 1, True, "1/8"),  # (1/1)²/8
    (((0, 0, 0), (1, 0, 0), (0, 1, 1), (1, 1, 0)), 1, False, "1/2"),  # (2/1)²/8
    (((0, 3, -1), (1, 2, 0)), 2, False, "1/8"),  # (2/2)²/8
])
def test_noisy_max_rho_encloses_the_softmax_sup(inputs, scale, monotonic, claim) -> None:
    from gmpy2 import mpq

    args = {"scale": scale, "output_measure": ZCDP, "monotonic": monotonic}
    row = run(case("make_noisy_max", args, inputs))
    _check(row, tight([list(x) for x in inputs], scale, 1, 1, monotonic), mpq(claim))
    assert row.verdict == "sound"


def test_top_k_two_rounds_rho() -> None:
    """k = 2, scale 2, non-monotonic: claim 2·(2·1/2)²/8 = 1/4; the law Plackett–Luce."""
    from gmpy2 import mpq

    inputs = ((0, 0, 0), (1, -1, 0))
    row = run(case("make_noisy_top_k", {"scale": 2, "k": 2, "output_measure": ZCDP}, inputs))
    _check(row, tight([list(x) for x in inputs], 2, 2, 1, False), mpq(1, 4))
    assert row.verdict == "sound"


def test_max_divergence_named_is_the_default() -> None:
    inputs = ((0, 0, 0), (1, 0, 0))
    named = run(case("make_noisy_max", {"scale": 1, "output_measure": "max_divergence"},
                     inputs))
    default = run(case("make_noisy_max", {"scale": 1}, inputs))
    assert named.claim_epsilon == default.claim_epsilon and named.verdict == default.verdict
    assert named.case.args["output_measure"] == "max_divergence"


def test_library_draws_follow_the_softmax() -> None:
    """6000 releases at scores (0, 1, 2), scale 1: each index within 5 standard errors of
    e^{y_i}/(1 + e + e²) (≈ 0.090, 0.245, 0.665); permute-and-flip would give index 2
    with probability ≈ 0.72, 9 standard errors away."""
    import opendp.prelude as dp

    dp.enable_features("contrib")
    meas = dp.m.make_noisy_max(dp.vector_domain(dp.atom_domain(T=int)),
                               dp.linf_distance(T=int), dp.zero_concentrated_divergence(),
                               scale=1.0)
    n = 6000
    draws = [meas([0, 1, 2]) for _ in range(n)]
    z = 1 + math.e + math.e ** 2
    for i in range(3):
        p = math.e ** i / z
        assert abs(draws.count(i) / n - p) < 5 * math.sqrt(p * (1 - p) / n)


@pytest.mark.parametrize("measure", ["smoothed_max_divergence", "1"])
def test_unknown_measure_refused(tmp_path: Path, measure: str) -> None:
    p = tmp_path / "c.toml"
    p.write_text('[[case]]\nlibrary = "opendp"\nconstructor = "make_noisy_max"\n'
                 f'args = {{ scale = 1, output_measure = "{measure}" }}\nd_in = 1\n'
                 'inputs = [[0, 0], [1, 0]]\n', encoding="utf-8")
    result = RUNNER.invoke(app, ["audit", str(p)])
    assert result.exit_code == 2, result.output
    assert "args.output_measure" in result.output


@pytest.mark.slow
def test_example_exits_as_its_header_says() -> None:
    path = Path(__file__).resolve().parents[1] / "examples" / "audit" / \
        "opendp_noisy_max_zcdp.toml"
    result = RUNNER.invoke(app, ["audit", str(path), "--json"])
    assert result.exit_code == 0, result.output


@pytest.mark.slow
def test_conformance_uses_the_softmax() -> None:
    from verifier.audit.adapters.opendp_sample import law, sample
    from verifier.audit.conformance import goodness_of_fit

    c = case("make_noisy_top_k", {"scale": 1, "k": 2, "output_measure": ZCDP},
             ((0, 1, 2), (1, 1, 1)))
    fit = goodness_of_fit(sample(c, (0, 1, 2), 20_000), law(c, (0, 1, 2)), (0, 1, 2))
    assert fit.outside == 0 and fit.p_value >= 1e-6, fit.note()
