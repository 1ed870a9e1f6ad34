"""Rényi DP and zCDP: exact values at integer orders against hand derivations, certified
values against mpmath at high precision, the zCDP search three-valued, the conversions
against their formulas (and never below the exact tight δ), and the discrete Gaussian's ρ."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import mpmath as mp
import pytest
from gmpy2 import mpq
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier.core.distribution import Dist
from verifier.core.epsilon import parse_epsilon
from verifier.core.errors import InvalidArgument
from verifier.model.mechanisms import randomized_response
from verifier.notions.check import check_notions
from verifier.notions.dp.neighbours import replace_one, vector_relation, vectors
from verifier.notions.renyi.check import check_renyi
from verifier.notions.renyi.conversions import (
    BUN_STEINKE,
    MIRONOV,
    rdp_delta,
    rdp_epsilon,
    zcdp_delta,
    zcdp_epsilon,
)
from verifier.notions.renyi.divergence import (
    Renyi,
    divergence_bounds,
    kl_bounds,
    renyi,
    terms_of,
)
from verifier.notions.renyi.zcdp import sup_ratio


@pytest.fixture(autouse=True, scope="module")
def _digits():
    """60 digits for the references here, restored after (the setting is global)."""
    with mp.workdps(60):
        yield
RR = randomized_response("3/4", [0, 1])
RR_P, RR_Q = Dist({0: "3/4", 1: "1/4"}), Dist({0: "1/4", 1: "3/4"})


def _mp(x) -> mp.mpf:
    x = mpq(x)
    return mp.mpf(int(x.numerator)) / int(x.denominator)


def _rr_moment(t: Fraction, a: int) -> Fraction:
    """Hand derivation: randomized response with truth t compares (t, 1−t) with (1−t, t);
    S_α = t^α (1−t)^{1−α} + (1−t)^α t^{1−α}."""
    return t ** a * (1 - t) ** (1 - a) + (1 - t) ** a * t ** (1 - a)


# ------------------------------------------------------------------ exact values


@pytest.mark.parametrize("alpha", range(2, 11))
def test_randomized_response_orders_2_to_10_equal_the_hand_derivation(alpha):
    # truth 3/4: S_α = (3^α + 3^{1−α})/4
    s = Fraction(3 ** alpha, 4) + Fraction(1, 4 * 3 ** (alpha - 1))
    assert s == _rr_moment(Fraction(3, 4), alpha)
    r = check_renyi(RR, replace_one([0, 1], 1), orders=[alpha], rho="1")
    v = r.results["rdp"].orders[0].value
    assert isinstance(v.moment, type(mpq(0))) and v.moment == mpq(s.numerator, s.denominator)
    text = f"ln({s.numerator}/{s.denominator})" + ("" if alpha == 2 else f"/{alpha - 1}")
    assert str(v) == text


def test_the_first_orders_by_hand():
    assert [str(renyi(RR_P, RR_Q, a)) for a in (2, 3, 4)] == \
        ["ln(7/3)", "ln(61/9)/2", "ln(547/27)/3"]


@pytest.mark.parametrize("truth", ["2/3", "9/10", "1/2"])
def test_other_truths_and_both_directions(truth):
    t = Fraction(truth)
    mech = randomized_response(truth, [0, 1])
    r = check_renyi(mech, replace_one([0, 1], 2), orders=[2, 5], rho="100")
    for row in r.results["rdp"].orders:
        s = _rr_moment(t, row.order)
        assert row.value.moment == mpq(s.numerator, s.denominator)
    assert r.results["rdp"].cases == 8  # 4 databases × 2 neighbours each


def test_an_impossible_output_makes_every_divergence_infinite():
    p, q = Dist({0: "1/2", 1: "1/2"}), Dist({0: 1})
    assert renyi(p, q, 2).infinite and str(renyi(p, q, 2)) == "inf"
    assert renyi(q, p, 2).moment == 2  # the other direction: (1)²/(1/2) = 2
    assert sup_ratio(terms_of(p, q), mpq(5)).holds is False


def test_equal_laws_have_zero_divergence():
    v = renyi(RR_P, RR_P, 3)
    assert v.moment == 1 and str(v) == "0"
    assert sup_ratio(terms_of(RR_P, RR_P), mpq(0)).holds is True


def test_the_rdp_claim_is_decided_exactly_at_its_boundary():
    # D_2 = ln(7/3): the budget ln(7/3) holds, ln(233/100) (just below 7/3) fails
    ok = check_renyi(RR, replace_one([0, 1], 1), orders=[2], budgets=["ln(7/3)"])
    bad = check_renyi(RR, replace_one([0, 1], 1), orders=[2], budgets=["ln(233/100)"])
    assert ok.holds is True and bad.holds is False
    # ρ: D_2 ≤ 2ρ ⇔ 7/3 ≤ e^{2ρ}; ln(7/3)/2 ≈ 0.42365
    assert check_renyi(RR, replace_one([0, 1], 1), orders=[2], rho="0.4237").holds is True
    assert check_renyi(RR, replace_one([0, 1], 1), orders=[2], rho="0.4236").holds is False


def test_composition_multiplies_the_moment():
    """Rényi divergences add under independent composition: S_α of the product laws is the
    product of the S_α (the laws multiplied by Dist, not by plrv's Rényi code)."""
    for a in (2, 3, 7):
        assert renyi(RR_P * RR_P * RR_P, RR_Q * RR_Q * RR_Q, a).moment == \
            renyi(RR_P, RR_Q, a).moment ** 3


def test_another_relation():
    """A geometric-free example under linf: the identity on {0, 1, 2} with a uniform
    perturbation — the laws are explicit, so D_2 is computed by hand."""
    from verifier.model.mechanisms import mechanism

    def m(x):
        v = x[0]
        return Dist({v: "1/2", (v + 1) % 3: "1/4", (v + 2) % 3: "1/4"})

    rel = vector_relation("linf", 1, vectors(1, 0, 2))
    r = check_renyi(mechanism(m), rel, orders=[2], rho="10")
    # P = (1/2, 1/4, 1/4), Q = (1/4, 1/2, 1/4): S_2 = (1/4)/(1/4) + (1/16)/(1/2) + (1/16)/(1/4)
    assert r.results["rdp"].orders[0].value.moment == mpq(1) + mpq(1, 8) + mpq(1, 4)


# ------------------------------------------------------------------ certified values


laws = st.lists(st.integers(1, 20), min_size=2, max_size=5)


@settings(max_examples=40, deadline=None)
@given(laws, laws, st.fractions(min_value=Fraction(101, 100), max_value=Fraction(30)))
def test_the_exact_value_lies_in_every_enclosure(a, b, alpha):
    n = min(len(a), len(b))
    p = Dist({i: mpq(a[i], sum(a[:n])) for i in range(n)})
    q = Dist({i: mpq(b[i], sum(b[:n])) for i in range(n)})
    t = terms_of(p, q)
    al = mpq(alpha.numerator, alpha.denominator)
    lo, hi = divergence_bounds(t, al, 96)
    exact = mp.log(sum(_mp(p[i]) ** _mp(al) * _mp(q[i]) ** (1 - _mp(al)) for i in range(n))) \
        / (_mp(al) - 1)
    tol = mp.mpf(10) ** -50  # the reference's own error at 60 digits
    assert _mp(lo) - tol <= exact <= _mp(hi) + tol
    for k in (2, 5):
        v = renyi(p, q, k)
        e_lo, e_hi = v.enclose(80)
        ref = mp.log(_mp(v.moment)) / (k - 1)
        assert _mp(e_lo) - tol <= ref <= _mp(e_hi) + tol
    k_lo, k_hi = kl_bounds(t)
    kl = sum(_mp(p[i]) * mp.log(_mp(p[i]) / _mp(q[i])) for i in range(n))
    assert _mp(k_lo) - tol <= kl <= _mp(k_hi) + tol


@settings(max_examples=30, deadline=None)
@given(laws, laws)
def test_the_divergence_is_nondecreasing_in_the_order(a, b):
    n = min(len(a), len(b))
    p = Dist({i: mpq(a[i], sum(a[:n])) for i in range(n)})
    q = Dist({i: mpq(b[i], sum(b[:n])) for i in range(n)})
    values = [renyi(p, q, k) for k in range(2, 8)]
    assert all(values[i].value.compare(values[i + 1].value) <= 0 for i in range(5))


# ------------------------------------------------------------------ zCDP


@pytest.mark.parametrize("truth", ["3/4", "2/3", "9/10"])
def test_randomized_response_zcdp_is_its_kl_divergence(truth):
    """For randomized response D_α/α decreases in α, so ρ* is the limit α → 1: KL =
    ε·tanh(ε/2) with ε = ln(t/(1−t)) (closed form), checked against mpmath over a grid."""
    t = _mp(mpq(Fraction(truth).numerator, Fraction(truth).denominator))
    eps = mp.log(t / (1 - t))
    kl = eps * mp.tanh(eps / 2)
    b = sup_ratio(terms_of(*_rr_laws(truth)), None)
    assert _mp(b.lo) <= kl <= _mp(b.hi) and b.at is None
    assert b.hi - b.lo <= mpq(1, 10**5) * b.hi

    def g(a):
        return mp.log(t ** a * (1 - t) ** (1 - a) + (1 - t) ** a * t ** (1 - a)) / (a - 1) / a

    assert max(g(1 + mp.mpf(i) / 100) for i in range(1, 2000)) <= _mp(b.hi)


def _rr_laws(truth):
    t = mpq(Fraction(truth).numerator, Fraction(truth).denominator)
    return Dist({0: t, 1: 1 - t}), Dist({0: 1 - t, 1: t})


def test_an_interior_supremum_is_enclosed():
    """A pair whose D_α/α peaks at an interior order: the enclosure holds mpmath's maximum
    (a grid, then Newton on g′ at 60 digits)."""
    p, q = Dist({0: "1/1000", 1: "999/1000"}), Dist({0: "1/10**6".replace("10**6", "1000000"),
                                                       1: "999999/1000000"})
    t = terms_of(p, q)
    b = sup_ratio(t, None)

    def g(a):
        return mp.log(sum(_mp(qq) * _mp(r) ** a for qq, r in t)) / (a - 1) / a

    start = max((1 + mp.mpf(i) / 50 for i in range(1, 2000)), key=g)  # a grid, then
    best = g(mp.findroot(lambda a: mp.diff(g, a), start))  # the stationary point near it
    assert b.at is not None and b.at > 1
    assert _mp(b.lo) <= best <= _mp(b.hi)


def test_zcdp_is_three_valued():
    t = terms_of(RR_P, RR_Q)
    kl = mp.log(3) / 2  # ≈ 0.549306
    assert sup_ratio(t, mpq(55, 100)).holds is True
    assert sup_ratio(t, mpq(54, 100)).holds is False
    # a claim inside the enclosure with one evaluation allowed: undecided, never guessed
    b = sup_ratio(t, mpq(5494, 10**4), max_evaluations=1)
    assert b.holds is None and _mp(b.lo) <= kl <= _mp(b.hi) and b.evaluations == 1
    assert b.at is None  # D_2/2 = ln(7/3)/2 ≈ 0.4236 < KL: the lower end is the limit α → 1
    assert _mp(b.hi) <= mp.log(3)  # D_α/α ≤ D_∞ = ln max P/Q at every order: never wider


def test_zcdp_of_a_relation_reports_the_worst_pair():
    r = check_renyi(RR, replace_one([0, 1], 2), ["zcdp"], rho="3/5")
    z = r.results["zcdp"]
    assert z.holds is True and z.lo <= mpq(5494, 10**4) and z.hi >= mpq(5493, 10**4)
    assert z.cases == 8 and "databases" in z.witness


# ------------------------------------------------------------------ conversions


def test_rdp_conversions_by_hand():
    v = renyi(RR_P, RR_Q, 2)  # S_2 = 7/3
    # Mironov: ε = ln(S/δ)/(α−1) = ln(700/3) at δ = 1/100
    assert str(rdp_epsilon(v, mpq(1, 100), MIRONOV).value) == "ln(700/3)"
    # CKS: ε = ln(S·(α−1)^{α−1}/(δ·α^α)) = ln((7/3)·100/4) = ln(175/3)
    assert str(rdp_epsilon(v, mpq(1, 100)).value) == "ln(175/3)"
    # CKS δ at ε = ln 2: S·(α−1)^{α−1}/(α^α·e^{(α−1)ε}) = (7/3)/(4·2) = 7/24
    assert rdp_delta(v, parse_epsilon("ln(2)")).value == mpq(7, 24)


@pytest.mark.parametrize("alpha", [2, 3, 6, 10])
@pytest.mark.parametrize("eps", ["ln(2)", "ln(3)", "1/2", "1"])
def test_a_converted_delta_is_never_below_the_exact_tight_delta(alpha, eps):
    exact = check_notions(RR, values=[0, 1], records=1, epsilon=eps).results["dp"].delta
    conv = rdp_delta(renyi(RR_P, RR_Q, alpha), parse_epsilon(eps)).value
    if isinstance(conv, type(mpq(0))):  # ε = ln q: both exact, compared exactly
        assert exact <= conv
    else:  # ε in nats: the conversion is an enclosure
        assert exact.bounds(128)[0] <= conv.enclose(128)[1]


def test_zcdp_conversions_against_their_formulas():
    rho, d = mpq(1, 2), mpq(1, 10**6)
    bs = zcdp_epsilon(rho, d, BUN_STEINKE).value
    lo, hi = bs.enclose(128)
    ref = mp.mpf(1) / 2 + 2 * mp.sqrt(mp.mpf(1) / 2 * mp.log(10 ** 6))
    assert _mp(lo) <= ref <= _mp(hi)
    c = zcdp_epsilon(rho, d)
    a = _mp(c.order)
    ref = a * _mp(rho) + (mp.log(10 ** 6) + (a - 1) * mp.log(1 - 1 / a) - mp.log(a)) / (a - 1)
    lo, hi = c.value.enclose(128)
    assert _mp(lo) <= ref <= _mp(hi) and ref < 2 * mp.mpf(1) / 2 + 2 * mp.sqrt(
        mp.mpf(1) / 2 * mp.log(10 ** 6))  # tighter than Bun–Steinke here
    dc = zcdp_delta(rho, parse_epsilon("2"))
    a = _mp(dc.order)
    ref = mp.exp((a - 1) * (a * _mp(rho) - 2)) * (1 - 1 / a) ** a / (a - 1)
    lo, hi = dc.value.enclose(128)
    assert _mp(lo) <= ref <= _mp(hi)


# ------------------------------------------------------------------ the discrete Gaussian


def test_discrete_gaussian_rho_is_the_closed_form():
    from verifier.model.expnoise import discrete_gaussian
    from verifier.notions.renyi.check import RenyiClaim
    from verifier.notions.renyi.gaussian import gaussian_renyi

    # σ² = 9/4 (σ = 3/2), sums of 2 records over {0, 2}: Δ = 2, ρ* = Δ²/(2σ²) = 8/9
    noise = discrete_gaussian("3/2", None, None)
    rep = gaussian_renyi(noise, [0, 2], 2, ["rdp", "zcdp"],
                         RenyiClaim((2, 3), mpq(8, 9)))
    z = rep.results["zcdp"]
    assert z.exact == mpq(8, 9) and z.holds is True
    assert [str(o.value) for o in rep.results["rdp"].orders] == ["16/9", "8/3"]  # α·ρ*
    below = gaussian_renyi(noise, [0, 2], 2, ["zcdp"], RenyiClaim((), mpq(88, 100)))
    assert below.results["zcdp"].holds is False


def test_discrete_gaussian_integer_orders_by_direct_summation():
    """D_α of N_Z(0, σ²) against N_Z(1, σ²) summed directly in mpmath: α·Δ²/(2σ²)."""
    s2 = mp.mpf(9) / 4

    def mass(k, c):
        return mp.exp(-(k - c) ** 2 / (2 * s2))

    z = mp.nsum(lambda k: mass(k, 0), [-mp.inf, mp.inf])
    for a in (2, 3, 5):
        s = mp.nsum(lambda k, a=a: (mass(k, 0) / z) ** a * (mass(k, 1) / z) ** (1 - a),
                    [-mp.inf, mp.inf])
        assert abs(mp.log(s) / (a - 1) - a / (2 * s2)) < mp.mpf(10) ** -40
    # and below the line between integers (a non-integer order)
    a = mp.mpf(5) / 2
    s = mp.nsum(lambda k: (mass(k, 0) / z) ** a * (mass(k, 1) / z) ** (1 - a),
                [-mp.inf, mp.inf])
    assert mp.log(s) / (a - 1) < a / (2 * s2)


def test_clamped_discrete_gaussian_dp_lies_below_the_zcdp_conversion():
    """A clamped discrete Gaussian is post-processing of the unclamped one: its exact or
    certified tight δ at ε lies at or below the δ converted from ρ = Δ²/(2σ²) (CKS 2020,
    Corollary 13)."""
    from verifier.model.expnoise import discrete_gaussian
    from verifier.notions.dp.noise_check import check_noise_dp

    noise = discrete_gaussian("1", -3, 4)  # σ = 1: ρ = 1/2 for Δ = 1
    for eps in ("1", "3/2", "2"):
        r = check_noise_dp(noise, [0, 1], 1, parse_epsilon(eps), mpq(0))
        d_hi = r.delta_enclosure.enclose(128)[1]
        conv_lo = zcdp_delta(mpq(1, 2), parse_epsilon(eps)).value.enclose(128)[0]
        assert d_hi <= conv_lo


# ------------------------------------------------------------------ specs and the CLI


def _spec(tmp_path: Path, query: str, data: str = "records = 1\nvalues = [0, 1]",
          mech: str = 'kind = "randomized_response"\ntruth = "3/4"') -> str:
    p = tmp_path / "s.toml"
    p.write_text(f"[data]\n{data}\n[mechanism]\n{mech}\n[query]\n{query}\n")
    return str(p)


def test_cli_exit_codes_and_schema(tmp_path):
    from jsonschema import Draft202012Validator
    from typer.testing import CliRunner

    from verifier.cli import app

    schema = json.loads((Path(__file__).parent.parent / "schemas" /
                         "check-output.v1.json").read_text())
    run = CliRunner().invoke
    ok = run(app, ["check", _spec(tmp_path, 'notions = ["rdp", "zcdp"]\norders = [2, 3]\n'
                                            'rho = "3/5"\ndelta = "1e-6"\nepsilon = "ln(3)"'),
                   "--json"])
    assert ok.exit_code == 0, ok.output
    out = json.loads(ok.stdout)
    Draft202012Validator(schema).validate(out)
    assert [o["value"] for o in out["rdp"]["orders"]] == ["ln(7/3)", "ln(61/9)/2"]
    assert out["zcdp"]["exactness"] == "enclosure"
    bad = run(app, ["check", _spec(tmp_path, 'notions = ["zcdp"]\nrho = "1/2"'), "--json"])
    assert bad.exit_code == 1
    Draft202012Validator(schema).validate(json.loads(bad.stdout))
    dg = run(app, ["check", _spec(tmp_path, 'notions = ["zcdp", "rdp"]\nrho = "1/2"\n'
                                            "orders = [2]",
                                  mech='kind = "discrete_gaussian"\nsigma = 1'), "--json"])
    assert dg.exit_code == 0, dg.output
    dgo = json.loads(dg.stdout)
    Draft202012Validator(schema).validate(dgo)
    assert dgo["zcdp"]["rho"] == "1/2" and dgo["zcdp"]["exactness"] == "exact"
    clamped = run(app, ["check", _spec(tmp_path, 'notions = ["zcdp"]\nrho = "1/4"',
                                       mech='kind = "discrete_gaussian"\nsigma = 1\nlo = 0\n'
                                            "hi = 1")])
    assert clamped.exit_code == 3, clamped.output  # below the bound: not decided


@pytest.mark.parametrize("query, key", [
    ('notions = ["rdp", "dp"]\nrho = "1"\nepsilon = "1"', "notions"),
    ('notions = ["zcdp"]', "rho"),
    ('notions = ["rdp"]\norders = [2]', "rho"),
    ('notions = ["rdp"]\nrdp_epsilon = ["1"]\nrho = "1"', "rdp_epsilon"),
    ('notions = ["rdp"]\norders = [2, 3]\nrdp_epsilon = ["1"]', "rdp_epsilon"),
    ('notions = ["rdp"]\norders = [1]\nrho = "1"', "orders"),
    ('notions = ["rdp"]\norders = [2.5]\nrho = "1"', "orders"),
    ('notions = ["rdp"]\norders = [2, 2]\nrho = "1"', "orders"),
    ('notions = ["rdp"]\norders = [2000]\nrho = "1"', "orders"),
    ('notions = ["zcdp"]\norders = [2]\nrho = "1"', "orders"),
    ('notions = ["zcdp"]\nrho = "-1"', "rho"),
    ('notions = ["zcdp"]\nrho = 0.5', "rho"),
    ('epsilon = "1"\nrho = "1"', "rho"),
])
def test_hostile_rényi_specs_exit_2_naming_the_key(tmp_path, query, key):
    from typer.testing import CliRunner

    from verifier.cli import app

    r = CliRunner().invoke(app, ["check", _spec(tmp_path, query)])
    assert r.exit_code == 2, r.output
    assert key in r.stderr


@pytest.mark.parametrize("option", [["--certificate", "c.json"], ["--closed-form"],
                                    ["--mode", "certified"], ["--workers", "2"]])
def test_options_that_do_not_apply_are_refused(tmp_path, option):
    from typer.testing import CliRunner

    from verifier.cli import app

    r = CliRunner().invoke(app, ["check", _spec(tmp_path, 'notions = ["zcdp"]\nrho = "1"'),
                                 *option])
    assert r.exit_code == 2 and option[0] in r.stderr, r.output


def test_the_ε_δ_engine_refuses_rényi_notions():
    with pytest.raises(InvalidArgument, match="check_renyi"):
        check_notions(RR, values=[0, 1], records=1, epsilon="1", notions=["rdp"])


def test_renyi_value_type():
    v = Renyi.of_nats(3, mpq(2, 3))
    assert str(v) == "2/3" and v.at_most(parse_epsilon("2/3")) and \
        not v.at_most(parse_epsilon("1/2"))
    with pytest.raises(InvalidArgument):
        renyi(RR_P, RR_Q, 1)
