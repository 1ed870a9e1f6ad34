"""An exact δ: a rational, or ``A − C·e^ε`` with rationals ``A``, ``C`` (REFERENCE.md §1)."""

from __future__ import annotations

import numbers
import re
from collections.abc import Callable
from dataclasses import dataclass
from html import escape

from gmpy2 import mpq

from verifier.core import reals
from verifier.core.certified import certified_decimal, decimal_string, exp_bounds, sign_affine_exp
from verifier.core.epsilon import Epsilon, nearest_float
from verifier.core.errors import InexactArithmetic, InvalidNumber
from verifier.core.expsum import ExpSum
from verifier.core.numbers import format_rational, rational

__all__ = ["Delta"]

_NUMBER = r"[+-]?[0-9][0-9./eE+-]*?"
_FORM_RE = re.compile(rf"^({_NUMBER})\s*([+-])\s*({_NUMBER})\s*\*\s*exp\(\s*({_NUMBER})\s*\)$")


@dataclass(frozen=True, slots=True, init=False, eq=False, repr=False)
class Delta(reals.Operators):
    """An exact δ of the form ``A − C·e^ε`` (REFERENCE.md §1).

    When ``e^ε`` is rational the form collapses at construction to the rational ``A`` with
    ``C = 0``; otherwise ``A`` and ``C`` are rationals and ``e^ε`` is kept symbolic.

    ``Delta("1e-6")`` (any exact number, decimals read exactly) is a rational δ, and
    ``Delta("3/4 - 1/4*exp(1/2)")`` reads back what ``str()`` writes; ``Delta(a, c, ε)`` is
    :meth:`make`. A rational δ is a :class:`numbers.Rational` (``Fraction(d)``, ``mpq(d)``);
    an irrational one is not, and ``.value`` says why.

    A δ is a number: it compares exactly with ``int``, ``Fraction``, ``mpq``, a float (by
    the exact value of the double), an ε and another δ (certified: ``e^x`` is transcendental,
    so enclosures separate any two of these except ``ln(q)`` against ``A − C·e^x``, which
    raises :class:`~verifier.core.errors.UndecidableComparison` when they do not); ``==``
    with a string raises :class:`~verifier.core.errors.NotComparable`. Arithmetic
    (``+ − × /`` with rationals, an ε and another δ) is exact: a rational result is an
    ``mpq``, one with an ``e^x`` term a Delta, and a result of neither form (δ at two
    different ε added, a product with two ``e^x`` terms) raises
    :class:`~verifier.core.errors.InexactArithmetic`.

    >>> from fractions import Fraction
    >>> d = Delta("1/4")
    >>> d < 0.3, d + 1, Fraction(d), float(d), Delta("1e-6") == Fraction(1, 10**6)
    (True, mpq(5,4), Fraction(1, 4), 0.25, True)
    """

    a: mpq
    c: mpq
    epsilon: Epsilon

    def __new__(cls, a: object, c: object = None, epsilon: Epsilon | None = None) -> Delta:
        if c is None and epsilon is None:
            return _parse(a)
        if c is None or not isinstance(epsilon, Epsilon):
            raise InvalidNumber(f"Delta(a, c, epsilon) needs the rationals a, c and an "
                                f"Epsilon; got epsilon = {epsilon!r}", argument="epsilon",
                                value=epsilon)
        return Delta.make(rational(a, "a"), rational(c, "c"), epsilon)

    def __init__(self, *args: object, **kwargs: object) -> None:
        """Everything is done by ``__new__`` (the class depends on the value)."""

    def __getnewargs__(self) -> tuple[mpq, mpq, Epsilon]:
        return self.a, self.c, self.epsilon

    @staticmethod
    def make(a: mpq, c: mpq, epsilon: Epsilon) -> Delta:
        if c != 0 and epsilon.rate is not None:
            a, c = a - c * epsilon.rate, mpq(0)
        if epsilon.infinite and c != 0:
            raise InvalidNumber("a δ at ε = inf cannot depend on e^ε")
        made = object.__new__(_RationalDelta if c == 0 else Delta)
        object.__setattr__(made, "a", mpq(a))
        object.__setattr__(made, "c", mpq(c))
        object.__setattr__(made, "epsilon", epsilon)
        return made

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
        """Certified sign of ``self − other``: ``other`` a δ, an ε, a number or the text of
        a rational (``"1/5"``). :class:`~verifier.core.errors.UndecidableComparison` when
        enclosures do not separate ``ln(q)`` from this δ (see :mod:`verifier.core.reals`)."""
        if isinstance(other, Delta):
            if other.c == 0 or self.c == 0 or other.epsilon == self.epsilon:
                eps = self.epsilon if self.c != 0 else other.epsilon
                return sign_affine_exp(self.a - other.a, -(self.c - other.c), eps)
        elif isinstance(other, str) or reals.operand(other, against=self) is None:
            return sign_affine_exp(self.a - rational(other, "delta"), -self.c, self.epsilon)
        return reals.compare(self._exact_form(), _form(other))

    def _exact_form(self) -> reals.Form:
        if self.c == 0:
            return ("q", self.a)
        return ("sum", ExpSum(((mpq(0), self.a), (self._nats, -self.c))) if self.a != 0
                else ExpSum(((self._nats, -self.c),)))

    def _order(self, other: object) -> int | None:
        if isinstance(other, Delta):
            return self.compare(other)
        form = reals.operand(other, against=self)
        return None if form is None else reals.compare(self._exact_form(), form)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Delta):  # A − C·e^x is canonical (Lindemann: e^x is irrational)
            return (self.a, self.c) == (other.a, other.c) and (
                self.c == 0 or self.epsilon == other.epsilon
            )
        order = self._order(other)
        return NotImplemented if order is None else order == 0

    def __hash__(self) -> int:
        # a rational δ hashes like the rational it equals, as it compares equal to it
        return hash(self.a) if self.c == 0 else hash((self.a, self.c, self.epsilon))

    def _arithmetic(self, op: Callable[[reals.Form, reals.Form], reals.Form], other: object,
                    reflected: bool = False) -> object:
        form = reals.operand(other, arithmetic=True, against=self)
        if form is None:
            return NotImplemented
        mine = self._exact_form()
        return _value(op(form, mine) if reflected else op(mine, form))

    def __neg__(self) -> object:
        return _value(reals.negate(self._exact_form()))

    def __pos__(self) -> Delta:
        return self

    def __abs__(self) -> object:
        """``|δ|``: an ``mpq`` when rational (as every rational result), else a Delta."""
        if self.c == 0:
            return abs(self.a)
        return self if self.compare(0) >= 0 else -self

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


class _RationalDelta(reals.RationalValue, Delta):
    """A δ whose value is rational (``C = 0``): a :class:`numbers.Rational`, so
    ``Fraction(d)`` and ``mpq(d)`` are exact and ``Fraction`` compares with it exactly."""

    __slots__ = ()

    @property
    def _rational(self) -> mpq:
        return self.a

    def __pow__(self, exponent: int) -> mpq:
        if isinstance(exponent, bool) or not isinstance(exponent, int):
            raise InexactArithmetic(f"({self})**{exponent!r}: a rational δ is raised to "
                                    f"integer powers only", argument="exponent",
                                    value=exponent)
        return self.a ** exponent


numbers.Rational.register(_RationalDelta)


def _form(x: object) -> reals.Form:
    form = reals.operand(x)
    assert form is not None
    return form


def _value(form: reals.Form) -> object:
    """A result of δ arithmetic: an ``mpq`` when rational, a Delta ``A − C·e^x`` when it has
    one exponential term, an ε for ``ln(q)`` or ∞; otherwise it has no exact form here."""
    kind, v = form
    if kind == "q":
        return v
    if kind == "ln":
        return Epsilon(base=v)
    if kind == "inf":
        return Epsilon.INF
    terms = dict(v.terms)
    exponents = [a for a in terms if a != 0]
    if len(exponents) != 1 or exponents[0] < 0:
        raise InexactArithmetic(f"{reals.show(form)} is not of the form A − C·e^x with x > 0 "
                                f"(a δ); compute with the parts (.a, .c, .epsilon) instead")
    x = exponents[0]
    return Delta.make(terms.get(mpq(0), mpq(0)), -terms[x], Epsilon(nats=x))


def _parse(value: object) -> Delta:
    """``Delta(value)``: a δ given as a Delta, an exact number or text."""
    if isinstance(value, Delta):
        return value
    if isinstance(value, str):
        m = _FORM_RE.match(value.strip())
        if m:
            a, sign, c, x = m.groups()
            cc = rational(c, "delta")
            if rational(x, "delta") < 0:
                raise InvalidNumber(f"delta = {value!r}: the exponent {x} of exp is negative; "
                                    f"a δ A − C·e^ε is read at an ε ≥ 0", argument="delta",
                                    value=value)
            return Delta.make(rational(a, "delta"), cc if sign == "-" else -cc,
                              Epsilon.of_nats(x, "delta"))
        if "exp" in value:
            raise InvalidNumber(f"delta = {value!r} is not a δ; write an exact number (\"1/4\", "
                                f"\"1e-6\") or the form str() writes, \"A - C*exp(x)\" with "
                                f"exact A, C and x ≥ 0 (\"3/4 - 1/4*exp(1/2)\")",
                                argument="delta", value=value)
    return Delta.make(rational(value, "delta"), mpq(0), Epsilon.ZERO)
