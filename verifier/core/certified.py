"""Certified arithmetic with e^ε and ln: interval bounds from MPFR with directed rounding,
the exact sign of ``a + c·e^ε``, and decimals that are certified truncations.

``e^x`` is transcendental for rational ``x ≠ 0`` (Lindemann), so comparing a rational with
``e^ε`` by intervals of rising precision always terminates (REFERENCE.md §1).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from numbers import Rational
from typing import Protocol

import gmpy2
from gmpy2 import mpq, mpz

from verifier.core.errors import InvalidNumber
from verifier.core.numbers import format_rational
from verifier.core.numbers import sign as _sign

__all__ = ["Certified", "exp_bounds", "log_bounds", "sqrt_bounds", "compare_exp",
           "sign_affine_exp", "decimal_string", "certified_decimal", "shown_decimal",
           "MAX_PRECISION", "nearest_float", "to_float"]

MAX_PRECISION = 1 << 20  # bits; far beyond any separation met in practice
_MAX_PRECISION = MAX_PRECISION
_CERTIFIED_PREC = 1 << 14  # bits: where a comparison of two enclosures gives up (unknown)
_LARGE_NATS = 1 << 20  # e^ε for ε above this many nats is not evaluated (it would overflow)


class ExpArgument(Protocol):
    """What the comparisons read of an ε (:class:`verifier.core.epsilon.Epsilon` has it):
    exactly one of ``ln(base)``, a rational number of ``nats``, or ``infinite``."""

    @property
    def infinite(self) -> bool: ...

    @property
    def base(self) -> mpq | None: ...

    @property
    def nats(self) -> mpq | None: ...


# ------------------------------------------------------ certified comparison with e^ε


def _directed(fn, x: mpq, prec: int) -> tuple[mpq, mpq]:
    """Rationals ``lo ≤ fn(x) ≤ hi`` for an increasing MPFR function ``fn``: the argument
    and the result rounded down, then both up (MPFR's functions are correctly rounded)."""
    with gmpy2.context(gmpy2.get_context(), precision=prec, round=gmpy2.RoundDown):
        lo = mpq(fn(gmpy2.mpfr(x)))
    with gmpy2.context(gmpy2.get_context(), precision=prec, round=gmpy2.RoundUp):
        hi = mpq(fn(gmpy2.mpfr(x)))
    return lo, hi


def exp_bounds(nats: mpq, prec: int) -> tuple[mpq, mpq]:
    """Rationals ``lo ≤ e^nats ≤ hi``, from MPFR evaluation rounded down and up.

    ``exp`` is increasing, so rounding the argument and the result in the same direction
    gives a valid bound; MPFR's ``exp`` is correctly rounded.
    """
    return _directed(gmpy2.exp, nats, prec)


def log_bounds(x: mpq, prec: int) -> tuple[mpq, mpq]:
    """Rationals ``lo ≤ ln x ≤ hi`` from MPFR rounded down and up."""
    return _directed(gmpy2.log, x, prec)


def sqrt_bounds(x: mpq, prec: int) -> tuple[mpq, mpq]:
    """Rationals ``lo ≤ √x ≤ hi`` from MPFR rounded down and up."""
    return _directed(gmpy2.sqrt, x, prec)


def compare_exp(x: mpq, eps: ExpArgument) -> int:
    """Certified sign of ``x − e^ε`` for rational ``x``.

    Exact when ``e^ε`` is rational; otherwise the precision doubles until the interval
    enclosing ``e^ε`` excludes ``x``, which happens because ``e^ε`` is irrational.
    """
    if eps.infinite:
        return -1
    if eps.base is not None:
        return _sign(x - eps.base)
    nats = eps.nats
    assert nats is not None  # ε is exactly one of ln(base), nats, inf
    prec = 64
    if x <= 0:
        return -1
    large = nats > _LARGE_NATS  # e^nats is beyond MPFR's exponent range: compare ln x, nats
    while prec <= _MAX_PRECISION:
        if large:
            lo, hi = log_bounds(x, prec)
            below, above = hi < nats, lo > nats
        else:
            lo, hi = exp_bounds(nats, prec)
            below, above = x < lo, x > hi
        if below:
            return -1
        if above:
            return 1
        prec *= 2
    raise InvalidNumber(  # pragma: no cover - unreachable for rational ε ≠ 0
        f"could not separate {x} from exp({eps.nats}) at {_MAX_PRECISION} bits"
    )


def sign_affine_exp(a: mpq, c: mpq, eps: ExpArgument) -> int:
    """Certified sign of ``a + c·e^ε`` for rationals ``a``, ``c``."""
    if c == 0:
        return _sign(a)
    if eps.infinite:
        return _sign(c)
    # a + c·E > 0  <=>  E > −a/c (c > 0)  or  E < −a/c (c < 0)
    side = -compare_exp(-a / c, eps)
    return side if c > 0 else -side


# ----------------------------------------------------------------------------- δ


def _decimal_parts(x: mpq, digits: int) -> tuple[str, mpz, int]:
    """Sign, ``digits``-digit truncated mantissa and decimal exponent of ``x ≠ 0``."""
    sign = "-" if x < 0 else ""
    x = abs(x)
    num, den = x.numerator, x.denominator
    e = num.num_digits(10) - den.num_digits(10)
    while e > 0 and mpz(10) ** e * den > num or e <= 0 and den > num * mpz(10) ** (-e):
        e -= 1
    while (e + 1 >= 0 and mpz(10) ** (e + 1) * den <= num) or (
        e + 1 < 0 and den <= num * mpz(10) ** (-(e + 1))
    ):
        e += 1
    shift = digits - 1 - e
    mantissa = num * mpz(10) ** shift // den if shift >= 0 else num // (den * mpz(10) ** (-shift))
    return sign, mantissa, e


def decimal_string(x: mpq, digits: int = 6) -> str:
    """``x`` truncated (toward 0) to ``digits`` significant digits; exact when it fits.

    >>> decimal_string(mpq(1, 3)), decimal_string(mpq(459, 3125)), decimal_string(mpq(1, 10**120))
    ('0.333333', '0.14688', '1e-120')
    """
    if x == 0:
        return "0"
    sign, mantissa, e = _decimal_parts(x, digits)
    text = str(mantissa).rstrip("0") or "0"
    if -5 <= e < digits:
        point = e + 1
        if point <= 0:
            body = "0." + "0" * (-point) + text
        elif point >= len(text):
            body = text + "0" * (point - len(text))
        else:
            body = text[:point] + "." + text[point:]
        return sign + body
    body = text[0] + ("." + text[1:] if len(text) > 1 else "")
    return f"{sign}{body}e{e}"


def certified_decimal(enclose: Callable[[int], tuple[mpq, mpq]], digits: int = 6,
                      max_precision: int = _MAX_PRECISION) -> str:
    """The decimal truncation shared by every number in ``enclose(prec)`` (rational bounds at
    ``prec`` bits), with the precision doubled until the bounds agree on ``digits`` digits;
    an interval ``[lo, hi]`` if they still differ at ``max_precision``."""
    prec = 64
    while prec <= max_precision:
        lo, hi = enclose(prec)
        text = _agreeing_decimal(lo, hi, digits)
        if text is not None:
            return text
        prec *= 2
    lo, hi = enclose(max_precision)
    return f"[{decimal_string(lo, digits)}, {decimal_string(hi, digits)}]"


def shown_decimal(value: object, digits: int = 6) -> str:
    """The decimal every text output shows for a number: its certified truncation to
    ``digits`` significant digits, except within ``10^−digits`` below 1, where the
    truncation (``0.999999``) would hide how far from 1 the value is: there it is ``1 −``
    the certified truncation of ``1 − value`` (``1 − 6.2e-29``). Near 0 the truncation
    already keeps ``digits`` significant digits (``6.2e-29``).

    ``value`` is a rational, an object with rational enclosures ``bounds(prec)`` (a δ
    ``A − C·e^ε``), a :class:`Certified`, or any object with ``approx(digits)`` (shown as
    it is: an ε is not bounded by 1).

    >>> shown_decimal(mpq(1, 3)), shown_decimal(1 - mpq(62, 10**30)), shown_decimal(mpq(1))
    ('0.333333', '1 − 6.2e-29', '1')
    >>> shown_decimal(mpq(9999995, 10**7)), shown_decimal(mpq(62, 10**30))
    ('1 − 5e-7', '6.2e-29')
    """
    enclose: Callable[[int], tuple[mpq, mpq]] | None = None
    if isinstance(value, Rational):  # int, Fraction, mpq
        x = mpq(value)
        text = decimal_string(x, digits)
        if mpq(text) == x:  # the decimal is the value itself
            return text
        enclose = lambda prec: (x, x)  # noqa: E731
    elif isinstance(value, Certified):
        enclose = value.enclose
        text = certified_decimal(enclose, digits, _CERTIFIED_PREC)
    elif callable(getattr(value, "bounds", None)):
        enclose = value.bounds  # type: ignore[attr-defined]
        text = certified_decimal(enclose, digits)
    else:
        return str(value.approx(digits))  # type: ignore[attr-defined]
    if text != "0." + "9" * digits:
        return text
    outer = enclose
    rest = certified_decimal(lambda prec: (1 - outer(prec)[1], 1 - outer(prec)[0]), digits)
    return f"1 − {rest}"


def _agreeing_decimal(lo: mpq, hi: mpq, digits: int) -> str | None:
    """The common truncation of every number in ``[lo, hi]``, if there is one."""
    if lo == hi:
        return decimal_string(lo, digits)
    if (lo < 0) != (hi < 0) or lo == 0 or hi == 0:
        return None
    a, b = decimal_string(lo, digits), decimal_string(hi, digits)
    return a if a == b else None


# ------------------------------------------------------------------ floats (display)


_FLOAT_PRECISION = 1 << 12  # bits; past this a float on a rounding boundary takes the middle


def to_float(q: mpq) -> float:
    """``q`` rounded to the nearest float (Python's int division rounds correctly)."""
    try:
        return int(q.numerator) / int(q.denominator)
    except OverflowError:
        return math.inf if q > 0 else -math.inf


def nearest_float(enclose: Callable[[int], tuple[mpq, mpq]]) -> float:
    """A float approximation of a real known by rational enclosures ``enclose(prec)``: the
    precision doubles until both ends round to the same float. For display and plotting
    only; no verdict reads it.

    >>> nearest_float(lambda prec: log_bounds(mpq(2), prec))
    0.6931471805599453
    """
    prec = 64
    while True:
        lo, hi = enclose(prec)
        a, b = to_float(lo), to_float(hi)
        if a == b:
            return a
        if prec >= _FLOAT_PRECISION:
            return to_float((lo + hi) / 2)
        prec *= 2


# ------------------------------------------------------ reals known by enclosures


@dataclass(frozen=True)
class Certified:
    """A real number known through rational enclosures ``lo ≤ x ≤ hi`` at any precision."""

    enclose: Callable[[int], tuple[mpq, mpq]]

    @staticmethod
    def exact(x: mpq) -> Certified:
        x = mpq(x)
        return Certified(lambda prec: (x, x))

    @property
    def value(self) -> mpq | None:
        """The exact rational, when the enclosure is a point."""
        lo, hi = self.enclose(64)
        return lo if lo == hi else None

    def approx(self, digits: int = 6) -> str:
        return certified_decimal(self.enclose, digits, _CERTIFIED_PREC)

    def compare(self, other: Certified | mpq) -> int | None:
        """Sign of ``self − other``, or None when enclosures up to the precision cap overlap
        without both being exact (never a guess)."""
        o = other if isinstance(other, Certified) else Certified.exact(other)
        prec = 64
        while prec <= _CERTIFIED_PREC:
            a_lo, a_hi = self.enclose(prec)
            b_lo, b_hi = o.enclose(prec)
            if a_hi < b_lo:
                return -1
            if a_lo > b_hi:
                return 1
            if a_lo == a_hi == b_lo == b_hi:
                return 0
            prec *= 2
        return None

    def __str__(self) -> str:
        v = self.value
        return format_rational(v) if v is not None else f"≈ {self.approx()}"
