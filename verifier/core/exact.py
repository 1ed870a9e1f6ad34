"""Exact numbers: rationals, ε, certified comparison with e^ε, and exact δ.

Everything the verifier reports as exact passes through this module. Rationals are gmpy2
``mpq``; a ``float`` is refused, because ``0.1`` as a float is not ``1/10``.

ε is kept in the form the user wrote it (REFERENCE.md §1):

* ``ln(q)`` with rational ``q ≥ 1`` — then ``E = e^ε = q`` is rational and every δ is an
  exact rational;
* a rational number of nats such as ``1/2`` — then ``E`` is irrational (Lindemann: ``e^x`` is
  transcendental for rational ``x ≠ 0``), a tight δ is ``A − C·e^ε`` with rational ``A, C``, and
  comparing a rational with ``E`` is decided by interval evaluation at rising precision, which
  always terminates because the two are never equal;
* ``inf``.

>>> str(parse_epsilon("ln(3/2)")), str(parse_epsilon("1/2")), str(parse_epsilon(0))
('ln(3/2)', '1/2', '0')
>>> compare_exp(mpq(3, 2), parse_epsilon("1/2"))   # 3/2 < e^(1/2) ≈ 1.6487
-1
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from numbers import Integral

import gmpy2
from gmpy2 import mpq, mpz

from verifier.core.errors import InvalidNumber

__all__ = [
    "Rational",
    "rational",
    "probability",
    "Epsilon",
    "parse_epsilon",
    "compare_exp",
    "sign_affine_exp",
    "exp_bounds",
    "Delta",
    "decimal_string",
    "certified_decimal",
    "log_bounds",
    "format_rational",
]

Rational = type(mpq(0))

_MAX_PRECISION = 1 << 20  # bits; far beyond any separation met in practice
_RATIONAL_RE = re.compile(r"^[+-]?\d+(/\d+)?$")
_DECIMAL_RE = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def rational(value: object, name: str = "value") -> mpq:
    """Read ``value`` as an exact rational.

    Accepts ``int``, ``Fraction``, ``mpq``/``mpz`` and strings such as ``"3/4"``, ``"0.25"``
    or ``"1e-6"`` (read exactly: ``"0.1"`` is ``1/10``). Refuses ``float`` and ``bool``.

    >>> rational("1e-6")
    mpq(1,1000000)
    >>> rational(0.1, "truth")
    Traceback (most recent call last):
    ...
    verifier.core.errors.InvalidNumber: truth = 0.1 is a float, which is not exact; write it as a string such as "0.1" or "1/10"
    """
    if isinstance(value, Rational):
        return value
    if isinstance(value, bool):
        raise InvalidNumber(f"{name} = {value!r} is a bool, not a number")
    if isinstance(value, float):
        exact = Fraction(repr(value))
        raise InvalidNumber(
            f"{name} = {value!r} is a float, which is not exact; write it as a string "
            f'such as "{value!r}" or "{exact.numerator}/{exact.denominator}"'
        )
    if isinstance(value, (Integral, type(mpz(0)))):
        return mpq(int(value) if not isinstance(value, type(mpz(0))) else value)
    if isinstance(value, Fraction):
        return mpq(value.numerator, value.denominator)
    if isinstance(value, str):
        text = value.strip()
        if _RATIONAL_RE.match(text) or _DECIMAL_RE.match(text):
            try:
                exact = Fraction(text)
            except ZeroDivisionError:
                raise InvalidNumber(f"{name} = {value!r} has a zero denominator") from None
            return mpq(exact.numerator, exact.denominator)
        raise InvalidNumber(
            f'{name} = {value!r} is not a number; write an integer, a fraction ("3/4") '
            f'or a decimal ("0.25", "1e-6")'
        )
    raise InvalidNumber(f"{name} = {value!r} of type {type(value).__name__} is not a number")


def probability(value: object, name: str = "probability") -> mpq:
    """Read ``value`` exactly and check ``0 ≤ value ≤ 1``."""
    p = rational(value, name)
    if not 0 <= p <= 1:
        raise InvalidNumber(f"{name} = {format_rational(p)} is not a probability in [0, 1]")
    return p


def format_rational(x: mpq) -> str:
    """``"7/64"``, ``"3"``, ``"-1/2"``: the canonical exact string of a rational."""
    return str(x)


# --------------------------------------------------------------------------- ε


@dataclass(frozen=True, slots=True)
class Epsilon:
    """A privacy parameter ε ≥ 0, exact.

    Exactly one description holds: ``base`` is the rational ``E = e^ε`` (ε = ln(base)),
    or ``nats`` is ε itself as a rational ≠ 0 with ``E`` irrational, or ``infinite``.
    ε = 0 is stored as ``base = 1``. Build with :func:`parse_epsilon`, :meth:`log`,
    :meth:`of_nats` or :data:`Epsilon.INF`.
    """

    base: mpq | None = None
    nats: mpq | None = None
    infinite: bool = False

    @staticmethod
    def log(base: object, name: str = "epsilon") -> Epsilon:
        """ε = ln(base), for a rational ``base ≥ 1``."""
        q = rational(base, name)
        if q < 1:
            raise InvalidNumber(
                f"{name} = ln({format_rational(q)}) is negative or undefined; ε must be ≥ 0, "
                f"so the argument of ln must be ≥ 1"
            )
        return Epsilon(base=q)

    @staticmethod
    def of_nats(value: object, name: str = "epsilon") -> Epsilon:
        """ε given directly in natural units, a rational ≥ 0."""
        x = rational(value, name)
        if x < 0:
            raise InvalidNumber(f"{name} = {format_rational(x)} is negative; ε must be ≥ 0")
        return Epsilon(base=mpq(1)) if x == 0 else Epsilon(nats=x)

    @property
    def is_zero(self) -> bool:
        return self.base == 1

    @property
    def rate(self) -> mpq | None:
        """``E = e^ε`` when it is rational, else ``None``."""
        return self.base

    def __str__(self) -> str:
        if self.infinite:
            return "inf"
        if self.base is not None:
            return "0" if self.base == 1 else f"ln({format_rational(self.base)})"
        return format_rational(self.nats)

    def __repr__(self) -> str:
        return f"Epsilon({str(self)!r})"

    def approx(self, digits: int = 6) -> str:
        """A certified decimal approximation of ε (truncated to ``digits`` significant)."""
        if self.infinite:
            return "inf"
        if self.nats is not None:
            return decimal_string(self.nats, digits)
        if self.base == 1:
            return "0"
        return certified_decimal(lambda prec: _log_bounds(self.base, prec), digits)

    def sort_key(self) -> tuple:
        return (1,) if self.infinite else (0,)

    def compare(self, other: Epsilon) -> int:
        """Certified sign of ``self − other``."""
        if self.infinite or other.infinite:
            return int(self.infinite) - int(other.infinite)
        if self.base is not None and other.base is not None:
            return _sign(self.base - other.base)
        if self.base is not None:  # compare ln(b) with nats  <=>  b with e^nats
            return compare_exp(self.base, other)
        if other.base is not None:
            return -compare_exp(other.base, self)
        return _sign(self.nats - other.nats)


Epsilon.INF = Epsilon(infinite=True)  # type: ignore[attr-defined]
Epsilon.ZERO = Epsilon(base=mpq(1))  # type: ignore[attr-defined]

_LN_RE = re.compile(r"^ln\((.*)\)$")


def parse_epsilon(value: object, name: str = "epsilon") -> Epsilon:
    """Read ε from ``"ln(3/2)"``, ``"1/2"`` (nats), ``"0"``, ``"inf"``, an int or a rational.

    >>> parse_epsilon("ln(2)").rate
    mpq(2,1)
    >>> parse_epsilon("ln(x)")
    Traceback (most recent call last):
    ...
    verifier.core.errors.InvalidNumber: epsilon = 'ln(x)': the argument of ln is not a number; write an integer, a fraction ("3/4") or a decimal ("0.25", "1e-6")
    """
    if isinstance(value, Epsilon):
        return value
    if isinstance(value, str):
        text = value.strip()
        if text in ("inf", "+inf", "∞", "infinity"):
            return Epsilon.INF
        match = _LN_RE.match(text.replace(" ", ""))
        if match:
            try:
                return Epsilon.log(match.group(1), name)
            except InvalidNumber as exc:
                if "argument of ln must be" in str(exc):
                    raise
                raise InvalidNumber(
                    f"{name} = {value!r}: the argument of ln is not a number; write an "
                    f'integer, a fraction ("3/4") or a decimal ("0.25", "1e-6")'
                ) from None
        if not (_RATIONAL_RE.match(text) or _DECIMAL_RE.match(text)):
            raise InvalidNumber(
                f'{name} = {value!r} is not an ε; write "ln(q)" with rational q ≥ 1, a '
                f'rational number of nats such as "1/2", "0" or "inf"'
            )
    return Epsilon.of_nats(value, name)


# ------------------------------------------------------ certified comparison with e^ε


def _sign(x) -> int:
    return (x > 0) - (x < 0)


def exp_bounds(nats: mpq, prec: int) -> tuple[mpq, mpq]:
    """Rationals ``lo ≤ e^nats ≤ hi``, from MPFR evaluation rounded down and up.

    ``exp`` is increasing, so rounding the argument and the result in the same direction
    gives a valid bound; MPFR's ``exp`` is correctly rounded.
    """
    with gmpy2.context(gmpy2.get_context(), precision=prec, round=gmpy2.RoundDown):
        lo = mpq(gmpy2.exp(gmpy2.mpfr(nats)))
    with gmpy2.context(gmpy2.get_context(), precision=prec, round=gmpy2.RoundUp):
        hi = mpq(gmpy2.exp(gmpy2.mpfr(nats)))
    return lo, hi


def _log_bounds(x: mpq, prec: int) -> tuple[mpq, mpq]:
    with gmpy2.context(gmpy2.get_context(), precision=prec, round=gmpy2.RoundDown):
        lo = mpq(gmpy2.log(gmpy2.mpfr(x)))
    with gmpy2.context(gmpy2.get_context(), precision=prec, round=gmpy2.RoundUp):
        hi = mpq(gmpy2.log(gmpy2.mpfr(x)))
    return lo, hi


def compare_exp(x: mpq, eps: Epsilon) -> int:
    """Certified sign of ``x − e^ε`` for rational ``x``.

    Exact when ``e^ε`` is rational; otherwise the precision doubles until the interval
    enclosing ``e^ε`` excludes ``x``, which happens because ``e^ε`` is irrational.
    """
    if eps.infinite:
        return -1
    if eps.base is not None:
        return _sign(x - eps.base)
    prec = 64
    while prec <= _MAX_PRECISION:
        lo, hi = exp_bounds(eps.nats, prec)
        if x < lo:
            return -1
        if x > hi:
            return 1
        prec *= 2
    raise InvalidNumber(  # pragma: no cover - unreachable for rational ε ≠ 0
        f"could not separate {x} from exp({eps.nats}) at {_MAX_PRECISION} bits"
    )


def sign_affine_exp(a: mpq, c: mpq, eps: Epsilon) -> int:
    """Certified sign of ``a + c·e^ε`` for rationals ``a``, ``c``."""
    if c == 0:
        return _sign(a)
    if eps.infinite:
        return _sign(c)
    # a + c·E > 0  <=>  E > −a/c (c > 0)  or  E < −a/c (c < 0)
    side = -compare_exp(-a / c, eps)
    return side if c > 0 else -side


# ----------------------------------------------------------------------------- δ


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
        return hash((self.a, self.c, self.epsilon if self.c else None))

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
        return f"{format_rational(self.a)} {sign} {c}*exp({format_rational(self.epsilon.nats)})"

    def __repr__(self) -> str:
        return f"Delta({str(self)!r})"

    def bounds(self, prec: int) -> tuple[mpq, mpq]:
        """Rationals enclosing δ, from a ``prec``-bit enclosure of ``e^ε``."""
        if self.c == 0:
            return self.a, self.a
        lo, hi = exp_bounds(self.epsilon.nats, prec)
        ends = (self.a - self.c * lo, self.a - self.c * hi)
        return min(ends), max(ends)

    def approx(self, digits: int = 6) -> str:
        """A decimal truncated to ``digits`` significant digits, certified correct."""
        if self.c == 0:
            return decimal_string(self.a, digits)
        return certified_decimal(self.bounds, digits)


# ------------------------------------------------------------------ decimal display


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


def certified_decimal(enclose, digits: int = 6, max_precision: int = _MAX_PRECISION) -> str:
    """The decimal truncation shared by every number in ``enclose(prec)`` (rational bounds at
    ``prec`` bits), with the precision doubled until the bounds agree on ``digits`` digits;
    an interval ``[lo, hi]`` if they still differ at ``max_precision``."""
    prec = 64
    while prec <= max_precision:
        text = _agreeing_decimal(*enclose(prec), digits)
        if text is not None:
            return text
        prec *= 2
    lo, hi = enclose(max_precision)
    return f"[{decimal_string(lo, digits)}, {decimal_string(hi, digits)}]"


def log_bounds(x: mpq, prec: int) -> tuple[mpq, mpq]:
    """Rationals ``lo ≤ ln x ≤ hi`` from MPFR rounded down and up."""
    return _log_bounds(x, prec)


def _agreeing_decimal(lo: mpq, hi: mpq, digits: int) -> str | None:
    """The common truncation of every number in ``[lo, hi]``, if there is one."""
    if lo == hi:
        return decimal_string(lo, digits)
    if (lo < 0) != (hi < 0) or lo == 0 or hi == 0:
        return None
    a, b = decimal_string(lo, digits), decimal_string(hi, digits)
    return a if a == b else None
