"""The joint table ``P[D(i)=t, ζ(D)=B, M(D)=O]`` and the brute-force engine that builds it.

Every partial-knowledge notion is read off this table (seed 003 §4): conditioned on
``D(i)=t, ζ(D)=B`` it gives the output distributions whose ratio is the PLRV of Definition 5.
The brute-force engine enumerates every database; the count engine (:mod:`verifier.counts`)
builds the same table from count vectors.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from gmpy2 import mpq

from .budget import Budget
from .data import DataModel
from .distribution import Dist, sort_key
from .errors import InvalidArgument
from .knowledge import NOTHING, Knowledge
from .mechanisms import Mechanism

__all__ = ["JointTable", "brute_force_tables", "check_targets"]

Cells = Mapping[Hashable, Mapping[Hashable, Mapping[Hashable, mpq]]]


@dataclass(frozen=True, eq=False)
class JointTable:
    """``cells[t][B][O] = P[D(i)=t, ζ(D)=B, M(D)=O]`` for one target index ``i``.

    Zero cells are absent. Equality is exact equality of every cell.
    """

    target: int
    values: tuple
    cells: Cells

    def p_value(self, t: Hashable) -> mpq:
        """``P[D(i)=t]``."""
        return sum((self.p_background(t, b) for b in self.cells.get(t, {})), mpq(0))

    def p_background(self, t: Hashable, b: Hashable) -> mpq:
        """``P[D(i)=t, ζ(D)=B]``."""
        return sum(self.cells.get(t, {}).get(b, {}).values(), mpq(0))

    def outputs(self, t: Hashable, b: Hashable) -> Mapping[Hashable, mpq]:
        """``O ↦ P[D(i)=t, ζ(D)=B, M(D)=O]``."""
        return self.cells.get(t, {}).get(b, {})

    def conditional(self, t: Hashable, b: Hashable) -> Dist | None:
        """``P[M(D)=· | D(i)=t, ζ(D)=B]``, or ``None`` when the condition has probability 0."""
        row = self.outputs(t, b)
        total = sum(row.values(), mpq(0))
        if total == 0:
            return None
        return Dist._trusted({o: w / total for o, w in row.items()})

    def backgrounds(self) -> list[Hashable]:
        seen = {b for rows in self.cells.values() for b in rows}
        return sorted(seen, key=sort_key)

    def without_background(self) -> JointTable:
        """The table of an attacker who knows nothing: ``B`` summed out."""
        cells: dict = {}
        for t, rows in self.cells.items():
            merged: dict = {}
            for row in rows.values():
                for o, w in row.items():
                    merged[o] = merged.get(o, mpq(0)) + w
            cells[t] = {NOTHING: merged}
        return JointTable(self.target, self.values, cells)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, JointTable):
            return NotImplemented
        return (self.target, self.values) == (other.target, other.values) and \
            _plain(self.cells) == _plain(other.cells)

    __hash__ = None  # type: ignore[assignment]


def _plain(cells: Cells) -> dict:
    return {t: {b: {o: w for o, w in row.items() if w} for b, row in rows.items()
                if any(row.values())} for t, rows in cells.items()}


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
                f"target {i} is out of range for {n} records (indices are 0..{n - 1})"
            )
        out.append(i)
    if not out:
        raise InvalidArgument("target = [] names no record to attack")
    return tuple(dict.fromkeys(out))


def brute_force_tables(data: DataModel, mech: Mechanism, know: Knowledge,
                       targets: Sequence[int], budget: Budget | None = None
                       ) -> dict[int, JointTable]:
    """Joint tables for every target, by enumerating every database of θ once."""
    cells: dict[int, dict] = {i: {} for i in targets}
    for db, p in data.distribution(budget).items():
        m = mech(db)
        for b, pb in know(db).items():
            pbb = p * pb
            for i in targets:
                row = cells[i].setdefault(db[i], {}).setdefault(b, {})
                for o, po in m.items():
                    row[o] = row.get(o, mpq(0)) + pbb * po
    return {i: JointTable(i, data.values, cells[i]) for i in targets}
