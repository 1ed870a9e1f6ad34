"""The joint table ``P[D(i)=t, ζ(D)=B, M(D)=O]`` and the brute-force engine that builds it.

Every partial-knowledge notion is read off this table (seed 003 §4): conditioned on
``D(i)=t, ζ(D)=B`` it gives the output distributions whose ratio is the PLRV of Definition 5.
The brute-force engine enumerates every database; the count engine (:mod:`verifier.counts`)
builds the same table from count vectors.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import reduce
from itertools import islice

from gmpy2 import lcm, mpq, mpz

from verifier.core.budget import Budget
from verifier.core.distribution import Dist, sort_key
from verifier.core.errors import InvalidArgument
from verifier.core.numbers import counted
from verifier.model.data import DataModel
from verifier.model.knowledge import NOTHING, Knowledge
from verifier.model.mechanisms import Mechanism

__all__ = ["JointTable", "brute_force_tables", "check_targets"]

Row = Mapping[Hashable, mpz]


def _integer_row(cells: Mapping[Hashable, mpq]) -> tuple[mpq, dict]:
    """``(factor, row)`` with integer ``row`` and ``cells[O] = factor·row[O]``."""
    scale = reduce(lcm, (mpq(w).denominator for w in cells.values()), mpz(1))
    return mpq(1, scale), {o: (w * scale).numerator for o, w in cells.items() if w != 0}


@dataclass(frozen=True, eq=False)
class JointTable:
    """``P[D(i)=t, ζ(D)=B, M(D)=O] = factor·row[O]`` with ``rows[t][B] = (factor, row)``.

    Rows are integers proportional to ``P[M(D)=· | D(i)=t, ζ(D)=B]``: conditional
    distributions and likelihood ratios are read off them without rational arithmetic, and
    the factor carries the probability of the condition. Empty rows are absent. Equality is
    exact equality of every cell.
    """

    target: int
    values: tuple
    rows: Mapping[Hashable, Mapping[Hashable, tuple[mpq, Row]]]

    @staticmethod
    def from_cells(target: int, values: tuple,
                   cells: Mapping[Hashable, Mapping[Hashable, Mapping[Hashable, mpq]]]
                   ) -> JointTable:
        """From rational cells ``cells[t][B][O]``."""
        rows = {t: {b: _integer_row(row) for b, row in by_b.items() if any(row.values())}
                for t, by_b in cells.items()}
        return JointTable(target, values, rows)

    def row(self, t: Hashable, b: Hashable) -> Row:
        """Integers proportional to ``P[M(D)=O | D(i)=t, ζ(D)=B]`` (empty if impossible)."""
        entry = self.rows.get(t, {}).get(b)
        return entry[1] if entry else {}

    def p_background(self, t: Hashable, b: Hashable) -> mpq:
        """``P[D(i)=t, ζ(D)=B]``."""
        entry = self.rows.get(t, {}).get(b)
        return entry[0] * sum(entry[1].values(), mpz(0)) if entry else mpq(0)

    def p_value(self, t: Hashable) -> mpq:
        """``P[D(i)=t]``."""
        return sum((self.p_background(t, b) for b in self.rows.get(t, {})), mpq(0))

    def conditional(self, t: Hashable, b: Hashable) -> Dist | None:
        """``P[M(D)=· | D(i)=t, ζ(D)=B]``, or ``None`` when the condition has probability 0."""
        row = self.row(t, b)
        total = sum(row.values(), mpz(0))
        if total == 0:
            return None
        return Dist._trusted({o: mpq(w, total) for o, w in row.items()})

    def backgrounds(self) -> list[Hashable]:
        seen = {b for by_b in self.rows.values() for b in by_b}
        return sorted(seen, key=sort_key)

    def cells(self) -> dict:
        """Every non-zero cell as a rational: ``{t: {B: {O: P[t, B, O]}}}``."""
        return {t: {b: {o: f * w for o, w in row.items()} for b, (f, row) in by_b.items()}
                for t, by_b in self.rows.items()}

    def merge_backgrounds(self, key) -> JointTable:
        """The table of the coarser knowledge ``key(B)``: cells with equal keys summed."""
        cells: dict = {}
        for t, by_b in self.cells().items():
            for b, row in by_b.items():
                out = cells.setdefault(t, {}).setdefault(key(b), {})
                for o, w in row.items():
                    out[o] = out.get(o, mpq(0)) + w
        return JointTable.from_cells(self.target, self.values, cells)

    def without_background(self) -> JointTable:
        """The table of an attacker who knows nothing: ``B`` summed out."""
        return self.merge_backgrounds(lambda b: NOTHING)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, JointTable):
            return NotImplemented
        return (self.target, self.values) == (other.target, other.values) and \
            self.cells() == other.cells()

    __hash__ = None  # type: ignore[assignment]


def check_targets(targets: object, n: int) -> tuple[int, ...]:
    """``"all"``, an index or a list of indices, each in ``0..n-1``."""
    if targets == "all":
        return tuple(range(n))
    items = [targets] if isinstance(targets, int) and not isinstance(targets, bool) else targets
    if isinstance(items, (str, bytes)) or not isinstance(items, Iterable):
        raise InvalidArgument(f'target = {targets!r} is not an index, a list of indices or "all"')
    out = []
    for i in items:
        if isinstance(i, bool) or not isinstance(i, int):
            raise InvalidArgument(f"target {i!r} is not an integer index")
        if not 0 <= i < n:
            raise InvalidArgument(
                f"target {i} is out of range for {counted(n, 'record')} (indices are "
                f"0..{n - 1})"
            )
        out.append(i)
    if not out:
        raise InvalidArgument("target = [] names no record to attack")
    return tuple(dict.fromkeys(out))


def brute_force_tables(data: DataModel, mech: Mechanism, know: Knowledge,
                       targets: Sequence[int], budget: Budget | None = None,
                       progress: Callable[[int, int], None] | None = None
                       ) -> dict[int, JointTable]:
    """Joint tables for every target, by enumerating every database of θ once.

    Under a parallel executor (:mod:`verifier.parallel`) the databases are sharded by a
    prefix of records and the shards' exact integer partial tables added; ``progress(done,
    total)`` counts completed shards.
    """
    from verifier.parallel import current_executor

    executor = current_executor()
    if executor.parallel:
        from verifier.parallel import databases as sharding

        sharding.check_job(data, budget)  # the budget applies to the whole job, before any shard
        shards = sharding.database_shards(data, mech, know, targets,
                                          sharding.SHARDS_PER_WORKER * executor.workers)
        merged = sharding.merge_cells(executor.map(sharding.shard_cells, shards,
                                                   [s.label for s in shards], progress),
                                      targets)
        return {i: JointTable.from_cells(i, data.values, merged[i]) for i in targets}
    cells: dict[int, dict] = {i: {} for i in targets}
    for db, p in _warmed(mech, know, data.distribution(budget).items()):
        assert isinstance(db, tuple)  # the support of θ is databases
        m = mech(db)
        for b, pb in know(db).items():
            pbb = p * pb
            for i in targets:
                row = cells[i].setdefault(db[i], {}).setdefault(b, {})
                for o, po in m.items():
                    row[o] = row.get(o, mpq(0)) + pbb * po
    return {i: JointTable.from_cells(i, data.values, cells[i]) for i in targets}


_WINDOW = 1024  # databases whose laws user code is asked for at once


def _warmed(mech: Mechanism, know: Knowledge, items: Iterable[tuple]) -> Iterator[tuple]:
    """``items`` (``(database, probability)``) in order; user code (the mechanism, the
    knowledge) is asked for each window's laws in one request before the window is used."""
    it = iter(items)
    while window := list(islice(it, _WINDOW)):
        mech.warm([db for db, _ in window])
        know.warm([db for db, _ in window])
        yield from window
