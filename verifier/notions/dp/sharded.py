"""DP by brute force over shards of its ordered neighbouring pairs (replace-one).

The serial enumeration (:func:`verifier.notions.dp.brute.dp_cases`) visits ``D1`` in lexicographic
order and, for each, every neighbour ``D2 = D1[i ↦ b]`` with ``b ≠ D1(i)``. The sharded run
has two phases, each over the same shards — one value ``h`` of the first ``p`` records of
``D1``, the consecutive run of the enumeration whose ``D1`` starts with ``h``:

1. every shard computes the laws ``M(D)`` of its own databases, once each
   (:func:`laws_shard`: the distinct laws and each database's index into them); the main
   process interns them into one table of distinct laws and one array of ``k^n`` indices,
   the law of the database of rank ``r`` (its position in lexicographic order);
2. every shard receives that table and array (compact: a few laws and 4 bytes per
   database), reads the law of any database by its rank — its own and its neighbours in
   other shards, without evaluating the mechanism again — computes the privacy loss of each
   of its pairs and folds them into a :class:`~verifier.notions.result.Summary` (the worst
   δ at ε and the worst tight ε at δ with their first cases), returned with its witnesses'
   outputs computed (:meth:`~verifier.notions.result.Summary.portable`).

The summaries merged in shard order are the serial one: the same δ, ε, verdict, count and
witness (ties keep the earlier case). The mechanism is evaluated once per database, as in
the serial run.
"""

from __future__ import annotations

from array import array
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from gmpy2 import mpq

from verifier.core.distribution import Dist
from verifier.core.epsilon import Epsilon
from verifier.model.mechanisms import Mechanism, all_databases
from verifier.notions.dp.pairs import LossMemo, brute_cases
from verifier.notions.result import Summary
from verifier.parallel.databases import SHARDS_PER_WORKER
from verifier.parallel.executor import Executor, Progress

__all__ = ["PairShard", "heads", "head_labels", "laws_shard", "all_laws",
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
    """The ordered pairs ``(D1, D2)`` whose ``D1`` starts with ``head``, the claim, and the
    law of every database: ``laws[index[rank(D)]]``."""

    label: str
    domain: tuple
    n: int
    head: tuple
    eps: Epsilon
    delta: mpq
    laws: tuple[Dist, ...]
    index: bytes  # array("I") of the law index of every database, by rank


def all_laws(mech: Mechanism, domain: tuple, n: int, hs: Sequence[tuple], executor: Executor,
             progress: Progress | None = None) -> tuple[tuple[Dist, ...], array]:
    """Phase 1: the distinct laws of ``mech`` over all databases and, by rank, the index of
    each database's law, from shards ``hs`` run on ``executor`` (one evaluation each)."""
    laws: dict[Dist, int] = {}
    index = array("I")
    parts = executor.map(laws_shard, [(mech, domain, n, h) for h in hs], head_labels(hs),
                         progress)
    for distinct, which in parts:
        glob = [laws.setdefault(law, len(laws)) for law in distinct]
        index.extend(glob[j] for j in which)
    return tuple(laws), index


def pair_shard_summary(shard: PairShard) -> Summary:
    """The summary of one shard's cases, in the serial order, with its witnesses' outputs."""
    index = array("I")
    index.frombytes(shard.index)
    position = {v: j for j, v in enumerate(shard.domain)}
    k, laws = len(shard.domain), shard.laws

    def law(db: tuple) -> Dist:  # the law of the database of rank r: no evaluation
        r = 0
        for v in db:
            r = r * k + position[v]
        return laws[index[r]]

    firsts = (shard.head + tail
              for tail in all_databases(shard.domain, shard.n - len(shard.head)))
    summary = Summary(shard.eps, shard.delta)
    for case in brute_cases(law, shard.domain, shard.n, LossMemo(), {}, firsts):
        summary.add(case)
    return summary.portable()


def pair_summary(mech: Mechanism, domain: tuple, n: int, eps: Epsilon, delta: mpq,
                 executor: Executor, progress: Progress | None = None) -> Summary:
    """The summary of every ordered neighbouring pair, from the two phases run on
    ``executor`` and merged in shard order (the caller has checked the limits for the whole
    job); ``progress`` counts the shards of both phases."""
    hs = heads(domain, n, SHARDS_PER_WORKER * executor.workers)
    both = None if progress is None else (lambda done, total: progress(done, 2 * total))
    laws, index = all_laws(mech, domain, n, hs, executor, both)
    data = index.tobytes()
    shards = [PairShard(label, domain, n, h, eps, delta, laws, data)
              for h, label in zip(hs, head_labels(hs), strict=True)]
    second = None if progress is None else (
        lambda done, total: progress(total + done, 2 * total))
    total = Summary(eps, delta)
    for part in executor.map(pair_shard_summary, shards, [s.label for s in shards], second):
        total.merge(part)
    return total
