"""Ordering fractions of long integers without multiplying them out, when they are apart.

Comparing ``a/b`` with ``c/d`` exactly needs ``a·d`` and ``c·b``: products of integers with
hundreds of thousands of bits. Enclosures of both quotients in floating point with directed
rounding (MPFR) decide the order whenever the intervals are disjoint; the exact products are
formed only when they overlap.
"""

from __future__ import annotations

import gmpy2
from gmpy2 import mpz

__all__ = ["bounds", "greater"]


def bounds(x: tuple[mpz, mpz], prec: int) -> tuple[gmpy2.mpfr, gmpy2.mpfr]:
    """An interval of ``prec``-bit floats containing ``x[0]/x[1]`` (directed rounding)."""
    ctx = gmpy2.get_context()
    with gmpy2.context(ctx, precision=prec, round=gmpy2.RoundDown):
        n_lo, d_lo = gmpy2.mpfr(x[0]), gmpy2.mpfr(x[1])
    with gmpy2.context(ctx, precision=prec, round=gmpy2.RoundUp):
        n_hi, d_hi = gmpy2.mpfr(x[0]), gmpy2.mpfr(x[1])
        hi = n_hi / d_lo
    with gmpy2.context(ctx, precision=prec, round=gmpy2.RoundDown):
        lo = n_lo / d_hi
    return lo, hi


def greater(a: tuple[mpz, mpz], b: tuple[mpz, mpz]) -> bool:
    """``a[0]/a[1] > b[0]/b[1]`` for positive fractions: decided by enclosures at rising
    precision while they are apart (cheaper than products of long integers), else exactly."""
    longest = max(a[0].bit_length(), a[1].bit_length(), b[0].bit_length(), b[1].bit_length())
    prec = 64
    while prec < longest // 4:
        a_lo, a_hi = bounds(a, prec)
        b_lo, b_hi = bounds(b, prec)
        if a_lo > b_hi:
            return True
        if a_hi < b_lo:
            return False
        prec *= 8
    return a[0] * b[1] > b[0] * a[1]
