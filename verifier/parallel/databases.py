"""The database space split into shards by a prefix of records, and exact partial tables.

For independent records ``θ = θ_0 × … × θ_{n−1}`` a shard is one value ``(v_0, …, v_{p−1})``
of the first ``p`` records: it enumerates the databases ``v·D'`` with ``D'`` drawn from
``θ_p × … × θ_{n−1}``, so the shards partition the databases and the joint table of seed 003
§4, ``P[D(i)=t, ζ(D)=B, M(D)=O] = Σ_D θ(D)·P[ζ(D)=B]·P[M(D)=O]``, is the sum of the shards'
partial tables. A shard returns its partial table over one common denominator: a positive
integer ``den`` and integer numerators; the merge scales each to the least common multiple
and adds — exact integer arithmetic, the same cells whatever the order or the number of
workers. An explicit θ is split into consecutive runs of its databases.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from functools import reduce
from typing import cast

from gmpy2 import lcm, mpq, mpz

from verifier.core.budget import Budget, check_database_count
from verifier.core.distribution import Dist
from verifier.model.data import DataModel, IndependentData
from verifier.model.knowledge import Knowledge
from verifier.model.mechanisms import Mechanism

__all__ = ["TableShard", "check_job", "database_shards", "shard_cells", "merge_cells",
           "SHARDS_PER_WORKER"]

SHARDS_PER_WORKER = 8  # several shards per worker even out the load (the last round of
# shards leaves a worker idle for at most about 1/8 of its share); each is one task


@dataclass(frozen=True)
class TableShard:
    """One shard of the brute-force enumeration and everything a worker needs for it."""

    label: str
    prefix: tuple  # the first records' values (independent θ), else ()
    p_prefix: mpq
    suffix: tuple  # the priors of the remaining records (independent θ)
    items: tuple  # ((database, probability), …) for an explicit θ, else ()
    mech: Mechanism
    know: Knowledge
    targets: tuple[int, ...]


def check_job(data: DataModel, budget: Budget | None) -> None:
    """Refuse the whole enumeration over ``limits.databases`` as the serial run does."""
    budget = budget or Budget()
    if not isinstance(data, IndependentData):
        data.distribution(budget)
        return
    support = 1
    for p in data.priors:
        support *= len(p)
        if support > budget.max_databases:
            check_database_count(len(data.values), data.n, budget)


def _prefix_length(priors: Sequence[Dist], wanted: int) -> int:
    """The fewest leading records whose value combinations number at least ``wanted``
    (all records but the last at most)."""
    count, p = 1, 0
    while p < len(priors) - 1 and count < wanted:
        count *= len(priors[p])
        p += 1
    return p


def database_shards(data: DataModel, mech: Mechanism, know: Knowledge,
                    targets: Sequence[int], wanted: int) -> list[TableShard]:
    """About ``wanted`` shards (at least one) partitioning the databases of θ = ``data``."""
    targets = tuple(targets)
    if isinstance(data, IndependentData):
        p = _prefix_length(data.priors, wanted)
        heads = Dist.product(data.priors[:p])
        prefixes = [(cast(tuple, v), w) for v, w in heads.items()]
        return [TableShard(f"records 0..{p - 1} = {list(v)}" if p else "all databases",
                           v, w, data.priors[p:], (), mech, know, targets)
                for v, w in prefixes]
    items = tuple(data.distribution().items())
    size = max(1, -(-len(items) // max(1, wanted)))
    return [TableShard(f"databases {j + 1}..{min(j + size, len(items))} of {len(items)}",
                       (), mpq(1), (), items[j:j + size], mech, know, targets)
            for j in range(0, len(items), size)]


def shard_cells(shard: TableShard) -> tuple[int, dict]:
    """``(den, cells)``: the shard's partial tables ``cells[i][t][B][O] / den``, integers."""
    if shard.items:
        items = shard.items
    else:
        tails = Dist.product(shard.suffix).items() if shard.suffix else [((), mpq(1))]
        items = tuple((shard.prefix + cast(tuple, tail), shard.p_prefix * w)
                      for tail, w in tails)
    cells: dict[int, dict] = {i: {} for i in shard.targets}
    for db, p in items:
        m = shard.mech(db)
        for b, pb in shard.know(db).items():
            pbb = p * pb
            for i in shard.targets:
                row = cells[i].setdefault(db[i], {}).setdefault(b, {})
                for o, po in m.items():
                    row[o] = row.get(o, mpq(0)) + pbb * po
    den = reduce(lcm, (w.denominator for by_t in cells.values() for by_b in by_t.values()
                       for row in by_b.values() for w in row.values()), mpz(1))
    ints = {i: {t: {b: {o: int(w.numerator * (den // w.denominator)) for o, w in row.items()}
                    for b, row in by_b.items()} for t, by_b in by_t.items()}
            for i, by_t in cells.items()}
    return int(den), ints


def merge_cells(parts: Sequence[tuple[int, dict]], targets: Sequence[int]
                ) -> dict[int, dict[Hashable, dict]]:
    """The sum of the partial tables, as rational cells ``{i: {t: {B: {O: P}}}}``."""
    common = int(reduce(lcm, (mpz(den) for den, _ in parts), mpz(1)))
    total: dict[int, dict] = {i: {} for i in targets}
    for den, cells in parts:
        scale = common // den
        for i, by_t in cells.items():
            for t, by_b in by_t.items():
                for b, row in by_b.items():
                    out = total[i].setdefault(t, {}).setdefault(b, {})
                    for o, w in row.items():
                        out[o] = out.get(o, 0) + w * scale
    return {i: {t: {b: {o: mpq(w, common) for o, w in row.items()}
                    for b, row in by_b.items()} for t, by_b in by_t.items()}
            for i, by_t in total.items()}
