"""Discrete Laplace and discrete Gaussian noise at any rational scale, with masses in one
transcendental base, kept exactly.

* **Discrete Laplace** with scale ``s`` (OpenDP's ``make_geometric``/``make_laplace`` on
  integers; Ghosh, Roughgarden and Sundararajan 2009): ``P[Z = k] = (1−β)/(1+β)·β^|k|`` with
  ``β = e^{−t}``, ``t = 1/s``. Over the common denominator ``1 + β`` every mass, and every tail
  ``P[c + Z ≤ w] = β^{c−w}/(1+β)`` (``w ≤ c``), is an exponential sum
  (:class:`~verifier.core.expsum.ExpSum`): exact.
* **Discrete Gaussian** with ``σ`` (Canonne, Kamath and Steinke 2020, Definition 1):
  ``P[Z = k] = e^{−u·k²}/Z`` with ``u = 1/(2σ²)`` and ``Z = Σ_k e^{−u·k²} = 2·T(0) − 1``, where
  ``T(m) = Σ_{j≥m} e^{−u·j²}`` is a partial theta series kept as a symbol and enclosed
  (:class:`~verifier.core.theta.Series`).

``lo``/``hi`` clamp the released value (``min(max(c + Z, lo), hi)``, the mass beyond an end
moved to that end); ``None`` leaves that side unbounded. The noise itself is never truncated.
``numerator(o, c)`` is the mass of output ``o`` times the law's :attr:`~ExpNoise.denominator`
(the same for every centre, so it cancels in every likelihood ratio).
"""

from __future__ import annotations

from dataclasses import dataclass

from gmpy2 import mpq

from verifier.core.errors import InvalidArgument
from verifier.core.expsum import ExpSum
from verifier.core.numbers import format_rational, integer, positive
from verifier.core.theta import Series

__all__ = ["ExpNoise", "discrete_laplace", "discrete_gaussian", "NOISE_KINDS"]

NOISE_KINDS = ("discrete_laplace", "discrete_gaussian")


@dataclass(frozen=True, slots=True, repr=False)
class ExpNoise:
    """``kind`` (one of :data:`NOISE_KINDS`), its rate (``t = 1/scale`` for the discrete
    Laplace, ``u = 1/(2σ²)`` for the discrete Gaussian), the parameter as given (``scale``
    or ``sigma``) and the clamp ``[lo, hi]`` (``None``: unbounded on that side)."""

    kind: str
    rate: mpq
    parameter: mpq
    lo: int | None = None
    hi: int | None = None

    @property
    def laplace(self) -> bool:
        return self.kind == "discrete_laplace"

    def __repr__(self) -> str:
        return f"ExpNoise({self.describe()})"

    def describe(self) -> str:
        name = "scale" if self.laplace else "sigma"
        clamp = "" if self.lo is None and self.hi is None else \
            f", clamped to [{'-∞' if self.lo is None else self.lo}, " \
            f"{'∞' if self.hi is None else self.hi}]"
        return f"{self.kind}({name}={format_rational(self.parameter)}{clamp})"

    # -- the masses, times the denominator ------------------------------------
    @property
    def denominator(self) -> Series:
        """``1 + e^{−t}`` (Laplace) or ``2·T(0) − 1`` (Gaussian)."""
        if self.laplace:
            return Series.of(ExpSum.constant(1) + ExpSum.exp(-self.rate))
        return Series.tail(self.rate, 0) * 2 - 1

    def _point(self, z: int) -> Series:
        """The unclamped mass at offset ``z`` from the centre, times the denominator."""
        if self.laplace:
            a = -self.rate * abs(z)
            return Series.of(ExpSum.exp(a) - ExpSum.exp(a - self.rate))
        return Series.of(ExpSum.exp(-self.rate * z * z), None, self.rate)

    def at_least(self, z: int) -> Series:
        """``P[Z ≥ z]`` times the denominator."""
        if self.laplace:
            if z > 0:
                return Series.of(ExpSum.exp(-self.rate * z))
            return self.denominator - Series.of(ExpSum.exp(-self.rate * (1 - z)))
        if z >= 0:
            return Series.tail(self.rate, z)
        finite = sum((ExpSum.exp(-self.rate * j * j) for j in range(1, -z + 1)), ExpSum())
        return Series.tail(self.rate, 0) + finite

    def at_most(self, z: int) -> Series:
        """``P[Z ≤ z]`` times the denominator (the law is symmetric)."""
        return self.at_least(-z)

    def numerator(self, o: int, centre: int) -> Series:
        """The mass of the released value ``o`` at centre ``c``, times the denominator."""
        if self.lo is not None and self.hi is not None and self.lo == self.hi:
            return self.denominator if o == self.lo else Series()
        if (self.lo is not None and o < self.lo) or (self.hi is not None and o > self.hi):
            return Series()
        if self.lo is not None and o == self.lo:
            return self.at_most(o - centre)
        if self.hi is not None and o == self.hi:
            return self.at_least(o - centre)
        return self._point(o - centre)


def _clamp(lo: object, hi: object) -> tuple[int | None, int | None]:
    a = None if lo is None else integer(lo, "lo")
    b = None if hi is None else integer(hi, "hi")
    if a is not None and b is not None and a > b:
        raise InvalidArgument(f"clamp [lo, hi] = [{a}, {b}] is empty", argument="hi", value=b)
    return a, b


def discrete_laplace(scale: object, lo: object = None, hi: object = None) -> ExpNoise:
    """The discrete Laplace law with ``scale > 0`` (rational, or a double via
    :func:`verifier.f64`), optionally clamped to ``[lo, hi]``."""
    s = positive(scale, "scale")
    a, b = _clamp(lo, hi)
    return ExpNoise("discrete_laplace", 1 / s, s, a, b)


def discrete_gaussian(sigma: object, lo: object = None, hi: object = None) -> ExpNoise:
    """The discrete Gaussian law with ``σ > 0`` (rational, or a double), optionally clamped
    to ``[lo, hi]``."""
    s = positive(sigma, "sigma")
    a, b = _clamp(lo, hi)
    return ExpNoise("discrete_gaussian", 1 / (2 * s * s), s, a, b)
