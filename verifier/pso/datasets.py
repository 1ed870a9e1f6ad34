"""Datasets of ``n`` rows i.i.d. from ``D``, enumerated exactly over lumped values.

*Lumping.* Two universe values are interchangeable when nothing in the computation tells them
apart: the mechanism depends on a row only through a key (:attr:`PSOMechanism.classes`), the
two values have the same key and the same weight under ``D``, and every predicate the
adversary outputs contains both or neither. Then replacing one by the other in any row changes
neither the output law nor whether a predicate isolates, so

    Succ = Σ_{class sequences c} P[c] · succ(r(c)),   P[c] = Π_j |C_{c_j}|·w_{c_j}

where ``r(c)`` puts the first value of each class in each row: the sum over the datasets of
one class sequence has equal terms, and their probabilities add to ``P[c]``. For a symmetric
mechanism the class sequences are taken as multisets, with multinomial weights
``n!/Π_j m_j! · Π_j (|C_j|·w_j)^{m_j}``. Nothing is lumped unless a key is declared, and the
adversary's predicates are checked to be unions of classes as they are met.

*Integer weights.* With ``d`` the common denominator of ``D``'s weights, ``w_u = a_u/d``, a
dataset's probability is an integer over ``d^n``; the enumeration adds integers and divides
once.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass
from functools import reduce
from itertools import combinations_with_replacement, islice, product
from math import comb, factorial
from typing import Any

from gmpy2 import lcm, mpz

from verifier.core.budget import Budget
from verifier.core.numbers import counted
from verifier.pso.predicates import Universe

__all__ = ["Lumping", "lumping", "class_count", "weighted_datasets", "dataset_heads",
           "dataset_groups", "groups_shard", "with_progress"]


@dataclass(frozen=True, eq=False)
class Lumping:
    """Classes of interchangeable values of ``D``'s support.

    ``representatives[j]`` stands for the class ``members[j]``, whose probability under ``D``
    is ``numerators[j]/denominator``.
    """

    representatives: tuple
    members: tuple[frozenset, ...]
    numerators: tuple[mpz, ...]
    denominator: mpz
    class_of: dict

    @property
    def lumped(self) -> bool:
        return any(len(m) > 1 for m in self.members)

    def is_union(self, predicate: frozenset) -> bool:
        """Whether ``predicate`` contains every member of a class or none (on the support)."""
        if not self.lumped:
            return True
        seen: dict[int, int] = {}
        for u in predicate:
            j = self.class_of.get(u)
            if j is not None:
                seen[j] = seen.get(j, 0) + 1
        return all(len(self.members[j]) == c for j, c in seen.items())


def lumping(universe: Universe, key: Callable[[Hashable], Hashable] | None = None) -> Lumping:
    """The classes of values with equal ``key`` and equal weight (each value alone when
    ``key`` is None), in the universe's order."""
    support = [u for u in universe.values if universe.dist[u] != 0]
    d = reduce(lcm, (universe.dist[u].denominator for u in support), mpz(1))
    groups: dict[Hashable, list] = {}
    for u in support:
        w = universe.dist[u]
        groups.setdefault((key(u), w) if key is not None else (u,), []).append(u)
    reps, members, nums, class_of = [], [], [], {}
    for j, vals in enumerate(groups.values()):
        reps.append(vals[0])
        members.append(frozenset(vals))
        nums.append(mpz(universe.dist[vals[0]] * d) * len(vals))
        for u in vals:
            class_of[u] = j
    return Lumping(tuple(reps), tuple(members), tuple(nums), d, class_of)


def class_count(lump: Lumping, n: int, symmetric: bool, budget: Budget) -> int:
    """How many class multisets (symmetric) or sequences :func:`weighted_datasets` yields,
    refused over ``limits.datasets`` before any huge power is formed."""
    k = len(lump.representatives)
    what = (f"{'multisets' if symmetric else 'datasets'} of {counted(n, 'row')} over "
            + (counted(k, "class of values", "classes of values") if lump.lumped else
               counted(k, "value")))
    hint = "" if symmetric else ", or use a mechanism declared symmetric"
    if symmetric:
        return budget.require("datasets", comb(k + n - 1, n), what, hint)
    return budget.require_power("datasets", k, n, what, hint)


def dataset_heads(lump: Lumping, n: int, symmetric: bool, workers: int) -> list[tuple]:
    """Shards of the enumeration for ``workers`` workers: the fewest leading class indices
    (at most ``n − 1``) whose combinations number at least ``SHARDS_PER_WORKER·workers``, in
    enumeration order."""
    from verifier.parallel.databases import SHARDS_PER_WORKER

    k, p = len(lump.representatives), 0
    heads: list[tuple] = [()]
    while p < n - 1 and len(heads) < SHARDS_PER_WORKER * workers:
        p += 1
        heads = list(combinations_with_replacement(range(k), p) if symmetric else
                     product(range(k), repeat=p))
    return heads


def weighted_datasets(lump: Lumping, n: int, symmetric: bool, head: tuple = ()
                      ) -> Iterator[tuple[tuple, mpz]]:
    """``(rows, N)`` with ``P = N/d^n`` summed over the datasets ``rows`` stands for; with
    ``head``, only those whose class indices start with ``head`` (one shard, in order)."""
    reps, nums = lump.representatives, lump.numerators
    k = len(reps)
    uniform = len(set(nums)) == 1
    if not symmetric:
        tails = product(range(k), repeat=n - len(head))
        if uniform:
            p = nums[0] ** n
            for idx in (head + t for t in tails):
                yield tuple(reps[j] for j in idx), p
            return
        for idx in (head + t for t in tails):
            p = mpz(1)
            for j in idx:
                p *= nums[j]
            yield tuple(reps[j] for j in idx), p
        return
    nf = mpz(factorial(n))
    base = nums[0] ** n * nf if uniform else None
    start = head[-1] if head else 0
    for idx in (head + t for t in combinations_with_replacement(range(start, k), n - len(head))):
        mult, run = 1, 1
        for j in range(1, n):
            if idx[j - 1] == idx[j]:
                run += 1
                mult *= run
            else:
                run = 1
        rows = tuple(reps[j] for j in idx)
        if base is not None:
            yield rows, base // mult
        else:
            p = nf // mult
            for j in idx:
                p *= nums[j]
            yield rows, p


def with_progress(items: Iterator, total: int, progress) -> Iterator:
    """``items``, calling ``progress(done, total)`` every 4096 items and at the end."""
    if progress is None:
        yield from items
        return
    for j, item in enumerate(items, 1):
        if j % 4096 == 0 or j == total:
            progress(j, total)
        yield item


_WINDOW = 1024  # datasets whose laws user code is asked for at once


def warmed(mech, items: Iterable[tuple[tuple, Any]]) -> Iterator[tuple[tuple, Any]]:
    """``items`` (``(rows, weight)`` pairs) in order; a mechanism of user code (one with
    ``warm``) is asked for each window's laws in one request before the window is used."""
    warm = getattr(mech, "warm", None)
    if warm is None:
        yield from items
        return
    it = iter(items)
    while window := list(islice(it, _WINDOW)):
        warm([rows for rows, _ in window])
        yield from window


def dataset_groups(mech, index: dict, items: Iterator) -> dict:
    """``{output: {(present, once): weight}}``: the datasets of ``items`` grouped by the
    values present and those present once, per output (weights over ``d^n``)."""
    per_output: dict = {}
    for rows, nx in warmed(mech, items):
        present, once = 0, 0
        seen: dict[Hashable, int] = {}
        for u in rows:
            seen[u] = seen.get(u, 0) + 1
        for u, c in seen.items():
            present |= 1 << index[u]
            if c == 1:
                once |= 1 << index[u]
        for o, po in mech.outputs(rows):
            sigs = per_output.setdefault(o, {})
            sigs[(present, once)] = sigs.get((present, once), 0) + (nx if po == 1 else nx * po)
    return per_output


def groups_shard(job: tuple) -> dict:
    """One shard ``(classes, n, mech, index, head)`` of :func:`dataset_groups`."""
    classes, n, mech, index, head = job
    return dataset_groups(mech, index, weighted_datasets(classes, n, mech.symmetric, head))
