"""Choosing the engine that builds the joint tables, and saying how big its work is.

* ``brute``: enumerates every database of θ (any θ, ζ and mechanism);
* ``counts``: enumerates count vectors (:mod:`verifier.counts`); it applies when the records
  are independent, the mechanism is symmetric (has ``on_counts``) and the knowledge is a set
  of known indices (or nothing);
* ``auto``: ``counts`` when it applies, else ``brute``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from verifier.core.budget import Budget
from verifier.core.errors import InvalidArgument
from verifier.engines.counts import Progress, count_tables, count_work
from verifier.engines.joint import JointTable, brute_force_tables
from verifier.model.data import DataModel, IndependentData
from verifier.model.knowledge import Knowledge
from verifier.model.mechanisms import Mechanism

__all__ = ["ENGINES", "build_tables", "joint_tables", "counts_apply"]

ENGINES = ("auto", "brute", "counts")

Builder = Callable[[DataModel, Mechanism, Knowledge, Sequence[int], Budget | None],
                   tuple[dict[int, JointTable], str]]


def counts_apply(data: DataModel, mech: Mechanism, know: Knowledge) -> str | None:
    """Why the count engine does not apply, or None when it does."""
    if not isinstance(data, IndependentData):
        return "the data model is not independent records"
    if not mech.symmetric:
        return f"the mechanism {mech.name} is not declared symmetric"
    if know.known is None:
        return "the background knowledge is not a set of known indices"
    return None


def _brute(data, mech, know, targets, budget, progress=None):
    tables = brute_force_tables(data, mech, know, targets, budget)
    k = len(data.values)
    return tables, f"brute force: {k}^{data.n} = {k ** data.n} databases enumerated"


def _counts(data, mech, know, targets, budget, progress=None):
    reason = counts_apply(data, mech, know)
    if reason:
        raise InvalidArgument(f"engine = 'counts' does not apply: {reason}")
    tables = count_tables(data, mech, know, targets, budget, progress)
    m = len(know.known or ())
    k = len(data.values)
    return tables, (f"count engine: {count_work(data, know, targets)} combinations of counts "
                    f"({len(targets)} target(s), {m} known and {data.n - 1 - m} other records); "
                    f"brute force would enumerate {k}^{data.n} databases")


def build_tables(engine: str = "auto", progress: Progress | None = None) -> Builder:
    """The table builder for ``engine`` (``"auto"`` picks the count engine when it applies)."""
    if engine not in ENGINES:
        raise InvalidArgument(f"engine = {engine!r} is not one of {', '.join(ENGINES)}")

    def build(data, mech, know, targets, budget):
        use_counts = engine == "counts" or (
            engine == "auto" and counts_apply(data, mech, know) is None)
        return (_counts if use_counts else _brute)(data, mech, know, targets, budget, progress)
    return build


def joint_tables(data: DataModel, mech: Mechanism, know: Knowledge, targets: Sequence[int],
                 budget: Budget | None = None, engine: str = "auto"
                 ) -> tuple[dict[int, JointTable], str]:
    """The joint tables of θ = ``data``, ζ = ``know`` for every target, and the engine used."""
    know.check_against(data.n, targets)
    return build_tables(engine)(data, mech, know, targets, budget)
