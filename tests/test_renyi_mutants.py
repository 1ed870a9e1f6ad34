"""Rényi DP and zCDP in detail: each conversion's enclosure narrow and around an mpmath value
at 100 digits, exact values against hand derivations with ``fractions.Fraction``, the order a
conversion is taken at against its formula, every refusal naming its argument, the boundary
cases (δ = 1, ρ = 0, ε = ∞, an infinite divergence), and the zCDP search's fields on pairs
whose answer is known in closed form."""

from __future__ import annotations

from fractions import Fraction

import mpmath as mp
import pytest
from gmpy2 import mpq

from verifier.core.certified import Certified
from verifier.core.distribution import Dist
from verifier.core.epsilon import Epsilon, parse_epsilon
from verifier.core.errors import InvalidArgument, InvalidNumber
from verifier.notions.renyi.conversions import (
    BUN_STEINKE,
    CKS_RDP,
    CKS_ZCDP,
    MIRONOV,
    rdp_delta,
    rdp_epsilon,
    zcdp_delta,
    zcdp_epsilon,
)
from verifier.notions.renyi.divergence import (
    MAX_ORDER,
    Renyi,
    ScaledLog,
    check_order,
    divergence_bounds,
    kl_bounds,
    max_log_ratio,
    renyi,
    terms_of,
)
from verifier.notions.renyi.zcdp import SupBound, sup_ratio, sup_ratio_sum

MPQ = type(mpq(0))
TOL = mp.mpf(10) ** -75  # above the references' own error at 100 digits
NARROW = mp.mpf(10) ** -30


@pytest.fixture(autouse=True, scope="module")
def _digits():
    """100 digits for the references here, restored after (the setting is global)."""
    with mp.workdps(100):
        yield


def _mp(x) -> mp.mpf:
    x = mpq(x)
    return mp.mpf(int(x.numerator)) / int(x.denominator)


def _q(x: Fraction | int | str) -> mpq:
    f = Fraction(x)
    return mpq(f.numerator, f.denominator)


def _encloses(lo, hi, ref, width=NARROW) -> None:
    """``lo ≤ ref ≤ hi`` (up to the reference's own error) and ``hi − lo < width``."""
    assert isinstance(lo, MPQ) and isinstance(hi, MPQ)
    assert _mp(lo) - TOL <= ref <= _mp(hi) + TOL, (lo, ref, hi)
    if width is not None:
        assert _mp(hi) - _mp(lo) < width, (lo, hi)


def _laws(p, q) -> tuple[Dist, Dist]:
    return (Dist({i: v for i, v in enumerate(p)}), Dist({i: v for i, v in enumerate(q)}))


RR_P, RR_Q = _laws(["3/4", "1/4"], ["1/4", "3/4"])  # randomized response, truth 3/4
# an output with P = Q (ratio 1) beside two without
MIX_P, MIX_Q = _laws(["1/2", "1/4", "1/4"], ["1/4", "1/2", "1/4"])
# D_α/α peaks inside (1, ∞): g(2) = ln(20/11)/2 > KL, the maximum near α = 3.25
PEAK_P, PEAK_Q = _laws(["1/10", "9/10"], ["1/100", "99/100"])
# P uniform on half of Q's support: r = 2 where P > 0, so D_α = ln 2 at every order
FLAT_P, FLAT_Q = _laws(["1/2", "1/2", "0"], ["1/4", "1/4", "1/2"])


def _div(p: Dist, q: Dist, alpha) -> mp.mpf:
    a = alpha if isinstance(alpha, mp.mpf) else _mp(alpha)
    return mp.log(sum(_mp(p[o]) ** a * _mp(q[o]) ** (1 - a) for o in p.support)) / (a - 1)


def _kl(p: Dist, q: Dist) -> mp.mpf:
    return sum(_mp(p[o]) * mp.log(_mp(p[o]) / _mp(q[o])) for o in p.support)


def _truncated(v: mp.mpf, digits: int) -> str:
    """``v ∈ [0.1, 1)`` truncated to ``digits`` significant digits."""
    assert mp.mpf("0.1") <= v < 1
    return f"0.{int(mp.floor(v * 10 ** digits)):0{digits}d}"


# ------------------------------------------------------------------ check_order


@pytest.mark.parametrize("bad", [1, 1025, 0, -2])
def test_check_order_refuses_an_order_outside_2_to_1024_by_name(bad):
    assert MAX_ORDER == 1024 and check_order(2) == 2 and check_order(1024) == 1024
    with pytest.raises(InvalidArgument) as e:
        check_order(bad)
    assert e.value.argument == "order" and e.value.value == bad
    assert str(e.value).startswith(f"order = {bad} ") and "1024" in str(e.value)


@pytest.mark.parametrize("bad", [True, 2.0, "2", mpq(2), Fraction(5, 2)])
def test_check_order_refuses_a_non_integer_by_name(bad):
    with pytest.raises(InvalidArgument) as e:
        check_order(bad)
    assert e.value.argument == "order" and e.value.value is bad
    assert str(e.value).startswith(f"order = {bad!r} is not an integer")


def test_check_order_names_the_argument_it_is_given():
    for bad in (1, 2.5):
        with pytest.raises(InvalidArgument) as e:
            check_order(bad, "orders")
        assert e.value.argument == "orders" and str(e.value).startswith(f"orders = {bad}")


# ------------------------------------------------------------------ ScaledLog and Renyi


def test_a_scaled_rational_number_of_nats_encloses_itself():
    v = ScaledLog(Epsilon.of_nats(mpq(4, 3)), 2)  # (4/3)/2 = 2/3
    assert v.enclose(64) == (mpq(2, 3), mpq(2, 3)) and v.exact == mpq(2, 3)
    assert str(v) == "2/3" and v.approx() == "0.666666"


@pytest.mark.parametrize("base, k", [(2, 1), ("7/3", 1), ("61/9", 2), ("547/27", 3), (3, 5)])
def test_a_scaled_log_is_enclosed_narrowly(base, k):
    v = ScaledLog(Epsilon.log(_q(base)), k)
    ref = mp.log(_mp(_q(base))) / k
    _encloses(*v.enclose(128), ref)
    for prec in (4, 8, 16, 53):  # valid at every precision
        _encloses(*v.enclose(prec), ref, width=None)
    assert v.exact is None


def test_a_scaled_log_of_1_is_zero_exactly():
    v = ScaledLog(Epsilon.log(1), 3)
    assert v.enclose(64) == (0, 0) and v.exact == 0 and str(v) == "0" and v.approx() == "0"


def test_approximations_are_certified_truncations():
    v = ScaledLog(Epsilon.log(mpq(7, 3)))  # ln(7/3) = 0.84729786038720367…
    assert v.approx() == _truncated(mp.log(mp.mpf(7) / 3), 6) == "0.847297"
    assert v.approx(10) == _truncated(mp.log(mp.mpf(7) / 3), 10)
    r = renyi(RR_P, RR_Q, 3)  # ln(61/9)/2 = 0.9567…
    assert r.approx() == _truncated(mp.log(mp.mpf(61) / 9) / 2, 6)
    assert r.approx(12) == _truncated(mp.log(mp.mpf(61) / 9) / 2, 12)
    assert ScaledLog(Epsilon.INF).approx() == "inf" and Renyi.of_moment(2, None).approx() == "inf"


def test_renyi_of_a_moment():
    v = Renyi.of_moment(3, mpq(61, 9))
    assert v.order == 3 and v.value.divisor == 2 and v.moment == mpq(61, 9)
    assert str(v) == "ln(61/9)/2" and not v.infinite
    inf = Renyi.of_moment(4, None)
    assert inf.infinite and inf.order == 4 and inf.moment is None and str(inf) == "inf"
    # S_α ≥ 1 for laws (Jensen): 1/2 is not a moment, refused by name
    with pytest.raises(InvalidNumber, match=r"^Rényi moment = ln\(1/2\) is negative"):
        Renyi.of_moment(2, mpq(1, 2))


def test_renyi_of_nats():
    v = Renyi.of_nats(3, mpq(2, 3))
    assert v.order == 3 and v.value.divisor == 2 and v.value.scaled.nats == mpq(4, 3)
    assert v.value.exact == mpq(2, 3) and v.enclose(64) == (mpq(2, 3), mpq(2, 3))
    assert v.moment is None
    with pytest.raises(InvalidNumber, match=r"^Rényi divergence = -2 is negative"):
        Renyi.of_nats(3, -1)  # (α − 1)·D = −2


def test_renyi_values_compare_at_one_order_only():
    a, b = renyi(RR_P, RR_Q, 3), renyi(MIX_P, MIX_Q, 3)
    # S_3: 61/9 against (1/2)³/(1/4)² + (1/4)³/(1/2)² + 1/4 = 2 + 1/16 + 1/4 = 37/16
    assert b.moment == mpq(37, 16) and a.compare(b) == 1 and b.compare(a) == -1
    assert a.compare(renyi(RR_P, RR_Q, 3)) == 0
    with pytest.raises(InvalidArgument,
                       match=r"^Rényi values of different orders are not compared$"):
        a.compare(renyi(RR_P, RR_Q, 2))
    # their values, of any divisors, compare exactly: ln 9/2 = ln 3; (7/3)² = 49/9 < 61/9
    assert ScaledLog(Epsilon.log(9), 2).compare(ScaledLog(Epsilon.log(3))) == 0
    assert ScaledLog(Epsilon.log(mpq(7, 3))).compare(ScaledLog(Epsilon.log(mpq(61, 9)), 2)) == -1
    assert ScaledLog(Epsilon.INF).compare(ScaledLog(Epsilon.log(3), 2)) == 1


# ------------------------------------------------------------------ certified divergences


@pytest.mark.parametrize("pair", [(RR_P, RR_Q), (MIX_P, MIX_Q), (PEAK_P, PEAK_Q)])
@pytest.mark.parametrize("alpha", ["3/2", "7/3", "5/2", "11", "1001/1000"])
def test_divergence_bounds_are_narrow_around_mpmath(pair, alpha):
    p, q = pair
    t = terms_of(p, q)
    ref = _div(p, q, _q(alpha))
    _encloses(*divergence_bounds(t, _q(alpha), 128), ref)
    for prec in (8, 16, 53):
        _encloses(*divergence_bounds(t, _q(alpha), prec), ref, width=None)


def test_divergence_bounds_of_equal_laws_are_zero():
    t = terms_of(RR_P, RR_P)
    assert divergence_bounds(t, mpq(3, 2)) == (0, 0)
    assert kl_bounds(t) == (0, 0) and all(isinstance(x, MPQ) for x in kl_bounds(t))
    assert max_log_ratio(t) == (0, 0) and all(isinstance(x, MPQ) for x in max_log_ratio(t))


def test_nearly_equal_laws_have_bounds_at_or_above_zero():
    """P and Q 10⁻⁴⁰ apart: D_α ≈ α·χ²/2 = 2α·10⁻⁸⁰, far below the rounding at 53 … 128
    bits — the lower ends are raised to 0 (D_α ≥ 0), never negative."""
    e = mpq(1, 10**40)
    p, q = Dist({0: mpq(1, 2) + e, 1: mpq(1, 2) - e}), Dist({0: mpq(1, 2), 1: mpq(1, 2)})
    t = terms_of(p, q)
    for prec in (53, 64, 128):
        lo, hi = divergence_bounds(t, mpq(3, 2), prec)
        assert lo >= 0 and _mp(lo) - TOL <= _div(p, q, mpq(3, 2)) <= _mp(hi) + TOL
        k_lo, k_hi = kl_bounds(t, prec)
        assert k_lo >= 0 and _mp(k_lo) - TOL <= _kl(p, q) <= _mp(k_hi) + TOL


@pytest.mark.parametrize("pair", [(RR_P, RR_Q), (MIX_P, MIX_Q), (PEAK_P, PEAK_Q)])
def test_kl_and_max_log_ratio_are_narrow_around_mpmath(pair):
    p, q = pair
    t = terms_of(p, q)
    _encloses(*kl_bounds(t), _kl(p, q))
    d_inf = mp.log(max(_mp(p[o]) / _mp(q[o]) for o in p.support))
    _encloses(*max_log_ratio(t), d_inf)
    for prec in (8, 16, 53):
        _encloses(*kl_bounds(t, prec), _kl(p, q), width=None)
        _encloses(*max_log_ratio(t, prec), d_inf, width=None)


# ------------------------------------------------------------------ the zCDP search


def test_sup_bound_describes_its_order():
    b = SupBound(mpq(0), mpq(1), None, None, 1)
    assert b.describe_at() == "α → 1 (the KL divergence)"
    assert SupBound(mpq(0), mpq(1), mpq(7, 2), None, 1).describe_at() == "α = 7/2"


def test_an_impossible_output_is_infinite_with_no_order_evaluated():
    p, q = Dist({0: "1/2", 1: "1/2"}), Dist({0: 1})
    for rho, holds in ((mpq(5), False), (None, None)):
        b = sup_ratio(terms_of(p, q), rho)
        assert b.infinite is True and b.holds is holds and b.evaluations == 0


def test_equal_laws_have_rho_zero_with_no_order_evaluated():
    t = terms_of(RR_P, RR_P)
    for rho, holds in ((mpq(0), True), (None, None)):
        b = sup_ratio(t, rho)
        assert (b.lo, b.hi, b.holds, b.evaluations, b.infinite) == (0, 0, holds, 0, False)
    # parts run zero times do not count, whatever they are
    b = sup_ratio_sum([(0, terms_of(RR_P, RR_Q)), (0, None), (3, t)], None)
    assert (b.lo, b.hi, b.evaluations, b.infinite) == (0, 0, 0, False)


def test_a_part_run_zero_times_is_ignored():
    """An impossible output in a part run 0 times does not make the sum infinite, and a part
    run 0 times adds nothing: the sum equals the one live part (ρ* = KL = ln(3)/2)."""
    t = terms_of(RR_P, RR_Q)
    b = sup_ratio_sum([(0, None), (1, t), (0, terms_of(PEAK_P, PEAK_Q))], None)
    assert not b.infinite and b.at is None
    _encloses(b.lo, b.hi, mp.log(3) / 2, width=mp.mpf(10) ** -6)


def test_a_constant_divergence_is_decided_by_its_first_evaluation():
    """P uniform on half of Q's support: S_α = 2·(1/4)·2^α, D_α = ln 2 at every order, so
    KL = D_∞ = ln 2 and ρ* = sup ln(2)/α = ln 2, reached as α → 1: the enclosure [KL, D_∞]
    is narrow after the first evaluation (α = 2)."""
    t = terms_of(FLAT_P, FLAT_Q)
    assert renyi(FLAT_P, FLAT_Q, 2).moment == 2 and renyi(FLAT_P, FLAT_Q, 5).moment == 16
    for rho, holds in ((None, None), (mpq(7, 10), True), (mpq(69, 100), False)):
        b = sup_ratio(t, rho)
        _encloses(b.lo, b.hi, mp.log(2), width=mp.mpf(10) ** -40)
        assert b.at is None and b.evaluations == 1 and b.holds is holds


def test_the_first_evaluation_is_at_order_2():
    """Allowed one evaluation, the search knows KL and D_2/2 only: for PEAK, S_2 =
    (1/10)²/(1/100) + (9/10)²/(99/100) = 1 + 9/11 = 20/11 and ln(20/11)/2 > KL, so the lower
    end is D_2/2 at α = 2."""
    t = terms_of(PEAK_P, PEAK_Q)
    assert renyi(PEAK_P, PEAK_Q, 2).moment == mpq(20, 11)
    ref = mp.log(mp.mpf(20) / 11) / 2
    assert ref > _kl(PEAK_P, PEAK_Q)
    b = sup_ratio(t, None, max_evaluations=1)
    assert b.at == 2 and b.evaluations == 1 and b.holds is None
    assert 0 <= ref - _mp(b.lo) < mp.mpf(10) ** -40


def _peak_sup() -> tuple[mp.mpf, mp.mpf]:
    def g(a):
        return _div(PEAK_P, PEAK_Q, a) / a
    start = max((1 + mp.mpf(i) / 20 for i in range(1, 200)), key=g)
    a = mp.findroot(lambda x: mp.diff(g, x), start)
    return a, g(a)


def test_an_interior_supremum_has_a_truthful_witness():
    """D_α/α for PEAK peaks near α = 3.25 (mpmath: Newton on g′): the enclosure holds the
    maximum, and ``at`` is an order where g is at least ``lo`` (a truthful witness)."""
    a_star, g_star = _peak_sup()
    assert 3 < a_star < 4
    b = sup_ratio(terms_of(PEAK_P, PEAK_Q), None, max_evaluations=200)
    assert b.at is not None and b.holds is None and not b.infinite
    assert _mp(b.lo) <= g_star <= _mp(b.hi)
    assert g_star >= _div(PEAK_P, PEAK_Q, b.at) / _mp(b.at) >= _mp(b.lo)
    assert 1 < b.evaluations <= 200
    for rho, holds in ((mpq(2, 5), True), (mpq(39, 100), False)):  # g* ≈ 0.39908
        assert sup_ratio(terms_of(PEAK_P, PEAK_Q), rho).holds is holds


@pytest.mark.parametrize("cap", [1, 2, 3, 4, 5, 6])
def test_an_undecided_claim_stops_at_the_cap(cap):
    """ρ = 0.5494 lies inside every enclosure a few evaluations give for randomized response
    (ρ* = ln(3)/2 ≈ 0.549306): the search stops after exactly ``cap`` evaluations, undecided."""
    b = sup_ratio(terms_of(RR_P, RR_Q), mpq(5494, 10**4), max_evaluations=cap)
    assert b.holds is None and b.evaluations == cap
    assert _mp(b.lo) <= mp.log(3) / 2 <= _mp(b.hi)


def test_nearly_equal_laws_are_decided_without_error():
    """P and Q 10⁻³⁵ apart: KL ≈ 2·10⁻⁷⁰ rounds to a lower end of 0; the search still
    proves ρ ≤ 10⁻³⁰ (by hand ρ* ≤ D_∞ = ln(1 + 2·10⁻³⁵)), its upper end between KL and D_∞."""
    e = mpq(1, 10**35)
    p, q = Dist({0: mpq(1, 2) + e, 1: mpq(1, 2) - e}), Dist({0: mpq(1, 2), 1: mpq(1, 2)})
    t = terms_of(p, q)
    b = sup_ratio(t, mpq(1, 10**30), max_evaluations=50)
    assert b.holds is True and not b.infinite
    assert b.lo >= 0 and _mp(b.hi) >= _kl(p, q)
    assert _mp(b.hi) <= mp.log(1 + 2 * _mp(e)) + TOL


def test_a_supremum_beyond_order_2_to_the_20_is_not_missed():
    """Q(0) = 10⁻²⁰⁰ and P(0) = (1 + 10⁻⁴)·Q(0): KL ≈ 10⁻²⁰⁸ rounds to a lower end of 0, and
    D_α/α peaks near α ≈ 10⁷ (mpmath: ≈ 5.4·10⁻¹²), past the orders the search splits. By hand,
    S_α ≤ 1 + Q(0)·r^α, so D_α ≤ 10⁻¹⁹⁰ for α ≤ 10⁵, and D_α ≤ D_∞ = ln r < 10⁻⁴ beyond: ρ* ≤
    10⁻⁹. A claim ρ ≤ 10⁻¹³ is false and must never be proved; ρ ≤ 10⁻⁹ is proved."""
    q0 = mpq(1, 10**200)
    r = 1 + mpq(1, 10**4)
    p, q = Dist({0: r * q0, 1: 1 - r * q0}), Dist({0: q0, 1: 1 - q0})
    t = terms_of(p, q)
    assert t is not None
    with mp.workdps(300):
        def g(a):
            return mp.log(sum(_mp(qo) * _mp(x) ** a for qo, x in t)) / (a - 1) / a
        grid = max(g(mp.mpf(10) ** (mp.mpf(k) / 20)) for k in range(100, 180))
    assert grid > mp.mpf(10) ** -12
    b = sup_ratio(t, mpq(1, 10**13), max_evaluations=50)
    assert b.holds is not True and _mp(b.hi) >= grid and b.lo <= mpq(1, 10**13)
    b = sup_ratio(t, mpq(1, 10**9), max_evaluations=50)
    assert b.holds is True and _mp(b.hi) >= grid


# ------------------------------------------------------------------ RDP → (ε, δ)


def test_delta_outside_0_1_is_refused_by_name():
    v = renyi(RR_P, RR_Q, 2)
    for bad in (mpq(0), mpq(-1, 2), mpq(3, 2), mpq(1) + mpq(1, 10**9), mpq(2)):
        for call in (lambda d: rdp_epsilon(v, d), lambda d: rdp_epsilon(v, d, MIRONOV),
                     lambda d: zcdp_epsilon(mpq(1, 2), d),
                     lambda d: zcdp_epsilon(mpq(1, 2), d, BUN_STEINKE)):
            with pytest.raises(InvalidArgument) as e:
                call(bad)
            assert e.value.argument == "delta" and e.value.value == bad
            assert str(e.value).startswith("delta = ") and "(0, 1]" in str(e.value)


def test_rdp_epsilon_at_delta_1():
    """δ = 1 is allowed: Mironov gives ε = D_α exactly; CKS's factor (α−1)^{α−1}/α^α < 1
    brings S·factor below 1 for a small moment, and ε is then 0."""
    v = renyi(RR_P, RR_Q, 3)  # S_3 = 61/9
    m = rdp_epsilon(v, mpq(1), MIRONOV)
    assert str(m.value) == "ln(61/9)/2" and m.order == 3 and m.source == MIRONOV and m.exact
    # truth 3/5: S_2 = (9/25)/(2/5) + (4/25)/(3/5) = 9/10 + 4/15 = 7/6
    small = renyi(*_laws(["3/5", "2/5"], ["2/5", "3/5"]), 2)
    assert small.moment == mpq(7, 6)
    assert str(rdp_epsilon(small, mpq(1), MIRONOV).value) == "ln(7/6)"
    c = rdp_epsilon(small, mpq(1))  # (7/6)·(1/4) < 1
    assert c.value.scaled.base == 1 and str(c.value) == "0" and c.source == CKS_RDP


@pytest.mark.parametrize("alpha", [2, 3, 4, 5, 9])
@pytest.mark.parametrize("delta", ["1/100", "1/1000000", "1"])
def test_rdp_epsilon_is_the_rational_log_of_the_hand_formula(alpha, delta):
    """ε = ln(S_α/δ)/(α − 1) (Mironov) and ln(S_α·(α−1)^{α−1}/(δ·α^α))/(α − 1) (CKS), with
    S_α = (3^α + 3^{1−α})/4 for randomized response: the rational inside compared exactly."""
    s = Fraction(3 ** alpha, 4) + Fraction(1, 4 * 3 ** (alpha - 1))
    d = Fraction(delta)
    v = renyi(RR_P, RR_Q, alpha)
    for source, x in ((MIRONOV, s / d),
                      (CKS_RDP, s * Fraction((alpha - 1) ** (alpha - 1), alpha ** alpha) / d)):
        c = rdp_epsilon(v, _q(d), source)
        assert c.exact and c.order == alpha and isinstance(c.order, MPQ) and c.source == source
        assert c.value.divisor == alpha - 1
        assert c.value.scaled.base == _q(max(x, Fraction(1)))


def test_rdp_epsilon_of_an_infinite_divergence_is_infinite():
    v = Renyi.of_moment(4, None)
    for source in (MIRONOV, CKS_RDP):
        c = rdp_epsilon(v, mpq(1, 100), source)
        assert c.value.infinite and c.order == 4 and c.source == source and c.exact


@pytest.mark.parametrize("alpha", [2, 3, 5])
@pytest.mark.parametrize("nats", ["1/2", "3", "1/100"])
def test_rdp_epsilon_of_nats_is_enclosed_narrowly(alpha, nats):
    """D_α a rational number of nats (the discrete Gaussian): ε = D + ln(1/δ)/(α − 1)
    (Mironov) or D + ln((α−1)^{α−1}/(δ·α^α))/(α − 1) (CKS), at least 0."""
    v = Renyi.of_nats(alpha, _q(nats))
    a, dd = mp.mpf(alpha), _mp(_q(nats))
    for delta in ("1/1000", "1"):
        d = _mp(_q(delta))
        for source, ref in ((MIRONOV, dd + mp.log(1 / d) / (a - 1)),
                            (CKS_RDP, dd + mp.log((a - 1) ** (a - 1) / (d * a ** a)) / (a - 1))):
            c = rdp_epsilon(v, _q(delta), source)
            assert not c.exact and c.order == alpha and c.source == source
            lo, hi = c.value.enclose(128)
            if ref <= 0:
                assert (lo, hi) == (0, 0)
            else:
                _encloses(lo, hi, ref)
                for prec in (8, 16, 53):
                    _encloses(*c.value.enclose(prec), ref, width=None)


def test_rdp_delta_boundaries():
    inf = Renyi.of_moment(3, None)
    c = rdp_delta(inf, parse_epsilon("1"))
    assert c.value == 1 and isinstance(c.value, MPQ) and c.order == 3 and c.source == CKS_RDP
    c = rdp_delta(renyi(RR_P, RR_Q, 3), Epsilon.INF)
    assert c.value == 0 and isinstance(c.value, MPQ) and c.order == 3 and c.source == CKS_RDP
    # ε = 0 with truth 9/10: S_2 = (81/100)/(1/10) + (1/100)/(9/10) = 73/9; δ = (73/9)/4 > 1
    big = renyi(*_laws(["9/10", "1/10"], ["1/10", "9/10"]), 2)
    assert big.moment == mpq(73, 9)
    c = rdp_delta(big, parse_epsilon("0"))
    assert c.value == 1 and c.order == 2 and c.source == CKS_RDP


@pytest.mark.parametrize("alpha", [2, 3, 4, 6])
@pytest.mark.parametrize("eps", ["ln(2)", "ln(5/2)", "ln(30)"])
def test_rdp_delta_is_the_hand_formula_exactly(alpha, eps):
    """δ = S_α·(α−1)^{α−1}/(α^α·(e^ε)^{α−1}), at most 1, for ε = ln(rational)."""
    s = Fraction(3 ** alpha, 4) + Fraction(1, 4 * 3 ** (alpha - 1))
    rate = Fraction(eps[3:-1])
    ref = min(s * Fraction((alpha - 1) ** (alpha - 1), alpha ** alpha) / rate ** (alpha - 1),
              Fraction(1))
    c = rdp_delta(renyi(RR_P, RR_Q, alpha), parse_epsilon(eps))
    assert isinstance(c.value, MPQ) and c.value == _q(ref)
    assert c.order == alpha and c.source == CKS_RDP


@pytest.mark.parametrize("alpha", [2, 3, 4, 6])
def test_rdp_delta_in_nats_is_enclosed_narrowly(alpha):
    """The three mixed cases: S_α rational with ε in nats, D_α in nats with e^ε rational, and
    both in nats; δ = c·e^{(α−1)(D_α − ε)}, c = (α−1)^{α−1}/α^α, against mpmath."""
    a = mp.mpf(alpha)
    c = (a - 1) ** (a - 1) / a ** a
    s = _mp(renyi(RR_P, RR_Q, alpha).moment)
    cases = [(renyi(RR_P, RR_Q, alpha), "3", c * s * mp.exp(-(a - 1) * 3)),
             (renyi(RR_P, RR_Q, alpha), "5/2", c * s * mp.exp(-(a - 1) * mp.mpf(5) / 2)),
             (Renyi.of_nats(alpha, mpq(1, 3)), "ln(4)",
              c * mp.exp((a - 1) * (mp.mpf(1) / 3 - mp.log(4)))),
             (Renyi.of_nats(alpha, mpq(1, 3)), "2", c * mp.exp((a - 1) * (mp.mpf(1) / 3 - 2))),
             (Renyi.of_nats(alpha, mpq(1, 3)), "0", c * mp.exp((a - 1) * mp.mpf(1) / 3))]
    for v, eps, ref in cases:
        conv = rdp_delta(v, parse_epsilon(eps))
        assert isinstance(conv.value, Certified) and conv.order == alpha
        assert conv.source == CKS_RDP and not conv.exact
        assert ref < 1
        _encloses(*conv.value.enclose(128), ref)
        for prec in (8, 16, 53):
            _encloses(*conv.value.enclose(prec), ref, width=None)


def test_rdp_delta_in_nats_is_at_most_1():
    # D_4 = 5 nats against ε = 0: c·e^{15} = (27/256)·e^15 ≫ 1
    conv = rdp_delta(Renyi.of_nats(4, 5), parse_epsilon("ln(1)"))
    assert conv.value.enclose(128) == (1, 1)
    conv = rdp_delta(Renyi.of_nats(4, 5), parse_epsilon("1/10"))
    assert conv.value.enclose(128) == (1, 1)


# ------------------------------------------------------------------ zCDP → (ε, δ)


def test_zcdp_epsilon_boundaries():
    for source in (CKS_ZCDP, BUN_STEINKE):
        for rho, d in ((mpq(0), mpq(1, 100)), (mpq(1, 2), mpq(1)), (mpq(0), mpq(1)),
                       (mpq(7), mpq(1))):
            c = zcdp_epsilon(rho, d, source)
            assert c.value == 0 and isinstance(c.value, MPQ) and c.exact
            assert c.order is None and c.source == source


def _cks_epsilon(rho: mp.mpf, d: mp.mpf, order: mpq) -> mp.mpf:
    """Canonne, Kamath and Steinke 2020, Corollary 13, solved for ε at one order α:
    δ = e^{(α−1)(αρ−ε)}·(1 − 1/α)^α/(α − 1) (α − 1 and 1 − 1/α taken exactly)."""
    a, a1, f = _mp(order), _mp(order - 1), _mp((order - 1) / order)
    return a * rho + (mp.log(1 / d) + a * mp.log(f) - mp.log(a1)) / a1


def _order_near(x: mp.mpf) -> mpq:
    """1 + ⌊10⁶·x⌋/10⁶, at least 1 + 10⁻⁶."""
    return 1 + max(mpq(int(mp.floor(x * 10**6)), 10**6), mpq(1, 10**6))


@pytest.mark.parametrize("rho, delta", [("1/2", "1/1000000"), ("1/100", "1/2"), ("3", "1/10"),
                                        ("1/1000", "1/1000000000"), ("2", "99/100"),
                                        ("1/20", "1/100")])
def test_zcdp_epsilon_at_its_order_is_narrow_around_mpmath(rho, delta):
    r, d = _mp(_q(rho)), _mp(_q(delta))
    c = zcdp_epsilon(_q(rho), _q(delta))
    assert c.source == CKS_ZCDP and not c.exact and isinstance(c.order, MPQ)
    # the order minimises the bound: no worse than the rule α = 1 + √(ln(1/δ)/ρ)
    assert c.order > 1
    rule = _order_near(mp.sqrt(mp.log(1 / d) / r))
    assert _cks_epsilon(r, d, c.order) <= _cks_epsilon(r, d, rule)
    ref = _cks_epsilon(r, d, c.order)
    if ref < 0:  # the bound at this order is below 0: ε = 0 (the hockey stick decreases in ε)
        assert c.value.enclose(256) == (0, 0)
    else:
        _encloses(*c.value.enclose(256), ref)
        for prec in (8, 16, 53):
            _encloses(*c.value.enclose(prec), ref, width=None)
    bs = zcdp_epsilon(_q(rho), _q(delta), BUN_STEINKE)
    assert bs.order is None and bs.source == BUN_STEINKE and not bs.exact
    ref = r + 2 * mp.sqrt(r * mp.log(1 / d))
    _encloses(*bs.value.enclose(128), ref)
    for prec in (4, 6, 8, 12, 16, 24, 53):
        _encloses(*bs.value.enclose(prec), ref, width=None)


def test_zcdp_epsilon_order_near_1_and_epsilon_is_at_least_0():
    """ρ = 10⁹ at δ = 1 − 10⁻⁶: the best order is within 10⁻⁶ of 1 (α − 1 ≈ √(ln(1/δ)/ρ)
    ≈ 3·10⁻⁸ balances αρ against ln(1/δ)/(α − 1)); ε there ≈ 10⁹ + 45 against mpmath, below
    the value at 1 + 10⁻⁶ (≈ 10⁹ + 1000). ρ = 10⁻⁹ at the same δ: the bound at its order is
    negative (mpmath), reported as 0 (the hockey-stick divergence decreases in ε)."""
    rho, d = mpq(10**9), mpq(999999, 10**6)
    c = zcdp_epsilon(rho, d)
    assert 1 < c.order < 1 + mpq(1, 10**6)
    ref = _cks_epsilon(_mp(rho), _mp(d), c.order)
    assert 10**9 + 40 < ref < 10**9 + 50
    assert ref < _cks_epsilon(_mp(rho), _mp(d), 1 + mpq(1, 10**6)) - 900
    _encloses(*c.value.enclose(256), ref, width=mp.mpf(10) ** -20)
    rho = mpq(1, 10**9)
    c = zcdp_epsilon(rho, d)
    assert c.order > 1 and _cks_epsilon(_mp(rho), _mp(d), c.order) < 0
    assert c.value.enclose(256) == (0, 0)


def test_zcdp_delta_boundaries():
    for rho, eps in ((mpq(1, 2), Epsilon.INF), (mpq(0), parse_epsilon("1")),
                     (mpq(0), parse_epsilon("ln(3)")), (mpq(0), Epsilon.INF)):
        c = zcdp_delta(rho, eps)
        assert c.value == 0 and isinstance(c.value, MPQ) and c.order is None
        assert c.source == CKS_ZCDP and c.exact


def _cks_delta(rho: mp.mpf, eps: mp.mpf, order: mpq) -> mp.mpf:
    """Canonne, Kamath and Steinke 2020, Corollary 13 at one order α."""
    a, a1, f = _mp(order), _mp(order - 1), _mp((order - 1) / order)
    return mp.exp(a1 * (a * rho - eps)) * f ** a / a1


@pytest.mark.parametrize("rho, eps, order", [
    ("1/2", "3/2", 2),          # (ε + ρ)/(2ρ) = 2
    ("1/2", "5/2", 3),          # = 3
    ("1/2", "2", Fraction(5, 2)),
    ("1", "2", Fraction(3, 2)),
    ("1/10", "3", Fraction(31, 2)),
    ("1", "1/2", None),         # 3/4 < 1: the floor 1 + 10⁻⁶
    ("1", "1", None),           # = 1: the floor again
    ("1/2", "ln(3)", None),     # (ln 3 + 1/2)/1 = 1.598612…
    ("1/4", "ln(20)", None),
])
def test_zcdp_delta_at_its_order_is_narrow_around_mpmath(rho, eps, order):
    r = _mp(_q(rho))
    e = parse_epsilon(eps)
    e_mp = mp.log(_mp(e.base)) if e.base is not None else _mp(e.nats)
    c = zcdp_delta(_q(rho), e)
    rule = _q(order) if order is not None else \
        max(mpq(int(mp.floor((e_mp + r) / (2 * r) * 10**6)), 10**6), 1 + mpq(1, 10**6))
    # the order minimises the bound: no worse than the rule α = (ε + ρ)/(2ρ), floored at 1
    assert c.order > 1 and isinstance(c.order, MPQ)
    assert _cks_delta(r, e_mp, c.order) <= _cks_delta(r, e_mp, rule)
    assert c.source == CKS_ZCDP and not c.exact
    ref = _cks_delta(r, e_mp, c.order)
    assert 0 < ref < 1
    _encloses(*c.value.enclose(128), ref)
    for prec in (6, 8, 16, 53):
        _encloses(*c.value.enclose(prec), ref, width=None)


def test_zcdp_delta_is_at_most_1():
    """ρ = 10⁶ at ε = 0: Corollary 13 is above 1 at every order (mpmath, at the order
    chosen and at 1 + 10⁻⁶, where it is ≈ e); reported as 1."""
    c = zcdp_delta(mpq(10**6), parse_epsilon("0"))
    assert c.order > 1 and _cks_delta(mp.mpf(10**6), mp.mpf(0), c.order) > 1
    assert _cks_delta(mp.mpf(10**6), mp.mpf(0), 1 + mpq(1, 10**6)) > 2
    assert c.value.enclose(128) == (1, 1)
