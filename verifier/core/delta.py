"""An exact δ: a rational, or ``A − C·e^ε`` with rationals ``A``, ``C`` (REFERENCE.md §1)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from html import escape

from gmpy2 import mpq

from verifier.core.certified import certified_decimal, decimal_string, exp_bounds, sign_affine_exp
from verifier.core.epsilon import Epsilon, nearest_float
from verifier.core.errors import InvalidNumber
from verifier.core.numbers import Rational, format_rational, rational

__all__ = ["Delta"]


@dataclass(frozen=True, slots=True)
class Delta:
    """An exact δ of the form ``A − C·e^ε`` (REFERENCE.md §1).

    When ``e^ε`` is rational the form collapses at construction to the rational ``A`` with
    ``C = 0``; otherwise ``A`` and ``C`` are rationals and ``e^ε`` is kept symbolic.
    """

    a: mpq
    c: mpq
    epsilon: Epsilon

    @staticmethod
    def make(a: mpq, c: mpq, epsilon: Epsilon) -> Delta:
        if c != 0 and epsilon.rate is not None:
            a, c = a - c * epsilon.rate, mpq(0)
        if epsilon.infinite and c != 0:
            raise InvalidNumber("a δ at ε = inf cannot depend on e^ε")
        return Delta(mpq(a), mpq(c), epsilon)

    @property
    def _nats(self) -> mpq:
        """ε in nats; δ has an ``e^ε`` term (``c ≠ 0``) only when ε is such a rational."""
        nats = self.epsilon.nats
        assert nats is not None
        return nats

    @property
    def is_rational(self) -> bool:
        return self.c == 0

    @property
    def value(self) -> mpq:
        """The exact rational value; raises when δ involves an irrational ``e^ε``."""
        if self.c != 0:
            raise InvalidNumber(f"δ = {self} is irrational; use compare() or approx()")
        return self.a

    def compare(self, other: object) -> int:
        """Certified sign of ``self − other`` for a rational or a Delta at the same ε."""
        if isinstance(other, Delta):
            if other.c != 0 and other.epsilon != self.epsilon:
                raise InvalidNumber("cannot compare δ values at different irrational ε")
            return sign_affine_exp(self.a - other.a, -(self.c - other.c), self.epsilon)
        return sign_affine_exp(self.a - rational(other, "delta"), -self.c, self.epsilon)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Delta):
            return (self.a, self.c) == (other.a, other.c) and (
                self.c == 0 or self.epsilon == other.epsilon
            )
        if isinstance(other, (int, Fraction, Rational)) and not isinstance(other, bool):
            return self.c == 0 and self.a == other
        return NotImplemented

    def __hash__(self) -> int:
        # a rational δ hashes like the rational it equals, as it compares equal to it
        return hash(self.a) if self.c == 0 else hash((self.a, self.c, self.epsilon))

    def __lt__(self, other: object) -> bool:
        return self.compare(other) < 0

    def __le__(self, other: object) -> bool:
        return self.compare(other) <= 0

    def __gt__(self, other: object) -> bool:
        return self.compare(other) > 0

    def __ge__(self, other: object) -> bool:
        return self.compare(other) >= 0

    def __str__(self) -> str:
        if self.c == 0:
            return format_rational(self.a)
        c = format_rational(abs(self.c))
        sign = "-" if self.c > 0 else "+"
        return f"{format_rational(self.a)} {sign} {c}*exp({format_rational(self._nats)})"

    def __repr__(self) -> str:
        return f"Delta({str(self)!r})"

    def __float__(self) -> float:
        """δ as the nearest float: an approximation for display and plotting, never read by
        a verdict (compare with :meth:`compare`, exactly).

        >>> from verifier.core.epsilon import parse_epsilon
        >>> float(Delta.make(mpq(3, 4), mpq(1, 4), parse_epsilon("1/2")))
        0.33781968232496795
        """
        return nearest_float(self.bounds)

    def _repr_html_(self) -> str:
        """The exact δ, and a certified decimal marked as an approximation (notebooks)."""
        text = f"<code>δ = {escape(str(self))}</code>"
        return text if self.c == 0 and self.a in (0, 1) else f"{text} (≈ {self.approx()})"

    def bounds(self, prec: int) -> tuple[mpq, mpq]:
        """Rationals enclosing δ, from a ``prec``-bit enclosure of ``e^ε``."""
        if self.c == 0:
            return self.a, self.a
        lo, hi = exp_bounds(self._nats, prec)
        ends = (self.a - self.c * lo, self.a - self.c * hi)
        return min(ends), max(ends)

    def approx(self, digits: int = 6) -> str:
        """A decimal truncated to ``digits`` significant digits, certified correct."""
        if self.c == 0:
            return decimal_string(self.a, digits)
        return certified_decimal(self.bounds, digits)


# ------------------------------------------------------------------ decimal display

