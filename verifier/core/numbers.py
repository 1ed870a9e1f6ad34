"""Exact rationals: reading numbers from user input and writing them canonically, and the
one validator each for the ranges every command checks (a probability, a value strictly
between 0 and 1, a positive rational, a positive integer; and the boolean check, so that a
flag is never read with ``bool()``).

Rationals are gmpy2 ``mpq``; a ``float`` is refused, because ``0.1`` as a float is not
``1/10``. Numbers written as text are bounded before anything is computed: at most
:data:`MAX_TEXT` characters and a decimal exponent of at most :data:`MAX_EXPONENT` in absolute
value (``"1e-999999999"`` would otherwise ask for a billion-digit power of ten). Digit strings
are converted by gmpy2, so Python's 4300-digit limit on ``int(str)`` does not apply.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from numbers import Integral
from numbers import Rational as RationalABC

from gmpy2 import mpq, mpz

from verifier.core.binary64 import F64, f64, is_f64_table
from verifier.core.errors import InvalidArgument, InvalidNumber, OutOfRange

__all__ = ["Rational", "rational", "probability", "open_unit", "positive", "nonnegative",
           "integer", "positive_int", "boolean", "is_number_text", "format_rational", "sign",
           "MAX_EXPONENT", "MAX_TEXT", "counted"]

Rational = type(mpq(0))
_MPZ = type(mpz(0))

MAX_EXPONENT = 10_000  # |e| of a decimal exponent "…e±e"
MAX_TEXT = 100_000  # characters of a number written as text

_RATIONAL_RE = re.compile(r"^([+-]?)(\d+)(?:/(\d+))?$", re.ASCII)
_DECIMAL_RE = re.compile(r"^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$", re.ASCII)


def is_number_text(text: str) -> bool:
    """Whether ``text`` has the form of an exact number (``"3/4"``, ``"0.25"``, ``"1e-6"``);
    its size is checked when it is read."""
    text = text.strip()
    if _RATIONAL_RE.match(text):
        return True
    m = _DECIMAL_RE.match(text)
    return m is not None and bool(m.group(2) or m.group(3))


def _float_message(name: str, value: float) -> str:
    if not math.isfinite(value):
        kind = "not a number" if value != value else "an infinity"
        return (f"{name} = {value!r} is a float ({kind}), which is not exact; write an exact "
                f'number as a string such as "3/4"')
    exact = Fraction(repr(value))
    return (f"{name} = {value!r} is a float, which is not exact; write it as a string "
            f'such as "{value!r}" or "{exact.numerator}/{exact.denominator}", or, to mean the '
            f'double itself, {{f64 = "{value!r}"}} (verifier.f64 in Python)')


def _read_text(value: str, name: str) -> mpq:
    text = value.strip()
    if len(text) > MAX_TEXT:
        raise InvalidNumber(f"{name}: the number has {len(text)} characters, more than the "
                            f"limit of {MAX_TEXT}", argument=name, value=value)
    m = _RATIONAL_RE.match(text)
    if m:
        sgn, num, den = m.groups()
        d = mpz(den) if den is not None else mpz(1)
        if d == 0:
            raise InvalidNumber(f"{name} = {value!r} has a zero denominator", argument=name,
                                value=value)
        q = mpq(mpz(num), d)
        return -q if sgn == "-" else q
    m = _DECIMAL_RE.match(text)
    if m and (m.group(2) or m.group(3)):
        sgn, whole, frac, exp = m.groups()
        frac = frac or ""
        e = 0
        if exp is not None:
            digits = exp.lstrip("+-").lstrip("0")
            if len(digits) > len(str(MAX_EXPONENT)) or int(digits or "0") > MAX_EXPONENT:
                raise InvalidNumber(
                    f"{name} = {_short(value)}: the exponent is beyond ±{MAX_EXPONENT}; write "
                    f"the number as a fraction, or use a smaller exponent", argument=name,
                    value=value)
            e = int(exp)
        q = mpq(mpz((whole or "0") + frac))
        scale = e - len(frac)
        q = q * mpz(10) ** scale if scale >= 0 else q / mpz(10) ** (-scale)
        return -q if sgn == "-" else q
    raise InvalidNumber(
        f'{name} = {_short(value)} is not a number; write an integer, a fraction ("3/4") '
        f'or a decimal ("0.25", "1e-6")', argument=name, value=value)


def _short(value: str) -> str:
    """``repr`` of a user string, cut in the middle when long (messages stay one short line)."""
    r = repr(value)
    return r if len(r) <= 60 else f"{r[:28]}…{r[-28:]} ({len(value)} characters)"


def rational(value: object, name: str = "value") -> mpq:
    """Read ``value`` as an exact rational.

    Accepts ``int``, ``Fraction``, ``mpq``/``mpz``, any :class:`numbers.Rational` (a
    rational ``Delta``) and strings such as ``"3/4"``, ``"0.25"``
    or ``"1e-6"`` (read exactly: ``"0.1"`` is ``1/10``), and a double named as one — an
    :class:`~verifier.core.binary64.F64` or the spec form ``{"f64": "0x1.8p-1"}`` — as the
    rational it is. Refuses ``float`` (finite or not) and ``bool``, strings longer than
    :data:`MAX_TEXT` characters and decimal exponents beyond ``±``:data:`MAX_EXPONENT`.

    >>> rational("1e-6")
    mpq(1,1000000)
    >>> rational(0.1, "truth")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    verifier.core.errors.InvalidNumber: truth = 0.1 is a float, which is not exact; write it ...
    """
    if isinstance(value, Rational):
        return value
    if isinstance(value, bool):
        raise InvalidNumber(f"{name} = {value!r} is a bool, not a number", argument=name,
                            value=value)
    if isinstance(value, float):
        raise InvalidNumber(_float_message(name, value), argument=name, value=value)
    if isinstance(value, _MPZ):
        return mpq(value)
    if isinstance(value, F64):
        return value.exact
    if is_f64_table(value):
        return f64(value["f64"], f"{name}.f64").exact  # type: ignore[index]
    if isinstance(value, Integral):
        return mpq(mpz(int(value)))
    if isinstance(value, Fraction):
        return mpq(mpz(value.numerator), mpz(value.denominator))
    if isinstance(value, str):
        return _read_text(value, name)
    if isinstance(value, RationalABC):  # a rational δ, or another exact rational type
        return mpq(mpz(int(value.numerator)), mpz(int(value.denominator)))
    if isinstance(value, dict):
        raise InvalidNumber(f"{name} = {_short(repr(value))[1:-1]} is a table; the only table "
                            f'that is a number is {{f64 = "…"}}, a double read exactly',
                            argument=name, value=value)
    raise InvalidNumber(f"{name} = {_short(repr(value))[1:-1]} of type "
                        f"{type(value).__name__} is not a number", argument=name, value=value)


def probability(value: object, name: str = "probability") -> mpq:
    """Read ``value`` exactly and check ``0 ≤ value ≤ 1``."""
    p = rational(value, name)
    if not 0 <= p <= 1:
        raise OutOfRange(f"{name} = {format_rational(p)} is not a probability in [0, 1]",
                            argument=name, value=value)
    return p


def open_unit(value: object, name: str) -> mpq:
    """Read ``value`` exactly and check ``0 < value < 1``."""
    x = rational(value, name)
    if not 0 < x < 1:
        raise OutOfRange(f"{name} = {format_rational(x)} must lie strictly between 0 and 1",
                            argument=name, value=value)
    return x


def positive(value: object, name: str) -> mpq:
    """Read ``value`` exactly and check ``value > 0``."""
    x = rational(value, name)
    if x <= 0:
        raise OutOfRange(f"{name} = {format_rational(x)} must be > 0", argument=name,
                            value=value)
    return x


def nonnegative(value: object, name: str) -> mpq:
    """Read ``value`` exactly and check ``value ≥ 0``."""
    x = rational(value, name)
    if x < 0:
        raise OutOfRange(f"{name} = {format_rational(x)} must be ≥ 0", argument=name,
                            value=value)
    return x


def integer(value: object, name: str, lo: int | None = None, hi: int | None = None) -> int:
    """An ``int`` (not a bool, a float or a string) with ``lo ≤ value ≤ hi`` (when given)."""
    if isinstance(value, float):
        kind = "a float" if math.isfinite(value) else \
            f"a float ({'not a number' if value != value else 'an infinity'})"
        raise InvalidArgument(f"{name} = {value!r} is {kind}, not an integer; write an "
                              f"integer without a decimal point", argument=name, value=value)
    if isinstance(value, bool) or not isinstance(value, (int, _MPZ)):
        shown = _short(value) if isinstance(value, str) else _short(repr(value))[1:-1]
        raise InvalidArgument(f"{name} = {shown} is not an integer", argument=name,
                              value=value)
    n = int(value)
    if lo == 1 and hi is None and n < 1:
        raise OutOfRange(f"{name} = {n} is not a positive integer", argument=name, value=value)
    if (lo is not None and n < lo) or (hi is not None and n > hi):
        rng = (f"from {lo} to {hi}" if lo is not None and hi is not None else
               f"≥ {lo}" if lo is not None else f"≤ {hi}")
        raise OutOfRange(f"{name} = {n} must be an integer {rng}", argument=name, value=value)
    return n


def positive_int(value: object, name: str) -> int:
    """An ``int`` ≥ 1 (the one check of a count, a size or a limit)."""
    return integer(value, name, lo=1)


def boolean(value: object, name: str) -> bool:
    """A ``bool``; ``"false"``, ``0`` or ``[]`` are errors, never coerced (``bool("false")`` is
    true)."""
    if not isinstance(value, bool):
        kind = {int: "an integer", float: "a float", str: "a string", list: "a list",
                dict: "a table"}.get(type(value), type(value).__name__)
        shown = _short(value) if isinstance(value, str) else repr(value)[:60]
        raise InvalidArgument(f"{name} = {shown} is {kind}, not a boolean; write true or false "
                              f"without quotes", argument=name, value=value)
    return value


def format_rational(x: mpq) -> str:
    """``"7/64"``, ``"3"``, ``"-1/2"``: the canonical exact string of a rational."""
    return str(x)


def sign(x) -> int:
    """−1, 0 or 1: the sign of an exact number."""
    return (x > 0) - (x < 0)



def counted(n: object, noun: str, plural: str | None = None) -> str:
    """``n`` and the noun in the number it takes — ``1 record``, ``2 records``, ``0 records``
    — (``plural`` when it is not the noun and ``s``); ``n`` may be a number or its text
    (``2^20``: plural). The one helper every message and report uses for a count with its
    noun.

    >>> counted(1, "record"), counted(2, "record"), counted(0, "instance")
    ('1 record', '2 records', '0 instances')
    >>> counted(1, "pair of neighbouring sums", "pairs of neighbouring sums")
    '1 pair of neighbouring sums'
    >>> counted("2^20", "database")
    '2^20 databases'
    """
    if n == 1 or n == "1":
        return f"{n} {noun}"
    return f"{n} {plural if plural is not None else noun + 's'}"
