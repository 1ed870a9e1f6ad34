"""The exact reals an ε or a δ can be, and the ordering and arithmetic they share with
Python's numbers (REFERENCE.md §1).

A value is one of four forms:

* ``("q", x)`` — a rational ``x`` (an ``int``, ``Fraction``, ``mpq``, a rational ε or δ, a
  finite float read as the double it is: ``0.1`` is ``3602879701896397/36028797018963968``);
* ``("ln", b)`` — ``ln b`` for a rational ``b > 1`` (an ε written ``ln(b)``), irrational;
* ``("sum", s)`` — an exponential sum ``Σ c·e^a`` (:class:`~verifier.core.expsum.ExpSum`)
  with a term at an exponent ``a ≠ 0``, irrational (a δ ``A − C·e^x``);
* ``("inf", ±1)`` — ``±∞`` (ε = ∞, a float infinity).

**Ordering.** Rationals compare exactly; ``ln b`` against a rational ``x`` is ``b`` against
``e^x``, and an exponential sum against a rational or another sum is the sign of one sum:
both decided at a finite precision, because ``e^x`` is transcendental for rational ``x ≠ 0``
(Lindemann) and a non-empty canonical sum is not zero (Lindemann–Weierstrass). Only ``ln b``
against a sum has no exact rule: enclosures are refined up to :data:`COMPARE_PRECISION` bits
and, when they still overlap, :class:`~verifier.core.errors.UndecidableComparison` is raised
naming both values — never a guess.

**Arithmetic.** Sums, differences and products stay in these forms where they can: rationals
with rationals; sums with rationals and with sums (one exponent left, or the result is not a
δ); ``ln b + ln b' = ln(b·b')``, ``ln b − ln b' = ln(b/b')`` when ``b > b'``, and
``x·ln b = ln(b^x)`` when ``b^x`` is rational. Anything else raises
:class:`~verifier.core.errors.InexactArithmetic`.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

import gmpy2
from gmpy2 import mpq, mpz

from verifier.core.certified import compare_exp, log_bounds
from verifier.core.errors import InexactArithmetic, NotComparable, UndecidableComparison, Undecided
from verifier.core.expsum import ExpSum
from verifier.core.numbers import Rational, format_rational
from verifier.core.numbers import sign as _sign

__all__ = ["Form", "COMPARE_PRECISION", "Operators", "RationalValue", "operand", "compare",
           "add", "subtract", "multiply", "divide", "negate", "show"]

COMPARE_PRECISION = 1 << 14  # bits: where ln b against A − C·e^x gives up (undecidable)
_MAX_POWER_BITS = 1 << 20  # x·ln(b) = ln(b^x) is built only while b^x has at most this size

Form = tuple[str, Any]  # ("q", mpq) | ("ln", mpq) | ("sum", ExpSum) | ("inf", ±1)
_MPZ = type(mpz(0))


@dataclass(frozen=True, slots=True)
class _Nats:
    """ε as a rational number of nats, in the shape :func:`compare_exp` reads."""

    nats: mpq
    base: None = None
    infinite: bool = False


def operand(x: object, *, arithmetic: bool = False, against: object = None) -> Form | None:
    """The form of ``x``, or ``None`` for a type that is not a number here (``==`` is then
    ``False``, an ordering a ``TypeError``). A string is refused by name, a bool is not a
    number; in arithmetic a float is refused (its exact value is rarely the one meant), in a
    comparison it is read as the double it is, and NaN is refused. ``against`` is the exact
    value on the other side, for the messages."""
    form = getattr(x, "_exact_form", None)
    if form is not None:
        return form()
    if isinstance(x, str):
        raise NotComparable(f"{against} compared with the string {x!r}: a string is not a "
                            f"number; parse it first (Epsilon({x!r}) for an ε, Delta({x!r}) "
                            f"for a δ)", argument="other", value=x)
    if isinstance(x, bool):
        return None
    if isinstance(x, Rational):
        return ("q", x)
    if isinstance(x, (int, _MPZ)):
        return ("q", mpq(x))
    if isinstance(x, Fraction):
        return ("q", mpq(x.numerator, x.denominator))
    if isinstance(x, numbers.Rational):  # numpy's integers, other exact rational types
        return ("q", mpq(int(x.numerator), int(x.denominator)))
    if isinstance(x, (float, Decimal)):
        if arithmetic:
            raise InexactArithmetic(
                f"{against} with the {type(x).__name__} {x!r}: arithmetic with exact values "
                f'takes exact numbers; write it as a string such as "{x}" or a Fraction',
                argument="other", value=x)
        if x != x:
            raise NotComparable(f"{against} compared with {x!r}: NaN is not a number and "
                                f"compares with nothing", argument="other", value=x)
        if x in (math.inf, -math.inf):
            return ("inf", 1 if x > 0 else -1)
        return ("q", mpq(Fraction(x)))
    return None


def show(f: Form) -> str:
    """A form as plrv writes the value: ``3/4``, ``ln(3)``, ``3/4 - 1/4*exp(1/2)``, ``inf``."""
    kind, v = f
    if kind == "q":
        return format_rational(v)
    if kind == "ln":
        return f"ln({format_rational(v)})"
    if kind == "inf":
        return "inf" if v == 1 else "-inf"
    terms = []
    for a, c in v.terms:
        mag = format_rational(abs(c))
        body = mag if a == 0 else f"{mag}*exp({format_rational(a)})"
        terms.append(("-" if c < 0 else "+", body))
    text = " ".join(f"{s} {b}" for s, b in terms)
    return text[2:] if text.startswith("+ ") else "-" + text[2:]


# ------------------------------------------------------------------------- ordering


def compare(x: Form, y: Form) -> int:
    """The certified sign of ``x − y``; :class:`UndecidableComparison` when it is not
    decided (see the module's docstring)."""
    (kx, vx), (ky, vy) = x, y
    if kx == "inf" or ky == "inf":
        return _sign((vx if kx == "inf" else 0) - (vy if ky == "inf" else 0))
    if kx == "q" and ky == "q":
        return _sign(vx - vy)
    if kx == "ln" and ky == "ln":
        return _sign(vx - vy)
    if kx == "ln" and ky == "q":
        return _ln_against(vx, vy)
    if kx == "q" and ky == "ln":
        return -_ln_against(vy, vx)
    if kx == "ln" or ky == "ln":
        return _by_enclosures(x, y)
    try:
        return (_as_sum(x) - _as_sum(y)).sign()
    except Undecided as e:
        raise _undecidable(x, y, str(e)) from e


def _ln_against(b: mpq, x: mpq) -> int:
    """The sign of ``ln b − x`` for ``b > 1``: that of ``b − e^x`` (exact for ``x ≤ 0``)."""
    return 1 if x <= 0 else compare_exp(b, _Nats(x))


def _as_sum(f: Form) -> ExpSum:
    kind, v = f
    return v if kind == "sum" else ExpSum.constant(v)


def _enclose(f: Form, prec: int) -> tuple[mpq, mpq]:
    kind, v = f
    if kind == "ln":
        return log_bounds(v, prec)
    if kind == "sum":
        return v.enclose(prec)
    return v, v


def _by_enclosures(x: Form, y: Form) -> int:
    prec = 64
    while prec <= COMPARE_PRECISION:
        (x_lo, x_hi), (y_lo, y_hi) = _enclose(x, prec), _enclose(y, prec)
        if x_hi < y_lo:
            return -1
        if x_lo > y_hi:
            return 1
        prec *= 2
    raise _undecidable(x, y, f"their enclosures overlap at {COMPARE_PRECISION} bits, and no "
                             f"exact rule separates ln(q) from a sum of exponentials")


def _undecidable(x: Form, y: Form, why: str) -> UndecidableComparison:
    return UndecidableComparison(f"cannot decide how {show(x)} compares with {show(y)}: {why}; "
                                 f"they may be equal", left=show(x), right=show(y))


# ----------------------------------------------------------------------- arithmetic


def _inexact(what: str) -> InexactArithmetic:
    return InexactArithmetic(f"{what} has no exact form here (a rational, ln(q), A − C·e^x or "
                             f"inf); compute with the exact parts (.a, .c, .rate, .nats) instead")


def _sum_form(s: ExpSum) -> Form:
    if all(a == 0 for a, _ in s.terms):
        return ("q", s.terms[0][1] if s.terms else mpq(0))
    return ("sum", s)


def negate(x: Form) -> Form:
    kind, v = x
    if kind == "q":
        return ("q", -v)
    if kind == "sum":
        return ("sum", -v)
    raise _inexact(f"-{show(x)}")


def add(x: Form, y: Form) -> Form:
    (kx, vx), (ky, vy) = x, y
    if kx == "inf" or ky == "inf":
        if (kx == "inf" and vx == -1) or (ky == "inf" and vy == -1):
            raise _inexact(f"{show(x)} + {show(y)}")
        return ("inf", 1)
    if kx == "ln" or ky == "ln":
        if kx == "ln" and ky == "ln":
            return ("ln", vx * vy)
        if (kx, vx) == ("q", 0) or (ky, vy) == ("q", 0):
            return y if kx == "q" else x
        raise _inexact(f"{show(x)} + {show(y)}")
    if kx == "q" and ky == "q":
        return ("q", vx + vy)
    return _sum_form(_as_sum(x) + _as_sum(y))


def subtract(x: Form, y: Form) -> Form:
    (kx, vx), (ky, vy) = x, y
    if kx == "ln" and ky == "ln":
        if vx == vy:
            return ("q", mpq(0))
        if vx > vy:
            return ("ln", vx / vy)
        raise _inexact(f"{show(x)} - {show(y)} (negative)")
    if kx == "inf" and vx == 1 and ky != "inf":
        return x
    if kx == "inf" or ky == "inf" or ky == "ln":
        raise _inexact(f"{show(x)} - {show(y)}")
    return add(x, negate(y))


def multiply(x: Form, y: Form) -> Form:
    if x[0] != "q" and y[0] == "q":
        x, y = y, x
    (kx, vx), (ky, vy) = x, y
    if kx == "q":
        if ky == "q":
            return ("q", vx * vy)
        if ky == "sum":
            return _sum_form(vy * vx)
        if vx == 0 and ky != "inf":
            return ("q", mpq(0))
        if ky == "ln" and vx > 0:
            power = _rational_power(vy, vx)
            if power is not None:
                return ("ln", power)
        if ky == "inf" and vx > 0:
            return y
    elif kx == "sum" and ky == "sum":
        return _sum_form(vx * vy)
    raise _inexact(f"({show(x)})·({show(y)})")


def divide(x: Form, y: Form) -> Form:
    kind, v = y
    if kind == "q":
        if v == 0:
            raise InexactArithmetic(f"{show(x)} / 0: division by zero", argument="divisor",
                                    value=0)
        return multiply(x, ("q", 1 / v))
    if x == y:
        return ("q", mpq(1))
    raise _inexact(f"({show(x)}) / ({show(y)})")


def _rational_power(b: mpq, e: mpq) -> mpq | None:
    """``b^e`` for rational ``b > 0`` and ``e > 0`` when it is rational, else ``None``."""
    k, m = int(e.denominator), int(e.numerator)
    size = max(b.numerator.bit_length(), b.denominator.bit_length())
    if k > 1 << 16 or m * size > _MAX_POWER_BITS * k:  # a root of such degree is rational
        return None  # only for b = 1 (excluded); a power that large is refused, not built
    roots = []
    for part in (b.numerator, b.denominator):
        root, exact = gmpy2.iroot(mpz(part), k)
        if not exact:
            return None
        roots.append(root)
    return mpq(roots[0], roots[1]) ** m


class Operators:
    """The order and the arithmetic of ε and δ as numbers, one definition for both: a class
    mixing this in gives ``_order(other)`` (the sign of ``self − other``, None when ``other``
    is not a number) and ``_arithmetic(op, other, reflected)`` (an operation of this module on
    the exact forms, or NotImplemented)."""

    __slots__ = ()

    def _order(self, other: object) -> int | None:
        raise NotImplementedError

    def _arithmetic(self, op: Callable[[Form, Form], Form], other: object,
                    reflected: bool = False) -> object:
        raise NotImplementedError

    def __lt__(self, other: object) -> bool:
        order = self._order(other)
        return NotImplemented if order is None else order < 0

    def __le__(self, other: object) -> bool:
        order = self._order(other)
        return NotImplemented if order is None else order <= 0

    def __gt__(self, other: object) -> bool:
        order = self._order(other)
        return NotImplemented if order is None else order > 0

    def __ge__(self, other: object) -> bool:
        order = self._order(other)
        return NotImplemented if order is None else order >= 0

    def __add__(self, other: object) -> object:
        return self._arithmetic(add, other)

    def __radd__(self, other: object) -> object:
        return self._arithmetic(add, other, True)

    def __sub__(self, other: object) -> object:
        return self._arithmetic(subtract, other)

    def __rsub__(self, other: object) -> object:
        return self._arithmetic(subtract, other, True)

    def __mul__(self, other: object) -> object:
        return self._arithmetic(multiply, other)

    def __rmul__(self, other: object) -> object:
        return self._arithmetic(multiply, other, True)

    def __truediv__(self, other: object) -> object:
        return self._arithmetic(divide, other)

    def __rtruediv__(self, other: object) -> object:
        return self._arithmetic(divide, other, True)


class RationalValue:
    """What :class:`numbers.Rational` asks of an ε or δ whose value is rational, one
    definition for both: a class mixing this in gives ``_rational`` (its value, an ``mpq``)."""

    __slots__ = ()

    @property
    def _rational(self) -> mpq:
        raise NotImplementedError

    @property
    def numerator(self) -> int:
        return int(self._rational.numerator)

    @property
    def denominator(self) -> int:
        return int(self._rational.denominator)

    def __mpq__(self) -> mpq:
        return self._rational

    def as_integer_ratio(self) -> tuple[int, int]:
        return self.numerator, self.denominator

    def _fraction(self) -> Fraction:
        return Fraction(self.numerator, self.denominator)

    def __trunc__(self) -> int:
        return math.trunc(self._fraction())

    def __floor__(self) -> int:
        return math.floor(self._fraction())

    def __ceil__(self) -> int:
        return math.ceil(self._fraction())

    def __int__(self) -> int:
        return math.trunc(self._fraction())

    def __round__(self, ndigits: int | None = None) -> object:
        return round(self._fraction()) if ndigits is None else round(self._fraction(), ndigits)
