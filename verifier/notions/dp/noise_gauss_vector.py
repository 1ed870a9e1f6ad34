"""(ε, δ)-DP of discrete Gaussian noise added to each coordinate of an integer vector,
decided by certified enclosures (the losses take infinitely many values: nothing is exact here
but the verdict's logic and the tight ε = ∞ at δ = 0).

For inputs ``x``, ``y`` with differences ``d = x − y`` and ``Z_i`` independent discrete
Gaussians (``P[Z = k] = e^{−u·k²}/Z``, ``u = 1/(2σ²)``; Canonne, Kamath and Steinke 2020) the
loss of the output ``x + Z`` is ``u·Σ d_i(2Z_i + d_i) = u·(D + 2S)`` under ``x`` and
``u·(2S − D)`` under ``y`` (``o = y + Z``), with ``D = Σ d_i²`` and ``S = Σ d_i·Z_i``, an
integer with the same law under both. So (seed 003, Lemma 1)::

    δ(ε) = P[S ≥ a] − e^ε·P[S ≥ b],   a = ⌊(ε/u − D)/2⌋ + 1,   b = ⌊(ε/u + D)/2⌋ + 1

(the floors exact for ε a rational number of nats, decided by enclosures of ``ln q`` for
``ε = ln q``, which is irrational for rational ``q ≠ 1``). The law of ``S`` depends on the pair
through the multiset of ``|d_i|`` only (the law of ``Z`` is symmetric).

**Enclosure of ``P[S ≥ a]``.** Cut each ``Z_i`` to ``|Z_i| ≤ R`` and multiply the generating
polynomials ``Σ_{|z|≤R} e^{−u z²}·x^{d_i z}`` in ball arithmetic (python-flint ``arb_poly``;
Johansson 2017): the coefficients ``U`` (``s ≥ a``) and ``L`` (``s < a``) of the product are
lower bounds of the unnormalised masses of both events, and ``Z^n`` (``Z = 2T(0) − 1``, enclosed
by :func:`verifier.core.theta.tail_bounds`) the whole, so ``U/Z^n ≤ P[S ≥ a] ≤ 1 − L/Z^n``.
``R`` grows with the precision until the claim is decided, else the verdict is unknown.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from math import isqrt

from flint import arb, arb_poly, ctx, fmpq
from gmpy2 import mpq, mpz

from verifier.core.budget import Budget
from verifier.core.certified import Certified, exp_bounds, log_bounds
from verifier.core.epsilon import Epsilon
from verifier.core.theta import tail_bounds
from verifier.notions.dp.neighbours import Relation, relation_pairs
from verifier.notions.dp.noise_check import NoiseResult, bisect_epsilon, vacuous

__all__ = ["check_gaussian_vector_dp", "tail_enclosure", "delta_enclosure", "MAX_BITS"]

MAX_BITS = 1 << 10  # the precision cap of one enclosure (bits); beyond it: unknown
_ENCLOSURES = 150  # enclosures of one check: the verdict's, and the bisection's of ε at δ


def _exact(x: arb) -> mpq:
    man, exp = x.man_exp()
    m, e = mpz(int(man)), int(exp)
    return mpq(m * mpz(2) ** e) if e >= 0 else mpq(m, mpz(2) ** -e)


def _radius(u: mpq, prec: int) -> int:
    """``R`` with ``e^{−u(R+1)²}`` below ``2^{−prec}`` (``7/10 > ln 2``)."""
    need = mpq(prec) * mpq(7, 10) / u
    return isqrt(int(mpz(need.numerator) // mpz(need.denominator)) + 1) + 1


def tail_enclosure(u: mpq, differences: tuple[int, ...], a: int, prec: int
                   ) -> tuple[mpq, mpq]:
    """Rationals ``lo ≤ P[Σ d_i Z_i ≥ a] ≤ hi`` at about ``prec`` bits (at most
    :data:`MAX_BITS`: a display asking for more gets that enclosure)."""
    prec = min(prec, MAX_BITS)
    r = _radius(u, prec)
    saved = ctx.prec
    try:
        ctx.prec = prec + 32
        weights = [arb(fmpq(int((-u * z * z).numerator), int((-u * z * z).denominator))).exp()
                   for z in range(-r, r + 1)]
        product = arb_poly([1])
        offset = 0
        for d in differences:
            if d == 0:
                continue
            coeffs = [arb(0)] * (2 * d * r + 1)
            for k, w in enumerate(weights):  # z = k − r: exponent d·z + d·r = d·k
                coeffs[d * k] = w
            product = product * arb_poly(coeffs)
            offset += d * r
        cs = product.coeffs()
        cut = max(0, min(len(cs), a + offset))
        upper = sum(cs[cut:], arb(0))
        lower = sum(cs[:cut], arb(0))
        u_lo, l_lo = _exact(upper.lower()), _exact(lower.lower())
    finally:
        ctx.prec = saved
    t_lo, t_hi = tail_bounds(u, 0, prec)
    n = sum(1 for d in differences if d)
    z_hi = (2 * t_hi - 1) ** n  # Z^n ≤ z_hi
    return max(mpq(0), u_lo / z_hi), min(mpq(1), 1 - max(mpq(0), l_lo) / z_hi)


def _floor(x: mpq) -> int:
    return int(mpz(x.numerator) // mpz(x.denominator))


def _outward(lo: mpq, hi: mpq, bits: int) -> tuple[mpq, mpq]:
    """``[lo, hi]`` widened to the dyadic rationals with ``bits`` fractional bits around it
    (an enclosure stays one, with short numbers)."""
    scale = mpz(2) ** bits
    return mpq(_floor(lo * scale), scale), mpq(-_floor(-hi * scale), scale)


def _thresholds(eps: Epsilon, u: mpq, big_d: int) -> tuple[int, int]:
    """``(a, b)``: the least ``S`` with loss above ε under the first and the second input."""
    if eps.nats is not None:
        x = eps.nats / u
        return _floor((x - big_d) / 2) + 1, _floor((x + big_d) / 2) + 1
    assert eps.base is not None
    if eps.base == 1:
        return _floor(mpq(-big_d, 2)) + 1, _floor(mpq(big_d, 2)) + 1
    prec = 64
    while True:  # ln q/u is irrational: both floors are decided at some precision
        lo, hi = log_bounds(eps.base, prec)
        ends = [(_floor((lo / u + s) / 2), _floor((hi / u + s) / 2)) for s in (-big_d, big_d)]
        if all(p == q for p, q in ends):
            return ends[0][0] + 1, ends[1][0] + 1
        prec *= 2


def delta_enclosure(u: mpq, differences: tuple[int, ...], eps: Epsilon, prec: int
                    ) -> tuple[mpq, mpq]:
    """Rationals enclosing δ(ε) of a pair with these differences, at ``prec`` bits (at most
    :data:`MAX_BITS`; each computed once)."""
    return _delta_enclosure(u, tuple(sorted(differences)), eps, min(prec, MAX_BITS))


@lru_cache(maxsize=1024)
def _delta_enclosure(u: mpq, differences: tuple[int, ...], eps: Epsilon, prec: int
                     ) -> tuple[mpq, mpq]:
    if eps.infinite:
        return mpq(0), mpq(0)  # the loss is finite everywhere: P[L = ∞] = 0
    a, b = _thresholds(eps, u, sum(d * d for d in differences))
    pa, pb = tail_enclosure(u, differences, a, prec), tail_enclosure(u, differences, b, prec)
    e_lo, e_hi = (eps.base, eps.base) if eps.base is not None else \
        exp_bounds(eps.nats, prec)  # type: ignore[arg-type]
    return _outward(max(mpq(0), pa[0] - e_hi * pb[1]), max(mpq(0), pa[1] - e_lo * pb[0]),
                    prec + 16)


@dataclass(frozen=True)
class _Key:
    differences: tuple[int, ...]
    pair: tuple[tuple, tuple]


def _keys(relation: Relation, budget: Budget | None) -> tuple[list[_Key], int]:
    keys: dict[tuple[int, ...], _Key] = {}
    count = 0
    for x, y in relation_pairs(relation, budget):
        count += 1
        diff = tuple(sorted(abs(p - q) for p, q in zip(x, y, strict=True)))
        keys.setdefault(diff, _Key(diff, (x, y)))
    return list(keys.values()), count


def check_gaussian_vector_dp(sigma: mpq, relation: Relation, eps: Epsilon, delta: mpq,
                             budget: Budget | None = None) -> NoiseResult:
    """Decide (ε, δ)-DP of discrete Gaussian noise ``σ`` on each coordinate."""
    u = 1 / (2 * sigma * sigma)
    budget = budget or Budget()
    keys, count = _keys(relation, budget)
    if not keys:
        return vacuous()
    r = _radius(u, 64)  # per enclosure at the first precision: 2R + 1 weights, and the
    # product's coefficients once per coordinate; about _ENCLOSURES enclosures in a check
    budget.require("work", _ENCLOSURES * sum(2 * r + 1 + len(k.differences) *
                                             (2 * sum(k.differences) * r + 1) for k in keys),
                   "the discrete Gaussian's cut laws multiplied (coefficients)",
                   " (a large sigma or distance widens them)")
    holds: bool | None = None
    prec = 64
    while holds is None and prec <= MAX_BITS:
        bounds = [delta_enclosure(u, k.differences, eps, prec) for k in keys]
        if any(lo > delta for lo, _ in bounds):
            holds = False
        elif all(hi <= delta for _, hi in bounds):
            holds = True
        else:
            prec *= 2
    prec = min(prec, MAX_BITS)
    bounds = [delta_enclosure(u, k.differences, eps, prec) for k in keys]
    shown = [j for j in range(len(keys)) if holds is not False or bounds[j][0] > delta]
    # the pair with the largest δ (of the refuting pairs when the claim fails): by the
    # lower ends, certified to be reached
    worst = max(shown, key=lambda j: (bounds[j][0], bounds[j][1], -j))

    def hull(p: int) -> tuple[mpq, mpq]:
        bs = [delta_enclosure(u, k.differences, eps, max(p, 64)) for k in keys]
        return max(b[0] for b in bs), max(b[1] for b in bs)

    moving = [k for k in keys if any(k.differences)]
    if delta == 0 or not moving:
        text, enc, value = ("inf", None, Epsilon.INF) if moving else ("0", Certified.exact(
            mpq(0)), Epsilon.ZERO)
        named = keys[worst] if holds is not True or not moving else moving[0]
        return NoiseResult(holds, "", Certified(hull), False, text, enc, True, value,
                           named.pair, count)
    tight = [_tight(u, k.differences, delta) for k in moving]
    if any(t is None for t in tight):
        return NoiseResult(holds, "", Certified(hull), False, "unknown", None, False, None,
                           keys[worst].pair, count)
    brackets = [t for t in tight if t is not None]
    lo = max(t[0] for t in brackets)
    hi = max(t[1] for t in brackets)
    # the largest tight ε: the pair whose bracket's lower end is the largest
    tightest = max(range(len(brackets)), key=lambda j: (brackets[j][0], -j))
    named = keys[worst] if holds is not True else moving[tightest]
    return NoiseResult(holds, "", Certified(hull), False, "", Certified(lambda p: (lo, hi)),
                       False, None, named.pair, count)


def _tight(u: mpq, differences: tuple[int, ...], delta: mpq) -> tuple[mpq, mpq] | None:
    """A certified bracket ``[lo, hi]`` of the least ε with δ(ε) ≤ ``delta``, or None where
    the search is not decided at the cap."""
    def at_most(e: mpq) -> bool | None:  # δ(e) ≤ delta ?
        prec = 64
        while prec <= MAX_BITS:
            d_lo, d_hi = delta_enclosure(u, differences, Epsilon.of_nats(e), prec)
            if d_lo > delta:
                return False
            if d_hi <= delta:
                return True
            prec *= 2
        return None

    return bisect_epsilon(at_most)
