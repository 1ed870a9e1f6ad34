"""Joint tables ``P[D(i)=t, ζ(D)=B, M(D)=O]`` whose cells are rational functions.

The symbolic counterpart of :class:`verifier.engines.joint.JointTable` (seed 003 §4): every
partial-knowledge notion is read off the cells ``J(t, B, O)``, their row sums
``w(t, B) = P[D(i)=t, ζ(D)=B]`` and ``P(t) = P[D(i)=t]``. Built by enumerating the databases
of θ (small instances only: this is the symbolic half, the exact engines scale).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from verifier.core.distribution import sort_key
from verifier.model.knowledge import NOTHING, Knowledge
from verifier.symbolic.instance import SymbolicSpec

__all__ = ["SymTable", "symbolic_tables", "knowledges_of", "MAX_DATABASES"]

MAX_DATABASES = 4096  # databases of θ a symbolic table enumerates

Element = Any


@dataclass(frozen=True, eq=False)
class SymTable:
    """``cells[t][B][O] = J(t, B, O)`` (absent cells are 0) for one θ, ζ and target."""

    model: int
    knowledge: int
    target: int
    values: tuple
    cells: dict
    zero: Element

    def row(self, t: Hashable, b: Hashable) -> dict:
        return self.cells.get(t, {}).get(b, {})

    def w(self, t: Hashable, b: Hashable) -> Element:
        return sum(self.row(t, b).values(), self.zero)

    def p(self, t: Hashable) -> Element:
        return sum((self.w(t, b) for b in self.cells.get(t, {})), self.zero)

    def backgrounds(self) -> list:
        return sorted({b for by_b in self.cells.values() for b in by_b}, key=sort_key)

    def outputs(self, b: Hashable) -> list:
        return sorted({o for t in self.values for o in self.row(t, b)}, key=sort_key)

    def without_background(self) -> SymTable:
        """ζ summed out: the table of noiseless privacy (Definition 3)."""
        cells: dict = {}
        for t, by_b in self.cells.items():
            out = cells.setdefault(t, {}).setdefault(NOTHING, {})
            for row in by_b.values():
                for o, x in row.items():
                    out[o] = out.get(o, self.zero) + x
        return SymTable(self.model, self.knowledge, self.target, self.values, cells, self.zero)


def knowledges_of(sym: SymbolicSpec) -> tuple[Knowledge, ...]:
    k = sym.base.knowledge
    return k if isinstance(k, tuple) else (k,)


def symbolic_tables(sym: SymbolicSpec, knowledges: Sequence[Knowledge] | None = None,
                    targets: Sequence[int] | None = None) -> list[SymTable]:
    """One table per θ, ζ and target (default: the spec's)."""
    from verifier.core.errors import InvalidArgument
    from verifier.engines.joint import check_targets
    knows = tuple(knowledges) if knowledges is not None else knowledges_of(sym)
    idx = tuple(targets) if targets is not None else check_targets(sym.base.targets,
                                                                   sym.records)
    params = sym.parameters
    zero = params.field.zero
    out = []
    for k, model in enumerate(sym.models):
        if len(model) > MAX_DATABASES:
            raise InvalidArgument(f"θ has {len(model)} databases; symbolic tables enumerate at "
                                  f"most {MAX_DATABASES}: use fewer records")
        outputs = {db: sym.kernel(db) for db in model}
        for z, know in enumerate(knows):
            know.check_against(sym.records, idx)
            cells: dict[int, dict] = {i: {} for i in idx}
            for db, p in model.items():
                for b, pb in know(db).items():
                    pbb = p * params.element(pb)
                    for i in idx:
                        row = cells[i].setdefault(db[i], {}).setdefault(b, {})
                        for o, po in outputs[db].items():
                            row[o] = row.get(o, zero) + pbb * po
            for i in idx:
                clean = {t: {b: {o: x for o, x in row.items() if x != 0}
                             for b, row in by_b.items()} for t, by_b in cells[i].items()}
                clean = {t: {b: r for b, r in by_b.items() if r} for t, by_b in clean.items()}
                out.append(SymTable(k, z, i, sym.values, clean, zero))
    return out
