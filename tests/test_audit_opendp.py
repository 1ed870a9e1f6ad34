"""The OpenDP adapter of ``plrv audit`` against hand derivations, and against the library's
own draws.

Every expected value below is derived by hand from the law the library's source describes
(or computed with mpmath at 60 digits from that closed form), never copied from plrv's output.
"""

from __future__ import annotations

import math
from pathlib import Path

import gmpy2
import pytest
from gmpy2 import mpq
from typer.testing import CliRunner

pytest.importorskip("opendp")

from verifier import f64
from verifier.audit.adapters.opendp import ADAPTER
from verifier.audit.adapters.opendp_exp import inf_exp
from verifier.audit.adapters.opendp_laws import ct_geometric
from verifier.audit.adapters.opendp_noise import saturation_loss
from verifier.audit.adapters.opendp_noisy_max import pf_round, top_k_law
from verifier.audit.adapters.opendp_sample import law, sample
from verifier.audit.adapters.opendp_threshold import threshold_answer
from verifier.audit.case import AuditCase, Enclosure
from verifier.audit.conformance import goodness_of_fit
from verifier.cli import app
from verifier.core.binary64 import F64
from verifier.core.certified import Certified
from verifier.core.epsilon import Epsilon
from verifier.core.errors import InvalidArgument
from verifier.core.expsum import ExpSum

mpmath = pytest.importorskip("mpmath")

SCALE = f64(1 / math.log(2))  # the double the finding uses: 1/ln 2 rounded to nearest
RELIABLE = 1e-6  # a goodness-of-fit p-value below this is a real misfit, not chance


def case(constructor: str, args: dict, d_in: int | tuple | None = None,
         inputs: tuple | None = None) -> AuditCase:
    return AuditCase("opendp", constructor, args, d_in, None, None, None, inputs, 0)


def run(c: AuditCase):
    return ADAPTER.constructors[c.constructor](c)


def _mp(x: mpq):
    return mpmath.mpf(int(x.numerator)) / int(x.denominator)


def _encloses(value: object, x) -> bool:
    assert isinstance(value, Certified)
    lo, hi = value.enclose(256)
    return _mp(lo) - mpmath.mpf(10) ** -50 <= x <= _mp(hi) + mpmath.mpf(10) ** -50


# ---------------------------------------------------------------- make_laplace_threshold

def _beta():
    mpmath.mp.dps = 60
    return mpmath.exp(-1 / _mp(SCALE.exact))


def test_threshold_finding_released_one_sixth_against_claimed_one_twelfth() -> None:
    """A key of value 1 against none, T = 3, β = e^{−1/s} ≈ 1/2: the library keeps the key
    when 1 + Z ≥ 3, probability Σ_{k≥2} (1−β)/(1+β)·β^k = β²/(1+β) ≈ 1/6; its map bounds δ by
    P[Z > 2] = β³/(1+β) ≈ 1/12 (opendp#2922)."""
    row = run(case("make_laplace_threshold", {"scale": SCALE, "threshold": 3}, (1, 1, 1)))
    beta = _beta()
    released, claimed = beta ** 2 / (1 + beta), beta ** 3 / (1 + beta)
    assert abs(released - mpmath.mpf(1) / 6) < 1e-15
    assert row.verdict == "unsound" and row.exactness == "exact"
    assert row.witness["inputs"] == ({"a": 1}, {})
    assert isinstance(row.claim_delta, F64)
    assert row.claim_delta.hex == "0x1.5555555555558p-4"  # 1/12, rounded up by the library
    assert claimed <= _mp(row.claim_delta.exact) < claimed + 1e-15
    assert isinstance(row.claim_epsilon, F64)
    assert 1 / _mp(SCALE.exact) <= _mp(row.claim_epsilon.exact) < 1 / _mp(SCALE.exact) + 1e-15
    one = threshold_answer(SCALE.exact, 3, 1, Epsilon.of_nats(row.claim_epsilon.exact),
                           row.claim_delta.exact)
    assert one.holds is False and one.witness.maps("a") == ({"a": 1}, {})
    assert _encloses(one.delta_certified, released)
    assert one.epsilon_infinite  # no finite ε covers a δ-short ε-free pair


@pytest.mark.slow
def test_threshold_over_the_whole_relation_delta_is_one() -> None:
    """Keys of value 0 count as absent in L01Inf: n of them against {} are at distance 0 and
    release some key with 1 − (1 − β³/(1+β))^n → 1, so the tight δ (a supremum) is 1 and the
    tight ε at any δ < 1 is ∞. The library's own draws: 40 zero keys, 2000 draws, released
    with probability 1 − (11/12)^40 ≈ 0.969 (sd of the count ≈ 7.7); at most the claimed
    δ = 1/12 if the claim held."""
    row = run(case("make_laplace_threshold", {"scale": SCALE, "threshold": 3}, (1, 1, 1)))
    assert row.tight_delta == 1 and row.tight_epsilon == Epsilon.INF
    import opendp.prelude as dp

    meas = dp.m.make_laplace_threshold(
        dp.map_domain(dp.atom_domain(T=str), dp.atom_domain(T=int)),
        dp.l01inf_distance(dp.absolute_distance(T=int)), scale=SCALE.double, threshold=3)
    zeros = {f"k{i}": 0 for i in range(40)}
    assert meas.map((0, 0, 0)) == (0.0, 0.0)
    released = sum(1 for _ in range(2000) if meas(zeros))
    assert released > 1800


def test_threshold_distance_zero_pair_claims_nothing_yet_releases() -> None:
    """{a: 0} and {} are at distance 0 (a missing key counts as 0): the map claims (0, 0) at
    d_in = (1, 0, 0), yet {a: 0} releases the key with probability P[Z ≥ 3] = β³/(1+β)."""
    row = run(case("make_laplace_threshold", {"scale": SCALE, "threshold": 3}, (1, 0, 0)))
    beta = _beta()
    assert row.verdict == "unsound"
    assert row.witness["inputs"] == ({"a": 0}, {})
    assert row.claim_delta == F64(0.0)
    one = threshold_answer(SCALE.exact, 3, 0, Epsilon.ZERO, mpq(0))
    assert one.witness.maps("a") == ({"a": 0}, {})
    assert _encloses(one.delta_certified, beta ** 3 / (1 + beta))


def test_threshold_answer_sound_when_delta_covers_the_release() -> None:
    """At a claimed δ = 1/5 > 1/6 the released key is covered. The tight ε is then set by the
    shifted pair (T, T − 1), unthresholded there: its loss is +t on outputs ≥ T and −t below,
    so δ(ε) = P[Z ≥ 0] − e^ε·P[Z ≥ 1] = 1/(1+β) − e^ε·β/(1+β) for ε < t, equal to 1/5 at
    e^ε = (1 − (1+β)/5)/β (≈ 1.4 at β ≈ 1/2); a key against none needs only e^ε ≥ 0.96."""
    t = 1 / SCALE.exact
    answer = threshold_answer(SCALE.exact, 3, 1, Epsilon.of_nats(t), mpq(1, 5))
    assert answer.holds is True
    assert not answer.epsilon_infinite and answer.epsilon_bounds is not None
    beta = _beta()
    expected = mpmath.log((1 - (1 + beta) / 5) / beta)
    lo, hi = answer.epsilon_bounds
    assert _mp(lo) <= expected <= _mp(hi) and hi - lo < mpq(1, 10 ** 15)


def test_threshold_refuses_what_it_does_not_model() -> None:
    with pytest.raises(InvalidArgument):  # d_in is (l0, l1, linf)
        run(case("make_laplace_threshold", {"scale": SCALE, "threshold": 3}, 1))
    with pytest.raises(InvalidArgument):  # a bare float is not a double named as one
        run(case("make_laplace_threshold", {"scale": "1.5", "threshold": 3}, (1, 1, 1)))
    with pytest.raises(InvalidArgument):  # the granularity applies to floats only
        run(case("make_laplace_threshold", {"scale": SCALE, "threshold": 3, "k": -2},
                 (1, 1, 1)))


# -------------------------------------------------------------------- randomized response

def test_rr_bool_exact_epsilon_is_ln3() -> None:
    """p = 3/4: the truth 3/4, the lie 1/4, so ε = ln((3/4)/(1/4)) = ln 3."""
    row = run(case("make_randomized_response_bool", {"prob": f64("0.75")}, 1))
    assert row.tight_epsilon == Epsilon.log(3)
    assert row.verdict == "sound"  # the library's double is ln 3 rounded up
    assert isinstance(row.claim_epsilon, F64)
    assert _mp(row.claim_epsilon.exact) >= mpmath.log(3)


def test_rr_bool_at_prob_one_claims_infinity_which_is_vacuous() -> None:
    """p = 1 releases the truth: the laws have disjoint supports, ε = ∞; the library's map
    says ∞ too, and a max divergence ≤ ∞ always holds."""
    row = run(case("make_randomized_response_bool", {"prob": f64("1.0")}, 1))
    assert row.claim_epsilon == Epsilon.INF and row.tight_epsilon == Epsilon.INF
    assert row.verdict == "sound"


def test_rr_categorical_sound_at_one_half() -> None:
    """t = 3, p = 1/2: truth 1/2, each lie 1/4, a non-member 1/3 each: ε = ln 2."""
    row = run(case("make_randomized_response", {"categories": (0, 1, 2),
                                                "prob": f64("0.5")}, 1))
    assert row.tight_epsilon == Epsilon.log(2)
    assert row.verdict == "sound"


def test_rr_categorical_below_one_over_t_is_unsound() -> None:
    """p = 0x1.5555555555555p-2 = 6004799503160661/2^54 < 1/3 (the library accepts it, as
    ≥ fl(1/3)): each lie has (1 − p)/2 > p, so ε = ln((1 − p)/(2p)) > 0 while the map says 0."""
    p = mpq(6004799503160661, 2 ** 54)
    row = run(case("make_randomized_response", {"categories": (0, 1, 2),
                                                "prob": f64("0x1.5555555555555p-2")}, 1))
    assert row.claim_epsilon == F64(0.0)
    assert row.tight_epsilon == Epsilon.log((1 - p) / (2 * p))
    assert (1 - p) / (2 * p) == mpq(12009599006321323, 12009599006321322)
    assert row.verdict == "unsound"


def test_rr_bitvec_two_flipped_bits() -> None:
    """f = 1/2: each bit flips with q = 1/4; two weight-1 vectors differ in 2 bits, so
    ε = 2·ln((3/4)/(1/4)) = ln 9 = 2·m·ln((2 − f)/f), the library's formula."""
    one_byte = tuple(tuple(int(i == j) for i in range(8)) for j in range(9))
    row = run(case("make_randomized_response_bitvec", {"max_weight": 1, "f": f64("0.5")}, 1,
                   one_byte))
    assert row.tight_epsilon == Epsilon.log(9)
    assert row.verdict == "sound"


@pytest.mark.slow
def test_rr_bitvec_vectors_of_two_lengths_are_neighbours() -> None:
    """Under DiscreteDistance a byte and two bytes are neighbours; the output has the input's
    length, so the laws have disjoint supports: ε = ∞."""
    one, two = (1,) + (0,) * 7, (1,) + (0,) * 15
    row = run(case("make_randomized_response_bitvec", {"max_weight": 1, "f": f64("0.5")}, 1,
                   (one, two)))
    assert row.tight_epsilon == Epsilon.INF and row.tight_delta == 1
    assert row.verdict == "unsound" and row.witness["inputs"] == (one, two)
    default = run(case("make_randomized_response_bitvec", {"max_weight": 1,
                                                            "f": f64("0.5")}, 1))
    assert default.verdict == "unsound" and default.tight_epsilon == Epsilon.INF


# ----------------------------------------------------------- discrete Laplace on integers

@pytest.mark.parametrize(("constructor", "scale", "d_in"),
                         [("make_laplace", "2.0", 1), ("make_geometric", "0.3", 2)])
def test_discrete_laplace_epsilon_is_d_over_scale(constructor: str, scale: str,
                                                  d_in: int) -> None:
    """P[Z = z] ∝ e^{−|z|/s}: shifting the centre by Δ changes every log-mass by at most
    Δ/s, with equality on one side: ε = Δ/s, s the double read exactly."""
    s = f64(scale)
    row = run(case(constructor, {"scale": s}, d_in))
    assert row.tight_epsilon == Epsilon.of_nats(d_in / s.exact)
    assert row.verdict == "sound"


def test_discrete_laplace_at_scale_1e_minus_300_is_decided_sound() -> None:
    """Scale s = 1e-300 (the double, read exactly): the tight ε is d_in/s ≈ 10^300 by the
    same triangle inequality, and the library's claim is 1/s rounded up to a double
    (1e300 ≥ 1/s), so the claim holds with δ = 0 — decided, with the claim shown."""
    s = f64("1e-300")
    row = run(case("make_laplace", {"scale": s}, 1))
    assert row.tight_epsilon == Epsilon.of_nats(1 / s.exact)
    assert isinstance(row.claim_epsilon, F64) and row.claim_epsilon.exact >= 1 / s.exact
    assert row.verdict == "sound" and row.exactness == "exact"
    assert isinstance(row.tight_delta, Certified) and row.tight_delta.value == 0


def test_bounded_geometric_with_equal_bounds_is_constant_hence_zero_dp() -> None:
    """bounds = [3, 3]: every input is clamped to 3 and so is every release; the law is the
    point mass at 3 whatever the input, so the tight ε is 0 and any claim ε ≥ 0 holds."""
    row = run(case("make_geometric", {"scale": f64("1.0"), "bounds": (3, 3)}, 2))
    assert row.tight_epsilon == Epsilon.ZERO and row.tight_delta == 0
    assert row.claim_epsilon == F64(2.0)  # the map d_in/scale
    assert row.verdict == "sound" and row.exactness == "exact"


@pytest.mark.parametrize(("sigma", "d_in"), [("2.0", 1), ("0.7", 3)])
def test_discrete_gaussian_rho_is_d_squared_over_two_sigma_squared(sigma: str,
                                                                   d_in: int) -> None:
    """Completing the square: Σ_k p^α q^{1−α} = e^{α(α−1)Δ²/(2σ²)}·Θ(αΔ)/Θ(0), and Θ(αΔ) =
    Θ(0) at integer α, so D_α/α = Δ²/(2σ²) there and never more: ρ = Δ²/(2σ²), with σ the
    double read exactly (2.0 and 1: ρ = 1/8, which the library returns exactly). The cast of
    the release to i32 lowers it by less than 2^−998 (a tail of mass e^{−(2^31)²/(2σ²)})."""
    s = f64(sigma)
    row = run(case("make_gaussian", {"scale": s}, d_in))
    rho = mpq(d_in * d_in) / (2 * s.exact ** 2)
    assert isinstance(row.tight_epsilon, Enclosure)
    assert row.tight_epsilon.upper == rho
    assert isinstance(row.tight_epsilon.lower, type(rho))
    assert 0 < rho - row.tight_epsilon.lower < mpq(1, 2 ** 998)
    assert row.verdict == "sound" and row.exactness == "enclosure"
    if sigma == "2.0":
        assert rho == mpq(1, 8) and row.claim_epsilon == F64(0.125)


def test_gaussian_saturation_bound_is_loose_only_for_huge_sigma() -> None:
    """At σ = 2^30 the tail beyond 2^31 − 1 is not negligible (e^{−2}): the lower end drops,
    but stays a valid bound (≥ 0, ≤ ρ)."""
    u = 1 / (2 * mpq(2) ** 60)
    loss = saturation_loss(u, 1)
    assert 0 < loss <= u


# dashu-float 0.4.4's own exp (FBig<Up>, 53 bits), from a build of its source: inputs where it
# is one unit above the correctly rounded-up value, and x = −1.
DASHU_EXP = [("-0x1.70a0466389906p-9", "0x1.fe8fe44d15112p-1"),
             ("-0x1.f9b6ee87c1b84p-9", "0x1.fe07428020d8ap-1"),
             ("-0x1.f00943f8218f1p-7", "0x1.f84ecc2c3a474p-1"),
             ("-0x1.0000000000000p+0", "0x1.78b56362cef38p-2")]


@pytest.mark.parametrize(("x", "expected"), DASHU_EXP)
def test_inf_exp_is_dashu_bit_for_bit(x: str, expected: str) -> None:
    got = inf_exp(float.fromhex(x))
    assert got == (f64(expected).exact,)
    assert _mp(got[0]) >= mpmath.exp(_mp(f64(x).exact))  # it rounds up, as OpenDP needs


def test_bounded_geometric_law_from_the_sampler_is_the_clamped_geometric() -> None:
    """Drawn step by step (direction, truncated steps, rejected negative zero, clamp), the
    law is the two-sided geometric clamped to [L, U]: (1−α)/(1+α)·α^|o−c| inside and the
    tails P[c + Z ≤ L] = α^{c−L}/(1+α), P[c + Z ≥ U] = α^{U−c}/(1+α) at the ends."""
    for alpha in (mpq(1, 2), mpq(3, 7), mpq(99, 100)):
        for c in range(-2, 8):
            law_ = ct_geometric(c, alpha, 0, 5)
            k = min(max(c, 0), 5)
            assert law_[0] == alpha ** k / (1 + alpha)
            assert law_[5] == alpha ** (5 - k) / (1 + alpha)
            for o in range(1, 5):
                assert law_[o] == (1 - alpha) / (1 + alpha) * alpha ** abs(o - k)


def test_bounded_geometric_epsilon_at_the_librarys_alpha() -> None:
    """scale 1: X = dashu's e^{−1} = 0x1.78b56362cef38p-2 (above), p = 1 − X rounded down to
    a double (MPFR, directed rounding), α = 1 − p; the largest ratio of the clamped geometric
    between neighbours at distance 1 is 1/α (inside and at the ends alike): ε = ln(1/α)."""
    x = f64("0x1.78b56362cef38p-2").exact
    with gmpy2.context(gmpy2.get_context(), precision=53, round=gmpy2.RoundDown):
        p = mpq(gmpy2.mpfr(1 - x))
    row = run(case("make_geometric", {"scale": f64("1.0"), "bounds": (0, 10)}, 1))
    assert row.tight_epsilon == Epsilon.log(1 / (1 - p))
    assert row.verdict == "sound" and row.exactness == "exact"


# ------------------------------------------------------------------- noisy max / top-k

def test_permute_and_flip_two_candidates_by_hand() -> None:
    """Scores (0, 0) and (1, 0), scale 1. At (0, 0) both are accepted surely: 1/2 each. At
    (1, 0) the first is accepted surely and the second with e^{−1}: visited first (1/2) and
    accepted, P(1) = e^{−1}/2. The largest ratio is P_(0,0)(1)/P_(1,0)(1) = e, so ε = 1
    exactly, below the map's 2·d/s = 2 for a non-monotonic L∞ distance."""
    x, y = (mpq(0), mpq(0)), (mpq(1), mpq(0))
    assert pf_round(x, mpq(1)) == [ExpSum.constant(mpq(1, 2))] * 2
    assert pf_round(y, mpq(1)) == [ExpSum.constant(1) - ExpSum.exp(-1, mpq(1, 2)),
                                   ExpSum.exp(-1, mpq(1, 2))]
    row = run(case("make_noisy_max", {"scale": f64("1.0")}, 1, ((0, 0), (1, 0))))
    assert row.tight_epsilon == Epsilon.of_nats(1)
    assert row.claim_epsilon == F64(2.0)
    assert row.verdict == "sound"
    assert row.witness["inputs"] == ((0, 0), (1, 0)) and row.witness["outputs"] == [1]


def test_top_k_law_sums_to_one_exactly() -> None:
    """The ordered releases of peeled permute-and-flip partition the outcomes: the masses,
    exponential sums, add up to the constant 1 (Lindemann–Weierstrass: canonical ==)."""
    law_ = top_k_law((mpq(0), mpq(1), mpq(3), mpq(-2)), mpq(1, 2), 2)
    assert len(law_) == 12
    assert sum(law_.values(), ExpSum()) == ExpSum.constant(1)


def test_noisy_max_monotonic_epsilon_is_d_over_scale() -> None:
    """Monotonic scores (0, 0, 0) against (0, 1, 1), scale 1: at (0, 0, 0) every candidate is
    accepted surely, so P(0) = 1/3; at (0, 1, 1) candidates 1 and 2 are accepted surely when
    visited, so 0 is released only when visited first (1/3) and accepted (e^{−1}):
    P(0) = e^{−1}/3. The ratio e is the largest: ε = 1 = d/s, the map's value."""
    row = run(case("make_noisy_max", {"scale": f64("1.0"), "monotonic": True}, 1,
                   ((0, 0, 0), (0, 1, 1))))
    assert row.tight_epsilon == Epsilon.of_nats(1)
    assert row.claim_epsilon == F64(1.0)
    assert row.verdict == "sound"


# ------------------------------------------------------------------------- conformance

@pytest.mark.parametrize(("c", "x"), [
    (case("make_laplace_threshold", {"scale": SCALE, "threshold": 3}, (1, 1, 1)), {"a": 1}),
    (case("make_randomized_response_bool", {"prob": f64("0.75")}, 1), True),
    (case("make_randomized_response", {"categories": (0, 1, 2), "prob": f64("0.5")}, 1), 7),
    (case("make_laplace", {"scale": f64("2.0")}, 1), -1),
    (case("make_gaussian", {"scale": f64("1.5")}, 1), 4),
    (case("make_geometric", {"scale": f64("2.0"), "bounds": (0, 6)}, 1), 1),
    (case("make_noisy_top_k", {"scale": f64("2.0"), "k": 2, "negate": True}, 1,
          ((0, 1, 3), (1, 1, 3))), (0, 1, 3)),
    (case("make_randomized_response_bitvec", {"max_weight": 1, "f": f64("0.5")}, 1),
     (1, 0, 0, 0, 0, 0, 0, 0)),
])
@pytest.mark.slow
def test_library_draws_fit_the_law(c: AuditCase, x: object) -> None:
    fit = goodness_of_fit(sample(c, x, 20_000), law(c, x), x)
    assert fit.outside == 0 and fit.p_value >= RELIABLE, fit.note()


@pytest.mark.slow
def test_threshold_release_frequency_is_one_sixth_not_one_twelfth() -> None:
    """20 000 draws at {a: 1}: the release count is Binomial(20000, ≈1/6), mean 3333 and
    sd 53; at the claimed 1/12 it would be near 1667."""
    c = case("make_laplace_threshold", {"scale": SCALE, "threshold": 3}, (1, 1, 1))
    draws = sample(c, {"a": 1}, 20_000)
    released = sum(1 for d in draws if isinstance(d, (int, tuple)))
    assert abs(released - 20_000 / 6) < 8 * math.sqrt(20_000 * 5 / 36)


# ------------------------------------------------------------------ the command, end to end

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "audit"


def _audit(*args: str):
    return CliRunner().invoke(app, ["audit", *args])


@pytest.mark.parametrize(("name", "code"), [
    ("opendp_laplace_threshold.toml", 1), ("opendp_laplace_threshold_zero.toml", 1),
    ("opendp_randomized_response.toml", 1), ("opendp_bitvec_lengths.toml", 1),
    ("opendp_discrete_laplace.toml", 0), ("opendp_gaussian_zcdp.toml", 0),
    ("opendp_noisy_max.toml", 0), ("opendp_geometric_bounded.toml", 0),
])
@pytest.mark.slow
def test_examples_exit_as_their_headers_say(name: str, code: int) -> None:
    out = _audit(str(EXAMPLES / name), "--json")
    assert out.exit_code == code, out.output


@pytest.mark.parametrize("case_text", [
    'constructor = "make_laplace_threshold"\nargs = { scale = { f64 = "1.5" }, threshold = 3 }'
    '\nd_in = [1, -1, 1]',  # a negative distance
    'constructor = "make_laplace_threshold"\nargs = { scale = { f64 = "-1.5" }, threshold = 3 }'
    '\nd_in = [1, 1, 1]',  # a negative scale
    'constructor = "make_geometric"\nargs = { scale = { f64 = "1.0" }, bounds = [10, 0] }'
    '\nd_in = 1',  # empty bounds
    'constructor = "make_randomized_response"\nargs = { categories = [0], prob = '
    '{ f64 = "0.5" } }\nd_in = 1',  # one category
    'constructor = "make_noisy_max"\nargs = { scale = { f64 = "1.0" } }\nd_in = 1',  # no inputs
    'constructor = "make_randomized_response_bool"\nargs = { prob = { f64 = "0.75" } }'
    '\nd_in = 0',  # nothing to compare
    'constructor = "make_randomized_response_bool"\nargs = { prob = { f64 = "0.4" } }'
    '\nd_in = 1',  # the library refuses p < 1/2
])
def test_hostile_cases_exit_2_never_1(tmp_path: Path, case_text: str) -> None:
    config = tmp_path / "c.toml"
    config.write_text(f'[[case]]\nlibrary = "opendp"\n{case_text}\n')
    out = _audit(str(config))
    assert out.exit_code == 2, out.output


def test_a_negative_claim_is_unsound_not_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """A library answer ε < 0 is no privacy guarantee: the row is unsound (a stand-in for the
    library's measurement returns −1 from its map)."""
    from types import SimpleNamespace

    from verifier.audit.adapters import opendp_rr

    fake = SimpleNamespace(map=lambda d_in: -1.0)
    dp = SimpleNamespace(m=SimpleNamespace(make_randomized_response_bool=lambda **kw: fake))
    monkeypatch.setattr(opendp_rr, "opendp", lambda: dp)
    row = run(case("make_randomized_response_bool", {"prob": f64("0.75")}, 1))
    assert row.verdict == "unsound" and row.claim_epsilon == F64(-1.0)
