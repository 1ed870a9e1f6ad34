"""The privacy parameter ε, kept exactly in the form the user wrote it (REFERENCE.md §1).

* ``ln(q)`` with rational ``q ≥ 1`` — then ``E = e^ε = q`` is rational and every δ is an
  exact rational;
* a rational number of nats such as ``1/2`` — then ``E`` is irrational (Lindemann: ``e^x`` is
  transcendental for rational ``x ≠ 0``), a tight δ is ``A − C·e^ε`` with rational ``A, C``;
* ``inf``.

>>> str(parse_epsilon("ln(3/2)")), str(parse_epsilon("1/2")), str(parse_epsilon(0))
('ln(3/2)', '1/2', '0')
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Callable
from dataclasses import KW_ONLY, InitVar, dataclass
from html import escape
from typing import ClassVar

from gmpy2 import mpq

from verifier.core import reals
from verifier.core.certified import (
    certified_decimal,
    compare_exp,
    decimal_string,
    log_bounds,
    nearest_float,
    to_float,
)
from verifier.core.errors import InvalidNumber
from verifier.core.numbers import format_rational, is_number_text, rational
from verifier.core.numbers import sign as _sign

__all__ = ["Epsilon", "parse_epsilon", "nearest_float"]

# --------------------------------------------------------------------------- ε


@dataclass(frozen=True, slots=True, eq=False)
class Epsilon(reals.Operators):
    """A privacy parameter ε ≥ 0, exact.

    Exactly one description holds: ``base`` is the rational ``E = e^ε`` (ε = ln(base)),
    or ``nats`` is ε itself as a rational ≠ 0 with ``E`` irrational, or ``infinite``.
    ε = 0 is stored as ``base = 1``. Build with ``Epsilon("ln(3)")`` (any text, int or
    rational :func:`parse_epsilon` reads), :meth:`log`, :meth:`of_nats` or
    :data:`Epsilon.INF`.

    An ε is a number: it compares exactly with ``int``, ``Fraction``, ``mpq``, a float (by
    the exact value of the double), a δ and another ε — ``ln(q)`` against a rational is
    decided by certified enclosures, which always separate them — and ``==`` with a string
    raises :class:`~verifier.core.errors.NotComparable` rather than answer ``False``.
    A rational ε (nats, or 0) is a :class:`numbers.Rational` (``Fraction(eps)``); ``ln(q)``
    and ∞ are not. Arithmetic is exact (:mod:`verifier.core.reals`): a rational result is an
    ``mpq``,
    ``ln(a) ± ln(b)`` and ``x·ln(b)`` are an ε ``ln(…)`` when the argument is rational and
    at least 1, anything else raises :class:`~verifier.core.errors.InexactArithmetic`.

    >>> Epsilon("ln(3)") < 1.1, Epsilon("ln(2)") + Epsilon("ln(3)"), Epsilon("1/2") + 1
    (True, Epsilon('ln(6)'), mpq(3,2))
    """

    value: InitVar[object] = None
    _: KW_ONLY
    base: mpq | None = None
    nats: mpq | None = None
    infinite: bool = False

    INF: ClassVar[Epsilon]
    ZERO: ClassVar[Epsilon]

    def __new__(cls, value: object = None, *, base: object = None, nats: object = None,
                infinite: bool = False) -> Epsilon:
        # a rational ε (a number of nats, or 0) is a numbers.Rational: its own class
        if cls is Epsilon and _rational_spec(value, base, nats, infinite):
            cls = _RationalEpsilon
        return object.__new__(cls)

    def __post_init__(self, value: object) -> None:
        if value is not None:
            if self.base is not None or self.nats is not None or self.infinite:
                raise InvalidNumber("an Epsilon is given either a value or one of base, nats "
                                    "and infinite, not both", argument="epsilon", value=value)
            parsed = parse_epsilon(value)
            for name in ("base", "nats", "infinite"):
                object.__setattr__(self, name, getattr(parsed, name))
            return
        given = (self.base is not None) + (self.nats is not None) + bool(self.infinite)
        if given != 1:
            raise InvalidNumber("an Epsilon needs exactly one of base, nats or infinite")
        if self.base is not None:
            base = rational(self.base, "epsilon base")
            if base < 1:
                raise InvalidNumber(f"epsilon base = {format_rational(base)} must be ≥ 1")
            object.__setattr__(self, "base", base)
        if self.nats is not None:
            nats: mpq | None = rational(self.nats, "epsilon")
            if nats is not None and nats < 0:
                raise InvalidNumber(f"epsilon = {format_rational(nats)} is negative; ε ≥ 0")
            if nats == 0:  # canonical: ε = 0 is stored as base 1
                object.__setattr__(self, "base", mpq(1))
                nats = None
            object.__setattr__(self, "nats", nats)

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
        assert self.nats is not None
        return format_rational(self.nats)

    def __repr__(self) -> str:
        return f"Epsilon({str(self)!r})"

    def __float__(self) -> float:
        """ε as the nearest float: an approximation for display and plotting (``ln(3)`` is
        irrational), never read by a verdict; ``inf`` for ε = ∞.

        >>> float(parse_epsilon("ln(3)")), float(parse_epsilon("1/4")), float(Epsilon.INF)
        (1.0986122886681098, 0.25, inf)
        """
        if self.infinite:
            return math.inf
        if self.nats is not None:
            return to_float(self.nats)
        base = self.base
        assert base is not None
        return 0.0 if base == 1 else nearest_float(lambda prec: log_bounds(base, prec))

    def _repr_html_(self) -> str:
        """The exact ε, and a certified decimal marked as an approximation (notebooks)."""
        text = escape(str(self))
        if self.infinite or self.is_zero:
            return f"<code>ε = {text}</code>"
        return f"<code>ε = {text}</code> (≈ {escape(self.approx())})"

    def approx(self, digits: int = 6) -> str:
        """A certified decimal approximation of ε (truncated to ``digits`` significant)."""
        if self.infinite:
            return "inf"
        if self.nats is not None:
            return decimal_string(self.nats, digits)
        if self.base == 1:
            return "0"
        base = self.base
        assert base is not None
        return certified_decimal(lambda prec: log_bounds(base, prec), digits)

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
        assert self.nats is not None and other.nats is not None
        return _sign(self.nats - other.nats)


    # -- a number among numbers (verifier.core.reals) ------------------------------
    def _exact_form(self) -> reals.Form:
        if self.infinite:
            return ("inf", 1)
        if self.nats is not None:
            return ("q", self.nats)
        assert self.base is not None
        return ("q", mpq(0)) if self.base == 1 else ("ln", self.base)

    def _order(self, other: object) -> int | None:
        form = reals.operand(other, against=self)
        return None if form is None else reals.compare(self._exact_form(), form)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Epsilon):  # canonical: equal values are written alike
            return (self.base, self.nats, self.infinite) == \
                (other.base, other.nats, other.infinite)
        order = self._order(other)
        return NotImplemented if order is None else order == 0

    def __hash__(self) -> int:
        # equal to a number exactly when it is rational (or ∞): then it hashes like it
        if self.infinite:
            return hash(math.inf)
        if self.nats is not None:
            return hash(self.nats)
        return hash(0) if self.base == 1 else hash(("ln", self.base))

    def _arithmetic(self, op: Callable[[reals.Form, reals.Form], reals.Form], other: object,
                    reflected: bool = False) -> object:
        if hasattr(other, "_exact_form") and not isinstance(other, Epsilon):
            return NotImplemented  # a δ: Delta's reflected operation answers, with its forms
        form = reals.operand(other, arithmetic=True, against=self)
        if form is None:
            return NotImplemented
        mine = self._exact_form()
        return _value(op(form, mine) if reflected else op(mine, form))

    def __neg__(self) -> object:
        return _value(reals.negate(self._exact_form()))

    def __pos__(self) -> Epsilon:
        return self

    def __abs__(self) -> Epsilon:
        return self


class _RationalEpsilon(reals.RationalValue, Epsilon):
    """An ε that is a rational number (``nats``, or 0): a :class:`numbers.Rational`, so
    ``Fraction(eps)`` and ``mpq(eps)`` are exact."""

    __slots__ = ()

    @property
    def _rational(self) -> mpq:
        return self.nats if self.nats is not None else mpq(0)


numbers.Rational.register(_RationalEpsilon)


def _rational_spec(value: object, base: object, nats: object, infinite: bool) -> bool:
    """Whether the ε these constructor arguments describe is rational (a bad argument is
    left to ``__post_init__`` to refuse, by name)."""
    try:
        if value is not None:
            parsed = parse_epsilon(value)
            return not parsed.infinite and (parsed.nats is not None or parsed.base == 1)
        if nats is not None:
            return base is None and not infinite
        return base is not None and not infinite and rational(base, "epsilon base") == 1
    except InvalidNumber:
        return False


def _value(form: reals.Form) -> object:
    """A result of ε arithmetic: an ``mpq`` when rational, else an ε (``ln(q)`` or ∞)."""
    kind, v = form
    if kind == "q":
        return v
    if kind == "ln":
        return Epsilon(base=v)
    assert kind == "inf" and v == 1, form  # no δ among the operands: no e^x term
    return Epsilon.INF

Epsilon.INF = Epsilon(infinite=True)
Epsilon.ZERO = Epsilon(base=mpq(1))

_LN_RE = re.compile(r"^ln\((.*)\)$")


def parse_epsilon(value: object, name: str = "epsilon") -> Epsilon:
    """Read ε from ``"ln(3/2)"``, ``"1/2"`` (nats), ``"0"``, ``"inf"``, an int or a rational.

    The grammar: ``ln(q)`` with ``q`` an exact number ≥ 1 (an integer, ``"3/2"``, a decimal
    ``"1.5"`` or ``"15e-1"``, read exactly); an exact number ≥ 0, which is ε in nats;
    ``inf``, ``+inf``, ``infinity`` or ``∞``. Anything else is refused, ``log(…)`` too (it
    reads as base 10 or 2 as often as base e).

    >>> parse_epsilon("ln(2)").rate
    mpq(2,1)
    >>> parse_epsilon("ln(x)")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    verifier.core.errors.InvalidNumber: epsilon = 'ln(x)': the argument of ln is not a number; ...
    """
    if isinstance(value, Epsilon):
        return value
    if isinstance(value, str):
        text = value.strip()
        if text in ("inf", "+inf", "∞", "infinity"):
            return Epsilon.INF
        match = _LN_RE.match(text.replace(" ", ""))
        if match:
            if not is_number_text(match.group(1)):
                raise InvalidNumber(
                    f"{name} = {value!r}: the argument of ln is not a number; write an "
                    f'integer, a fraction ("3/4") or a decimal ("0.25", "1e-6")'
                )
            return Epsilon.log(match.group(1), name)
        if not is_number_text(text):
            raise InvalidNumber(
                f'{name} = {value!r} is not an ε; write "ln(q)" with rational q ≥ 1, a '
                f'rational number of nats such as "1/2", "0" or "inf"'
            )
    return Epsilon.of_nats(value, name)


