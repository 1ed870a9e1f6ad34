"""The public checks: one call per question a user asks, returning exact results."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

from .budget import Budget
from .data import DataModel
from .counts import Progress
from .dp import dp_cases
from .engines import build_tables
from .errors import InvalidArgument, UnknownName
from .exact import parse_epsilon, probability
from .joint import check_targets
from .knowledge import Knowledge, no_knowledge
from .mechanisms import Mechanism
from .partial import Table, apk_cases, background_rows, ordered_pairs, ppk_cases, tables_for
from .result import NotionResult, summarize

__all__ = ["NOTIONS", "Report", "check_partial", "check_notions"]

NOTIONS = ("dp", "apkdp", "ppkdp", "noiseless")


@dataclass(frozen=True)
class Report:
    """Results per notion, and what the engines did (for the user to see)."""

    results: dict[str, NotionResult]
    info: tuple[str, ...] = field(default=())

    @property
    def holds(self) -> bool:
        return all(r.holds for r in self.results.values())


def _as_list(x, kind):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def check_notions(mech: Mechanism, *, values: Sequence[Hashable], records: int,
                  models: DataModel | Sequence[DataModel] | None = None,
                  knowledge: Knowledge | Sequence[Knowledge] | None = None,
                  targets: object = "all", pairs: Sequence | None = None,
                  epsilon: object = "0", delta: object = "0",
                  notions: Sequence[str] = ("dp",), budget: Budget | None = None,
                  engine: str = "auto", progress: Progress | None = None) -> Report:
    """Decide each notion in ``notions`` for the claim (ε, δ), exactly.

    ``dp`` ranges over every database of ``records`` records over ``values``; the other notions
    need data models Θ (``models``) and use background knowledge Z (``knowledge``, default:
    none), for every target index in ``targets`` and every ordered pair of distinct values
    (or the given ``pairs``). ``engine`` is ``"auto"``, ``"brute"`` or ``"counts"``
    (:mod:`verifier.engines`); ``progress(done, total)`` is called as the tables are built.
    """
    eps = parse_epsilon(epsilon)
    d = probability(delta, "delta")
    for notion in notions:
        if notion not in NOTIONS:
            raise UnknownName(f"notion {notion!r} is unknown; known notions: {', '.join(NOTIONS)}")
    results: dict[str, NotionResult] = {}
    info: list[str] = []
    if "dp" in notions:
        by_counts = engine == "counts" or (engine == "auto" and mech.symmetric)
        results["dp"] = summarize("dp", dp_cases(mech, values, records, budget, engine), eps, d)
        info.append("dp: neighbouring count vectors of a symmetric mechanism" if by_counts
                    else f"dp: brute force over {len(values)}^{records} databases")
    partial = [x for x in notions if x != "dp"]
    if partial:
        if models is None:
            raise InvalidArgument(f"notion {partial[0]!r} needs a data model (a prior)")
        model_list = _as_list(models, "models")
        know_list = _as_list(knowledge if knowledge is not None else no_knowledge(), "knowledge")
        idx = check_targets(targets, model_list[0].n)
        pair_list = ordered_pairs(model_list[0].values, pairs)
        tables = tables_for(model_list, know_list, mech, idx, budget,
                            build_tables(engine, progress))
        info += sorted({t.engine for t in tables})
        if "apkdp" in notions:
            rows = background_rows(tables, pair_list, eps, d)
            results["apkdp"] = summarize(
                "apkdp", (c for t in tables for c in apk_cases(t, pair_list)), eps, d, rows)
        if "ppkdp" in notions:
            results["ppkdp"] = summarize(
                "ppkdp", (c for t in tables for c in ppk_cases(t, pair_list)), eps, d)
        if "noiseless" in notions:
            plain = [Table(t.model, 0, t.table.without_background(), t.engine)
                     for t in tables if t.knowledge == 0]
            results["noiseless"] = summarize(
                "noiseless", (c for t in plain for c in ppk_cases(t, pair_list)), eps, d)
    return Report({n: results[n] for n in notions}, tuple(info))


def check_partial(mech: Mechanism, models: DataModel | Sequence[DataModel], *,
                  knowledge: Knowledge | Sequence[Knowledge] | None = None,
                  targets: object = "all", pairs: Sequence | None = None,
                  epsilon: object = "0", delta: object = "0",
                  notions: Sequence[str] = ("apkdp", "ppkdp"),
                  budget: Budget | None = None, engine: str = "auto",
                  progress: Progress | None = None) -> Report:
    """APK-DP, PPK-DP and noiseless privacy of ``mech`` for Θ = ``models`` and Z = ``knowledge``."""
    first = _as_list(models, "models")[0]
    return check_notions(mech, values=first.values, records=first.n, models=models,
                         knowledge=knowledge, targets=targets, pairs=pairs, epsilon=epsilon,
                         delta=delta, notions=notions, budget=budget, engine=engine,
                         progress=progress)
