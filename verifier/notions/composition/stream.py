"""k runs of one mechanism as a power streamed from its coefficients, never all held.

The polynomial route (:mod:`verifier.notions.composition.polynomial`) writes k runs of one
mechanism with one generator ``g > 1`` as ``P(x) = (Σ_{i=0}^{m} a_i y^i)^k`` and
``Q(x) = (Σ b_i y^i)^k`` (``y = x^stride``; ``a_i, b_i > 0`` when the part has no gap), and
δ(ε), ε(δ) need only suffix sums of their coefficients (:class:`~verifier.notions.loss.
SortedLaw`). Keeping every coefficient costs ``(mk + 1)`` integers of up to ``k·log2(scale)``
bits on each side: about 3.8 GB for k = 10^5 randomized responses. Here each power is a
:class:`PowerStream`: Miller's recurrence (Knuth, TAOCP vol. 2, §4.7, eq. (9))::

    n·a_0·c_n = Σ_{i=1}^{min(n,m)} ((k+1)·i − n)·a_i·c_{n−i}      (exact division)

produces ``c_0, c_1, …`` one after another from the last ``m``; every ``block`` indices a
checkpoint keeps those ``m`` coefficients and the running sum ``Σ_{l<n} c_l``. A prefix sum
at any index is the checkpoint below it plus at most ``block`` coefficients regenerated (the
last two blocks regenerated are kept, as bisections end inside one block of each side); the
stream is extended only as far as a question needs, and a sum up to the end is
``(Σ a_i)^k`` without any.

A suffix sum of ``P`` is a prefix sum of the reversed polynomial ``Σ a_{m−i} y^i``, whose
power is ``P``'s coefficients in reverse order; so one stream answers both ends (a prefix
sum from one, the total minus it from the other). Streams are shared through ``streams``
(a dict the caller keeps, keyed by coefficients and ``k``): randomized response's ``Q`` is its
``P`` reversed, and the reverse pair of neighbours swaps ``P`` and ``Q`` — all four are
read off one stream, each coefficient computed once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import reduce
from math import gcd, isqrt

import gmpy2
from gmpy2 import mpq, mpz

from verifier.notions.loss import SortedLaw

__all__ = ["PowerStream", "StreamedLoss", "stream_block", "stream_memory", "streamed_loss",
           "view", "dense", "held_elsewhere"]

_MPZ_BYTES = 32  # an integer's header and allocation rounding, beside its digits
_KEPT_BLOCKS = 2  # regenerated blocks kept
Progress = Callable[[int, int], None]


def stream_block(degree: int, width: int) -> int:
    """Indices between checkpoints: ``√(degree·width)`` (``width = m + 1`` integers per
    checkpoint), at least 64, so checkpoints and one regenerated block hold about the same."""
    return max(64, isqrt(degree * width) + 1)


def stream_memory(degree: int, width: int, bits: int) -> int:
    """Bytes held by one stream of ``degree + 1`` coefficients of up to ``bits`` bits:
    its checkpoints (``width`` integers each) and two regenerated blocks of running sums."""
    block = stream_block(degree, width)
    size = bits // 8 + _MPZ_BYTES
    return ((degree // block + 2) * width + _KEPT_BLOCKS * (block + 1)) * size


class PowerStream:
    """The coefficients ``c_0 … c_D`` of ``(Σ_{i=0}^{m} a_i y^i)^k`` (``a_0 ≠ 0``, ``D = mk``)
    read through their prefix sums :meth:`head`, without holding them (see the module).

    >>> s = PowerStream([mpz(1), mpz(3)], 4)
    >>> [int(s.head(n)) for n in range(6)]     # 1, 12, 54, 108, 81 summed
    [0, 1, 13, 67, 175, 256]
    """

    def __init__(self, a: Sequence[mpz], k: int, progress: Progress | None = None) -> None:
        self.a = tuple(mpz(x) for x in a)
        self.k, self.m = k, len(a) - 1
        self.degree = self.m * k
        self.total = sum(self.a, mpz(0)) ** k
        self.block = stream_block(self.degree, self.m + 1)
        # what it may come to hold (its integers have at most the total's bits)
        self.memory = stream_memory(self.degree, self.m + 1, int(self.total.bit_length()))
        self.progress = progress
        # checkpoint c = index c·block: (the m coefficients before it, Σ of those before it)
        self._marks: list[tuple[tuple[mpz, ...], mpz]] = [((), mpz(0))]
        # the next index to produce, its window, its sum
        self._front: tuple[int, tuple[mpz, ...], mpz] = (0, (), mpz(0))
        # the running sums of the blocks regenerated last (P and Q may read one stream at
        # two places: a bisection then alternates between two blocks)
        self._cached: dict[int, list[mpz]] = {}

    def _next(self, n: int, window: tuple[mpz, ...]) -> mpz:
        """``c_n`` from ``window = (c_{n−m}, …, c_{n−1})`` (shorter near 0)."""
        a, k = self.a, self.k
        if n == 0:
            return a[0] ** k
        s = mpz(0)
        for i in range(1, min(n, self.m) + 1):
            if a[i]:
                s += ((k + 1) * i - n) * a[i] * window[-i]
        return gmpy2.divexact(s, n * a[0])  # type: ignore[attr-defined]

    def _extend(self, mark: int) -> None:
        """Produce coefficients until checkpoint ``mark`` exists."""
        n, window, acc = self._front
        block, m = self.block, self.m
        while len(self._marks) <= mark:
            c = self._next(n, window)
            acc += c
            window = (*window, c)[-m:] if m else ()
            n += 1
            if n % block == 0:
                self._marks.append((window, acc))
                if self.progress is not None:
                    self.progress(min(n, self.degree + 1), self.degree + 1)
        self._front = (n, window, acc)

    def head(self, n: int) -> mpz:
        """``Σ_{l<n} c_l`` for ``0 ≤ n ≤ D + 1``."""
        if n >= self.degree + 1:
            return self.total
        mark, offset = divmod(n, self.block)
        if offset == 0 and mark < len(self._marks):
            return self._marks[mark][1]
        sums = self._cached.pop(mark, None)
        if sums is None:
            self._extend(mark)
            window, acc = self._marks[mark]
            start = mark * self.block
            sums = [acc]
            for j in range(start, min(start + self.block, self.degree + 1)):
                c = self._next(j, window)
                acc += c
                sums.append(acc)
                window = (*window, c)[-self.m:] if self.m else ()
            if len(self._cached) >= _KEPT_BLOCKS:
                del self._cached[next(iter(self._cached))]  # the least recently read
        self._cached[mark] = sums
        return sums[offset]


@dataclass(frozen=True)
class _View:
    """A side's coefficients read off a stream, in its order or reversed."""

    stream: PowerStream
    reversed: bool

    def tail(self, i: int) -> mpz:
        """``Σ_{l ≥ i}`` of this side's coefficients."""
        s = self.stream
        if self.reversed:  # this side's l-th coefficient is the stream's (D − l)-th
            return s.head(s.degree - i + 1)
        return s.total - s.head(i)


def view(a: Sequence[mpz], k: int, streams: dict | None,
         progress: Progress | None = None) -> _View:
    """The stream of ``(Σ a_i y^i)^k``: found in ``streams`` in either order, preferably
    reversed (a suffix sum is then a prefix of the stream), else made and stored there."""
    forward, backward = tuple(int(x) for x in a), tuple(int(x) for x in reversed(a))
    if streams is not None:
        for key, flipped in (((backward, k), True), ((forward, k), False)):
            if key in streams:
                return _View(streams[key], flipped)
    stream = PowerStream([mpz(x) for x in backward], k, progress)
    if streams is not None:
        streams[backward, k] = stream
    return _View(stream, True)


def held_elsewhere(streams: Mapping | None, exponents: Sequence[tuple[int, ...]],
                   p: Sequence[mpz], q: Sequence[mpz], k: int) -> int:
    """Bytes the ``streams`` already made may hold (:attr:`PowerStream.memory`), leaving out
    those that k runs of the part with masses ``p``, ``q`` at ``exponents`` (one generator)
    would read, in either order: the streams of other pairs, kept for their reverses while
    this pair's are made."""
    if not streams:
        return 0
    sides = [dense({e[0]: c for e, c in zip(exponents, side, strict=True)})[2]
             for side in (p, q)]
    own = {key for a in sides for key in ((tuple(int(x) for x in a), k),
                                          (tuple(int(x) for x in reversed(a)), k))}
    others = {id(s): s.memory for key, s in streams.items() if key not in own}
    return sum(others.values())


class _Suffixes(Sequence):
    """``s[j]``: the side's mass at the law's atoms ``≥ j`` (coefficients ``≥ first + j``),
    plus ``top`` (``s[n]`` is ``top`` alone)."""

    def __init__(self, side: _View, first: int, n: int, top: mpz) -> None:
        self.side, self.first, self.n, self.top = side, first, n, top

    def __len__(self) -> int:
        return self.n + 1

    def __getitem__(self, j):
        if not 0 <= j <= self.n:
            raise IndexError(j)
        return self.top + (self.side.tail(self.first + j) if j < self.n else 0)


@dataclass(frozen=True, eq=False)
class StreamedLoss(SortedLaw):
    """k runs of one part with one generator ``g > 1``, as two streamed powers: coefficient
    ``i`` has ratio ``g^{low + stride·i}``; the atoms of ratio ``> 1`` are the coefficients
    from ``first`` to ``degree``. ``terms`` counts every finite loss value (``degree + 1``:
    a power of a part without gaps has no zero coefficient)."""

    generator: mpq
    low: int
    stride: int
    degree: int
    first: int
    p: _View
    q: _View
    infinite: mpz
    p_scale: mpz
    q_scale: mpz

    @property
    def terms(self) -> int:
        return self.degree + 1

    def _size(self) -> int:
        return self.degree + 1 - self.first

    def _ratio(self, j: int) -> mpq:
        return self.generator ** (self.low + self.stride * (self.first + j))

    def _suffixes(self) -> tuple[Sequence, Sequence]:
        n = self._size()
        return (_Suffixes(self.p, self.first, n, self.infinite),
                _Suffixes(self.q, self.first, n, mpz(0)))

    def masses(self) -> list[tuple[mpq, mpq, mpq]]:
        """``(ratio, P-mass, Q-mass)`` of every atom of ratio ``> 1`` (for tests and small
        laws: it reads every coefficient)."""
        sp, sq = self._suffixes()
        return [(self._ratio(j), mpq(sp[j] - sp[j + 1], self.p_scale),
                 mpq(sq[j] - sq[j + 1], self.q_scale)) for j in range(self._size())]


def dense(masses: Mapping[int, mpz]) -> tuple[int, int, list[mpz]]:
    """``(low, stride, a)`` with ``Σ_e masses[e]·x^e = Σ_i a_i·x^{low + stride·i}``.

    >>> dense({-1: mpz(1), 3: mpz(5)})
    (-1, 4, [mpz(1), mpz(5)])
    """
    low = min(masses)
    stride = reduce(gcd, (e - low for e in masses), 0) or 1
    a = [mpz(0)] * ((max(masses) - low) // stride + 1)
    for e, c in masses.items():
        a[(e - low) // stride] = mpz(c)
    return low, stride, a


def streamed_loss(g: mpq, p: Mapping[int, mpz], q: Mapping[int, mpz], k: int, infinite: mpz,
                  p_scale: mpz, q_scale: mpz, streams: dict | None = None,
                  progress: Progress | None = None) -> StreamedLoss:
    """The law of ``k`` runs of the part whose ``P``, ``Q`` masses (integers over the
    scales' k-th roots) at ratio ``g^e`` are ``p[e]``, ``q[e]`` (``g > 1``; the same
    exponents, no gap between them once divided by their stride). Without ``streams`` the
    two sides still share one stream when one is the other reversed."""
    low, stride, a = dense(p)
    _, _, b = dense(q)
    streams = {} if streams is None else streams  # P and Q share one when they can
    degree = (len(a) - 1) * k
    start = low * k
    first = (-start) // stride + 1 if start <= 0 else 0  # least i with start + stride·i > 0
    first = min(first, degree + 1)
    return StreamedLoss(g, start, stride, degree, first, view(a, k, streams, progress),
                        view(b, k, streams, progress), infinite, p_scale, q_scale)
