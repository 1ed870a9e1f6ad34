"""Rényi DP and zCDP of discrete Gaussian noise on a sum, by the exact reduction.

For the discrete Gaussian ``N_Z(c, σ²)`` (masses ``∝ e^{−u(k−c)²}``, ``u = 1/(2σ²)``) and an
integer shift ``Δ = c − c′``, completing the square gives (the argument of Canonne, Kamath and
Steinke 2020, "The Discrete Gaussian for Differential Privacy", for its concentrated DP)::

    S_α = Σ_k p(k)^α q(k)^{1−α} = e^{α(α−1)Δ²u} · Θ((1−α)Δ) / Θ(0),
    Θ(s) = Σ_k e^{−u(k−s)²} ≤ Θ(0)  (with equality when s is an integer),

so ``D_α = α·Δ²·u`` exactly at every integer order (then ``(1−α)Δ`` is an integer) and
``D_α ≤ α·Δ²·u`` at every real ``α > 1``: the tight zCDP parameter is exactly
``ρ* = Δ²/(2σ²)`` for the largest ``|Δ|`` between neighbouring sums, attained at ``α = 2``.

Clamping the released value to ``[lo, hi]`` is post-processing, which does not increase any
Rényi divergence (van Erven and Harremoës 2014, Theorem 9): for a clamped law ``Δ²/(2σ²)``
is an upper bound only. A claim at or above it is proved; one below it is undecided (the
clamped divergences are not computed), never guessed.
"""

from __future__ import annotations

from collections.abc import Sequence

from gmpy2 import mpq

from verifier.core.errors import InvalidArgument
from verifier.core.numbers import counted
from verifier.model.expnoise import ExpNoise
from verifier.notions.dp.noise_check import centre_pairs
from verifier.notions.renyi.check import (
    VACUOUS,
    OrderValue,
    RdpResult,
    RenyiClaim,
    RenyiReport,
    ZcdpResult,
    rdp_conversions,
    zcdp_conversions,
)
from verifier.notions.renyi.divergence import Renyi

__all__ = ["gaussian_renyi"]

_REDUCTION = ("exact: D_α = α·Δ²/(2σ²) at integer α and ≤ at every α > 1 (completing the "
              "square; Canonne, Kamath and Steinke 2020)")
_CLAMPED = ("upper bound only: the clamp is post-processing of the unclamped discrete Gaussian, "
            "whose ρ* = Δ²/(2σ²)")


def gaussian_renyi(noise: ExpNoise, values: Sequence[int], records: int,
                   notions: Sequence[str], claim: RenyiClaim) -> RenyiReport:
    """``rdp``/``zcdp`` of ``noise`` (a discrete Gaussian) added to the sum of ``records``
    records over ``values``, under replace-one neighbours."""
    if noise.laplace:
        raise InvalidArgument("rdp and zcdp are decided for the discrete Gaussian; ask for dp "
                              "of the discrete Laplace", argument="notions", value=list(notions))
    clamped = noise.lo is not None or noise.hi is not None
    pairs = centre_pairs(values, records, noise)
    worst = max(pairs, key=lambda p: abs(p[0] - p[1]), default=(0, 0))
    shift = abs(worst[0] - worst[1])
    rho_star = mpq(shift * shift) * noise.rate
    witness = {"centres": list(worst)} if pairs else VACUOUS
    results: dict[str, RdpResult | ZcdpResult] = {}
    for name in notions:
        if name == "rdp":
            if clamped:
                raise InvalidArgument("rdp of a clamped discrete Gaussian is not computed "
                                      "exactly: leave out lo and hi for the closed form",
                                      argument="notions", value="rdp")
            rows = []
            for i, a in enumerate(claim.orders):
                v = Renyi.of_nats(a, a * rho_star)
                bound = claim.bound(i)
                rows.append(OrderValue(a, v, bound, v.at_most(bound), witness))
            results["rdp"] = RdpResult(tuple(rows), all(r.holds for r in rows), len(pairs),
                                       rdp_conversions([r.value for r in rows], claim.epsilon,
                                                       claim.delta) if pairs else ())
        else:
            rho = claim.rho
            assert rho is not None  # the spec reader requires it for zcdp
            holds = True if rho >= rho_star else (None if clamped else False)
            results["zcdp"] = ZcdpResult(
                rho, holds, mpq(0) if clamped else rho_star, rho_star,
                None if clamped else rho_star, False,
                "no pair" if not pairs else "α = 2 of the unclamped law (an upper bound)"
                if clamped else "α = 2", witness, len(pairs), 0,
                zcdp_conversions(rho_star, claim.epsilon, claim.delta) if pairs else (),
                _CLAMPED if clamped else _REDUCTION)
    return RenyiReport(results, (f"{noise.describe()} on the sum of {counted(records, 'record')}; "
                                 f"largest neighbouring shift Δ = {shift}",))
