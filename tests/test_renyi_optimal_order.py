"""zCDP → (ε, δ) at an optimised order (Canonne, Kamath and Steinke 2020, Corollary 13):
the reported bound is within 10^-6 (relative) of the infimum over α > 1, found here
independently by mpmath (a grid, then a root of the derivative at 50 digits); it is never
below that infimum (a certified value of the formula at one order); and it is never below
the exact (ε, δ) curve (soundness), derived by hand for randomized response.

Randomized response with truth 3/4 has ρ* = KL = ln(3)/2 (one run; three runs: 3·ln(3)/2).
"""

from __future__ import annotations

import mpmath
import pytest
from gmpy2 import mpq

from verifier.core.epsilon import parse_epsilon
from verifier.model.mechanisms import randomized_response
from verifier.notions.dp.neighbours import replace_one
from verifier.notions.renyi.check import check_renyi
from verifier.notions.renyi.compose import compose_renyi
from verifier.notions.renyi.conversions import CKS_ZCDP, zcdp_delta, zcdp_epsilon


@pytest.fixture(autouse=True, scope="module")
def _digits():
    with mpmath.workdps(50):
        yield


def mp(x) -> mpmath.mpf:
    return mpmath.mpf(int(x.numerator)) / int(x.denominator)


def ln_delta(rho, eps):
    return lambda a: (a - 1) * (a * rho - eps) + a * mpmath.log(1 - 1 / a) - mpmath.log(a - 1)


def eps_at(rho, delta):
    return lambda a: a * rho + (mpmath.log(1 / delta) + (a - 1) * mpmath.log(1 - 1 / a)
                                - mpmath.log(a)) / (a - 1)


def minimum(f) -> tuple[mpmath.mpf, mpmath.mpf]:
    """``(min f, argmin)`` over α > 1: the best of a grid, then f′ = 0 from there."""
    grid = [1 + mpmath.mpf(10) ** (mpmath.mpf(k) / 50) for k in range(-300, 301)]
    a0 = min(grid, key=f)
    a = mpmath.findroot(lambda x: mpmath.diff(f, x), a0)
    return f(a), a


def test_randomized_response_delta_at_ln3_near_the_infimum():
    """One run at ε = ln 3: the order (ε + ρ)/(2ρ) = 3/2 gave 0.3355; the infimum is
    ≈ 0.2484, near α ≈ 2.09."""
    r = check_renyi(randomized_response("3/4", [0, 1]), replace_one([0, 1], 1), ["zcdp"],
                    rho="1", epsilon="ln(3)")
    z = r.results["zcdp"]
    (what, c), = z.conversions
    assert what == "delta" and c.source == CKS_ZCDP
    rho = mp(z.hi)
    best, at = minimum(ln_delta(rho, mpmath.log(3)))
    lo, hi = c.value.enclose(128)
    assert mpmath.mpf("0.2483") < mpmath.exp(best) < mpmath.mpf("0.2485")
    assert mpmath.exp(best) <= mp(lo) and mp(hi) <= mpmath.exp(best) * (1 + mpmath.mpf(10) ** -6)
    assert abs(mp(c.order) - at) < mpmath.mpf(10) ** -2
    assert mpmath.exp(ln_delta(rho, mpmath.log(3))(mp(c.order))) - mp(lo) < mpmath.mpf(10) ** -30
    # sound: above the exact δ(ln 2) = 3/4 − 2·(1/4) = 1/4 at ε = ln 2, and δ(ln 3) = 0
    at_ln2 = zcdp_delta(z.hi, parse_epsilon("ln(2)"))
    assert at_ln2.value.enclose(64)[0] >= mpq(1, 4)


def test_three_runs_delta_at_ln3_near_the_infimum_and_sound():
    """Three runs at ε = ln 3: 0.999986 before (the order floored near 1), ≈ 0.677 now. The
    exact δ: the loss is ±ln 3 per run, so only 3·ln 3 (mass 27/64) exceeds ln 3 and
    δ(ln 3) = 27/64·(1 − e^{ln 3 − 3 ln 3}) = 3/8."""
    rr = randomized_response("3/4", [0, 1])
    r = compose_renyi([rr] * 3, replace_one([0, 1], 1), ["zcdp"], rho="2",
                      epsilon="ln(3)", delta="1/1000")
    z = r.results["zcdp"]
    conv = dict((c.source, c) for _, c in z.conversions if _ == "delta")
    c = conv[CKS_ZCDP]
    best, _ = minimum(ln_delta(mp(z.hi), mpmath.log(3)))
    lo, hi = c.value.enclose(128)
    assert mpmath.mpf("0.677") < mpmath.exp(best) < mpmath.mpf("0.678")
    assert mpmath.exp(best) <= mp(lo) and mp(hi) <= mpmath.exp(best) * (1 + mpmath.mpf(10) ** -6)
    assert lo >= mpq(3, 8)
    # ε at δ = 1/1000: the exact tight ε solves 27/64 − e^ε/64 = 1/1000, e^ε = 27 − 8/125
    (eps_c,) = [c for w, c in z.conversions if w == "epsilon" and c.source == CKS_ZCDP]
    e_best, _ = minimum(eps_at(mp(z.hi), mpmath.mpf(1) / 1000))
    e_lo, e_hi = eps_c.value.enclose(128)
    assert e_best <= mp(e_lo) and mp(e_hi) <= e_best * (1 + mpmath.mpf(10) ** -6)
    assert mp(e_lo) >= mpmath.log(27 - mpmath.mpf(8) / 125)


@pytest.mark.parametrize("rho, eps", [("1/100", "1/2"), ("1/2", "1"), ("3", "2"),
                                      ("5", "1/10"), ("1/1000", "ln(2)")])
def test_delta_conversion_is_near_the_infimum(rho, eps):
    e = parse_epsilon(eps)
    x = mp(e.nats) if e.nats is not None else mpmath.log(mp(e.base))
    c = zcdp_delta(mpq(rho), e)
    best, _ = minimum(ln_delta(mp(mpq(rho)), x))
    lo, hi = c.value.enclose(128)
    target = min(mpmath.exp(best), mpmath.mpf(1))
    assert target <= mp(lo) + mpmath.mpf(10) ** -40
    assert mp(hi) <= target * (1 + mpmath.mpf(10) ** -6)
    assert c.order > 1


@pytest.mark.parametrize("rho, delta", [("1/100", "1/100000"), ("1/2", "1/1000"),
                                        ("3", "1/10"), ("1/10000", "1/2")])
def test_epsilon_conversion_is_near_the_infimum(rho, delta):
    c = zcdp_epsilon(mpq(rho), mpq(delta))
    best, _ = minimum(eps_at(mp(mpq(rho)), mp(mpq(delta))))
    lo, hi = c.value.enclose(128)
    target = max(best, mpmath.mpf(0))
    assert target <= mp(lo) + mpmath.mpf(10) ** -40
    assert mp(hi) <= target * (1 + mpmath.mpf(10) ** -6) + mpmath.mpf(10) ** -40
    assert c.order > 1
