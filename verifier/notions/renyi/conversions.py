"""From Rényi DP and zCDP to (ε, δ)-DP: the conversions the literature uses, each named.

From ``(α, τ)``-RDP (``D_α ≤ τ`` on every neighbouring pair), at ``δ ∈ (0, 1]``:

* **Mironov 2017**, "Rényi Differential Privacy", Proposition 3:
  ``ε = τ + ln(1/δ)/(α − 1)``; with ``τ = ln(S_α)/(α − 1)`` this is
  ``ε = ln(S_α/δ)/(α − 1)``, exact.
* **Canonne, Kamath and Steinke 2020**, "The Discrete Gaussian for Differential Privacy",
  Proposition 12 (the same bound as Balle et al. 2020, "Hypothesis Testing Interpretations and
  Rényi Differential Privacy", Theorem 21):
  ``δ = e^{(α−1)(τ−ε)}·(1 − 1/α)^{α−1}/α``, i.e.
  ``ε = ln(S_α·(α − 1)^{α−1}/(δ·α^α))/(α − 1)`` — exact again, and never larger than
  Mironov's.

From ρ-zCDP, at ``δ ∈ (0, 1)``:

* **Bun and Steinke 2016**, "Concentrated Differential Privacy: Simplifications, Extensions,
  and Lower Bounds", Proposition 1.3: ``ε = ρ + 2·√(ρ·ln(1/δ))``;
* **Canonne, Kamath and Steinke 2020**, Corollary 13:
  ``δ = inf_{α>1} e^{(α−1)(αρ−ε)}·(1 − 1/α)^α/(α − 1)``, and the ε it gives at δ, each
  taken at one rational order ``α`` chosen by a numeric minimisation over ``α > 1`` (any
  ``α > 1`` gives a valid bound, so a float search may choose it; the value at that exact
  ``α`` is enclosed with certified arithmetic and the order is reported).

An ε or δ from a conversion is an upper bound on the tight value, never the tight value; it is
exact where the formula is a rational's log, else a certified enclosure.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from gmpy2 import mpq

from verifier.core.certified import Certified, exp_bounds, log_bounds, sqrt_bounds
from verifier.core.epsilon import Epsilon
from verifier.core.errors import InvalidArgument
from verifier.notions.renyi.divergence import Renyi, ScaledLog

__all__ = ["Conversion", "MIRONOV", "CKS_RDP", "BUN_STEINKE", "CKS_ZCDP", "rdp_epsilon",
           "rdp_delta", "zcdp_epsilon", "zcdp_delta"]

MIRONOV = "Mironov 2017, Proposition 3"
CKS_RDP = "Canonne, Kamath and Steinke 2020, Proposition 12"
BUN_STEINKE = "Bun and Steinke 2016, Proposition 1.3"
CKS_ZCDP = "Canonne, Kamath and Steinke 2020, Corollary 13"


@dataclass(frozen=True)
class Conversion:
    """A converted ε (or δ): ``value`` exact (a :class:`ScaledLog` or an ``mpq``) or a
    :class:`Certified` upper-bound enclosure; the ``order`` it was taken at; its ``source``."""

    value: ScaledLog | mpq | Certified
    order: mpq | None
    source: str

    @property
    def exact(self) -> bool:
        return not isinstance(self.value, Certified)


def _open_delta(delta: mpq) -> mpq:
    if not 0 < delta <= 1:
        raise InvalidArgument(f"delta = {delta} must be in (0, 1] for a conversion to (ε, δ)",
                              argument="delta", value=delta)
    return delta


def rdp_epsilon(value: Renyi, delta: mpq, source: str = CKS_RDP) -> Conversion:
    """ε at ``delta`` from ``D_α ≤ value`` (exact when ``S_α`` is rational)."""
    a, d = value.order, _open_delta(delta)
    factor = 1 / d if source == MIRONOV else mpq((a - 1) ** (a - 1), a ** a) / d
    if value.infinite:
        return Conversion(ScaledLog(Epsilon.INF), mpq(a), source)
    s = value.moment
    if s is not None:
        return Conversion(ScaledLog(Epsilon.log(max(s * factor, mpq(1))), a - 1), mpq(a),
                          source)
    nats = value.value.scaled.nats
    assert nats is not None

    def enclose(prec: int) -> tuple[mpq, mpq]:
        lo, hi = log_bounds(factor, prec)
        return max((nats + lo) / (a - 1), mpq(0)), max((nats + hi) / (a - 1), mpq(0))

    return Conversion(Certified(enclose), mpq(a), source)


def rdp_delta(value: Renyi, eps: Epsilon) -> Conversion:
    """δ at ``eps`` from ``D_α ≤ value`` (Canonne, Kamath and Steinke 2020, Proposition 12):
    ``δ = S_α·e^{−(α−1)ε}·(α − 1)^{α−1}/α^α``, at most 1; exact when ``S_α`` and ``e^ε``
    are rational."""
    a = value.order
    c = mpq((a - 1) ** (a - 1), a ** a)
    if value.infinite:
        return Conversion(mpq(1), mpq(a), CKS_RDP)
    if eps.infinite:
        return Conversion(mpq(0), mpq(a), CKS_RDP)
    s, rate = value.moment, eps.rate
    if s is not None and rate is not None:
        return Conversion(min(s * c / rate ** (a - 1), mpq(1)), mpq(a), CKS_RDP)
    # δ = R·e^x: the rational factors in R, the exponents (α−1)·D_α and −(α−1)·ε in x
    factor = c * (s if s is not None else 1) / (rate ** (a - 1) if rate is not None else 1)
    x = (value.value.scaled.nats or mpq(0)) - (a - 1) * (eps.nats or mpq(0))

    def enclose(prec: int) -> tuple[mpq, mpq]:
        lo, hi = exp_bounds(x, prec)
        return min(factor * lo, mpq(1)), min(factor * hi, mpq(1))

    return Conversion(Certified(enclose), mpq(a), CKS_RDP)


# ------------------------------------------------------------------ zCDP → (ε, δ)


def _order_search(f: Callable[[float], float]) -> mpq:
    """A rational order ``α > 1`` near the minimiser of ``f`` over ``α > 1``: a grid over
    ``α − 1 ∈ [10^-9, 10^9]`` (twenty points a decade), then golden-section search between
    the best point's neighbours. Floats only choose ``α``: any ``α > 1`` gives a valid bound,
    which is then enclosed with certified arithmetic at that exact rational."""
    def value(x: float) -> float:  # float ok: only chooses the order
        try:
            return f(1 + x)
        except (OverflowError, ValueError, ZeroDivisionError):
            return math.inf

    grid = [10 ** (k / 20) for k in range(-180, 181)]  # float ok: only chooses the order
    values = [value(x) for x in grid]
    k = min(range(len(grid)), key=values.__getitem__)
    a, b = grid[max(k - 1, 0)], grid[min(k + 1, len(grid) - 1)]
    ratio = (math.sqrt(5) - 1) / 2  # float ok: only chooses the order
    for _ in range(80):
        c, d = b - ratio * (b - a), a + ratio * (b - a)
        if value(c) <= value(d):
            b = d
        else:
            a = c
    x = (a + b) / 2  # float ok: only chooses the order
    if not value(x) <= values[k]:
        x = grid[k]
    return 1 + _rational_near(x)


def _rational_near(x: float, digits: int = 8) -> mpq:
    """A positive rational with about ``digits`` significant digits near ``x > 0``."""
    shift = digits - 1 - math.floor(math.log10(x))  # float ok: only chooses the order
    scale = mpq(10) ** shift
    return max(mpq(round(x * 10.0 ** shift)), mpq(1)) / scale  # float ok: the order's digits


def _float(x: mpq) -> float:
    return int(x.numerator) / int(x.denominator)  # float ok: only chooses the order


def zcdp_epsilon(rho: mpq, delta: mpq, source: str = CKS_ZCDP) -> Conversion:
    """ε at ``delta`` from ρ-zCDP, certified (an upper bound on the tight ε); for
    Corollary 13 at the order that (numerically) minimises the bound, reported exactly."""
    d = _open_delta(delta)
    if rho == 0:
        return Conversion(mpq(0), None, source)
    if d == 1:
        return Conversion(mpq(0), None, source)
    if source == BUN_STEINKE:
        def enclose(prec: int) -> tuple[mpq, mpq]:
            l_lo, l_hi = log_bounds(1 / d, prec)
            s_lo, s_hi = sqrt_bounds(rho * l_lo, prec)[0], sqrt_bounds(rho * l_hi, prec)[1]
            return rho + 2 * s_lo, rho + 2 * s_hi
        return Conversion(Certified(enclose), None, source)
    # ε(α) = αρ + (ln(1/δ) + (α−1)·ln(1 − 1/α) − ln α)/(α − 1), minimised over α > 1
    r, ln_inv = _float(rho), -math.log(_float(d))  # float ok: only chooses the order
    def eps_at(x: float) -> float:
        t = (x - 1) * math.log1p(-1 / x) - math.log(x)  # float ok: only chooses the order
        return x * r + (ln_inv + t) / (x - 1)

    a = _order_search(eps_at)

    def at_order(prec: int) -> tuple[mpq, mpq]:
        l_lo, l_hi = log_bounds(1 / d, prec)
        f_lo, f_hi = log_bounds((a - 1) / a, prec)
        g_lo, g_hi = log_bounds(a, prec)
        lo = a * rho + (l_lo + (a - 1) * f_lo - g_hi) / (a - 1)
        hi = a * rho + (l_hi + (a - 1) * f_hi - g_lo) / (a - 1)
        return max(lo, mpq(0)), max(hi, mpq(0))

    return Conversion(Certified(at_order), a, source)


def zcdp_delta(rho: mpq, eps: Epsilon) -> Conversion:
    """δ at ``eps`` from ρ-zCDP (Canonne, Kamath and Steinke 2020, Corollary 13), at the
    order ``α`` that (numerically) minimises the bound, reported exactly; certified, at most
    1."""
    if eps.infinite or rho == 0:
        return Conversion(mpq(0), None, CKS_ZCDP)
    r = _float(rho)  # float ok: only chooses the order
    e = _float(eps.nats) if eps.nats is not None else \
        math.log(_float(eps.base))  # type: ignore[arg-type]  # float ok: only chooses α
    # ln δ(α) = (α−1)(αρ − ε) + α·ln(1 − 1/α) − ln(α − 1)
    a = _order_search(lambda x: (x - 1) * (x * r - e) + x * math.log1p(-1 / x)
                      - math.log(x - 1))  # float ok: chooses α; the value there is certified

    def at_order(prec: int) -> tuple[mpq, mpq]:
        if eps.nats is not None:
            x_lo = x_hi = eps.nats
        else:
            x_lo, x_hi = log_bounds(eps.base, prec)  # type: ignore[arg-type]
        f_lo, f_hi = log_bounds((a - 1) / a, prec)
        h_lo, h_hi = log_bounds(a - 1, prec) if a != 2 else (mpq(0), mpq(0))
        lo = (a - 1) * (a * rho - x_hi) + a * f_lo - h_hi
        hi = (a - 1) * (a * rho - x_lo) + a * f_hi - h_lo
        return min(exp_bounds(lo, prec)[0], mpq(1)), min(exp_bounds(hi, prec)[1], mpq(1))

    return Conversion(Certified(at_order), a, CKS_ZCDP)
