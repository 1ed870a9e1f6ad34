"""Composition under partial knowledge: ``k`` runs of one mechanism on the same database.

The attacker sees the ``k`` outputs and, as before, ``ζ(D)`` (REFERENCE.md §9). The runs
share the records it does not know, so the law of the outputs given ``D(i)=t, ζ(D)=B`` is a
mixture of product laws, not the product of the one-run conditionals::

    P[O_1..O_k | t, B] = Σ_u P[u | t, B] · Π_j M(db(t, B, u))[O_j]

The outputs are exchangeable, so their histogram ``h`` (how many runs gave each output) is a
sufficient statistic, with ``P[h | db] = k!/Π h_o! · Π p_o^{h_o}`` (multinomial). For each
mixture component (a distinct one-run law ``p = N/d`` with integer numerators ``N``, from
:mod:`verifier.engines.mixtures`) the cell of ``h`` is ``w/d^k · multinomial(h) · Π N_o^{h_o}``:
integers over one scale per row. The histograms are enumerated depth first, output by output,
with the partial products ``C(r, h_o)·N_o^{h_o}`` of every component carried down, so a
histogram costs one multiplication per component (a binary output: ``O(k · components)``).

The result is a joint table (:class:`~verifier.engines.joint.JointTable`) whose outputs are
histograms: APK, PPK and noiseless δ(ε) and ε(δ) are then read off it exactly as for one run
(:mod:`verifier.notions.partial.cases`). Its size — histograms ``C(k+m−1, m−1)`` for ``m``
outputs, times components — and the bytes of its integers are estimated first
(:func:`composition_estimate`) and refused over ``limits.work`` and ``limits.memory``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import reduce

from gmpy2 import comb, lcm, mpq, mpz

from verifier.core.budget import Budget, format_size
from verifier.engines.joint import JointTable
from verifier.engines.mixtures import Mixtures

__all__ = ["Histogram", "composition_estimate", "composed_table", "histogram_count"]

Progress = Callable[[int, int], None]
_BYTES_PER_NUMBER = 32  # an mpz's header
_BYTES_PER_CELL = 120  # a dictionary slot and a histogram's tuple
_PROGRESS_EVERY = 4096  # histograms between two progress calls


class Histogram(tuple):
    """The outputs of ``k`` runs up to order: the pairs ``(output, runs that gave it)`` of
    the outputs given at least once, in output order. A tuple, so hashing and comparing
    are the tuple's own (the tables hold hundreds of thousands of them)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "{" + ", ".join(f"{o!r}: {c}" for o, c in self) + "}"

    def as_dict(self) -> dict:
        return {"histogram": {str(o): c for o, c in self}}


def histogram_count(k: int, m: int) -> int:
    """How many histograms ``k`` runs over ``m`` outputs have: ``C(k+m−1, m−1)``."""
    return int(comb(k + m - 1, m - 1)) if m else 0


def _integer_laws(mix: Mixtures, outputs: tuple) -> tuple[list[list[mpz]], list[mpz]]:
    """``N[u][o]`` and ``d[u]`` with ``laws[u][o] = N[u][o]/d[u]``, integers."""
    nums, dens = [], []
    for law in mix.laws:
        d = reduce(lcm, (w.denominator for _, w in law.items()), mpz(1))
        dens.append(d)
        nums.append([(law[o] * d).numerator if o in law.support else mpz(0) for o in outputs])
    return nums, dens


def composition_estimate(mixtures: Sequence[Mixtures], k: int) -> tuple[int, int, int]:
    """``(histograms, work, memory)``: the histograms of one table, the multiplications of
    all tables (histograms × components) and the bytes of their rows, before any is built."""
    work = memory = histograms = 0
    for mix in mixtures:
        outputs = mix.outputs
        h = histogram_count(k, len(outputs))
        histograms = max(histograms, h)
        if not h:
            continue
        _, dens = _integer_laws(mix, outputs)
        bits_d = max(int(d.bit_length()) for d in dens)
        weight_bits = max((int(mpq(w).denominator.bit_length()) for by_b in mix.parts.values()
                           for by_u in by_b.values() for w in by_u.values()), default=1)
        rows = sum(len(by_b) for by_b in mix.parts.values())
        # a cell: Σ_u W_u·multinomial·Π N^h ≤ (components)·S·m^k·d^k with S ≤ d^k·weights
        digits = 2 * k * bits_d + k * max(1, len(outputs)).bit_length() + weight_bits * rows
        work += h * mix.components
        # per cell: its integer, the ratio and masses read off it (twice its digits again),
        # a dictionary slot and the histogram's tuple (measured: k = 50 runs of a 5-output
        # count, 1.9·10^6 cells, about 450 bytes each)
        memory += h * rows * (3 * (digits // 8 + _BYTES_PER_NUMBER) + _BYTES_PER_CELL)
    return histograms, work, memory


def check_budget(mixtures: Sequence[Mixtures], k: int, budget: Budget) -> int:
    """The histograms of one table, after refusing the work and memory over their limits."""
    histograms, work, memory = composition_estimate(mixtures, k)
    hint = ", or use fewer runs (--k) or a mechanism with fewer outputs"
    budget.require("work", work, f"histograms × mixture components of {k} runs "
                                 f"({format_size(histograms)} histograms)", hint)
    budget.require("memory", memory, f"bytes of the {k}-run joint tables (estimated)", hint)
    return histograms


def composed_table(mix: Mixtures, k: int, progress: Progress | None = None,
                   done: int = 0, total: int = 0) -> JointTable:
    """The joint table ``P[D(i)=t, ζ(D)=B, histogram of k outputs = h]``, exact.

    ``progress(done + histograms so far, total)`` is called as histograms are enumerated."""
    outputs = mix.outputs
    m = len(outputs)
    nums, dens = _integer_laws(mix, outputs)
    keys: list[tuple] = []  # (t, B) of each row
    meta: list[tuple[int, int]] = []  # (row, law) of each component
    start: list[mpz] = []
    scales: list[mpz] = []
    for t, by_b in mix.parts.items():
        for b, by_u in by_b.items():
            coef = {u: w / dens[u] ** k for u, w in by_u.items()}
            scale = reduce(lcm, (c.denominator for c in coef.values()), mpz(1))
            row = len(keys)
            keys.append((t, b))
            scales.append(scale)
            for u, c in coef.items():
                meta.append((row, u))
                start.append((c * scale).numerator)
    powers = [[_powers(nums[u][j], k) for j in range(m)] for u in range(len(mix.laws))]
    # by output: the powers N_o^h of each component's law; by row: its components
    by_output = [[powers[u][j] for _, u in meta] for j in range(m)]
    last = by_output[m - 1]
    groups = [[c for c, (row, _) in enumerate(meta) if row == r] for r in range(len(keys))]
    cells: list[dict] = [{} for _ in keys]
    pairs: dict[tuple[int, int], tuple] = {}  # (output index, runs) → one shared pair
    leaves = 0
    # depth first over outputs 0..m−2 (iterative: m may exceed the recursion limit); a node
    # carries the multinomial so far, the histogram's pairs so far and, per component,
    # Π N_o^{h_o} so far: a leaf multiplies each component once and each row once
    stack: list[tuple[int, int, mpz, tuple, list[mpz]]] = [(0, k, mpz(1), (), start)]
    while stack:
        j, r, multinomial, shown, partials = stack.pop()
        if j == m - 1:
            h = Histogram(shown + (_pair(pairs, outputs, j, r),) if r else shown)
            for ri, cs in enumerate(groups):
                value = mpz(0)
                for ci in cs:
                    value += partials[ci] * last[ci][r]
                if value:
                    cells[ri][h] = value * multinomial
            leaves += 1
            if progress and leaves % _PROGRESS_EVERY == 0:
                progress(done + leaves, total)
            continue
        column = by_output[j]
        for h_j in range(r, -1, -1):  # pushed in reverse: popped with h_j = 0 first
            nxt = [v * pw[h_j] for v, pw in zip(partials, column, strict=True)]
            if any(nxt):
                stack.append((j + 1, r - h_j, multinomial * comb(r, h_j),
                              shown + (_pair(pairs, outputs, j, h_j),) if h_j else shown, nxt))
    if progress:
        progress(done + leaves, total)
    rows: dict = {}
    for (t, b), scale, cell in zip(keys, scales, cells, strict=True):
        if cell:
            rows.setdefault(t, {})[b] = (mpq(1, scale), cell)
    return JointTable(mix.target, mix.values, rows)


def _pair(pairs: dict, outputs: tuple, j: int, c: int) -> tuple:
    """``(outputs[j], c)``, one tuple shared by every histogram that has it."""
    key = (j, c)
    if key not in pairs:
        pairs[key] = (outputs[j], c)
    return pairs[key]


def _powers(base: mpz, k: int) -> list[mpz]:
    out = [mpz(1)]
    for _ in range(k):
        out.append(out[-1] * base)
    return out
