"""The certified binomial law of the enclosure mode, cut after its last needed index, against
exact sums written out with Fractions: every interval sum is a ball containing the exact
value, and the cut law's balls stay as narrow as the full law's where it matters."""

from __future__ import annotations

import random
from fractions import Fraction
from math import comb

import flint
import pytest
from gmpy2 import mpq

from verifier.engines.enclosure import _Law


def _exact(u: int, p: Fraction, a: int, b: int) -> Fraction:
    return sum((comb(u, x) * p ** x * (1 - p) ** (u - x)
                for x in range(max(a, 0), min(b, u) + 1)), Fraction(0))


def _contains(ball: flint.arb, x: Fraction) -> bool:
    return bool(ball.contains(flint.fmpq(x.numerator, x.denominator)))


@pytest.mark.parametrize("u,p,need", [(60, "1/1000", 5), (60, "1/10", 9), (200, "1/3", 80),
                                      (40, "1/2", 0), (30, "9/10", 3), (1, "1/7", 0)])
def test_every_interval_sum_contains_the_exact_one(u, p, need):
    old = flint.ctx.prec
    flint.ctx.prec = 64
    try:
        cut, full = _Law(u, mpq(p), need), _Law(u, mpq(p))
        assert len(full.mass) == u + 1
        rng = random.Random(u)
        pairs = [(a, b) for a in range(-2, u + 3) for b in (a, a + 1, a + 7, u, u + 2)]
        for a, b in rng.sample(pairs, min(300, len(pairs))) + [(u, u), (0, 0), (need, u)]:
            exact = _exact(u, Fraction(p), a, b)
            assert _contains(cut.between(a, b), exact), (a, b)
            assert _contains(full.between(a, b), exact), (a, b)
            if a <= need and exact:  # sums that start at or below need: still narrow
                width = cut.between(a, b).rad() / flint.arb(flint.fmpq(exact.numerator,
                                                                        exact.denominator))
                assert width < flint.arb(2) ** -40, (a, b)
    finally:
        flint.ctx.prec = old


def test_the_law_is_cut_where_the_tail_is_negligible():
    """Small p: the masses stop a few indices past need (the tail falls geometrically)."""
    law = _Law(10_000, mpq(1, 10 ** 6), 100)
    assert 100 < len(law.mass) < 200
