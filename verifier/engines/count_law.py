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

Memory: the array holds ``u + 1`` integers of up to ``u·log2(d)`` bits, quadratic in ``u``
(40 GB with its prefix sums for 90,000 records at ``d = 10^6``). Above
:data:`LAZY_BITS` the binomial law is therefore streamed instead (:class:`_Stream`): the
recurrence is run forward once, keeping ``(N[x], prefix[x])`` every :data:`BLOCK` indices, and
an entry is read from the few blocks last rebuilt from those checkpoints (reads that move
steadily up or down cost one step of the recurrence each); an entry far beyond the streamed
part is a closed form ``C(u, x)·s^x·(d − s)^(u − x)``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import reduce

import gmpy2
from gmpy2 import comb, fac, lcm, mpz

from verifier.core.distribution import Dist

__all__ = ["OnesLaw", "ones_law", "integer_weights", "law_bytes", "LAZY_BITS", "BLOCK"]

_CACHE: OrderedDict[tuple, OnesLaw] = OrderedDict()
_CACHE_ENTRIES = 8
_CACHE_BITS = 1 << 29  # laws above 64 MB of digits are not kept across analyses
LAZY_BITS = 1 << 30  # binomial laws above 128 MB of digits are streamed (_Stream)
BLOCK = 128  # indices between two checkpoints of a streamed law
_KEEP_BYTES = 3 << 30  # blocks of a streamed law kept while they fit (at least four)


class _Stream:
    """``N[x] = C(u, x)·s^x·r^(u−x)`` and ``prefix[x]`` on demand (see the module). A block
    keeps the ``BLOCK + 1`` prefix sums from its checkpoint on (a mass is the difference of
    two); blocks are kept while they fit in :data:`_KEEP_BYTES`, then the least recently
    read is dropped."""

    def __init__(self, u: int, s: mpz, r: mpz) -> None:
        self.u, self.s, self.r = u, s, r
        self.total = (s + r) ** u
        self.points: list[tuple[mpz, mpz]] = [(r ** u, mpz(0))]  # at x = c·BLOCK
        self.blocks: OrderedDict[int, list[mpz]] = OrderedDict()
        digits = (u * max(int(s.bit_length()), int(r.bit_length()), int((s + r).bit_length()))
                  ) // 8 + 32
        self.keep = max(4, _KEEP_BYTES // ((BLOCK + 1) * digits))

    def _walk(self, c: int, keep: bool) -> list[mpz] | None:
        """Run the recurrence over block ``c`` from its checkpoint; record the next one."""
        w, acc = self.points[c]
        u, s, r = self.u, self.s, self.r
        prefixes: list[mpz] = []
        for x in range(c * BLOCK, min((c + 1) * BLOCK, u + 1)):
            if keep:
                prefixes.append(acc)
            acc += w
            w = w * ((u - x) * s) // ((x + 1) * r)  # exact; 0 past x = u
        if len(self.points) == c + 1:
            self.points.append((w, acc))
        if not keep:
            return None
        prefixes.append(acc)
        return prefixes

    def _block(self, c: int) -> list[mpz]:
        got = self.blocks.get(c)
        if got is not None:
            self.blocks.move_to_end(c)
            return got
        while len(self.points) <= c:
            self._walk(len(self.points) - 1, False)
        got = self._walk(c, True)
        assert got is not None
        self.blocks[c] = got
        if len(self.blocks) > self.keep:
            self.blocks.popitem(last=False)
        return got

    def mass(self, x: int) -> mpz:
        c = x // BLOCK
        if c in self.blocks or c <= len(self.points):
            block = self._block(c)
            return block[x - c * BLOCK + 1] - block[x - c * BLOCK]
        return comb(self.u, x) * self.s ** x * self.r ** (self.u - x)

    def between(self, a: int, b: int) -> mpz | None:
        """``Σ_{a ≤ x ≤ b} N[x]`` (``0 ≤ a ≤ b ≤ u``) by the recurrence from a closed form,
        for a short interval beyond the streamed part (None otherwise): the one mass at
        ``x = u`` must not stream the whole law."""
        if b - a > BLOCK or a // BLOCK <= len(self.points) or a // BLOCK in self.blocks:
            return None
        u, s, r = self.u, self.s, self.r
        w, acc = self.mass(a), mpz(0)
        for x in range(a, b + 1):
            acc += w
            w = w * ((u - x) * s) // ((x + 1) * r)
        return acc

    def prefix(self, x: int) -> mpz:
        if x <= 0:
            return mpz(0)
        if x > self.u:
            return self.total
        c = x // BLOCK
        return self._block(c)[x - c * BLOCK]


def law_bytes(size: int, bits: int, streamable: bool, read: int | None = None) -> int:
    """Bytes of digits held by the law of ``size`` records and its prefix sums (entries of
    ``bits`` bits, ``b/8 + 32`` bytes each): all ``2(size + 2)`` entries, or — for a law that
    :func:`ones_law` streams (``streamable``: i.i.d. records, both values possible) — its
    checkpoints on both sides (:class:`_TwoSided`) and the blocks kept: those holding the
    ``read`` indices the reads cover (all when None), four more per side, at most
    :data:`_KEEP_BYTES` per side."""
    digits = (bits + 7) // 8 + 32
    if not streamable or (size + 1) * bits <= LAZY_BITS:
        return 2 * (size + 2) * digits
    covered = size + 2 if read is None else min(read, size + 2)
    kept = min(2 * _KEEP_BYTES, (covered + 10 * (BLOCK + 1)) * digits)
    return kept + 2 * (size // BLOCK + 2) * digits


def _merge(left: tuple[int, mpz, mpz, mpz], right: tuple[int, mpz, mpz, mpz]
           ) -> tuple[int, mpz, mpz, mpz]:
    return (left[0] + right[0], left[1] * right[1], left[2] * right[2],
            left[3] * right[2] + left[1] * right[3])


class _TwoSided:
    """A streamed law read from both ends: entries in the upper half come from the mirrored
    law (``N[x] = N'[u − x]`` with ``s`` and ``r`` swapped), prefix sums there as the total
    less a suffix sum, so that no read streams past the middle."""

    def __init__(self, u: int, s: mpz, r: mpz) -> None:
        self.u = u
        self.low, self.high = _Stream(u, s, r), _Stream(u, r, s)
        self.total = self.low.total

    def mass(self, x: int) -> mpz:
        return self.low.mass(x) if 2 * x <= self.u else self.high.mass(self.u - x)

    def prefix(self, x: int) -> mpz:
        if x <= 0:
            return mpz(0)
        if x > self.u:
            return self.total
        if 2 * x <= self.u + 1:
            return self.low.prefix(x)
        return self.total - self.high.prefix(self.u - x + 1)

    def range_sum(self, a: int, b: int) -> mpz:
        """``Σ_{a ≤ x < b} N[x]`` for ``0 ≤ a < b ≤ u + 1``, with the fewest subtractions of
        long numbers: a sum from 0 is a prefix sum, one to the end a suffix sum."""
        u = self.u
        low_a, low_b = 2 * a <= u + 1, 2 * b <= u + 1
        if not low_a:  # both ends on the upper side: suffix sums of the mirrored law
            short = self.high.between(u - b + 1, u - a)
            if short is not None:
                return short
            top = self.high.prefix(u - a + 1)
            return top if b > u else top - self.high.prefix(u - b + 1)
        if b > u:
            return self.total - self.low.prefix(a) if a else self.total
        if low_b:
            return self.low.prefix(b) - self.low.prefix(a) if a else self.low.prefix(b)
        return self.prefix(b) - self.prefix(a)


class _View(Sequence):
    """``mass`` or ``prefix`` of a streamed law, as a sequence (``prefix`` has ``u + 2``)."""

    def __init__(self, stream: _TwoSided, read, length: int) -> None:
        self.stream, self._read, self._length = stream, read, length

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, x):
        if isinstance(x, slice):
            return [self[i] for i in range(*x.indices(self._length))]
        if not 0 <= x < self._length:
            if -self._length <= x < 0:
                return self._read(x + self._length)
            raise IndexError(x)
        return self._read(x)


@dataclass(frozen=True, eq=False)
class OnesLaw:
    """``P[X = x] = mass[x]/scale`` (``x = 0..u``), with ``prefix[x] = Σ_{y<x} mass[y]``."""

    mass: Sequence[mpz]
    scale: mpz
    prefix: Sequence[mpz]
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
        if self.step is not None:  # both ends possible
            return 0, self.size
        lo = next(x for x, w in enumerate(self.mass) if w)
        hi = next(x for x in range(len(self.mass) - 1, -1, -1) if self.mass[x])
        return lo, hi

    def weighted(self, values: Iterable[mpz]) -> mpz:
        """``Σ_x N[x]·v_x`` for ``v_0, …, v_u`` in order (the values are read once, in
        order). For i.i.d. records ``N[x] = r^u·Π_{j<x} p_j/q_j`` with ``p_j = (u − j)·s``,
        ``q_j = (j + 1)·r``, and the sum is formed by binary splitting (Bernstein, "Fast
        multiplication and its applications", 2008, §12; the method of Brent's evaluation of
        hypergeometric series): over a run ``[a, b)`` of indices keep ``P = Π p_j``,
        ``Q = Π q_j`` and ``T = Σ_x (Π_{a≤j<x} p_j)(Π_{x≤j<b} q_j)·v_x``; two neighbouring
        runs merge as ``T = T_l·Q_r + P_l·T_r``, and the sum is ``r^u·T/Q`` over the whole
        range, an exact division. Each big ``v_x`` is thus multiplied by small integers
        near the leaves and only a few big products are formed near the root, instead of
        one product by the ``u·log2(d)``-bit ``N[x]`` per index."""
        if self.step is None:
            return sum((w * v for w, v in zip(self.mass, values, strict=True)), mpz(0))
        s, r = self.step
        u = self.size
        stack: list[tuple[int, mpz, mpz, mpz]] = []  # (length, P, Q, T) of adjacent runs
        seen = 0
        for x, v in enumerate(values):
            q = mpz((x + 1) * r)
            node = (1, mpz((u - x) * s), q, q * v)
            while stack and stack[-1][0] == node[0]:
                node = _merge(stack.pop(), node)
            stack.append(node)
            seen = x + 1
        if seen != u + 1:
            raise ValueError(f"weighted needs {u + 1} values, got {seen}")
        node = stack.pop()
        while stack:
            node = _merge(stack.pop(), node)
        return gmpy2.divexact(node[3], fac(u + 1) * r)  # type: ignore[attr-defined]

    def between(self, lo: int, hi: int) -> mpz:
        """``Σ_{lo ≤ x ≤ hi} mass[x]`` (indices outside ``0..u`` carry no mass)."""
        top = len(self.mass)
        a, b = max(lo, 0), min(hi + 1, top)
        if a >= b:
            return mpz(0)
        stream = getattr(self.mass, "stream", None)
        if stream is not None:
            return stream.range_sum(a, b)
        return self.prefix[b] - self.prefix[a] if a else self.prefix[b]


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
        if r and s and (u + 1) * (u * int(mpz(d).bit_length())) > LAZY_BITS:
            stream = _TwoSided(u, mpz(s), mpz(r))
            lazy = OnesLaw(_View(stream, stream.mass, u + 1), mpz(d) ** u,
                           _View(stream, stream.prefix, u + 2), (mpz(s), mpz(r)))
            if memo is not None:
                memo[key] = lazy
            return lazy
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
