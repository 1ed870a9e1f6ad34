"""A multiplicative basis of likelihood ratios: every ratio as a monomial ``Π g_i^{e_i}``.

Composition multiplies likelihood ratios, so a privacy-loss law whose ratios are products of
powers of a few rationals ``g_1, …, g_d`` is a Laurent polynomial in ``d`` variables: the
ratio ``Π g_i^{e_i}`` is the monomial ``Π x_i^{e_i}`` and its mass the coefficient
(:mod:`verifier.notions.composition.polynomial`). This module finds the fewest such
generators, exactly and without factoring:

1. A *coprime base* of the numerators and denominators: pairwise coprime integers ``b_j > 1``
   of which every one of them is a product of powers (Bach, Driscoll, Shallit, "Factor
   refinement", J. Algorithms 1993: replace two numbers sharing ``g = gcd(a, b) > 1`` by
   ``a/g``, ``g``, ``b/g`` until none share a factor). Each ratio is then an integer vector
   of exponents over the ``b_j``.
2. The lattice those vectors span, by its Hermite normal form (python-flint's ``fmpz_mat``):
   its ``d`` non-zero rows ``v_i`` are a basis, the generators are ``g_i = Π_j b_j^{v_ij}``
   (multiplicatively independent, since the ``b_j`` are coprime and the rows independent), and
   each ratio's coordinates ``e`` solve ``e·V = (its vector)`` by forward substitution on the
   pivots (exact division, checked).

Randomized response with truth 3/5 has ratios 3/2 and 2/3: base ``{2, 3}``, vectors
``(−1, 1)`` and ``(1, −1)``, one generator ``3/2`` and exponents ``±1``. With one generator
it is oriented so that ``g > 1`` (larger exponents, larger ratios).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from math import gcd

from flint import fmpz_mat
from gmpy2 import mpq, mpz

from verifier.core.errors import InvalidArgument

__all__ = ["Basis", "basis_of", "coprime_base"]


def coprime_base(numbers: Iterable[int]) -> tuple[int, ...]:
    """Pairwise coprime integers ``> 1`` such that every one of ``numbers`` (positive) is a
    product of their powers, sorted.

    >>> coprime_base([12, 18])
    (2, 3)
    >>> coprime_base([6, 36, 1])
    (6,)
    """
    base: list[int] = []
    for n in numbers:
        if n < 1:
            raise InvalidArgument(f"coprime_base: {n} is not a positive integer",
                                  argument="numbers", value=int(n))
        stack = [int(n)]
        while stack:  # the product of base ∪ stack falls at every split: this ends
            x = stack.pop()
            if x == 1:
                continue
            for i, b in enumerate(base):
                g = gcd(x, b)
                if g > 1:
                    if x != b:
                        base.pop(i)
                        stack.extend((b // g, g, x // g))
                    break
            else:
                base.append(x)
    return tuple(sorted(base))


def _valuations(n: int, base: Sequence[int]) -> list[int]:
    out = []
    for b in base:
        v = 0
        while n % b == 0:
            n //= b
            v += 1
        out.append(v)
    if n != 1:  # pragma: no cover - every input is a product of the base by construction
        raise AssertionError("coprime base does not cover its input")
    return out


@dataclass(frozen=True)
class Basis:
    """Generators ``g_1, …, g_d`` (multiplicatively independent rationals) of a set of ratios.

    ``base`` is the coprime base, ``rows`` the lattice basis over it (``g_i = Π_j
    base_j^{rows_ij}``) and ``pivots`` the first non-zero column of each row."""

    base: tuple[int, ...]
    rows: tuple[tuple[int, ...], ...]
    pivots: tuple[int, ...]
    generators: tuple[mpq, ...]

    @property
    def rank(self) -> int:
        return len(self.generators)

    def exponents(self, r: mpq) -> tuple[int, ...]:
        """The coordinates ``e`` with ``r = Π g_i^{e_i}``; an error if ``r`` is not such a
        product.

        >>> b = basis_of([mpq(3, 2), mpq(2, 3), mpq(9, 4)])
        >>> b.generators, b.exponents(mpq(4, 9))
        ((mpq(3,2),), (-2,))
        """
        r = mpq(r)
        if r <= 0:
            raise InvalidArgument(f"a ratio must be positive, not {r}", argument="ratio",
                                  value=str(r))
        num = _valuations(int(r.numerator), self.base)
        den = _valuations(int(r.denominator), self.base)
        v = [a - b for a, b in zip(num, den, strict=True)]
        coords: list[int] = []
        for row, p in zip(self.rows, self.pivots, strict=True):
            rest = v[p] - sum(c * prev[p] for c, prev in zip(coords, self.rows, strict=False))
            if rest % row[p]:
                raise InvalidArgument(f"{r} is not a product of powers of the generators",
                                      argument="ratio", value=str(r))
            coords.append(rest // row[p])
        back = [sum(c * row[j] for c, row in zip(coords, self.rows, strict=True))
                for j in range(len(self.base))]
        if back != v:
            raise InvalidArgument(f"{r} is not a product of powers of the generators",
                                  argument="ratio", value=str(r))
        return tuple(coords)


def _value(base: Sequence[int], row: Sequence[int]) -> mpq:
    out = mpq(1)
    for b, e in zip(base, row, strict=True):
        out *= mpq(mpz(b)) ** e
    return out


def basis_of(ratios: Iterable[mpq]) -> Basis:
    """The fewest generators of the positive rationals ``ratios`` (see the module)."""
    rs = sorted({mpq(r) for r in ratios})
    if any(r <= 0 for r in rs):
        raise InvalidArgument("ratios must be positive", argument="ratios",
                              value=[str(r) for r in rs if r <= 0])
    base = coprime_base([int(x) for r in rs for x in (r.numerator, r.denominator)])
    vectors = [[a - b for a, b in zip(_valuations(int(r.numerator), base),
                                      _valuations(int(r.denominator), base), strict=True)]
               for r in rs]
    vectors = [v for v in vectors if any(v)]
    if not vectors:
        return Basis(base, (), (), ())
    hnf = fmpz_mat(vectors).hnf()
    rows = [tuple(int(hnf[i, j]) for j in range(hnf.ncols())) for i in range(hnf.nrows())]
    rows = [row for row in rows if any(row)]
    if len(rows) == 1 and _value(base, rows[0]) < 1:
        rows = [tuple(-e for e in rows[0])]
    pivots = tuple(next(j for j, e in enumerate(row) if e) for row in rows)
    return Basis(base, tuple(rows), pivots, tuple(_value(base, row) for row in rows))
