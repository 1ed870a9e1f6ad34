"""The monomials of a composed law in increasing value, by certified enclosures.

With several generators ``g_i`` (:mod:`verifier.notions.composition.basis`) a term
``x^e`` stands for the ratio ``Π g_i^{e_i}``, and the terms of a polynomial come in the
order of their exponents, not of their values. Computing every ratio to sort them would cost
a product of big integers per term; instead each term gets an integer enclosure
``[lo, hi] ∋ 2^K·Σ e_i·ln g_i`` (MPFR bounds on each ``ln g_i``, rounded outwards), the
terms are sorted by ``lo``, and only a run of overlapping enclosures is ordered by the exact
ratios. Distinct exponents are distinct ratios (the generators are independent), so the
order is strict.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import reduce
from operator import mul

from gmpy2 import mpq

from verifier.core.certified import log_bounds

__all__ = ["monomial_value", "order_above_one"]

_KEY_BITS = 96  # precision of the enclosures that order the terms


def monomial_value(gens: Sequence[mpq], e: Sequence[int]) -> mpq:
    return reduce(mul, (g ** ei for g, ei in zip(gens, e, strict=True)), mpq(1))


def order_above_one(gens: tuple[mpq, ...], monoms: Sequence[tuple], shift: Sequence[int]
                     ) -> tuple[list[int], tuple[tuple[int, ...], ...]]:
    """``(order, exponents)``: the indices of the monomials ``x^{m + shift}`` of value
    ``> 1``, in increasing value, and their exponents. Terms are sorted by an integer
    enclosure ``[lo, hi]`` of ``2^K·Σ e_i·ln g_i``; a run of overlapping enclosures is
    re-sorted by the exact values, and a sign the enclosure leaves open is decided exactly."""
    bounds = [log_bounds(g, _KEY_BITS + 32) for g in gens]
    scale = mpq(1 << _KEY_BITS)
    lo_c = [int((b[0] * scale).numerator // (b[0] * scale).denominator) for b in bounds]
    hi_c = [-int((-b[1] * scale).numerator // (b[1] * scale).denominator) for b in bounds]
    tables: list[dict] = [{} for _ in gens]  # monomial exponent ↦ (e_i, lo_i, hi_i)

    def term(i: int, m: int) -> tuple[int, int, int]:
        known = tables[i].get(m)
        if known is None:
            ei = int(m) + shift[i]
            known = (ei, ei * lo_c[i], ei * hi_c[i]) if ei >= 0 else \
                (ei, ei * hi_c[i], ei * lo_c[i])
            tables[i][m] = known
        return known

    keyed = []
    for j, mono in enumerate(monoms):
        lo = hi = 0
        for i, m in enumerate(mono):
            _, a, b = term(i, m)
            lo += a
            hi += b
        if hi <= 0:
            continue
        if lo <= 0:
            e = tuple(term(i, m)[0] for i, m in enumerate(mono))
            if not monomial_value(gens, e) > 1:
                continue
        keyed.append((lo, hi, j))
    keyed.sort()

    def exponents(j: int) -> tuple[int, ...]:
        return tuple(term(i, m)[0] for i, m in enumerate(monoms[j]))

    order: list[int] = []
    i = 0
    while i < len(keyed):  # runs of enclosures that overlap the run's highest end
        top, stop = keyed[i][1], i + 1
        while stop < len(keyed) and keyed[stop][0] <= top:
            top = max(top, keyed[stop][1])
            stop += 1
        run = [j for _, _, j in keyed[i:stop]]
        if len(run) > 1:
            run.sort(key=lambda j: monomial_value(gens, exponents(j)))
        order.extend(run)
        i = stop
    return order, tuple(exponents(j) for j in order)
