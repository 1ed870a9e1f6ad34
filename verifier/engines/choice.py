"""Choosing the engine that builds the joint tables, and saying how big its work is.

* ``brute``: enumerates every database of θ (any θ, ζ and mechanism);
* ``counts``: enumerates count vectors (:mod:`verifier.counts`); it applies when the records
  are independent, the mechanism is symmetric (has ``on_counts``) and the knowledge is a set
  of known indices (or nothing);
* ``auto``: ``counts`` when it applies, else ``brute``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from verifier.core.budget import (
    Budget,
    check_database_count,
    decimal_exponent,
    exceeded,
    format_power,
    format_size,
)
from verifier.core.errors import InvalidArgument
from verifier.core.numbers import counted
from verifier.engines.counts import Progress, count_estimate, count_memory_floor, count_tables
from verifier.engines.joint import JointTable, brute_force_tables
from verifier.model.data import DataModel, IndependentData
from verifier.model.knowledge import Knowledge
from verifier.model.mechanisms import Mechanism

__all__ = ["ENGINES", "build_tables", "joint_tables", "counts_apply", "brute_work"]

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


def _support_product(data: DataModel, budget: Budget) -> int:
    """How many databases brute force enumerates (``Π_j |supp θ_j|``), refused over
    ``limits.databases`` before any product of huge numbers is formed."""
    if not isinstance(data, IndependentData):
        return budget.require("databases", len(data.distribution(budget)),
                              "brute force over the databases of θ")
    sizes = Counter(len(p) for p in data.priors)
    if len(sizes) == 1:
        (s, c), = sizes.items()
        return check_database_count(s, c, budget)
    total = 1
    for s, c in sizes.items():
        if _too_big(s, c, budget.max_databases) or total * s ** c > budget.max_databases:
            what = " · ".join(f"{s}^{c}" for s, c in sorted(sizes.items()))
            raise exceeded("databases", f"databases for brute force ({what})",
                           _power_product(sizes), budget.max_databases)
        total *= s ** c
    return total


def _too_big(s: int, c: int, limit: int) -> bool:
    return s > 1 and c > limit.bit_length()


def _power_product(sizes: Counter) -> str:
    return f"≈10^{decimal_exponent(sizes)}"


def _first_database(data: DataModel) -> tuple:
    if isinstance(data, IndependentData):
        return tuple(p.support[0] for p in data.priors)
    return tuple(data.distribution().support[0])  # type: ignore[arg-type]


def brute_work(data: DataModel, mech: Mechanism, know: Knowledge, targets: Sequence[int],
               budget: Budget | None = None) -> int:
    """The brute-force estimate, checked against the limits before anything is enumerated.

    ``work = D · O · B · T``: ``D`` databases (``limits.databases``), ``O`` outputs and
    ``B`` background values of the mechanism and knowledge on one database (evaluated once),
    ``T`` targets — one table cell update each, which is where the time goes (building the
    tables); the privacy losses are computed once per (pair of values, background value)
    over rows already summed, at most the size of the tables.
    """
    budget = budget or Budget()
    budget.check_records(data.n)
    d = _support_product(data, budget)
    db0 = _first_database(data)
    o = mech.outputs_bound(data.n) if mech.outputs_bound is not None \
        else len(mech(db0))
    b, t = len(know(db0)), len(targets)
    budget.require("work", d * o * b * t,
                   f"brute force: databases × outputs × backgrounds × targets = "
                   f"{format_size(d)} × {format_size(o)} × {format_size(b)} × {t}")
    return d


def _brute(data, mech, know, targets, budget, progress=None):
    d = brute_work(data, mech, know, targets, budget)
    tables = brute_force_tables(data, mech, know, targets, budget, progress)
    return tables, f"brute force: {counted(format_size(d), 'database')} enumerated"


def _counts(data, mech, know, targets, budget, progress=None):
    reason = counts_apply(data, mech, know)
    if reason:
        raise InvalidArgument(f"engine = 'counts' does not apply: {reason}")
    budget = budget or Budget()
    budget.check_records(data.n)
    budget.require("memory", count_memory_floor(data, know, targets),
                   "the count engine's memory (bytes), at least", ", or use fewer records")
    work, memory = count_estimate(data, mech, know, targets)
    budget.require("combinations", work, "the count engine's combinations of counts",
                   ", or use fewer records or values")
    budget.require("memory", memory, "the count engine's estimated memory (bytes)",
                   ", or use fewer records")
    tables = count_tables(data, mech, know, targets, budget, progress)
    m = len(know.known or ())
    k = len(data.values)
    return tables, (f"count engine: {counted(format_size(work), 'combination')} of counts "
                    f"({counted(len(targets), 'target')}, {m} known and "
                    f"{counted(data.n - 1 - m, 'other record')}); brute force would "
                    f"enumerate {counted(format_power(k, data.n), 'database')}")


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
