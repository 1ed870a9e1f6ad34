"""Exact rationals: reading numbers from user input and writing them canonically.

Rationals are gmpy2 ``mpq``; a ``float`` is refused, because ``0.1`` as a float is not
``1/10``.
"""

from __future__ import annotations

import re
from fractions import Fraction
from numbers import Integral

from gmpy2 import mpq, mpz

from verifier.core.errors import InvalidNumber

__all__ = ["Rational", "rational", "probability", "format_rational", "sign"]

Rational = type(mpq(0))

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


def sign(x) -> int:
    """−1, 0 or 1: the sign of an exact number."""
    return (x > 0) - (x < 0)
