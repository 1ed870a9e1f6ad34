"""Classical (ε, δ)-differential privacy over every database of ``n`` records.

Neighbours differ in the value of one record (seed 003, Definition 2). The tight δ at ε is
(seed 003, Lemma 1; REFERENCE.md §3)::

    δ(ε) = max_{D1 ~ D2} Σ_O max(0, P[M(D1)=O] − e^ε·P[M(D2)=O])

over *ordered* neighbouring pairs, and the tight ε at δ the largest tight ε over the pairs.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Sequence
from functools import partial

from gmpy2 import comb, mpq

from verifier.core.budget import Budget, check_database_count, format_size
from verifier.core.distribution import Dist
from verifier.core.epsilon import Epsilon
from verifier.core.errors import InvalidArgument
from verifier.engines.counts import compositions
from verifier.model.data import check_domain
from verifier.model.mechanisms import Mechanism, all_databases
from verifier.notions.dp.pairs import LossMemo, brute_cases, witness_outputs
from verifier.notions.loss import privacy_loss
from verifier.notions.result import Case, Summary
from verifier.parallel import current_executor
from verifier.parallel.databases import SHARDS_PER_WORKER

__all__ = ["dp_cases", "symmetric_dp_cases", "brute_cases", "dp_summary", "by_counts",
           "LossMemo"]

Progress = Callable[[int, int], None]


def symmetric_dp_cases(mech: Mechanism, values: Sequence[Hashable], n: int,
                       budget: Budget | None = None) -> Iterator[Case]:
    """Neighbouring pairs of a symmetric mechanism, by counts.

    ``M(D)`` depends only on counts, so a neighbouring pair is the counts ``c`` of the
    ``n − 1`` shared records and the two values ``a ≠ b`` of the differing one: the pair
    ``(c + e_a, c + e_b)``. Every pair of databases maps to one of these with the same loss.
    """
    domain = check_domain(values)
    k = len(domain)
    total = int(comb(n - 1 + k - 1, k - 1)) * k * (k - 1)
    budget = budget or Budget()
    budget.check_records(n)
    budget.require("combinations", total, "dp by counts: neighbouring count pairs",
                   ", or use fewer records or values")
    cache: dict[tuple, Dist] = {}
    on_counts = mech.on_counts
    assert on_counts is not None  # dp_cases sends symmetric mechanisms only

    def run(c: tuple) -> Dist:
        if c not in cache:
            cache[c] = on_counts(dict(zip(domain, c, strict=True)), n)
        return cache[c]

    mech.warm_counts(compositions(n, k), domain)  # user code: the laws in a few round trips

    for c in compositions(n - 1, k):
        shared = tuple(v for v, m in zip(domain, c, strict=True) for _ in range(m))
        for ai, a in enumerate(domain):
            p = run(tuple(x + (j == ai) for j, x in enumerate(c)))
            for bi, b in enumerate(domain):
                if a == b:
                    continue
                q = run(tuple(x + (j == bi) for j, x in enumerate(c)))
                yield Case(
                    {"databases": [list(shared + (a,)), list(shared + (b,))], "index": n - 1},
                    privacy_loss(p, q),
                    partial(witness_outputs, p, q),
                    laws=(p, q),
                )


def dp_cases(mech: Mechanism, values: Sequence[Hashable], n: int,
             budget: Budget | None = None, engine: str = "auto",
             memo: LossMemo | None = None) -> Iterator[Case]:
    """One case per ordered neighbouring pair ``(D1, D2)`` with ``D1(i) ≠ D2(i)``.

    A symmetric mechanism is enumerated by counts (``engine`` ``"auto"`` or ``"counts"``);
    brute force memoises the losses by the pair of output laws (``memo``, to read its
    counts)."""
    if by_counts(mech, engine):
        if not mech.symmetric:
            raise InvalidArgument(f"engine = 'counts' does not apply: the mechanism "
                                  f"{mech.name} is not declared symmetric")
        yield from symmetric_dp_cases(mech, values, n, budget)
        return
    domain = check_domain(values)
    _check_brute(mech, domain, n, budget or Budget())
    outputs: dict[tuple, Dist] = {}
    losses = memo if memo is not None else LossMemo()
    executor = current_executor()
    if executor.parallel:  # the mechanism's laws, sharded by the first records of D1
        from verifier.notions.dp.sharded import head_labels, heads, laws_shard

        hs = heads(domain, n, SHARDS_PER_WORKER * executor.workers)
        for head, (laws, which) in zip(hs, executor.map(
                laws_shard, [(mech, domain, n, head) for head in hs], head_labels(hs)),
                strict=True):
            interned = [losses.intern(law) for law in laws]
            outputs.update(zip((head + tail for tail in all_databases(domain, n - len(head))),
                               (interned[j] for j in which), strict=True))
    yield from brute_cases(mech, domain, n, losses, outputs)


def _check_brute(mech: Mechanism, domain: tuple, n: int, budget: Budget) -> None:
    """Refuse the brute-force enumeration over the limits, before any of it is done."""
    budget.check_records(n)
    total = check_database_count(len(domain), n, budget)
    outs = mech.outputs_bound(n) if mech.outputs_bound is not None else \
        len(mech(tuple(domain[:1]) * n))  # user code: one database's law, to size the rest
    budget.require("work", total * n * (len(domain) - 1) * outs,
                   f"dp by brute force: databases × neighbours × outputs = {format_size(total)}"
                   f" × {n * (len(domain) - 1)} × {format_size(outs)}")


def dp_summary(mech: Mechanism, values: Sequence[Hashable], n: int, eps: Epsilon,
               delta: mpq, budget: Budget | None = None, engine: str = "auto",
               progress: Progress | None = None) -> Summary:
    """The :class:`~verifier.notions.result.Summary` of :func:`dp_cases` at (ε, δ).

    Under a parallel executor (:mod:`verifier.parallel`) brute force shards the ordered
    pairs by the first records of ``D1`` (:mod:`verifier.notions.dp.sharded`); the shards'
    summaries, merged in enumeration order, are the serial summary, witnesses included.
    ``progress(done, total)`` counts completed shards. The limits are checked for the whole
    job first."""
    executor = current_executor()
    if executor.parallel and not by_counts(mech, engine):
        from verifier.notions.dp.sharded import pair_summary

        domain = check_domain(values)
        _check_brute(mech, domain, n, budget or Budget())
        return pair_summary(mech, domain, n, eps, delta, executor, progress)
    summary = Summary(eps, delta)
    for case in dp_cases(mech, values, n, budget, engine):
        summary.add(case)
    return summary


def by_counts(mech: Mechanism, engine: str) -> bool:
    """Whether :func:`dp_cases` enumerates count vectors (a symmetric mechanism)."""
    return engine == "counts" or (engine == "auto" and mech.symmetric)
