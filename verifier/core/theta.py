"""Gaussian tail sums ``T_u(m) = Σ_{j ≥ m} e^{−u·j²}`` (``u > 0`` rational, ``m ≥ 0``) and
the numbers ``E_0 + Σ_i E_i·T_u(m_i)`` with exponential sums ``E_i``: the masses of the discrete
Gaussian (Canonne, Kamath and Steinke, *The Discrete Gaussian for Differential Privacy*, 2020).

The normaliser ``Z = Σ_{k∈ℤ} e^{−u·k²} = 2·T_u(0) − 1`` and the tails of a clamped discrete
Gaussian have no closed form (they are partial theta series), so they are kept as symbols and
enclosed: the first terms exactly through MPFR bounds on ``e^{−u·j²}``, the rest by the
geometric bound (consecutive terms have ratio ``e^{−u(2j+1)} ≤ e^{−u(2M+3)}`` for ``j > M``)::

    Σ_{j > M} e^{−u·j²}  ≤  e^{−u(M+1)²} / (1 − e^{−u(2M+3)})

A number with no tail is an :class:`~verifier.core.expsum.ExpSum`, decided exactly; one with
tails is decided by enclosures only, so a sign that the enclosures do not separate within the
precision cap is :class:`~verifier.core.errors.Undecided`, never guessed.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import isqrt

from gmpy2 import mpq, mpz

from verifier.core.certified import exp_bounds
from verifier.core.errors import InvalidArgument, Undecided
from verifier.core.expsum import ExpSum

__all__ = ["tail_bounds", "Series", "TAIL_PRECISION"]

TAIL_PRECISION = 1 << 12  # bits: the cap of a sign decided by enclosures of tails
_ZERO = mpq(0)
_ONE = mpq(1)


def tail_bounds(u: mpq, m: int, prec: int) -> tuple[mpq, mpq]:
    """Rationals ``lo ≤ T_u(m) ≤ hi``, about ``prec`` bits tight relative to the first term."""
    if u <= 0 or m < 0:
        raise InvalidArgument(f"tail T_u(m) needs u > 0 and m ≥ 0, not u = {u}, m = {m}",
                              argument="u", value=u)
    # (M+1)² − m² ≥ prec·(7/10)/u makes the remainder ≤ 2^−prec of the first term (7/10 > ln 2)
    need = (mpq(prec) * mpq(7, 10) / u)
    big_m = isqrt(m * m + int(mpz(need.numerator) // mpz(need.denominator)) + 1) + 1
    lo = hi = _ZERO
    for j in range(m, big_m + 1):
        a, b = exp_bounds(-u * j * j, prec)
        lo, hi = lo + a, hi + b
    _, first_rest = exp_bounds(-u * (big_m + 1) ** 2, prec)
    _, ratio = exp_bounds(-u * (2 * big_m + 3), prec)
    return lo, hi + first_rest / (1 - ratio)


@dataclass(frozen=True, slots=True)
class Series:
    """``exact + Σ coef·T_u(m)`` over ``tails = ((m, coef), …)`` (``m`` increasing, each once,
    ``coef`` a non-zero :class:`ExpSum`); ``u`` is shared by every tail."""

    exact: ExpSum = ExpSum()
    tails: tuple[tuple[int, ExpSum], ...] = ()
    u: mpq = _ONE

    @staticmethod
    def of(exact: object = 0, tails: dict[int, ExpSum] | None = None,
           u: mpq = _ONE) -> Series:
        e = exact if isinstance(exact, ExpSum) else ExpSum.constant(exact)
        kept = tuple(sorted((m, c) for m, c in (tails or {}).items() if not c.is_zero))
        return Series(e, kept, mpq(u))

    @staticmethod
    def tail(u: mpq, m: int) -> Series:
        """``T_u(m)`` itself."""
        return Series.of(0, {m: ExpSum.constant(1)}, u)

    def _u(self, other: Series) -> mpq:
        if self.tails and other.tails and self.u != other.u:
            raise InvalidArgument("tails with different u cannot be combined", argument="u")
        return self.u if self.tails else other.u

    def _lift(self, other: object) -> Series:
        if isinstance(other, Series):
            return other
        return Series.of(other if isinstance(other, ExpSum) else ExpSum.constant(other),
                         None, self.u)

    def __add__(self, other: object) -> Series:
        o = self._lift(other)
        tails = dict(self.tails)
        for m, c in o.tails:
            tails[m] = tails.get(m, ExpSum()) + c
        return Series.of(self.exact + o.exact, tails, self._u(o))

    __radd__ = __add__

    def __neg__(self) -> Series:
        return Series(-self.exact, tuple((m, -c) for m, c in self.tails), self.u)

    def __sub__(self, other: object) -> Series:
        return self + (-self._lift(other))

    def __mul__(self, other: object) -> Series:
        """A product with an exponential sum or a rational (a product of two tails is not
        needed by any law here, and is refused)."""
        if isinstance(other, Series):
            if other.tails and self.tails:
                raise InvalidArgument("a product of two tail sums is not supported",
                                      argument="other")
            if self.tails:
                return self * other.exact
            return other * self.exact
        e = other if isinstance(other, ExpSum) else ExpSum.constant(other)
        return Series.of(self.exact * e, {m: c * e for m, c in self.tails}, self.u)

    __rmul__ = __mul__

    def shift(self, a: mpq) -> Series:
        """``e^a`` times this number."""
        return Series(self.exact.shift(a), tuple((m, c.shift(a)) for m, c in self.tails),
                      self.u)

    @property
    def is_exact(self) -> bool:
        """Whether the number is an exponential sum (no tail), decided exactly."""
        return not self.tails

    def enclose(self, prec: int) -> tuple[mpq, mpq]:
        lo, hi = self.exact.enclose(prec)
        for m, c in self.tails:
            t_lo, t_hi = tail_bounds(self.u, m, prec)
            c_lo, c_hi = c.enclose(prec)
            products = (t_lo * c_lo, t_lo * c_hi, t_hi * c_lo, t_hi * c_hi)
            lo, hi = lo + min(products), hi + max(products)
        return lo, hi

    def sign(self, max_precision: int = TAIL_PRECISION) -> int:
        """Certified sign: exact for an exponential sum, by enclosures otherwise."""
        if self.is_exact:
            return self.exact.sign()
        prec = 64
        while prec <= max_precision:
            lo, hi = self.enclose(prec)
            if lo > 0:
                return 1
            if hi < 0:
                return -1
            prec *= 2
        raise Undecided(f"the sign of a sum with Gaussian tails is not decided at "
                        f"{max_precision} bits")

    def __str__(self) -> str:
        parts = [] if self.exact.is_zero else [str(self.exact)]
        for m, c in self.tails:
            coef = "" if c == ExpSum.constant(1) else f"({c})·"
            parts.append(f"{coef}T({m})")
        return " + ".join(parts) or "0"
