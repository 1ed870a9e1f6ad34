"""IEEE 754 binary64 values read exactly: every finite double is the rational ``m·2^e``.

Deployed libraries take their scales, probabilities and claimed ε as doubles. A double is a
rational, so it can enter an exact computation without loss — provided it is named as a double:
a bare ``0.1`` in a spec is refused (it is not ``1/10``), while ``{f64 = "0.1"}`` means the
double nearest to 1/10, ``3602879701896397/36028797018963968`` exactly. Two spellings are read:

* hexadecimal, ``"0x1.62e42fefa39efp-1"`` (C99 ``%a``, Python ``float.hex``): it must be a
  double exactly — a hex string with more than 53 significant bits, or beyond the exponent
  range, is refused rather than rounded;
* decimal, ``"0.6931471805599453"``: the double nearest to it (IEEE round-to-nearest-even, as
  every language reads a literal), refused when it overflows, or rounds a non-zero number
  to zero.

Infinities and NaN are refused: they are not rationals.

>>> x = f64("0x1.8p-1"); x.exact, str(x)
(mpq(3,4), '0.75')
>>> f64("0.1").exact
mpq(3602879701896397,36028797018963968)
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from gmpy2 import mpq, mpz

from verifier.core.errors import InvalidNumber

__all__ = ["F64", "f64", "is_f64_table"]

_HEX_RE = re.compile(r"^([+-]?)0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?(?:[pP]([+-]?\d{1,6}))?$")
_DECIMAL_RE = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d{1,6})?$")
_MAX_TEXT = 1000


@dataclass(frozen=True, slots=True)
class F64:
    """A finite binary64 value: ``double`` as Python holds it, ``exact`` the rational it is.

    ``str`` gives the shortest decimal that reads back to the same double (Python's
    ``repr``), ``hex`` the exact hexadecimal spelling.
    """

    double: float

    def __post_init__(self) -> None:
        if type(self.double) is not float or not math.isfinite(self.double):
            raise InvalidNumber(f"f64 = {self.double!r} is not a finite double",
                                argument="f64", value=self.double)

    @property
    def exact(self) -> mpq:
        num, den = self.double.as_integer_ratio()  # exact, by the IEEE 754 definition
        return mpq(mpz(num), mpz(den))

    @property
    def hex(self) -> str:
        return self.double.hex()

    def __str__(self) -> str:
        return repr(self.double)

    def __repr__(self) -> str:
        return f"f64({self.double!r})"


def _hex_exact(sign: str, whole: str, frac: str, exp: str | None) -> mpq:
    digits = (whole + frac) or "0"
    value = mpq(mpz(int(digits, 16)))
    shift = int(exp or "0") - 4 * len(frac)
    value = value * mpz(2) ** shift if shift >= 0 else value / mpz(2) ** (-shift)
    return -value if sign == "-" else value


def f64(value: object, name: str = "f64") -> F64:
    """A double from a Python ``float``, an :class:`F64`, or a string (hex or decimal, see the
    module); anything else — a NaN, an infinity, an inexact hex string — is refused."""
    if isinstance(value, F64):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidNumber(f"{name} = {value!r} is not a finite double; an infinity or a "
                                f"NaN is not a number plrv can compute with", argument=name,
                                value=value)
        return F64(value)
    if not isinstance(value, str):
        raise InvalidNumber(f"{name} = {value!r:.60} of type {type(value).__name__} is not a "
                            f'double; write it as a string, e.g. {{f64 = "0x1.8p-1"}} or '
                            f'{{f64 = "0.75"}}', argument=name, value=value)
    text = value.strip()
    if len(text) > _MAX_TEXT:
        raise InvalidNumber(f"{name}: {len(text)} characters, more than {_MAX_TEXT} for one "
                            f"double", argument=name, value=value)
    m = _HEX_RE.match(text)
    if m and (m.group(2) or m.group(3)):
        exact = _hex_exact(m.group(1), m.group(2), m.group(3) or "", m.group(4))
        try:
            double = float.fromhex(text)
        except OverflowError:
            raise InvalidNumber(f"{name} = {text!r} is beyond the largest double",
                                argument=name, value=value) from None
        if F64(double).exact != exact:
            raise InvalidNumber(f"{name} = {text!r} is not a double exactly (more than 53 "
                                f"significant bits, or below the smallest subnormal); the "
                                f"nearest double is {double.hex()}", argument=name, value=value)
        return F64(double)
    if _DECIMAL_RE.match(text):
        double = float(text)
        if not math.isfinite(double):
            raise InvalidNumber(f"{name} = {text!r} is beyond the largest double",
                                argument=name, value=value)
        if double == 0 and any(c in "123456789" for c in text.split("e")[0].split("E")[0]):
            raise InvalidNumber(f"{name} = {text!r} is non-zero but rounds to the double 0",
                                argument=name, value=value)
        return F64(double)
    raise InvalidNumber(f'{name} = {text!r:.60} is not a double; write a decimal ("0.75", '
                        f'"1e-6") or a hexadecimal double ("0x1.8p-1")', argument=name,
                        value=value)


def is_f64_table(value: object) -> bool:
    """Whether ``value`` is the spec form ``{f64 = "…"}`` (a one-key table)."""
    return isinstance(value, dict) and set(value) == {"f64"}
