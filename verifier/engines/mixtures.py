"""The output law given the target and the background as a mixture over the other records.

For a composition under partial knowledge (REFERENCE.md §9) the runs share the records the
attacker does not know, so the joint table of one run is not enough: the law of ``k`` outputs
is ``Σ_u P[u | D(i)=t, ζ(D)=B] · Π_j M(db(t, B, u))[O_j]``, a mixture of product laws. This
module keeps, for every target value ``t`` and background value ``B``, the weights
``P[D(i)=t, ζ(D)=B, M(D) = L]`` of each distinct output law ``L`` of the databases: databases
with the same law are one component (a count mechanism's laws depend on the count alone, so
``n`` records give at most ``n + 1`` components however many databases there are).

Two routes, as for the joint tables (:mod:`verifier.engines.choice`):

* ``counts`` (independent records, a symmetric mechanism, knowledge a set of known indices):
  the target value, the known records' counts (:class:`KnownCounts`) and the other records'
  count vector, each with its exact law (:func:`verifier.engines.counts.count_law`);
  bounded by ``limits.combinations`` (:func:`verifier.engines.counts.count_work`);
* ``brute``: every database of θ and every background value of ζ, bounded by
  ``limits.databases`` and ``limits.work``.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

from gmpy2 import mpq

from verifier.core.budget import Budget
from verifier.core.distribution import Dist, sort_key
from verifier.engines.choice import brute_work, counts_apply
from verifier.engines.counts import count_law, count_work
from verifier.engines.known_counts import KnownCounts
from verifier.model.data import DataModel, IndependentData
from verifier.model.knowledge import NOTHING, Knowledge
from verifier.model.mechanisms import Mechanism

__all__ = ["Mixtures", "mixture_tables"]


@dataclass(frozen=True, eq=False)
class Mixtures:
    """``P[D(i)=t, ζ(D)=B, M(D)=laws[u]] = parts[t][B][u]`` for one target ``i``.

    ``laws`` are the distinct output laws of the databases (one component each); ``parts``
    holds the non-zero weights only, so ``Σ_u parts[t][B][u]·laws[u][O]`` is the joint table's
    cell ``P[D(i)=t, ζ(D)=B, M(D)=O]`` of one run."""

    target: int
    values: tuple
    laws: tuple[Dist, ...]
    parts: Mapping[Hashable, Mapping[Hashable, Mapping[int, mpq]]]

    @property
    def outputs(self) -> tuple:
        """Every output some law gives, in the order of :func:`sort_key`."""
        seen = {o for law in self.laws for o in law.support}
        return tuple(sorted(seen, key=sort_key))

    @property
    def components(self) -> int:
        """How many ``(t, B, law)`` terms the mixtures have."""
        return sum(len(by_u) for by_b in self.parts.values() for by_u in by_b.values())

    def without_background(self) -> Mixtures:
        """The mixtures of an attacker who knows nothing: ``B`` summed out, law by law."""
        parts: dict = {}
        for t, by_b in self.parts.items():
            for by_u in by_b.values():
                for u, w in by_u.items():
                    _add(parts, t, NOTHING, u, w)
        return Mixtures(self.target, self.values, self.laws, parts)

    def cells(self) -> dict:
        """The one-run joint table as rationals ``{t: {B: {O: P}}}`` (for checks)."""
        out: dict = {}
        for t, by_b in self.parts.items():
            for b, by_u in by_b.items():
                row = out.setdefault(t, {}).setdefault(b, {})
                for u, w in by_u.items():
                    for o, p in self.laws[u].items():
                        row[o] = row.get(o, mpq(0)) + w * p
        return out


class _Laws:
    """Distinct laws, each given an index the first time it is seen."""

    def __init__(self) -> None:
        self.index: dict[frozenset, int] = {}
        self.laws: list[Dist] = []

    def __call__(self, law: Dist) -> int:
        key = frozenset(law.items())
        if key not in self.index:
            self.index[key] = len(self.laws)
            self.laws.append(law)
        return self.index[key]


def _add(parts: dict, t: Hashable, b: Hashable, u: int, w: mpq) -> None:
    by_u = parts.setdefault(t, {}).setdefault(b, {})
    by_u[u] = by_u.get(u, mpq(0)) + w


def mixture_tables(data: DataModel, mech: Mechanism, know: Knowledge, targets: Sequence[int],
                   budget: Budget | None = None) -> tuple[dict[int, Mixtures], str]:
    """The mixtures of every target, and the engine that built them (``"counts"`` or
    ``"brute"``); the work is refused by its limit before anything is enumerated."""
    budget = budget or Budget()
    budget.check_records(data.n)
    if counts_apply(data, mech, know) is None:
        assert isinstance(data, IndependentData)
        budget.require("combinations", count_work(data, know, targets),
                       "combinations of counts (target value, known counts, other counts)")
        return _by_counts(data, mech, know, targets), "counts"
    brute_work(data, mech, know, targets, budget)  # refused over limits.databases, work
    return _by_databases(data, mech, know, targets, budget), "brute"


def _by_databases(data: DataModel, mech: Mechanism, know: Knowledge, targets: Sequence[int],
                  budget: Budget) -> dict[int, Mixtures]:
    laws = _Laws()
    parts: dict[int, dict] = {i: {} for i in targets}
    for db, p in data.distribution(budget).items():
        assert isinstance(db, tuple)  # the support of θ is databases
        u = laws(mech(db))
        for b, pb in know(db).items():
            for i in targets:
                _add(parts[i], db[i], b, u, p * pb)
    law_tuple = tuple(laws.laws)
    return {i: Mixtures(i, data.values, law_tuple, parts[i]) for i in targets}


def _by_counts(data: IndependentData, mech: Mechanism, know: Knowledge,
               targets: Sequence[int]) -> dict[int, Mixtures]:
    values, n = data.values, data.n
    known = tuple(know.known or ())
    on_counts = mech.on_counts
    assert on_counts is not None  # counts_apply: the mechanism is symmetric
    laws = _Laws()
    by_total: dict[tuple, int] = {}
    law_k, scale_k = count_law([data.priors[j] for j in known], values)
    out = {}
    for i in targets:
        rest = [j for j in range(n) if j != i and j not in known]
        law_u, scale_u = count_law([data.priors[j] for j in rest], values)
        parts: dict = {}
        for ti, t in enumerate(values):
            p_t = data.priors[i][t]
            if p_t == 0:
                continue
            for c_k, n_k in law_k.items():
                key = KnownCounts(values, c_k) if known else NOTHING
                base = tuple(c + (v == ti) for v, c in enumerate(c_k))
                for c_u, n_u in law_u.items():
                    total = tuple(a + b for a, b in zip(base, c_u, strict=True))
                    if total not in by_total:
                        by_total[total] = laws(on_counts(dict(zip(values, total, strict=True)),
                                                         n))
                    _add(parts, t, key, by_total[total], p_t * mpq(n_k * n_u, scale_k * scale_u))
        out[i] = Mixtures(i, values, (), parts)
    law_tuple = tuple(laws.laws)
    return {i: Mixtures(i, values, law_tuple, m.parts) for i, m in out.items()}
