"""DP by brute force over shards of its ordered neighbouring pairs (replace-one).

The serial enumeration (:func:`verifier.notions.dp.dp_cases`) visits ``D1`` in lexicographic
order and, for each, every neighbour ``D2 = D1[i ↦ b]`` with ``b ≠ D1(i)``. A shard is one
value ``h`` of the first ``p`` records of ``D1``: the consecutive run of the enumeration whose
``D1`` starts with ``h``. It computes the laws it needs (its own databases' and their
neighbours', some of which lie in other shards), the privacy loss of each of its pairs, and
folds them into a :class:`~verifier.notions.result.Summary` — the worst δ at ε and the worst
tight ε at δ with their first cases — returned with its witnesses' outputs computed
(:meth:`~verifier.notions.result.Summary.portable`: exact rationals, integers and the user's
values). The summaries merged in shard order are the serial one: the same δ, ε, verdict,
count and witness (ties keep the earlier case).

A shard may also compute just its databases' laws (:func:`laws_shard`), for consumers that
need every case (certificates, closed forms) while the laws are the costly part.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from gmpy2 import mpq

from verifier.core.distribution import Dist
from verifier.core.epsilon import Epsilon
from verifier.model.mechanisms import Mechanism, all_databases
from verifier.notions.dp import LossMemo, brute_cases
from verifier.notions.result import Summary
from verifier.parallel.databases import SHARDS_PER_WORKER
from verifier.parallel.executor import Executor, Progress

__all__ = ["PairShard", "heads", "head_labels", "laws_shard", "pair_shards",
           "pair_shard_summary", "pair_summary"]


def heads(domain: Sequence[Hashable], n: int, wanted: int) -> list[tuple]:
    """The values of the first ``p`` records, in lexicographic order, for the fewest ``p``
    (at most ``n − 1``) giving at least ``wanted`` of them; ``[()]`` when ``p = 0``."""
    p, out = 0, [()]
    while p < n - 1 and len(out) < wanted:
        p, out = p + 1, list(all_databases(domain, p + 1))
    return out


def head_labels(hs: Sequence[tuple]) -> list[str]:
    """Shard names for errors: ``databases with records 0..1 = [0, 2]``."""
    return [f"databases with records 0..{len(h) - 1} = {list(h)}" if h else "all databases"
            for h in hs]


def laws_shard(shard: tuple) -> tuple[list[Dist], list[int]]:
    """``M(D)`` for the databases ``D = head + tail`` of one shard ``(mech, domain, n,
    head)``, in lexicographic order: the distinct laws and each database's index into them."""
    mech, domain, n, head = shard
    index: dict[Dist, int] = {}
    which = [index.setdefault(mech(head + tail), len(index))
             for tail in all_databases(domain, n - len(head))]
    return list(index), which


@dataclass(frozen=True)
class PairShard:
    """The ordered pairs ``(D1, D2)`` whose ``D1`` starts with ``head``, and the claim."""

    label: str
    mech: Mechanism
    domain: tuple
    n: int
    head: tuple
    eps: Epsilon
    delta: mpq


def pair_shards(mech: Mechanism, domain: tuple, n: int, eps: Epsilon, delta: mpq,
                wanted: int) -> list[PairShard]:
    """About ``wanted`` shards (at least one), in enumeration order."""
    hs = heads(domain, n, wanted)
    return [PairShard(label, mech, domain, n, h, eps, delta)
            for h, label in zip(hs, head_labels(hs), strict=True)]


def pair_shard_summary(shard: PairShard) -> Summary:
    """The summary of one shard's cases, in the serial order, with its witnesses' outputs."""
    firsts = (shard.head + tail
              for tail in all_databases(shard.domain, shard.n - len(shard.head)))
    summary = Summary(shard.eps, shard.delta)
    for case in brute_cases(shard.mech, shard.domain, shard.n, LossMemo(), {}, firsts):
        summary.add(case)
    return summary.portable()


def pair_summary(mech: Mechanism, domain: tuple, n: int, eps: Epsilon, delta: mpq,
                 executor: Executor, progress: Progress | None = None) -> Summary:
    """The summary of every ordered neighbouring pair, from shards run on ``executor`` and
    merged in shard order (the caller has checked the limits for the whole job)."""
    shards = pair_shards(mech, domain, n, eps, delta, SHARDS_PER_WORKER * executor.workers)
    total = Summary(eps, delta)
    for part in executor.map(pair_shard_summary, shards, [s.label for s in shards], progress):
        total.merge(part)
    return total
