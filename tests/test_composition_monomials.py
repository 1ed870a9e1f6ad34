"""Reading a composed polynomial's terms in increasing value, against flint and exact sorts.

The rows are checked against flint's own list of exponents; the order against a sort of the
exact ratios written here with Fractions (no enclosure). Keys of very few bits force the
exact comparisons (runs of close keys, keys near 0) that the default precision rarely needs.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from flint import fmpz_mpoly_ctx
from gmpy2 import mpq

from verifier.notions.composition import monomials
from verifier.notions.composition.monomials import Rows, order_above_one


def _poly(terms: dict, d: int):
    ctx = fmpz_mpoly_ctx.get(tuple(f"x{i}" for i in range(d)), "lex")
    return ctx.from_dict(terms)


def _flint_exponents(poly) -> list[tuple[int, ...]]:
    return [tuple(int(x) for x in m) for m in poly.monoms()]


@pytest.mark.parametrize("terms,k", [
    ({(2, 1): 2, (1, 2): 3, (0, 1): 1, (1, 0): 1, (1, 1): 3}, 60),  # full rows: ranges
    ({(0, 0): 1, (0, 2): 1, (1, 0): 1}, 40),                         # rows of even steps
    ({(0, 0): 1, (0, 3): 2, (0, 5): 1, (1, 0): 1}, 9),               # gaps at small powers
    ({(0, 0, 0): 1, (1, 0, 2): 1, (0, 1, 1): 1, (2, 1, 0): 3}, 6),   # three variables
])
def test_rows_list_every_term_as_flint_does(terms, k):
    poly = _poly(terms, len(next(iter(terms)))) ** k
    rows = Rows(poly)
    assert [rows.exponents(i) for i in range(len(poly))] == _flint_exponents(poly)
    assert rows.starts[0] == 0 and rows.starts == sorted(set(rows.starts))


def test_long_rows_are_searched_and_kept_as_ranges():
    """Two variables, high powers: few rows, each found by a binary search; a row without
    gaps is a range, a row of even steps a list."""
    full = Rows(_poly({(1, 1): 3, (2, 1): 2, (0, 1): 1, (1, 2): 3, (1, 0): 1}, 2) ** 80)
    assert len(full.starts) == 161 and all(isinstance(x, range) for x in full.lasts)
    even = Rows(_poly({(0, 0): 1, (0, 2): 1, (1, 0): 1}, 2) ** 80)
    assert all(isinstance(x, list) for x in even.lasts if len(x) > 1)


def _exact_order(gens, poly, shift) -> list[tuple[int, ...]]:
    values = []
    for m in _flint_exponents(poly):
        e = tuple(a + s for a, s in zip(m, shift, strict=True))
        v = Fraction(1)
        for g, ei in zip(gens, e, strict=True):
            v *= Fraction(int(g.numerator), int(g.denominator)) ** ei
        if v > 1:
            values.append((v, e))
    return [e for _, e in sorted(values)]


@pytest.mark.parametrize("bits", [64, 6, 1])
@pytest.mark.parametrize("seed", range(6))
def test_terms_above_one_come_in_increasing_value(seed, bits, monkeypatch):
    """Random polynomials in two or three generators (some below 1), random shifts: the
    order and exponents equal an exact sort of the ratios; with keys of 6 or 1 bits most
    neighbours are decided by exact comparison."""
    monkeypatch.setattr(monomials, "_KEY_BITS", bits)
    rng = random.Random(seed)
    pool = [mpq(2), mpq(3), mpq(3, 2), mpq(5, 7), mpq(1, 3), mpq(10, 9)]
    for _ in range(4):
        d = rng.choice((2, 2, 3))
        gens = tuple(rng.sample(pool, d))
        terms = {tuple(rng.randint(0, 2) for _ in range(d)): rng.randint(1, 5)
                 for _ in range(rng.randint(2, 5))}
        poly = _poly(terms, d) ** rng.randint(1, 12)
        shift = [-rng.randint(0, 12) for _ in range(d)]
        order = order_above_one(gens, poly, shift)
        assert list(order) == _exact_order(gens, poly, shift)
        assert [tuple(int(x) for x in poly.monomial(i)) for i in order.indices] == \
            [tuple(e - s for e, s in zip(x, shift, strict=True)) for x in order]
