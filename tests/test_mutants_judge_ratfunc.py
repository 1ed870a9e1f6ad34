"""Tests that kill mutants of the audit judge and of the rational functions of β.

Expected values come from hand derivations (``fractions.Fraction``), closed forms and
mpmath at high precision, never from plrv's own output.
"""

from __future__ import annotations

from fractions import Fraction

import flint
import mpmath
import pytest
from flint import fmpq, fmpq_poly
from gmpy2 import mpq

from verifier.audit.case import AuditCase, Enclosure
from verifier.audit.judge import Curve, curve, judge, ratio, read_double
from verifier.core import ratfunc
from verifier.core.binary64 import F64
from verifier.core.budget import Budget
from verifier.core.delta import Delta
from verifier.core.distribution import Dist
from verifier.core.epsilon import Epsilon
from verifier.core.errors import BudgetExceeded, InvalidArgument, InvalidNumber, Undecided
from verifier.core.expsum import ExpSum
from verifier.core.ratfunc import RatFunc, beta_sign, gap_sign, poly_expsum
from verifier.specs.audit import read_audit_config

B = RatFunc.beta()


def _mp(x: mpq) -> mpmath.mpf:
    return mpmath.mpf(int(x.numerator)) / int(x.denominator)


def mpq_f(a: int, b: int) -> fmpq:
    return fmpq(a, b)


def _fmpq_of(x: mpq) -> fmpq:
    return fmpq(int(x.numerator), int(x.denominator))


def test_a_rational_function_encloses_its_value_at_e_minus_t():
    """(1 + β)/(2 − β) at β = e^{−1}: mpmath at 60 digits lies in the enclosure, which is
    narrower than 2^{-50}; its sign is + (both parts positive), and (2 − β)/(β − 1) is −."""
    r = (1 + B) / (2 - B)
    with mpmath.workdps(60):
        beta = mpmath.exp(-1)
        value = (1 + beta) / (2 - beta)
        lo, hi = r.enclose(mpq(1), 64)
        assert _mp(lo) <= value
        assert value <= _mp(hi)
    assert 0 < hi - lo < mpq(1, 2**50)
    assert r.sign(mpq(1)) == 1 and ((2 - B) / (B - 1)).sign(mpq(1)) == -1
    assert RatFunc.reduced(fmpq_poly([0, 2]), fmpq_poly([0, 4])) == mpq(1, 2)


# ------------------------------------------------------------------ the audit judge
# Binary randomized response with truth t: P = (t, 1−t), Q = (1−t, t). For t > 1/2 and one
# run, δ(ε) = t − e^ε·(1 − t) for 0 ≤ ε ≤ ln(t/(1−t)) and 0 beyond; δ(0) = 2t − 1.


def _rr(t: mpq) -> tuple[Dist, Dist]:
    return Dist({0: t, 1: 1 - t}), Dist({0: 1 - t, 1: t})


def _case() -> AuditCase:
    config = {"case": [{"library": "autodp", "constructor": "RandresponseMechanism",
                        "args": {"p": {"f64": "0.75"}}, "options": {"accountant": "rdp"},
                        "compose": 1, "delta": "1/1000"}]}
    return read_audit_config(config, "c.toml").cases[0]


VACUOUS = "the claim is vacuous (ε = inf or δ ≥ 1)"


def _rr_delta(t: Fraction, eps_exp: Fraction) -> Fraction:
    """δ(ε) of one run by hand, given e^ε."""
    return max(Fraction(0), t - eps_exp * (1 - t))


def test_the_memory_refusal_is_at_ten_bytes_per_coefficient_byte():
    """k runs of randomized response at 3/4: the polynomial plan holds k + 1 loss values
    ((2j − k)·ln 3, j = 0 … k) and 3 bits (the scale 4) per run, so ``need`` is
    10·(k+1)·3k/8 bytes per law: 10·6·15 // 8 = 112 at k = 5; a bracket adds the law at 2/3
    (the scale 3: 2 bits per run), 10·6·10 // 8 = 75."""
    # the judge's own estimate, refused before any work (the composition it then runs has
    # its plan's estimate too, with a fixed overhead far above these few bytes)
    from verifier.audit.judge import _memory

    rr = _rr(mpq(3, 4))
    _memory([rr], 5, Budget(max_memory=112))
    assert curve([rr], 5).exact
    with pytest.raises(BudgetExceeded) as err:
        curve([rr], 5, Budget(max_memory=111))
    assert (err.value.argument, err.value.value) == ("compose", 5)
    assert "112" in str(err.value) and "111" in str(err.value)
    pair = [_rr(mpq(2, 3)), rr]
    _memory(pair, 5, Budget(max_memory=187))
    assert not curve(pair, 5).exact
    with pytest.raises(BudgetExceeded):
        curve(pair, 5, Budget(max_memory=186))


def test_a_bracket_keeps_both_laws_and_the_route():
    lo, hi = _rr(mpq(2, 3)), _rr(mpq(3, 4))
    c = curve([lo, hi], 1)
    # δ(0) = 2t − 1: 1/3 below, 1/2 above
    assert c.lower.delta(Epsilon.of_nats(0)) == mpq(1, 3)
    assert c.upper.delta(Epsilon.of_nats(0)) == mpq(1, 2)
    assert c.route == curve([hi], 1).route and isinstance(c.route, str) and c.route
    one = curve([hi], 1)
    assert one.lower is one.upper and one.exact


def test_read_double_keeps_finite_doubles_exactly():
    x = read_double(0.1)
    assert isinstance(x, F64) and x.exact == mpq(Fraction(0.1))
    assert read_double(float("inf")) == float("inf") and isinstance(read_double(-1e308 * 10),
                                                                   float)
    nan = read_double(float("nan"))
    assert isinstance(nan, float) and nan != nan


def test_the_ratio_is_claim_over_tight_epsilon():
    """0.5 / ln 2 = 0.7213475…; near 1 the gap is shown: (1 + 10^-5)/1, (1 − 10^-5)/1 and
    (1 + 9·10^-5)/1; a gap of exactly 10^-4 is not 'near'."""
    with mpmath.workdps(30):
        expected = f"≈ {float(mpmath.mpf(1) / 2 / mpmath.log(2)):.6g}"
    assert ratio(F64(0.5), Epsilon.log(2)) == expected == "≈ 0.721348"
    assert ratio(Epsilon.log(2), Epsilon.log(2)) == "≈ 1"
    one = Epsilon.of_nats(1)
    assert ratio(Epsilon.of_nats(mpq(100001, 100000)), one) == "≈ 1 + 1e-05"
    assert ratio(Epsilon.of_nats(mpq(99999, 100000)), one) == "≈ 1 - 1e-05"
    assert ratio(Epsilon.of_nats(mpq(10001, 10000)), one) == "≈ 1.0001"
    assert ratio(Epsilon.of_nats(mpq(100009, 100000)), one) == "≈ 1 + 9e-05"
    assert ratio(F64(2.0), Enclosure(Epsilon.of_nats(4), Epsilon.of_nats(8))) == "≈ 0.5"
    assert ratio(F64(1.0), Epsilon.of_nats(0)) is None
    assert ratio(Epsilon.INF, one) is None and ratio(one, Epsilon.INF) is None
    assert ratio(None, one) is None and ratio(mpq(1), one) is None
    # an enormous ε: the decimal is correct to 6 digits (no float overflow of the parts)
    big = Epsilon.of_nats(mpq(3 * 10**400, 1))
    assert ratio(big, Epsilon.of_nats(mpq(10**400, 1))) == "≈ 3"


def test_judge_at_delta_one_and_beyond_reports_tight_epsilon_zero():
    """δ(0) = 1/2 ≤ 1 at t = 3/4: the tight ε at a claimed δ = 1 is 0; δ = 2 has no tight ε."""
    c = curve([_rr(mpq(3, 4))], 1)
    row = judge(_case(), F64(0.25), mpq(1), c, {})
    assert row.verdict == "sound" and row.tight_epsilon == Epsilon.of_nats(0)
    assert row.notes == (VACUOUS,)
    row2 = judge(_case(), F64(0.25), mpq(2), c, {})
    assert row2.verdict == "sound" and row2.tight_epsilon is None
    # just below 1: not vacuous, decided against δ(1/4) = 3/4 − e^{1/4}/4 ≈ 0.429
    row3 = judge(_case(), F64(0.25), mpq(999, 1000), c, {})
    assert row3.verdict == "sound" and not any("vacuous" in n for n in row3.notes)


def test_judge_on_a_bracket_at_its_edges():
    """Truths 2/3 and 3/4 at ε = 0: the tight δ lies in [1/3, 1/2]. A claim equal to the
    lower end is inside (unknown), one equal to the upper end is met (sound); the tight δ is
    the enclosure [1/3, 1/2], the tight ε at δ = 1/3 is [0, ln 2 − ln(1 + ...)] by hand:
    δ_t(ε) = t − e^ε(1−t) = 1/3 gives e^ε = (t − 1/3)/(1 − t): 1 at t = 2/3, 5/3 at 3/4."""
    c = curve([_rr(mpq(2, 3)), _rr(mpq(3, 4))], 1)
    zero = F64(0.0)
    at_lo = judge(_case(), zero, mpq(1, 3), c, {"k": 1})
    assert at_lo.verdict == "unknown" and at_lo.exactness == "enclosure"
    assert "the enclosure of the tight δ contains the claimed δ" in at_lo.notes
    assert at_lo.tight_delta == Enclosure(mpq(1, 3), mpq(1, 2))
    assert at_lo.tight_epsilon == Enclosure(Epsilon.of_nats(0), Epsilon.log(mpq(5, 3)))
    assert at_lo.witness == {"k": 1}
    assert judge(_case(), zero, mpq(1, 2), c, {}).verdict == "sound"
    below = judge(_case(), zero, mpq(1, 3) - mpq(1, 10**30), c, {})
    assert below.verdict == "unsound" and below.notes == ()


def test_judge_keeps_exact_claims_and_drops_floats():
    c = curve([_rr(mpq(3, 4))], 1)
    row = judge(_case(), F64(1.0), mpq(1, 1000), c, {}, notes=("n",))
    assert row.claim_epsilon == F64(1.0) and row.claim_delta == mpq(1, 1000)
    assert row.notes == ("n",) and row.exactness == "exact"
    # δ(1) = 3/4 − e/4 ≈ 0.0704: the claim fails; ε(1/1000) = ln(3 − 4/1000) = ln 2.996
    assert _rr_delta(Fraction(3, 4), Fraction(0)) == Fraction(3, 4)
    assert row.verdict == "unsound"
    assert isinstance(row.tight_delta, Delta)  # exact: A − C·e^ε, not an enclosure
    lo, hi = row.tight_delta.bounds(64)
    with mpmath.workdps(40):
        assert _mp(lo) <= mpmath.mpf(3) / 4 - mpmath.e / 4 <= _mp(hi)
        assert row.ratio == f"≈ {float(1 / mpmath.log(mpmath.mpf(2996) / 1000)):.6g}"
    nan = judge(_case(), F64(1.0), float("nan"), c, {})
    assert nan.claim_delta is None and nan.claim_epsilon == F64(1.0)
    assert nan.verdict == "unknown" and "the library returned δ = nan" in nan.notes
    assert f"the library returned a non-finite value: ε = {F64(1.0)!r}, δ = nan" in nan.notes
    assert nan.ratio is None  # no tight ε without a δ
    nan_e = judge(_case(), float("nan"), mpq(1, 1000), c, {})
    assert "the library returned ε = NaN" in nan_e.notes and nan_e.claim_delta == mpq(1, 1000)
    none = judge(_case(), None, None, c, {})
    assert none.verdict == "unknown"
    assert set(none.notes) == {"the library gave no ε", "the library gave no δ"}
    assert none.tight_delta is None and none.tight_epsilon is None
    with pytest.raises(TypeError, match="^a δ is not an Epsilon$"):
        judge(_case(), F64(1.0), Epsilon.of_nats(1), c, {})


def test_judge_negative_and_infinite_epsilons():
    """ε = −1/2 (a python float or an exact double): 1 − e^{−1/2} = 0.39346934…, so δ = 39/100
    fails for every mechanism; ε = −inf is not decided; a negative δ fails whatever ε is."""
    c = curve([_rr(mpq(3, 4))], 1)
    with mpmath.workdps(40):
        assert 1 - mpmath.exp(-0.5) > mpmath.mpf(39) / 100
    row = judge(_case(), -0.5, mpq(39, 100), c, {})
    assert row.verdict == "unsound" and row.claim_epsilon is None
    assert "the library returned a negative ε = -0.5: not a privacy guarantee" in row.notes
    assert judge(_case(), -0.5, mpq(4, 10), c, {}).verdict == "unknown"
    assert judge(_case(), F64(-0.5), mpq(39, 100), c, {}).verdict == "unsound"
    assert judge(_case(), mpq(-1, 2), mpq(39, 100), c, {}).verdict == "unsound"  # exact too
    assert judge(_case(), mpq(-1, 2), mpq(4, 10), c, {}).verdict == "unknown"
    ninf = judge(_case(), float("-inf"), mpq(0), c, {})
    assert ninf.verdict == "unknown" and "the library returned ε = -inf" in ninf.notes
    assert judge(_case(), F64(-0.5), None, c, {}).verdict == "unknown"
    negd = judge(_case(), None, mpq(-1, 4), c, {})
    assert negd.verdict == "unsound"
    assert "the library returned a negative δ = mpq(-1,4): not a privacy guarantee" in \
        negd.notes
    assert judge(_case(), F64(1.0), float("inf"), c, {}).verdict == "unknown"
    inf = judge(_case(), float("inf"), mpq(1, 2), c, {})
    assert inf.verdict == "sound" and inf.tight_delta == 0 and VACUOUS in inf.notes
    negf = judge(_case(), F64(-0.5), mpq(39, 100), c, {})
    assert "the library returned a negative ε = -0.5: not a privacy guarantee" in negf.notes
    negdf = judge(_case(), F64(1.0), F64(-0.25), c, {})
    assert "the library returned a negative δ = -0.25: not a privacy guarantee" in negdf.notes
    assert judge(_case(), Epsilon.log(3), mpq(0), c, {}).verdict == "sound"
    assert judge(_case(), mpq(1), mpq(0), c, {}).verdict == "unsound"


# ------------------------------------------------------------------ rational functions of β


def _near_inverse_e(bits: int) -> mpq:
    """A rational within 2^-bits of e^{−1} (mpmath at a higher precision)."""
    with mpmath.workprec(bits + 40):
        return mpq(int(mpmath.floor(mpmath.exp(-1) * 2**bits)), 2**bits)


def test_reduction_is_unique_and_monic():
    """(2β² − 2)/(4β − 4) = (β + 1)/2: the common factor β − 1 cancelled, the denominator made
    monic; 0/(anything) is 0/1; a zero denominator is refused naming ``den``."""
    r = RatFunc.reduced(fmpq_poly([-2, 0, 2]), fmpq_poly([-4, 4]))
    assert (r.num, r.den) == (fmpq_poly([mpq_f(1, 2), mpq_f(1, 2)]), fmpq_poly([1]))
    s = RatFunc.reduced(fmpq_poly([3]), fmpq_poly([1, 2]))  # 3/(2β + 1) = (3/2)/(β + 1/2)
    assert (s.num, s.den) == (fmpq_poly([mpq_f(3, 2)]), fmpq_poly([mpq_f(1, 2), 1]))
    z = RatFunc.reduced(fmpq_poly([0]), fmpq_poly([5, 7]))
    assert (z.num, z.den) == (fmpq_poly([0]), fmpq_poly([1])) and z.is_zero
    with pytest.raises(InvalidArgument) as err:
        RatFunc.reduced(fmpq_poly([1]), fmpq_poly([0]))
    assert err.value.argument == "den"
    assert str(err.value) == "a rational function with denominator 0"
    assert str(s) == "(3/2)/(x + 1/2)" and str(B + 1) == "x + 1"


def test_arithmetic_against_fractions_at_a_rational_point():
    """Every operation checked at β = 2/7 against Fraction arithmetic by hand."""
    b = Fraction(2, 7)
    f, g = (1 + B) / (3 - B), (B * B - 2) / (B + 5)
    fv, gv = (1 + b) / (3 - b), (b * b - 2) / (b + 5)
    cases = [(f + g, fv + gv), (f - g, fv - gv), (f * g, fv * gv), (f / g, fv / gv),
             (2 - f, 2 - fv), (3 / f, 3 / fv), (f + mpq(1, 3), fv + Fraction(1, 3)),
             (mpq(1, 3) * f, fv / 3), (f ** 3, fv ** 3), (f ** -2, fv ** -2),
             (f ** 0, Fraction(1)), (-f, -fv), (f + f, 2 * fv), (f + (B / (3 - B)), (1 + 2 * b)
                                                                    / (3 - b))]
    for r, expected in cases:
        assert r.at(mpq(2, 7)) == mpq(expected)
        assert r.den.leading_coefficient() == 1 and r.num.gcd(r.den).is_one()
    assert (f + (2 - B) / (3 - B)) == mpq(3, 1) * (1 / (3 - B))
    with pytest.raises(ZeroDivisionError, match="^division of a rational function by 0$"):
        f / (B - B)
    with pytest.raises(InvalidArgument) as err:
        f.at(3)
    assert err.value.argument == "alpha" and err.value.value == 3
    assert str(err.value).startswith(f"{f} has a pole at β = 3")
    with pytest.raises(InvalidNumber) as err2:
        f.at(0.5)  # a float is refused, naming the argument
    assert err2.value.argument == "alpha" and str(err2.value).startswith("alpha = 0.5 ")
    with pytest.raises(InvalidNumber) as err3:
        RatFunc.constant(0.5)
    assert err3.value.argument == "constant" and str(err3.value).startswith("constant = 0.5 ")


def test_equality_hash_and_monomials():
    assert (B * 2) / 2 == B and hash((B * 2) / 2) == hash(B) and B != B + 1
    assert (B == "x") is False and (B != 1.5) is True and (RatFunc.constant(2) == 2) is True
    assert ((B + 1) ** 2 == B * B + 2 * B + 1) and ((B + 1) ** 2 != B * B + 1)
    assert (mpq(3, 2) * B ** 4 / B).monomial == (mpq(3, 2), 3)
    assert (B ** -2 / 5).monomial == (mpq(1, 5), -2)
    assert RatFunc.constant(7).monomial == (mpq(7), 0)
    assert (B / (1 + B)).monomial is None and (B * B + B).monomial is None
    assert RatFunc.constant(0).monomial is None


def test_expsums_and_signs_at_e_minus_t():
    """(1 − 2β)/(β + 3) at β = e^{−1}: numerator 1 − 2e^{−1} ≈ 0.264 > 0 and the exponential
    sums are {0: 1, −1: −2} and {−1: 1, 0: 3}; at t = 1/2, 1 − 2e^{−1/2} ≈ −0.213 < 0."""
    r = (1 - 2 * B) / (B + 3)
    n, d = r.expsums(mpq(1))
    assert n == ExpSum.of({mpq(0): mpq(1), mpq(-1): mpq(-2)})
    assert d == ExpSum.of({mpq(0): mpq(3), mpq(-1): mpq(1)})
    assert poly_expsum(fmpq_poly([0, 0, 5]), mpq(1, 3)) == ExpSum.of({mpq(-2, 3): mpq(5)})
    assert r.sign(mpq(1)) == 1 and r.sign(mpq(1, 2)) == -1
    assert type(r.sign(mpq(1, 2))) is int and type(RatFunc.constant(0).sign(mpq(1))) is int
    assert (-r).sign(mpq(1)) == -1 and (1 / (B - 1)).sign(mpq(1)) == -1
    assert RatFunc.constant(0).sign(mpq(1)) == 0
    assert beta_sign(fmpq_poly([0]), mpq(1)) == 0


def test_gap_sign_in_every_branch():
    """p(β) − e^ε·q(β) at β = e^{−t}, each expected sign by hand:
    ε = ln 3, t = 1: β − 3·(1/4) = e^{−1} − 3/4 < 0; p = 1, q = β/3: 1 − e^{-1} > 0.
    ε/t integer: ε = 1, t = 1/2 (m = 2): 1 − e·β² = 0; β − e·β² = β(1 − e^{1/2}) < 0;
    ε = 0 (m = 0): p − q; t = −1/2, ε = 1 (m = −2, β = e^{1/2}): β² − e = 0, 1 − e < 0,
    β² − e·β = e − e^{3/2} < 0.
    ε/t not an integer: q = 0 gives the sign of p, p = 0 minus that of q, and
    e^{−1/2}·... : 1 − e^{1/3}·β at t = 1 is 1 − e^{−2/3} > 0, 1 − e^{1/3}·3β < 0."""
    one, half = mpq(1), mpq(1, 2)
    x, c1 = fmpq_poly([0, 1]), fmpq_poly([1])
    assert gap_sign(x, fmpq_poly([mpq_f(1, 4)]), Epsilon.log(3), one) == -1
    assert gap_sign(c1, fmpq_poly([0, mpq_f(1, 3)]), Epsilon.log(3), one) == 1
    assert gap_sign(c1, fmpq_poly([0, 0, 1]), Epsilon.of_nats(1), half) == 0
    assert gap_sign(x, fmpq_poly([0, 0, 1]), Epsilon.of_nats(1), half) == -1
    assert gap_sign(fmpq_poly([1, 1]), fmpq_poly([0, 1]), Epsilon.of_nats(0), one) == 1
    assert gap_sign(fmpq_poly([0, 1]), fmpq_poly([1]), Epsilon.of_nats(0), half) == -1
    assert gap_sign(fmpq_poly([0, 0, 1]), c1, Epsilon.of_nats(1), -half) == 0
    assert gap_sign(c1, c1, Epsilon.of_nats(1), -half) == -1
    assert gap_sign(fmpq_poly([0, 0, 1]), fmpq_poly([0, 1]), Epsilon.of_nats(1), -half) == -1
    third = Epsilon.of_nats(mpq(1, 3))
    assert gap_sign(fmpq_poly([-1, 1]), fmpq_poly([0]), third, one) == -1
    assert gap_sign(fmpq_poly([0]), fmpq_poly([-1, 1]), third, one) == 1
    assert gap_sign(fmpq_poly([0]), fmpq_poly([0]), third, one) == 0
    assert gap_sign(c1, x, third, one) == 1
    assert gap_sign(c1, fmpq_poly([0, 3]), third, one) == -1
    with mpmath.workdps(40):
        assert 1 - mpmath.exp(mpmath.mpf(1) / 3 - 1) > 0
        assert 1 - 3 * mpmath.exp(mpmath.mpf(1) / 3 - 1) < 0


def test_a_sign_needs_more_than_64_bits_and_is_refused_at_the_cap(monkeypatch):
    """β − c with c within 2^-100 of e^{−1}: 64 bits cannot separate it from 0, 128 can; with
    the cap at 64 bits it is Undecided, and the working precision is restored either way."""
    c = _near_inverse_e(100)
    p = fmpq_poly([-_fmpq_of(c), 1])
    with mpmath.workprec(400):
        expected = int(mpmath.sign(mpmath.exp(-1) - _mp(c)))
    saved = flint.ctx.prec
    assert beta_sign(p, mpq(1)) == expected == 1
    assert flint.ctx.prec == saved
    monkeypatch.setattr(ratfunc, "SIGN_PRECISION", 128)  # 64 bits, then 128: decided
    assert beta_sign(p, mpq(1)) == 1
    monkeypatch.setattr(ratfunc, "SIGN_PRECISION", 64)
    with pytest.raises(Undecided, match=r"^the sign of a polynomial in e\^\(-t\) is not "
                                        r"decided at 64 bits$"):
        beta_sign(p, mpq(1))
    assert flint.ctx.prec == saved
    assert beta_sign(fmpq_poly([-3, 1]), mpq(1)) == -1  # decided at 64 bits, the cap
    monkeypatch.setattr(ratfunc, "SIGN_PRECISION", 63)
    with pytest.raises(Undecided):
        beta_sign(fmpq_poly([-3, 1]), mpq(1))
    with pytest.raises(Undecided, match=r"^the sign of a difference of polynomials in "
                                        r"e\^\(-t\) and e\^ε is not decided at 63 bits$"):
        gap_sign(fmpq_poly([1]), fmpq_poly([0, 1]), Epsilon.of_nats(mpq(1, 3)), mpq(1))


def test_enclose_raises_the_precision_past_a_near_zero_denominator(monkeypatch):
    """1/(β − c) with c within 2^-150 of e^{−1}: the value is about 2^150·(something); the
    enclosure at 64 requested bits still brackets the mpmath value and is narrow relative to
    it. With the cap below the needed precision it is Undecided."""
    c = _near_inverse_e(150)
    r = 1 / (B - RatFunc.constant(c))
    lo, hi = r.enclose(mpq(1), 64)
    with mpmath.workprec(800):
        value = 1 / (mpmath.exp(-1) - _mp(c))
        assert _mp(lo) <= value <= _mp(hi)
        assert (_mp(hi) - _mp(lo)) / value < mpmath.mpf(2) ** -40
    assert lo > 0
    monkeypatch.setattr(ratfunc, "MAX_PRECISION", 128)  # 64, 128 and then 256 bits
    assert r.enclose(mpq(1), 64)[0] > 0
    monkeypatch.setattr(ratfunc, "MAX_PRECISION", 64)
    with pytest.raises(Undecided, match="64 bits"):
        r.enclose(mpq(1), 64)
    # a negative value: the quotient's bounds are the min and max of the four corners
    lo2, hi2 = (-1 / (B + 1)).enclose(mpq(1), 64)
    with mpmath.workprec(300):
        v2 = -1 / (mpmath.exp(-1) + 1)
        assert _mp(lo2) <= v2 <= _mp(hi2) and _mp(hi2) - _mp(lo2) < mpmath.mpf(2) ** -50


def test_the_budget_reaches_both_laws_of_a_bracket():
    """``limits.work`` is the caller's: one unit refuses the composition of the first law; a
    limit that admits k = 5 runs of randomized response (two loss values) refuses the
    second law of the pair when it has three loss values (ln 2, 0, −ln 2: more terms)."""
    rr = _rr(mpq(3, 4))
    with pytest.raises(BudgetExceeded, match="limits.work"):
        curve([rr], 5, Budget(max_work=1))
    assert curve([rr], 5, Budget(max_work=36)).exact
    three = (Dist({0: mpq(1, 2), 1: mpq(1, 4), 2: mpq(1, 4)}),
             Dist({0: mpq(1, 4), 1: mpq(1, 2), 2: mpq(1, 4)}))
    with pytest.raises(BudgetExceeded, match="limits.work"):
        curve([rr, three], 5, Budget(max_work=36))


class _Undecidable:
    """A stand-in law whose δ cannot be compared (as at the certified precision cap)."""

    def delta(self, eps: Epsilon) -> _Undecidable:
        return self

    def epsilon(self, delta: mpq) -> Epsilon:
        return Epsilon.of_nats(1)

    def compare(self, other: object) -> int:
        raise Undecided("the sign of a test difference is not decided")


def test_an_undecided_comparison_is_unknown_with_the_reason():
    law = _Undecidable()
    c = Curve(law, law, "polynomial")  # type: ignore[arg-type]
    row = judge(_case(), F64(1.0), mpq(1, 1000), c, {})
    assert row.verdict == "unknown"
    assert row.notes == ("undecided: the sign of a test difference is not decided",)
    assert row.ratio == "≈ 1"  # claim 1 nat over a tight ε of 1 nat
