"""The terms of a composed law above 1 in increasing value, by certified integer keys.

With several generators ``g_i`` (:mod:`verifier.notions.composition.basis`) a term
``x^e`` stands for the ratio ``Π g_i^{e_i}``, and a polynomial keeps its terms in the
lexicographic order of their exponents, not of their values. Computing every ratio to sort
them would cost a product of big integers per term; instead each generator gets an integer
``c_i`` with ``|c_i − 2^K·ln g_i| ≤ u_i`` (MPFR bounds, rounded outwards), and each term the
key ``Σ e_i·c_i``, within ``E = max_e Σ |e_i|·u_i`` of ``2^K·ln x^e``. So a key above
``E`` is a ratio ``> 1``, a key at most ``−E`` a ratio ``≤ 1``, and two terms whose keys are
more than ``2E`` apart are in the order of their keys; only terms closer than that (and the
few keys within ``E`` of 0) are compared by their exact ratios. Distinct exponents are
distinct ratios (the generators are independent), so the order is strict.

The polynomial is read row by row: a row is the terms sharing every exponent but the last,
stored together with the last exponent decreasing. A row that holds every exponent between
its ends (the usual case: all coefficients are positive, so a power fills its Newton
polygon) is found by a binary search for its end and kept as a ``range``; its keys are an
arithmetic progression, written as a ``range`` of packed integers ``key·2^B + index`` and
cut where the keys pass ``−E`` by bisection. So the work per term is that of Python's sort
(which merges the rows, already ordered runs) and of reading its coefficient; no exponent
tuple is made for a term unless a ratio is asked for.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from functools import reduce
from math import prod
from operator import mul, sub
from typing import Any

from gmpy2 import mpq

from verifier.core.certified import log_bounds

__all__ = ["monomial_value", "order_above_one", "Rows", "TermOrder"]

_KEY_BITS = 64  # a key resolves log-ratios 2^-64·E apart


def monomial_value(gens: Sequence[mpq], e: Sequence[int]) -> mpq:
    return reduce(mul, (g ** ei for g, ei in zip(gens, e, strict=True)), mpq(1))


class Rows:
    """A polynomial's terms as rows: ``starts[r]`` the index of row ``r``'s first term,
    ``heads[r]`` the exponents it shares (all but the last), ``lasts[r]`` its last exponents
    in storage order (decreasing: a ``range`` when it has no gap)."""

    def __init__(self, poly: Any) -> None:
        n = len(poly)
        degrees = [int(g) for g in poly.degrees()]  # flint integers, as all exponents read
        d = len(degrees)
        self.starts: list[int] = []
        self.heads: list[tuple[int, ...]] = []
        self.lasts: list[Sequence[int]] = []
        heads = prod(g + 1 for g in degrees[:-1])
        if heads * 2 * n.bit_length() > n:  # short rows: read every exponent at once
            self._from_monoms(poly.monoms())
            return
        monomial = poly.monomial
        i = 0
        while i < n:
            first = tuple(int(x) for x in monomial(i))
            head, top = first[:-1], first[-1]
            lo, hi = i, min(n - 1, i + top)  # a row holds at most top + 1 terms
            while lo < hi:
                mid = (lo + hi + 1) // 2
                if monomial(mid)[:-1] == head:
                    lo = mid
                else:
                    hi = mid - 1
            bottom = int(monomial(lo)[d - 1])
            self.starts.append(i)
            self.heads.append(head)
            self.lasts.append(range(top, bottom - 1, -1) if top - bottom == lo - i else
                              [int(monomial(j)[d - 1]) for j in range(i, lo + 1)])
            i = lo + 1

    def _from_monoms(self, monoms: list[tuple[int, ...]]) -> None:
        head = None
        for i, m in enumerate(monoms):
            if m[:-1] != head:
                head = tuple(int(x) for x in m[:-1])
                self.starts.append(i)
                self.heads.append(head)
                self.lasts.append([])
            self.lasts[-1].append(int(m[-1]))  # type: ignore[attr-defined]

    def exponents(self, i: int) -> tuple[int, ...]:
        """The exponents of the term at index ``i``."""
        r = bisect_right(self.starts, i) - 1
        return (*self.heads[r], self.lasts[r][i - self.starts[r]])


class TermOrder(Sequence):
    """The exponents (shifted) of the terms of value ``> 1`` in increasing value, read on
    demand; ``indices`` are their places in the polynomial."""

    def __init__(self, rows: Rows, indices: list[int], shift: Sequence[int]) -> None:
        self.rows, self.indices, self.shift = rows, indices, tuple(shift)

    def __len__(self) -> int:
        return len(self.indices)

    def __getitem__(self, j):
        if isinstance(j, slice):
            return [self[i] for i in range(*j.indices(len(self)))]
        e = self.rows.exponents(self.indices[j])
        return tuple(ei + si for ei, si in zip(e, self.shift, strict=True))


def _key_coefficients(gens: Sequence[mpq]) -> tuple[list[int], list[int]]:
    """``(c, u)``: integers with ``|c_i − 2^K·ln g_i| ≤ u_i``."""
    scale = mpq(1 << _KEY_BITS)
    c, u = [], []
    for g in gens:
        lo, hi = (b * scale for b in log_bounds(g, _KEY_BITS + 32))
        floor_lo = int(lo.numerator // lo.denominator)
        ceil_hi = -int((-hi.numerator) // hi.denominator)
        c.append(floor_lo)
        u.append(ceil_hi - floor_lo)
    return c, u


def order_above_one(gens: tuple[mpq, ...], poly: Any, shift: Sequence[int]) -> TermOrder:
    """The terms ``x^{m + shift}`` of the flint polynomial ``poly`` (exponents ``m ≥ 0``)
    whose value is ``> 1``, in increasing value (see the module)."""
    n = len(poly)
    rows = Rows(poly)
    c, u = _key_coefficients(gens)
    degrees = [int(g) for g in poly.degrees()]
    err = sum(max(abs(s), abs(s + g)) * w for s, g, w in zip(shift, degrees, u, strict=True))
    bits = max(n, 1).bit_length()
    floor = (1 - err) << bits  # packed values from here on have key > −E
    c_last, s_last = c[-1], shift[-1]
    packed: list[int] = []
    for start, head, lasts in zip(rows.starts, rows.heads, rows.lasts, strict=True):
        base = sum((h + s) * ci for h, s, ci in zip(head, shift, c, strict=False))
        if isinstance(lasts, range):
            first = ((base + (lasts[0] + s_last) * c_last) << bits) + start
            step = 1 - (c_last << bits)  # the next term: last exponent one less
            values = range(first, first + step * len(lasts), step)
            if step < 0:
                values = values[::-1]
            packed.extend(values[bisect_left(values, floor):])
        else:
            packed.extend(v for v in (((base + (b + s_last) * c_last) << bits) + start + j
                                      for j, b in enumerate(lasts)) if v >= floor)
    packed.sort()
    keys = [v >> bits for v in packed]
    mask = (1 << bits) - 1
    indices = [v & mask for v in packed]

    def value(i: int) -> mpq:
        return monomial_value(gens, [e + s for e, s in zip(rows.exponents(i), shift,
                                                            strict=True)])

    # keys within E of 0 come first: keep those whose exact value is > 1
    unsure = bisect_right(keys, err)
    if unsure:
        kept = [j for j in range(unsure) if value(indices[j]) > 1]
        keys = [keys[j] for j in kept] + keys[unsure:]
        indices = [indices[j] for j in kept] + indices[unsure:]
    # runs of keys at most 2E apart are ordered by their exact values
    close = [j for j, gap in enumerate(map(sub, keys[1:], keys[:-1])) if gap <= 2 * err]
    j = 0
    while j < len(close):
        stop = j
        while stop + 1 < len(close) and close[stop + 1] == close[stop] + 1:
            stop += 1
        lo, hi = close[j], close[stop] + 2  # the run is indices[lo:hi]
        indices[lo:hi] = sorted(indices[lo:hi], key=value)
        j = stop + 1
    return TermOrder(rows, indices, shift)
