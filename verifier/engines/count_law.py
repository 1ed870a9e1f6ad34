"""The law of the number of ones among independent binary records, as one integer array.

For records ``D_j ∈ {v0, v1}`` with ``P[D_j = v1] = s_j/d_j``, the number of ones
``X = #{j : D_j = v1}`` has ``P[X = x] = N[x]/S`` with integers

    N[x] = e_x(s_1, …, s_u; d_1 − s_1, …, d_u − s_u)       S = Π_j d_j

(the coefficient of ``z^x`` in ``Π_j ((d_j − s_j) + s_j·z)``). For i.i.d. records this is the
binomial law ``N[x] = C(u, x)·s^x·(d − s)^(u − x)``, ``S = d^u``, computed by the exact
recurrence ``N[x+1] = N[x]·(u − x)·s / ((x + 1)·(d − s))``; otherwise the factors are
multiplied out one record at a time.

Log-concavity: ``Π_j ((d_j − s_j) + s_j·z)`` has only real roots, so by Newton's inequalities
its coefficients satisfy ``N[x]² ≥ N[x−1]·N[x+1]`` and have no internal zeros. Hence the
likelihood ratio ``N[x]/N[x−1]`` is non-increasing in ``x`` on the support: the count engine
(:mod:`verifier.engines.shift_table`) relies on it to find, for any ``e^ε``, the outputs with
ratio ``> e^ε`` as one interval.

``prefix[x] = Σ_{y < x} N[y]`` turns any interval sum into one subtraction.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import reduce

from gmpy2 import lcm, mpz

from verifier.core.distribution import Dist

__all__ = ["OnesLaw", "ones_law", "integer_weights"]

_CACHE: OrderedDict[tuple, OnesLaw] = OrderedDict()
_CACHE_ENTRIES = 8
_CACHE_BITS = 1 << 29  # laws above 64 MB of digits are not kept across analyses


@dataclass(frozen=True, eq=False)
class OnesLaw:
    """``P[X = x] = mass[x]/scale`` (``x = 0..u``), with ``prefix[x] = Σ_{y<x} mass[y]``."""

    mass: tuple[mpz, ...]
    scale: mpz
    prefix: tuple[mpz, ...]
    step: tuple[mpz, mpz] | None = None  # (s, d − s) of i.i.d. records, both > 0

    def ratio(self, x: int) -> tuple[mpz, mpz]:
        """``N[x]/N[x−1]`` as ``(numerator, denominator)`` for ``1 ≤ x ≤ u`` on the support:
        ``((u − x + 1)·s, x·(d − s))`` for i.i.d. records (small integers), else the masses."""
        if self.step is not None:
            s, r = self.step
            return (self.size - x + 1) * s, x * r
        return self.mass[x], self.mass[x - 1]

    @property
    def size(self) -> int:
        """``u``: the number of records counted."""
        return len(self.mass) - 1

    def support(self) -> tuple[int, int]:
        """``(lo, hi)``: the least and largest ``x`` with ``P[X = x] > 0`` (no gaps between)."""
        lo = next(x for x, w in enumerate(self.mass) if w)
        hi = next(x for x in range(len(self.mass) - 1, -1, -1) if self.mass[x])
        return lo, hi

    def between(self, lo: int, hi: int) -> mpz:
        """``Σ_{lo ≤ x ≤ hi} mass[x]`` (indices outside ``0..u`` carry no mass)."""
        top = len(self.mass)
        a, b = max(lo, 0), min(hi + 1, top)
        return self.prefix[b] - self.prefix[a] if a < b else mpz(0)


def integer_weights(prior: Dist, values: Sequence) -> tuple[list[mpz], mpz]:
    """``([n_v for v in values], d)`` with ``prior[v] = n_v/d``, ``d`` the lcm of the
    denominators."""
    d = reduce(lcm, (w.denominator for _, w in prior.items()), mpz(1))
    return [(prior[v] * d).numerator for v in values], d


def _binomial(u: int, s: mpz, r: mpz) -> list[mpz]:
    if s == 0 or r == 0:  # a degenerate prior: all mass on one end
        out = [mpz(0)] * (u + 1)
        out[0 if s == 0 else u] = (r if s == 0 else s) ** u
        return out
    w = r ** u
    out = [w]
    for x in range(u):
        w = w * ((u - x) * s) // ((x + 1) * r)  # exact: C(u, x+1)·s^(x+1)·r^(u−x−1)
        out.append(w)
    return out


def _product(weights: Sequence[tuple[mpz, mpz]]) -> list[mpz]:
    out = [mpz(1)]
    for r, s in weights:
        nxt = [w * r for w in out] + [mpz(0)]
        if s:
            for x, w in enumerate(out):
                nxt[x + 1] += w * s
        out = nxt
    return out


def ones_law(priors: Sequence[Dist], values: tuple, memo: dict | None = None) -> OnesLaw:
    """The law of ``#{j : D_j = values[1]}`` for independent records with these priors over
    the two ``values``. Laws of modest size are kept for later analyses (a sweep over
    thresholds reuses the same law); ``memo`` shares laws of any size within one analysis."""
    seen: dict[int, tuple[list[mpz], mpz]] = {}  # i.i.d. models repeat one prior object
    ints = [seen.get(id(p)) or seen.setdefault(id(p), integer_weights(p, values))
            for p in priors]
    per_record = tuple((w[0], w[1], d) for w, d in ints)
    identical = len(set(per_record)) == 1
    key = (per_record[0], len(per_record)) if identical else per_record
    law = _CACHE.get(key) or (memo.get(key) if memo is not None else None)
    if law is not None:
        if key in _CACHE:
            _CACHE.move_to_end(key)
        return law
    if not ints:
        mass, scale = [mpz(1)], mpz(1)
    elif identical:
        r, s, d = per_record[0]
        u = len(per_record)
        mass, scale = _binomial(u, mpz(s), mpz(r)), mpz(d) ** u
    else:
        mass = _product([(w[0], w[1]) for w, _ in ints])
        scale = reduce(lambda a, b: a * b, (d for _, d in ints), mpz(1))
    prefix = [mpz(0)]
    for w in mass:
        prefix.append(prefix[-1] + w)
    step = None
    if identical and per_record[0][0] and per_record[0][1]:
        step = (mpz(per_record[0][1]), mpz(per_record[0][0]))
    law = OnesLaw(tuple(mass), scale, tuple(prefix), step)
    if memo is not None:
        memo[key] = law
    if scale.bit_length() * len(mass) <= _CACHE_BITS:
        _CACHE[key] = law
        if len(_CACHE) > _CACHE_ENTRIES:
            _CACHE.popitem(last=False)
    return law
