"""Exponential sums ``Σ c_i·e^{a_i}`` with rational ``c_i`` and ``a_i``: exact arithmetic, an
exact zero test, and a certified sign.

The masses of the discrete Laplace and Gaussian laws are such sums over a normaliser:
``P[Z = k] ∝ e^{−|k|/s}`` or ``e^{−k²/(2σ²)}`` with rational ``s`` and ``σ²``. Sums, products
and multiples by ``e^ε`` (ε a rational number of nats) or by ``q`` (ε = ``ln q``) of such sums
are such sums again, so a likelihood-ratio comparison ``P(o) > e^ε·Q(o)`` is the sign of one
exponential sum.

**Zero test (exact).** By the Lindemann–Weierstrass theorem (Baker, *Transcendental Number
Theory*, 1975, Theorem 1.4), ``e^{a_1}, …, e^{a_m}`` are linearly independent over the algebraic
numbers for distinct algebraic ``a_i``. A sum in canonical form — equal exponents merged,
zero coefficients dropped — is therefore zero exactly when it has no terms.

**Sign (certified).** A non-zero sum is divided by ``e^{a_max}`` (its largest exponent, so the
precision is relative to the largest term whatever its magnitude) and enclosed by rational
bounds at rising precision (MPFR's ``exp`` with directed rounding,
:func:`verifier.core.certified.exp_bounds`; a term too far below the largest to matter at that
precision bounded by ``e^a ≤ 2^a`` for ``a ≤ 0``) until the enclosure excludes 0, which it
does at a finite precision because the sum is not 0. A precision cap turns an extreme case
into an :class:`~verifier.core.errors.Undecided` answer rather than a guess.

>>> from gmpy2 import mpq
>>> x = ExpSum.exp(mpq(-1)) * 2 - ExpSum.exp(mpq(-1))  # 2/e − 1/e = 1/e
>>> str(x), x.sign()
('e^(-1)', 1)
>>> (ExpSum.exp(mpq(1, 2)) * ExpSum.exp(mpq(-1, 2)) - 1).is_zero
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from gmpy2 import mpq

from verifier.core.certified import MAX_PRECISION, exp_bounds
from verifier.core.errors import Undecided
from verifier.core.numbers import format_rational, rational

__all__ = ["ExpSum"]

_ZERO = mpq(0)
_FAR_NATS = 1 << 20  # below e^(−2^20), an absolute enclosure bounds a term by 2^(−2^20)


def _canonical(terms: Iterable[tuple[mpq, mpq]]) -> tuple[tuple[mpq, mpq], ...]:
    merged: dict[mpq, mpq] = {}
    for a, c in terms:
        merged[a] = merged.get(a, _ZERO) + c
    return tuple(sorted((a, c) for a, c in merged.items() if c != 0))


@dataclass(frozen=True, slots=True)
class ExpSum:
    """``Σ c·e^a`` over ``terms = ((a, c), …)``: exponents increasing, distinct, coefficients
    non-zero (canonical, so ``==`` is equality of the real numbers, by Lindemann–Weierstrass).
    """

    terms: tuple[tuple[mpq, mpq], ...] = ()

    @staticmethod
    def of(terms: Mapping[mpq, mpq] | Iterable[tuple[mpq, mpq]]) -> ExpSum:
        """The canonical sum of ``{exponent: coefficient}`` (or pairs), read exactly."""
        pairs = terms.items() if isinstance(terms, Mapping) else terms
        return ExpSum(_canonical((rational(a, "exponent"), rational(c, "coefficient"))
                                 for a, c in pairs))

    @staticmethod
    def constant(c: object) -> ExpSum:
        return ExpSum(_canonical([(_ZERO, rational(c, "constant"))]))

    @staticmethod
    def exp(a: object, c: object = 1) -> ExpSum:
        """``c·e^a``."""
        return ExpSum(_canonical([(rational(a, "exponent"), rational(c, "coefficient"))]))

    # -- arithmetic -----------------------------------------------------------
    def _lift(self, other: object) -> ExpSum:
        return other if isinstance(other, ExpSum) else ExpSum.constant(other)

    def __add__(self, other: object) -> ExpSum:
        return ExpSum(_canonical(self.terms + self._lift(other).terms))

    __radd__ = __add__

    def __neg__(self) -> ExpSum:
        return ExpSum(tuple((a, -c) for a, c in self.terms))

    def __sub__(self, other: object) -> ExpSum:
        return self + (-self._lift(other))

    def __rsub__(self, other: object) -> ExpSum:
        return self._lift(other) - self

    def __mul__(self, other: object) -> ExpSum:
        o = self._lift(other)
        return ExpSum(_canonical((a + b, c * d) for a, c in self.terms for b, d in o.terms))

    __rmul__ = __mul__

    def shift(self, a: mpq) -> ExpSum:
        """``e^a`` times this sum."""
        return ExpSum(tuple((b + a, c) for b, c in self.terms))

    # -- reading --------------------------------------------------------------
    @property
    def is_zero(self) -> bool:
        return not self.terms

    @property
    def monomial(self) -> tuple[mpq, mpq] | None:
        """``(a, c)`` when the sum is one term ``c·e^a``."""
        return self.terms[0] if len(self.terms) == 1 else None

    def enclose(self, prec: int) -> tuple[mpq, mpq]:
        """Rationals ``lo ≤ value ≤ hi`` (each term bounded by MPFR at ``prec`` bits; a term
        ``e^a`` with ``a < −B``, ``B = min(64·prec + 2^16, 2^20)``, by ``[0, 2^−B]``, as
        ``e^a ≤ 2^a`` for ``a ≤ 0``: MPFR's bound of ``e^(−10^300)`` is a rational of 2^30
        bits, and an absolute enclosure gains nothing from it)."""
        far = min(64 * prec + (1 << 16), _FAR_NATS)
        lo = hi = _ZERO
        for a, c in self.terms:
            if a == 0:
                lo, hi = lo + c, hi + c
                continue
            e_lo, e_hi = (_ZERO, mpq(1, 1 << far)) if a < -far else exp_bounds(a, prec)
            lo, hi = (lo + c * e_lo, hi + c * e_hi) if c > 0 else (lo + c * e_hi, hi + c * e_lo)
        return lo, hi

    def relative(self) -> tuple[mpq, ExpSum]:
        """``(a_max, r)`` with ``self = e^{a_max}·r``: ``a_max`` the largest exponent, so
        ``r``'s largest is 0 (enclose it with :meth:`enclose_relative`)."""
        top = self.terms[-1][0] if self.terms else _ZERO
        return top, self.shift(-top)

    def enclose_relative(self, prec: int) -> tuple[mpq, mpq]:
        """:meth:`enclose` of a sum whose largest exponent is 0, a far term bounded rather
        than evaluated: ``c·e^a`` with ``a < −(2·prec + L)``, where ``2^L ≥ |c|/|c_0|`` (``c_0``
        the coefficient at exponent 0), lies in ``±|c|·[0, 2^−(2·prec + L)]`` (``e^a ≤ 2^a``
        for ``a ≤ 0``, as ``e ≥ 2``), at most ``|c_0|·2^(−2·prec)``. MPFR would underflow at
        ``a ≈ −10^300``, and the bound shrinks as the precision rises."""
        top = abs(self.terms[-1][1])
        floor_top = top.numerator.bit_length() - top.denominator.bit_length() - 1
        lo = hi = _ZERO
        for a, c in self.terms:
            if a == 0:
                lo, hi = lo + c, hi + c
                continue
            m = abs(c)
            ceil_c = m.numerator.bit_length() - m.denominator.bit_length() + 1
            far = 2 * prec + max(0, ceil_c - floor_top)  # 2^ceil_c ≥ |c|, 2^floor_top ≤ |c_0|
            e_lo, e_hi = (_ZERO, mpq(1, 1 << far)) if a < -far else exp_bounds(a, prec)
            lo, hi = (lo + c * e_lo, hi + c * e_hi) if c > 0 else (lo + c * e_hi, hi + c * e_lo)
        return lo, hi

    def sign(self, max_precision: int = MAX_PRECISION) -> int:
        """The sign of the sum, certified; :class:`Undecided` at ``max_precision`` bits."""
        if not self.terms:
            return 0
        if all(c > 0 for _, c in self.terms):
            return 1
        if all(c < 0 for _, c in self.terms):
            return -1
        _, relative = self.relative()  # the same sign; its largest exponent is 0
        prec = 64
        while prec <= max_precision:
            lo, hi = relative.enclose_relative(prec)
            if lo > 0:
                return 1
            if hi < 0:
                return -1
            prec *= 2
        raise Undecided(f"the sign of {_short(str(self))} is not decided at {max_precision} "
                        f"bits")

    def __str__(self) -> str:
        if not self.terms:
            return "0"
        parts = []
        for a, c in self.terms:
            mag = format_rational(abs(c))
            body = mag if a == 0 else (f"e^({format_rational(a)})" if abs(c) == 1
                                       else f"{mag}·e^({format_rational(a)})")
            parts.append(("-" if c < 0 else "+", body))
        text = " ".join(f"{s} {b}" for s, b in parts)
        return text[2:] if text.startswith("+ ") else "-" + text[2:]


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else f"{text[:limit // 2]}…{text[-limit // 2:]}"
