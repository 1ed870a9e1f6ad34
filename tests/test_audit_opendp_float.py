"""OpenDP's ``make_laplace`` / ``make_gaussian`` on doubles, against hand derivations and the
library's own draws.

The expected tight values are counted by hand from the rounding the library's source describes
(``find_nearest_multiple_of_2k``: ``x`` goes to ``⌊x/2^k + 1/2⌋``): thresholds ``(m + 1/2)·2^k``
and the doubles around them. The expected claims re-derive the library's map with Fractions:
``(d_in + n·(2^k − 2^−1074))/scale`` rounded up to a double.
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("opendp")

from verifier import f64
from verifier.audit.adapters.opendp import ADAPTER
from verifier.audit.case import AuditCase, Enclosure
from verifier.cli import app
from verifier.core.binary64 import F64
from verifier.core.epsilon import Epsilon
from verifier.core.errors import VerifierError

TINY = Fraction(1, 2 ** 1074)


def case(constructor: str, args: dict, d_in: object = 1) -> AuditCase:
    return AuditCase("opendp", constructor, args, d_in, None, None, None, None, 0)


def run(c: AuditCase):
    return ADAPTER.constructors[c.constructor](c)


def up(x: Fraction) -> Fraction:
    """The least double ≥ x (float(Fraction) rounds to nearest)."""
    d = float(x)
    if Fraction(d) < x:
        d = math.nextafter(d, math.inf)
    return Fraction(d)


def index(x: float, k: int) -> int:
    """The library's rounding, re-derived: the nearest multiple of 2^k, ties up."""
    return math.floor(Fraction(x) / Fraction(2) ** k + Fraction(1, 2))


def frac(v: object) -> Fraction:
    if isinstance(v, F64):
        return Fraction(v.double)
    if isinstance(v, Epsilon):
        return Fraction(str(v.nats))
    return Fraction(str(v))


def test_laplace_scalar_two_thresholds_in_a_distance_of_0_3() -> None:
    """k = −2: thresholds at 1/8 + m/4; a half-open interval of length 0.3 holds at most two
    (0.3 < 2·1/4 + 1/4 = 0.75 but > 1/4): tight ε = 2·(1/4)/1 = 1/2."""
    row = run(case("make_laplace", {"scale": 1, "T": "f64", "k": -2}, f64(0.3)))
    assert row.verdict == "sound" and row.exactness == "exact"
    assert frac(row.tight_epsilon) == Fraction(1, 2)
    assert frac(row.claim_epsilon) == up(Fraction(0.3) + Fraction(1, 4) - TINY)
    x, y = row.witness["inputs"]
    assert abs(Fraction(y.double) - Fraction(x.double)) <= Fraction(0.3)
    assert abs(index(y.double, -2) - index(x.double, -2)) == 2


def test_laplace_scalar_a_quarter_against_the_next_double() -> None:
    """d_in = 1/4 exactly: one threshold at most (x < t ≤ x′ ≤ x + 1/4 leaves no room for
    t + 1/4): ε = 1/4. The next double, 1/4 + 2^−54, exceeds 1/4 + (1/8 − pred(1/8)) =
    1/4 + 2^−56, so pred(1/8) → 0 and 3/8 → 2 (tie up) are neighbours: ε = 1/2."""
    at = run(case("make_laplace", {"scale": 1, "T": "f64", "k": -2}, f64(0.25)))
    assert frac(at.tight_epsilon) == Fraction(1, 4)
    above = math.nextafter(0.25, 1.0)
    assert Fraction(above) == Fraction(1, 4) + Fraction(1, 2 ** 54)
    row = run(case("make_laplace", {"scale": 1, "T": "f64", "k": -2}, f64(above)))
    assert frac(row.tight_epsilon) == Fraction(1, 2)
    assert row.witness["inputs"] == (f64(math.nextafter(0.125, 0.0)), f64(0.375))
    assert index(0.375, -2) == 2 and index(math.nextafter(0.125, 0.0), -2) == 0


def test_laplace_vector_l1_each_coordinate_crosses_once_more() -> None:
    """Three coordinates, L1 budget 1, k = −2: each coordinate crosses its first threshold
    for 2^−56 and the remaining ≈ 1 buys three more quarter steps: 6 steps, ε = 6/4."""
    row = run(case("make_laplace", {"scale": 1, "T": "f64", "k": -2, "size": 3}, 1))
    assert frac(row.tight_epsilon) == Fraction(3, 2) and row.exactness == "exact"
    assert frac(row.claim_epsilon) == up(1 + 3 * (Fraction(1, 4) - TINY))
    pairs = list(zip(*row.witness["inputs"], strict=True))
    assert sum(abs(Fraction(b.double) - Fraction(a.double)) for a, b in pairs) <= 1
    assert sum(abs(index(b.double, -2) - index(a.double, -2)) for a, b in pairs) == 6


def test_laplace_default_granularity_is_d_in_over_scale() -> None:
    """k = −1074: every double is on the lattice, so 0 and d_in are d_in·2^1074 steps apart:
    ε = d_in/scale, with the double 0.7 read exactly."""
    row = run(case("make_laplace", {"scale": f64(0.7), "T": "f64"}, 1))
    assert frac(row.tight_epsilon) == 1 / Fraction(0.7)
    assert frac(row.claim_epsilon) == up(1 / Fraction(0.7))
    assert row.verdict == "sound"


def test_gaussian_scalar_four_steps_rho_one_half() -> None:
    """k = −2, d_in = 1: 1 + ⌊(1 − 2^−56)/(1/4)⌋ = 4 steps; ρ = (4·(1/4))²/(2·1²) = 1/2 on
    the lattice; the rounding of the release merges only points beyond 2^53 steps."""
    row = run(case("make_gaussian", {"scale": 1, "T": "f64", "k": -2}, 1))
    assert isinstance(row.tight_epsilon, Enclosure)
    assert frac(row.tight_epsilon.upper) == Fraction(1, 2)
    assert Fraction(1, 2) - Fraction(1, 2 ** 900) < frac(row.tight_epsilon.lower) <= \
        Fraction(1, 2)
    assert frac(row.claim_epsilon) == up((1 + Fraction(1, 4) - TINY) ** 2 / 2)
    assert row.verdict == "sound"


def test_gaussian_vector_greedy_witness_and_triangle_bound() -> None:
    """Three coordinates, L2 budget 1, k = −2: steps (4, 3, 2) cost (3/4 + η)² + (1/2 + η)² +
    (1/4 + η)² = 7/8 + O(η) ≤ 1, so ρ ≥ (16 + 9 + 4)/16/2 = 29/32; and
    ‖s‖₂ ≤ 4 + √3·(1 − 4η) bounds it above, under the library's 4 + √3·(1 − 4·2^−1074)."""
    row = run(case("make_gaussian", {"scale": 1, "T": "f64", "k": -2, "size": 3}, 1))
    pairs = list(zip(*row.witness["inputs"], strict=True))
    assert sum((Fraction(b.double) - Fraction(a.double)) ** 2 for a, b in pairs) <= 1
    steps = [abs(index(b.double, -2) - index(a.double, -2)) for a, b in pairs]
    assert steps == [4, 3, 2]
    lower, upper = frac(row.tight_epsilon.lower), frac(row.tight_epsilon.upper)
    assert Fraction(29, 32) - Fraction(1, 2 ** 900) < lower <= Fraction(29, 32)
    eta = Fraction(1, 2 ** 56)
    assert (2 * upper) > (1 + Fraction(17320508, 10 ** 7) * (Fraction(1, 4) - eta)) ** 2
    assert row.verdict == "sound"  # the claim: √3 rounded up, 2^−1074 for η


def test_library_rounds_ties_up_and_adds_lattice_noise() -> None:
    """The library's own draws at 3/8 (1.5 quarter steps): every release is a multiple of
    1/4 and they centre on 1/2 (index 2, the tie rounded up), not 1/4: mean 0.5 within
    0.1 (the standard error of 4000 draws of Laplace(4 steps) is ≈ 0.022)."""
    import opendp.prelude as dp

    dp.enable_features("contrib")
    meas = dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float),
                             scale=1.0, k=-2)
    draws = [meas(0.375) for _ in range(4000)]
    assert all((Fraction(v) * 4).denominator == 1 for v in draws)
    assert abs(sum(draws) / len(draws) - 0.5) < 0.1


RUNNER = CliRunner()


@pytest.mark.parametrize(("args", "key"), [
    ('{ scale = 1, T = "f32" }', "args.T"),
    ('{ scale = 1, T = "f64", k = -1075 }', "args.k"),
    ('{ scale = 1, T = "f64", size = 0 }', "args.size"),
    ('{ scale = 1, T = "f64", bounds = [0, 1] }', "args.bounds"),
])
def test_refusals_name_the_key(tmp_path: Path, args: str, key: str) -> None:
    p = tmp_path / "c.toml"
    p.write_text(f'[[case]]\nlibrary = "opendp"\nconstructor = "make_laplace"\nargs = {args}\n'
                 f"d_in = 1\n", encoding="utf-8")
    result = RUNNER.invoke(app, ["audit", str(p)])
    assert result.exit_code == 2, result.output
    assert key in result.output


def test_negative_d_in_refused() -> None:
    with pytest.raises(VerifierError, match="d_in"):
        run(case("make_laplace", {"scale": 1, "T": "f64"}, f64(-1.0)))


@pytest.mark.slow
def test_example_exits_as_its_header_says() -> None:
    path = Path(__file__).resolve().parents[1] / "examples" / "audit" / "opendp_float_noise.toml"
    result = RUNNER.invoke(app, ["audit", str(path), "--json"])
    assert result.exit_code == 0, result.output


def test_gaussian_default_granularity_upper_only() -> None:
    """k = −1074: ρ ≤ d_in²/(2·scale²) = 1/2 on the lattice; the witness is 2^1074 steps
    wide, far past the 2^53 lattice points that are doubles one by one, so no lower bound
    but 0 is claimed (the release merges lattice points around every centre)."""
    row = run(case("make_gaussian", {"scale": 1, "T": "f64"}, 1))
    assert frac(row.tight_epsilon.upper) == Fraction(1, 2)
    assert frac(row.tight_epsilon.lower) == 0
    assert row.verdict == "sound"


@pytest.mark.slow
@pytest.mark.parametrize(("constructor", "x"), [
    ("make_laplace", 0.375), ("make_laplace", math.nextafter(0.125, 0.0)),
    ("make_gaussian", 0.375),
])
def test_library_draws_fit_the_lattice_law(constructor: str, x: float) -> None:
    """The library's releases at x, over 2^-2, against plrv's law centred on x's rounding."""
    from verifier.audit.adapters.opendp_sample import law, sample
    from verifier.audit.conformance import goodness_of_fit

    c = case(constructor, {"scale": 1, "T": "f64", "k": -2})
    fit = goodness_of_fit(sample(c, f64(x), 20_000), law(c, f64(x)), x)
    assert fit.outside == 0 and fit.p_value >= 1e-6, fit.note()


def test_conformance_refuses_a_lattice_too_fine() -> None:
    from verifier.audit.adapters.opendp_sample import law

    with pytest.raises(VerifierError, match="args.k"):
        law(case("make_laplace", {"scale": 1, "T": "f64"}), f64(0.5))
