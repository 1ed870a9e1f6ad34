"""Discrete Laplace and Gaussian noise: exact exponential sums, certified tails, and (ε, δ)-DP.

Independent references: hand derivations of the discrete Laplace's δ(ε) (closed forms in
``β = e^{−1/scale}``), and for the discrete Gaussian direct summation in mpmath at 100 digits
over a window far wider than the mass (the tails beyond it are below 10^-100).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import jsonschema
import mpmath
import pytest
from gmpy2 import mpq
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent / "hostile"))
from harness import assert_error, assert_verdict, invoke, write

from verifier import f64
from verifier.core.epsilon import Epsilon, parse_epsilon
from verifier.core.expsum import ExpSum
from verifier.core.theta import Series, tail_bounds
from verifier.model.expnoise import discrete_gaussian, discrete_laplace
from verifier.notions.dp.noise_check import check_noise_dp
from verifier.notions.dp.noise_loss import pair_loss


@pytest.fixture(autouse=True, scope="module")
def _digits():
    """100 digits for the references here, restored after (the setting is global)."""
    with mpmath.workdps(100):
        yield
MPQ = type(mpq(0))


def mp(x: mpq) -> mpmath.mpf:
    return mpmath.mpf(int(x.numerator)) / int(x.denominator)


def inside(value: mpmath.mpf, bounds: tuple[mpq, mpq], slack: float = 1e-50) -> bool:
    lo, hi = bounds
    return mp(lo) - slack <= value <= mp(hi) + slack


# ------------------------------------------------------------------ exponential sums


def test_exact_zero_and_signs():
    e = ExpSum.exp(mpq(1))
    assert (e * ExpSum.exp(mpq(-1)) - 1).is_zero
    assert (e - mpq(2718281828, 10 ** 9)).sign() == 1  # e = 2.718281828459…
    assert (e - mpq(2718281829, 10 ** 9)).sign() == -1
    assert (ExpSum.exp(mpq(1, 2)) * ExpSum.exp(mpq(1, 2)) - e).is_zero
    assert str(ExpSum.of({mpq(0): 1, mpq(-1): -1})) == "-e^(-1) + 1"


@pytest.mark.parametrize(("terms", "expected"), [
    # e^(10^300) against 1: far beyond any double, yet 1 ≤ e^0 < e^(10^300) by hand
    ({mpq(10) ** 300: -1, mpq(0): 1}, -1),
    # 1 − 10^6·e^(−10^300) > 0: e^(−10^300) ≤ 2^(−10^300) and 10^6 < 2^20
    ({mpq(0): 1, -mpq(10) ** 300: -10 ** 6}, 1),
    # e^a − 2·e^(a−1) = e^a·(1 − 2/e) > 0 at a = 10^300 (e > 2)
    ({mpq(10) ** 300: 1, mpq(10) ** 300 - 1: -2}, 1),
    # 2^200000·e^(−100000) − 1 = e^(200000·ln 2 − 100000) − 1 > 0 (ln 2 > 0.69): a far
    # term with a large coefficient still counts
    ({mpq(0): -1, mpq(-100000): mpq(2) ** 200000}, 1),
])
def test_signs_at_exponents_of_any_magnitude(terms, expected):
    """The sign is decided relative to the largest term: exponents of ±10^300 (OpenDP's
    Laplace at scale 1e-300 puts them there) are neither evaluated by MPFR, which overflows
    or underflows, nor need the precision cap."""
    assert ExpSum.of(terms).sign(max_precision=1 << 12) == expected


def test_enclosure_of_a_term_far_below_is_a_small_bound():
    """e^(−10^300) ≤ 2^(−10^300) (e ≥ 2): the enclosure bounds the term by a power of two
    of at most 2^20 bits rather than MPFR's underflow to 2^(−2^30), a 128 MB rational."""
    lo, hi = ExpSum.of({-mpq(10) ** 300: 3}).enclose(64)
    assert lo == 0 and 0 < hi <= mpq(3, 2 ** 65536) and hi.denominator.bit_length() <= 1 << 20
    e_lo, e_hi = ExpSum.exp(mpq(-1000)).enclose(64)  # nearer: still evaluated, not bounded
    assert e_lo > 0 and e_hi / e_lo < 1 + mpq(1, 2 ** 60)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.fractions(-20, 20, max_denominator=50),
                          st.fractions(-5, 5, max_denominator=50)), min_size=1, max_size=6),
       st.sampled_from([64, 128, 256]))
@pytest.mark.slow
def test_enclosures_hold_the_value_and_signs_agree(terms, prec):
    x = ExpSum.of([(mpq(a.numerator, a.denominator), mpq(c.numerator, c.denominator))
                   for a, c in terms])
    value = mpmath.fsum(mp(c) * mpmath.exp(mp(a)) for a, c in x.terms)
    assert inside(value, x.enclose(prec), slack=abs(value) * mpmath.mpf("1e-90"))
    if not x.is_zero:
        assert x.sign() == (1 if value > 0 else -1)


@pytest.mark.parametrize("u, m", [(mpq(1, 2), 0), (mpq(1, 2), 3), (mpq(1, 50), 0),
                                  (mpq(1, 800), 7), (mpq(3), 2)])
def test_tail_sums_against_mpmath(u, m):
    value = mpmath.fsum(mpmath.exp(-mp(u) * j * j) for j in range(m, m + 4000))
    lo, hi = tail_bounds(u, m, 128)
    assert inside(value, (lo, hi), slack=0)
    assert hi - lo <= hi / 2 ** 100


# ------------------------------------------------------------------ the discrete Laplace


def test_opendp_discrete_laplace_at_a_double_scale():
    """scale = the double nearest 1/ln 2: the tight ε at δ = 0 for d_in = 1 is 1/scale
    exactly (the closed form Δ/scale), a rational number of nats, within 10^-30 of it."""
    scale = f64("0x1.71547652b82fep+0")
    r = check_noise_dp(discrete_laplace(scale), [0, 1], 1, parse_epsilon("0"), mpq(0))
    expected = 1 / scale.exact
    assert r.epsilon_exact and r.epsilon_value == Epsilon.of_nats(expected)
    assert type(r.epsilon_value.nats) is MPQ
    lo, hi = r.epsilon_enclosure.enclose(128)
    assert lo == hi == expected and abs(mp(lo) - mp(expected)) < mpmath.mpf("1e-30")
    # the claimed ε = the double nearest ln 2 is below 1/scale: the claim fails at δ = 0
    claim = check_noise_dp(discrete_laplace(scale), [0, 1], 1,
                           parse_epsilon({"f64": "0x1.62e42fefa39efp-1"}), mpq(0))
    assert claim.holds is False and (f64("0x1.62e42fefa39efp-1").exact < expected)


@pytest.mark.parametrize("scale, eps", [(mpq(2), mpq(1, 3)), (mpq(1), mpq(1, 2)),
                                        (mpq(5, 3), mpq(0))])
def test_discrete_laplace_delta_closed_form(scale, eps):
    """Centres 1 and 0, t = 1/scale, β = e^{−t}: the loss is t on o ≥ 1 and −t on o ≤ 0, so
    for ε < t, δ = P[Z ≥ 0] − e^ε·P[Z ≥ 1] = (1 − e^ε·β)/(1 + β)."""
    t = 1 / scale
    form = pair_loss(discrete_laplace(scale), 1, 0).delta(Epsilon.of_nats(eps))
    assert form.scaled == Series.of(ExpSum.constant(1) - ExpSum.exp(eps - t))
    assert form.denominator == Series.of(ExpSum.constant(1) + ExpSum.exp(-t))
    beta = mpmath.exp(-mp(t))
    assert inside((1 - mpmath.exp(mp(eps)) * beta) / (1 + beta), form.enclose(128))


def test_discrete_laplace_at_its_tight_epsilon_and_clamped():
    n = discrete_laplace(2)
    assert pair_loss(n, 1, 0).delta(Epsilon.of_nats(mpq(1, 2))).scaled.exact.is_zero
    # clamped to [0, 3], sum of two records in {0, 1}: still Δ/scale at δ = 0
    r = check_noise_dp(discrete_laplace(2, 0, 3), [0, 1], 2, Epsilon.of_nats(mpq(1, 2)), mpq(0))
    assert r.holds is True and r.epsilon_value == Epsilon.of_nats(mpq(1, 2))
    r = check_noise_dp(discrete_laplace(2, 0, 3), [0, 1], 2, Epsilon.of_nats(mpq(1, 3)), mpq(0))
    assert r.holds is False


# ------------------------------------------------------------------ the discrete Gaussian


def dg_delta(sigma: mpq, c: int, c2: int, eps: mpmath.mpf, lo=None, hi=None) -> mpmath.mpf:
    """Σ_o max(0, P(o) − e^ε Q(o)) by direct summation (clamping moves the tails)."""
    u = 1 / (2 * mp(sigma) ** 2)
    ks = range(-400, 401)
    z = mpmath.fsum(mpmath.exp(-u * k * k) for k in ks)

    def law(centre):
        out: dict[int, mpmath.mpf] = {}
        for k in ks:
            o = k + centre
            o = o if lo is None else max(o, lo)
            o = o if hi is None else min(o, hi)
            out[o] = out.get(o, 0) + mpmath.exp(-u * k * k) / z
        return out

    p, q = law(c), law(c2)
    e = mpmath.exp(eps)
    return mpmath.fsum(max(0, p[o] - e * q.get(o, 0)) for o in p)


@pytest.mark.parametrize("sigma, c, c2, eps, lo, hi", [
    (mpq(1), 1, 0, "1", None, None), (mpq(1), 0, 1, "1/2", None, None),
    (mpq(3, 2), 2, 0, "ln(2)", None, None), (mpq(2), 0, 3, "ln(3/2)", None, None),
    (mpq(1), 1, 0, "ln(3)", -2, 3), (mpq(1), 0, 1, "0", -1, 1), (mpq(1, 2), 1, 0, "1", 0, None),
    (mpq(1), 0, 2, "1/3", None, 1),
])
def test_discrete_gaussian_delta_against_direct_summation(sigma, c, c2, eps, lo, hi):
    e = parse_epsilon(eps)
    form = pair_loss(discrete_gaussian(sigma, lo, hi), c, c2).delta(e)
    nats = mp(e.nats) if e.nats is not None else mpmath.log(mp(e.base))
    assert inside(dg_delta(sigma, c, c2, nats, lo, hi), form.enclose(128))


def test_clamped_discrete_gaussian_below_its_zcdp_conversion():
    """σ = 1, Δ = 1: ρ = 1/2 (Canonne–Kamath–Steinke 2020); ρ-zCDP gives (ρ + 2√(ρ ln(1/δ)),
    δ)-DP (Bun–Steinke 2016, Prop. 1.3); clamping is post-processing, so the certified tight ε
    lies below."""
    delta = mpq(1, 1000)
    r = check_noise_dp(discrete_gaussian(1, -3, 4), [0, 1], 1, parse_epsilon("1"), delta)
    rho = mpmath.mpf(1) / 2
    bound = rho + 2 * mpmath.sqrt(rho * mpmath.log(1000))
    _, hi = r.epsilon_enclosure.enclose(128)
    assert mp(hi) <= bound and not r.epsilon_exact
    unclamped = check_noise_dp(discrete_gaussian(1), [0, 1], 1, parse_epsilon("1"), delta)
    assert mp(unclamped.epsilon_enclosure.enclose(128)[1]) <= bound
    assert check_noise_dp(discrete_gaussian(1), [0, 1], 1, parse_epsilon("0"),
                          mpq(0)).epsilon == "inf"


# ------------------------------------------------------------------ specs and the CLI

SPEC = {"data": {"records": 2, "values": [0, 1]},
        "mechanism": {"kind": "discrete_laplace", "scale": "2"},
        "query": {"epsilon": "1/2", "delta": "0", "notions": ["dp"]}}


def test_check_spec_exit_codes(tmp_path):
    assert_verdict(invoke(["check", write(tmp_path, SPEC)]), 0)
    fails = {**SPEC, "query": {**SPEC["query"], "epsilon": "1/3"}}
    assert_verdict(invoke(["check", write(tmp_path, fails, "f.toml"), "--json"]), 1)
    gauss = {**SPEC, "mechanism": {"kind": "discrete_gaussian", "sigma": "1", "lo": -3,
                                   "hi": 4}, "query": {**SPEC["query"], "delta": "1/1000"}}
    o = invoke(["check", write(tmp_path, gauss, "g.toml"), "--json"])
    assert_verdict(o, 1)
    out = json.loads(o.stdout)
    assert out["dp"]["exactness"] == {"delta": "enclosure", "epsilon": "enclosure"}
    schema = json.loads((Path(__file__).resolve().parents[1] / "schemas" /
                         "check-output.v1.json").read_text())
    jsonschema.validate(out, schema)


@pytest.mark.parametrize("change, needle", [
    ({"attacker": {"target": 0}}, "[attacker]"), ({"limits": {"max_databases": 9}}, "[limits]"),
    ({"query": {"epsilon": "1", "delta": "0", "notions": ["apkdp"]}}, "notions"),
    ({"mechanism": {"kind": "discrete_laplace", "scale": "0"}}, "scale"),
    ({"mechanism": {"kind": "discrete_laplace", "scale": 0.5}}, "scale"),
    ({"mechanism": {"kind": "discrete_laplace", "scale": "2", "lo": 3, "hi": 1}}, "hi"),
    ({"mechanism": {"kind": "discrete_gaussian", "scale": "2"}}, "scale"),
    ({"mechanism": {"kind": "discrete_laplace"}}, "scale"),
    ({"data": {"records": 2, "values": ["a", "b"]}}, "values"),
    ({"data": {"records": 2, "values": [0, 1], "prior": ["1/2", "1/2"]}}, "prior"),
])
def test_hostile_noise_specs_exit_2(tmp_path, change, needle):
    o = invoke(["check", write(tmp_path, {**SPEC, **change})])
    assert_error(o, needle)


@pytest.mark.parametrize("args, needle", [
    (["check", "--certificate", "c.json"], "--certificate"), (["check", "--full", "--json"],
                                                              "--full"),
    (["check", "--budget", "5"], "--budget"), (["sweep"], "sweep"), (["family"], "family"),
])
def test_options_and_commands_that_do_not_apply_are_refused(tmp_path, args, needle):
    spec = write(tmp_path, SPEC)
    o = invoke([args[0], spec, *args[1:]])
    assert_error(o, needle)
