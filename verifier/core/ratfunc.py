"""Rational functions of one indeterminate ``β`` with rational coefficients, exact, and their
value at a transcendental ``β = e^{−t}`` decided by certified arithmetic.

The probabilities of report noisy max and of the sparse vector technique with discrete Laplace
noise (``P[Z = k] = (1−β)/(1+β)·β^|k|``) are sums of products of masses and tails of that law,
over a finite window and two geometric tails in closed form (``Σ_{v≥V} β^{kv} = β^{kV}/(1−β^k)``):
rational functions of ``β`` with rational coefficients. Kept as a reduced quotient ``num/den``
of python-flint ``fmpq_poly`` (``den`` monic, ``gcd(num, den) = 1``: the representation is
unique, so ``==`` is equality of rational functions), the same code that sums the noise at a
rational ``α`` (:mod:`verifier.model.noise`) sums it symbolically when handed :meth:`beta`.

**At ``β = e^{−t}``** (``t`` rational, ``t ≠ 0``) a polynomial ``Σ c_k β^k`` is the exponential
sum ``Σ c_k e^{−kt}`` (:class:`~verifier.core.expsum.ExpSum`, its exact text), which is zero only
when every ``c_k`` is: ``β`` is transcendental (Lindemann), so no non-zero polynomial vanishes at
it. A sign is certified by evaluating the polynomial on a ball holding ``β`` (python-flint's
``arb``, rigorous ball arithmetic: Johansson, "Arb: efficient arbitrary-precision midpoint-radius
interval arithmetic", IEEE TC 2017) at rising precision until the ball excludes 0.

**``p(β) − e^ε·q(β)``** for a rational ``ε`` is zero only when it is identically: with
``ε/t = m/n`` in lowest terms and ``γ = e^{−t/n}`` (transcendental), it is the Laurent polynomial
``p(γ^n) − γ^{−m}·q(γ^n)``; for ``n > 1`` the exponents of the two parts differ modulo ``n``,
so both must vanish, and for ``n = 1`` it is ``p − β^{−m}·q`` in ``β`` (:func:`gap_sign`).

>>> b = RatFunc.beta()
>>> str((1 - b) / (1 + b) * b ** -1)
'((-1)*x + 1)/(x^2 + x)'
>>> (b * b / b == b, ((1 - b * b) / (1 - b)).at(mpq(1, 2)))
(True, mpq(3,2))
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from flint import arb, arb_poly, ctx, fmpq, fmpq_poly
from gmpy2 import mpq, mpz

from verifier.core.certified import MAX_PRECISION, ExpArgument
from verifier.core.errors import InvalidArgument, Undecided
from verifier.core.expsum import ExpSum
from verifier.core.numbers import rational

__all__ = ["RatFunc", "poly_expsum", "beta_sign", "gap_sign", "SIGN_PRECISION"]

SIGN_PRECISION = 1 << 16  # bits: a sign not decided here is Undecided


def _fmpq(x: mpq) -> fmpq:
    return fmpq(int(x.numerator), int(x.denominator))


def _mpq(x: fmpq) -> mpq:
    return mpq(mpz(int(x.p)), mpz(int(x.q)))


def poly_expsum(p: fmpq_poly, t: mpq) -> ExpSum:
    """``p(e^{−t}) = Σ c_k e^{−kt}`` as an exact exponential sum."""
    return ExpSum.of((-k * t, _mpq(c)) for k, c in enumerate(p.coeffs()) if c != 0)


def _ball_sign(evaluate, what: str) -> int:
    """The sign of a non-zero real whose ball ``evaluate()`` encloses at ``ctx.prec`` bits."""
    saved, prec = ctx.prec, 64
    try:
        while prec <= SIGN_PRECISION:
            ctx.prec = prec
            v = evaluate()
            if v > 0:
                return 1
            if v < 0:
                return -1
            prec *= 2
    finally:
        ctx.prec = saved
    raise Undecided(f"the sign of {what} is not decided at {SIGN_PRECISION} bits")


@lru_cache(maxsize=64)
def _beta_at(t: mpq, prec: int) -> arb:
    return arb(_fmpq(-t)).exp()


def _beta(t: mpq) -> arb:
    """A ball holding ``e^{−t}`` at the current precision (computed once per precision)."""
    return _beta_at(t, ctx.prec)


def beta_sign(p: fmpq_poly, t: mpq) -> int:
    """The sign of ``p(e^{−t})``, certified (0 only for the zero polynomial)."""
    if p.is_zero():
        return 0
    return _ball_sign(lambda: arb_poly(p)(_beta(t)), "a polynomial in e^(-t)")


def gap_sign(p: fmpq_poly, q: fmpq_poly, eps: ExpArgument, t: mpq) -> int:
    """The sign of ``p(β) − e^ε·q(β)`` at ``β = e^{−t}`` (ε finite: ``ln(base)`` or nats),
    certified; 0 exactly when the difference is identically 0 (module docstring)."""
    if eps.base is not None:
        return beta_sign(p - q * _fmpq(eps.base), t)
    nats = eps.nats
    assert nats is not None
    ratio = nats / t
    if ratio.denominator == 1:  # e^ε = β^{−m}: the sign of β^m·p − q (β^m > 0)
        m = int(ratio)
        shifted = p * fmpq_poly([0] * m + [1]) - q if m >= 0 else \
            p - q * fmpq_poly([0] * -m + [1])
        return beta_sign(shifted, t)
    if q.is_zero():
        return beta_sign(p, t)
    if p.is_zero():
        return -beta_sign(q, t)
    e = _fmpq(nats)
    return _ball_sign(lambda: arb_poly(p)(_beta(t)) - arb(e).exp() * arb_poly(q)(_beta(t)),
                      "a difference of polynomials in e^(-t) and e^ε")


@dataclass(frozen=True, slots=True, eq=False)
class RatFunc:
    """``num/den`` in the indeterminate ``β`` (printed ``x``), reduced with ``den`` monic."""

    num: fmpq_poly
    den: fmpq_poly

    @staticmethod
    def reduced(num: fmpq_poly, den: fmpq_poly) -> RatFunc:
        if den.is_zero():
            raise InvalidArgument("a rational function with denominator 0", argument="den")
        if num.is_zero():
            return RatFunc(fmpq_poly([0]), fmpq_poly([1]))
        g = num.gcd(den)
        if not g.is_one():
            num, den = num // g, den // g
        lead = den.leading_coefficient()
        if lead != 1:
            num, den = num / lead, den / lead
        return RatFunc(num, den)

    @staticmethod
    def beta() -> RatFunc:
        """The indeterminate ``β``."""
        return RatFunc(fmpq_poly([0, 1]), fmpq_poly([1]))

    @staticmethod
    def constant(c: object) -> RatFunc:
        return RatFunc(fmpq_poly([_fmpq(rational(c, "constant"))]), fmpq_poly([1]))

    @staticmethod
    def _lift(other: object) -> RatFunc:
        return other if isinstance(other, RatFunc) else RatFunc.constant(other)

    # -- arithmetic -------------------------------------------------------------
    def __add__(self, other: object) -> RatFunc:
        o = RatFunc._lift(other)
        if self.den == o.den:
            return RatFunc.reduced(self.num + o.num, self.den)
        return RatFunc.reduced(self.num * o.den + o.num * self.den, self.den * o.den)

    __radd__ = __add__

    def __neg__(self) -> RatFunc:
        return RatFunc(-self.num, self.den)

    def __sub__(self, other: object) -> RatFunc:
        return self + (-RatFunc._lift(other))

    def __rsub__(self, other: object) -> RatFunc:
        return RatFunc._lift(other) - self

    def __mul__(self, other: object) -> RatFunc:
        o = RatFunc._lift(other)
        return RatFunc.reduced(self.num * o.num, self.den * o.den)

    __rmul__ = __mul__

    def __truediv__(self, other: object) -> RatFunc:
        o = RatFunc._lift(other)
        if o.num.is_zero():
            raise ZeroDivisionError("division of a rational function by 0")
        return RatFunc.reduced(self.num * o.den, self.den * o.num)

    def __rtruediv__(self, other: object) -> RatFunc:
        return RatFunc._lift(other) / self

    def __pow__(self, k: int) -> RatFunc:
        if k >= 0:  # a power of a reduced quotient with a monic denominator is one
            return RatFunc(self.num ** k, self.den ** k)
        return RatFunc.reduced(self.den ** -k, self.num ** -k)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, (RatFunc, int, mpq)):
            return NotImplemented
        o = RatFunc._lift(other)
        return bool(self.num == o.num and self.den == o.den)

    def __hash__(self) -> int:
        return hash((str(self.num), str(self.den)))

    # -- reading ----------------------------------------------------------------
    @property
    def is_zero(self) -> bool:
        return bool(self.num.is_zero())

    @property
    def monomial(self) -> tuple[mpq, int] | None:
        """``(c, k)`` when this is ``c·β^k`` (``k`` any integer)."""
        nz = [(k, c) for k, c in enumerate(self.num.coeffs()) if c != 0]
        dz = [k for k, c in enumerate(self.den.coeffs()) if c != 0]
        if len(nz) != 1 or len(dz) != 1:
            return None
        return _mpq(nz[0][1]), nz[0][0] - dz[0]

    def at(self, alpha: object) -> mpq:
        """The value at the rational ``β = alpha``, exact."""
        a = _fmpq(rational(alpha, "alpha"))
        d = self.den(a)
        if d == 0:
            raise InvalidArgument(f"{self} has a pole at β = {alpha}", argument="alpha",
                                  value=alpha)
        return _mpq(self.num(a)) / _mpq(d)

    def expsums(self, t: mpq) -> tuple[ExpSum, ExpSum]:
        """Numerator and denominator at ``β = e^{−t}``, exact exponential sums."""
        return poly_expsum(self.num, t), poly_expsum(self.den, t)

    def sign(self, t: mpq) -> int:
        """The sign at ``β = e^{−t}`` (``t ≠ 0``), certified; raises
        :class:`~verifier.core.errors.Undecided` at the precision cap."""
        return beta_sign(self.num, t) * beta_sign(self.den, t)

    def enclose(self, t: mpq, prec: int) -> tuple[mpq, mpq]:
        """Rational bounds on the value at ``β = e^{−t}``: the quotient of the enclosures at
        ``prec`` bits, the precision doubled while the denominator's enclosure holds 0."""
        n, d = self.expsums(t)
        while True:
            d_lo, d_hi = d.enclose(prec)
            if not d_lo <= 0 <= d_hi:
                break
            if prec > MAX_PRECISION:
                raise Undecided(f"the denominator {d} is not separated from 0 at "
                                f"{MAX_PRECISION} bits")
            prec *= 2
        n_lo, n_hi = n.enclose(prec)
        quotients = [a / b for a in (n_lo, n_hi) for b in (d_lo, d_hi)]
        return min(quotients), max(quotients)

    def __str__(self) -> str:
        if self.den.is_one():
            return str(self.num)
        return f"({self.num})/({self.den})"
