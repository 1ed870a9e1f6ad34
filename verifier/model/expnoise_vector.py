"""Discrete Laplace noise added to each coordinate of an integer vector: the product law, read
through its privacy loss distribution, exactly.

The mechanism releases ``x + Z`` with ``Z_1, …, Z_n`` independent, ``P[Z_i = k] =
(1−β)/(1+β)·β^|k|``, ``β = e^{−t}``, ``t = 1/scale`` (OpenDP's vector ``make_geometric`` /
``make_laplace`` on integers). Its outputs are infinitely many vectors, but (ε, δ) depends on a
pair of inputs only through the law of the privacy loss ``L = ln(P(o)/Q(o))`` under ``P``
(Sommer, Meiser and Mohammadi 2019, "Privacy loss classes: the central limit theorem in
differential privacy", PoPETs: ``δ(ε) = E_P[(1 − e^{ε−L})_+]``): grouping the outputs by their
loss is post-processing that keeps every hockey-stick divergence, and under ``Q`` the group of
loss ``ℓ`` has mass ``e^{−ℓ}·P[L = ℓ]``.

**One coordinate** with centres differing by ``m = |x_i − y_i|``: the loss
``t·(|o − y_i| − |o − x_i|)`` is ``k·t`` with ``k ∈ {m, m−2, …, −m}`` and (on the side of the
P-centre, between the centres, on the far side)::

    P[L = m·t] = 1/(1+β),  P[L = (m−2j)·t] = (1−β)/(1+β)·β^j (0 < j < m),  P[L = −m·t] = β^m/(1+β)

**The vector**: ``L = Σ_i L_i`` with independent parts, so its law is the product of the
coordinates' generating polynomials in ``z`` (``z^k`` for the loss ``k·t``) — a convolution with
coefficients that are rational functions of ``β``, exact. The loss law depends on the pair only
through the multiset of ``m_i``.
"""

from __future__ import annotations

from dataclasses import dataclass

from gmpy2 import mpq

from verifier.core.errors import InvalidArgument
from verifier.core.numbers import format_rational, positive
from verifier.core.ratfunc import RatFunc

__all__ = ["CoordinateNoise", "CoordinateGaussian", "coordinate_laplace",
           "coordinate_gaussian", "loss_law"]


def _coordinate(m: int) -> dict[int, RatFunc]:
    """The loss law of one coordinate whose centres differ by ``m ≥ 0`` (``k``: loss ``k·t``)."""
    b = RatFunc.beta()
    if m == 0:
        return {0: RatFunc.constant(1)}
    law = {m: 1 / (1 + b), -m: b ** m / (1 + b)}
    for j in range(1, m):
        law[m - 2 * j] = (1 - b) / (1 + b) * b ** j
    return law


def loss_law(differences: tuple[int, ...]) -> tuple[dict[int, RatFunc], dict[int, RatFunc]]:
    """``({k: P[L = k·t]}, {k: Q[L = k·t]})`` for centres differing by ``differences``
    coordinate by coordinate; ``Q[L = k·t] = β^k·P[L = k·t]``."""
    law: dict[int, RatFunc] = {0: RatFunc.constant(1)}
    for m in differences:
        if isinstance(m, bool) or not isinstance(m, int) or m < 0:
            raise InvalidArgument(f"difference {m!r} is not a non-negative integer",
                                  argument="differences", value=m)
        if m == 0:
            continue
        part = _coordinate(m)
        nxt: dict[int, RatFunc] = {}
        for k, w in law.items():
            for j, v in part.items():
                nxt[k + j] = nxt.get(k + j, RatFunc.constant(0)) + w * v
        law = nxt
    b = RatFunc.beta()
    return law, {k: w * b ** k for k, w in law.items()}


@dataclass(frozen=True, slots=True)
class CoordinateNoise:
    """Discrete Laplace noise of ``scale`` on each coordinate of an integer vector."""

    scale: mpq
    kind: str = "discrete_laplace"

    @property
    def rate(self) -> mpq:
        return 1 / self.scale

    def pair_law(self, x: tuple, y: tuple) -> tuple[dict[int, RatFunc], dict[int, RatFunc]]:
        """The loss laws under ``x`` and under ``y`` (outputs grouped by their loss)."""
        if len(x) != len(y):
            raise InvalidArgument(f"inputs {list(x)} and {list(y)} differ in length",
                                  argument="inputs", value=[list(x), list(y)])
        return loss_law(tuple(sorted(abs(a - b) for a, b in zip(x, y, strict=True))))

    def work(self, x: tuple, y: tuple) -> int:
        """An estimate of the terms of the pair's loss law: a convolution of one coordinate's
        ``m_i + 1`` terms into ``Σ m + 1`` at a time."""
        total = sum(abs(a - b) for a, b in zip(x, y, strict=True))
        return (total + 1) ** 2

    def describe(self) -> str:
        return f"discrete_laplace(scale={format_rational(self.scale)}) on each coordinate"


@dataclass(frozen=True, slots=True)
class CoordinateGaussian:
    """Discrete Gaussian noise of ``sigma`` on each coordinate (its loss law is infinite:
    decided by enclosures, :mod:`verifier.notions.dp.noise_gauss_vector`)."""

    sigma: mpq
    kind: str = "discrete_gaussian"

    def describe(self) -> str:
        return f"discrete_gaussian(sigma={format_rational(self.sigma)}) on each coordinate"


def coordinate_gaussian(sigma: object) -> CoordinateGaussian:
    """Discrete Gaussian noise of ``sigma > 0`` (rational, or a double) on each coordinate."""
    return CoordinateGaussian(positive(sigma, "sigma"))


def coordinate_laplace(scale: object) -> CoordinateNoise:
    """Discrete Laplace noise of ``scale > 0`` (rational, or a double via
    :func:`verifier.f64`) added to each coordinate."""
    return CoordinateNoise(positive(scale, "scale"))
