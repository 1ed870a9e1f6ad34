"""The public checks: one call per question a user asks, returning exact results."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

from gmpy2 import mpq

from verifier.core.budget import Budget
from verifier.core.epsilon import Epsilon, parse_epsilon
from verifier.core.errors import InvalidArgument
from verifier.core.numbers import probability
from verifier.engines.choice import build_tables
from verifier.engines.counts import Progress
from verifier.engines.joint import check_targets
from verifier.model.data import DataModel
from verifier.model.knowledge import Knowledge, no_knowledge
from verifier.model.mechanisms import Mechanism
from verifier.notions.dp.brute import by_counts, dp_cases, dp_summary
from verifier.notions.dp.neighbours import Relation, relation_cases
from verifier.notions.partial.cases import (
    Table,
    apk_cases,
    background_rows,
    ordered_pairs,
    ppk_cases,
    tables_for,
)
from verifier.notions.registry import APKDP, DP, NOTIONS, PARTIAL_RENYI, PPKDP, RENYI, notion
from verifier.notions.result import NotionResult, results_html, results_repr, summarize
from verifier.notions.serial import check_json
from verifier.parallel import current_executor

__all__ = ["NOTIONS", "Report", "Analysis", "analyse", "check_partial", "check_notions"]



@dataclass(frozen=True)
class Report:
    """Results per notion, and what the engines did (for the user to see)."""

    results: dict[str, NotionResult]
    info: tuple[str, ...] = field(default=())

    @property
    def holds(self) -> bool:
        return all(r.holds for r in self.results.values())

    def to_dict(self, full: bool = False) -> dict:
        """This report as ``plrv check --json`` prints it (``--full`` with ``full``), for a
        spec without doubles, ``[parameters]`` or ``--closed-form``, which add their keys."""
        return check_json(self, full)

    def __repr__(self) -> str:
        return results_repr("Report", self.results)

    def _repr_html_(self) -> str:
        return results_html(self.results)


def _as_list(x) -> list:
    return list(x) if isinstance(x, (list, tuple)) else [x]


class Analysis:
    """The work behind a check, done once: joint tables, privacy losses, DP cases.

    Built by :func:`analyse`; :meth:`report` then answers any claim (ε, δ) for any of the
    notions without recomputing the tables, so sweeping ε or δ is cheap.
    """

    def __init__(self, mech: Mechanism, values: tuple, records: int, budget: Budget | None,
                 engine: str, tables: list[Table] | None, pairs: tuple | None,
                 relation: Relation | None = None, progress: Progress | None = None):
        self.mech, self.values, self.records = mech, values, records
        self.progress = progress  # shards of dp on a parallel executor
        self.relation = relation  # None: replace-one over databases of ``records`` records
        self.budget, self.engine = budget, engine
        self.tables, self.pairs = tables, pairs
        self._dp_cases: list | None = None
        self._plain: list[Table] | None = None
        self.info: list[str] = sorted({t.engine for t in tables}) if tables else []

    def _dp(self) -> list:
        if self._dp_cases is None and self.relation is not None:
            self._dp_cases = list(relation_cases(self.relation, self.mech, self.budget,
                                                 self.engine))
            self.info.insert(0, f"dp: neighbours {self.relation.describe()}")
        if self._dp_cases is None:
            self._dp_cases = list(dp_cases(self.mech, self.values, self.records, self.budget,
                                           self.engine))
            self.info.insert(0, "dp: neighbouring count vectors of a symmetric mechanism"
                             if by_counts(self.mech, self.engine) else
                             f"dp: brute force over {len(self.values)}^{self.records} databases")
        return self._dp_cases

    def _dp_result(self, eps: Epsilon, d: mpq) -> NotionResult:
        """DP from its cases (kept for the next claim), or — brute force over replace-one
        on a parallel executor — from shards of the pairs merged in enumeration order
        (:func:`~verifier.notions.dp.brute.dp_summary`), the same answer and witness."""
        rel = self.relation
        if (self._dp_cases is None and current_executor().parallel
                and not by_counts(self.mech, self.engine)
                and (rel is None or rel.name == "replace-one")):
            values, records = (self.values, self.records) if rel is None else (rel.values,
                                                                              rel.records)
            summary = dp_summary(self.mech, values, records, eps, d, self.budget,
                                 self.engine, self.progress)
            line = (f"dp: neighbours {rel.describe()}" if rel is not None else
                    f"dp: brute force over {len(values)}^{records} databases")
            if line not in self.info:
                self.info.insert(0, line)
            return summary.result("dp")
        return summarize("dp", self._dp(), eps, d)

    def _need_tables(self, notion: str) -> list[Table]:
        if self.tables is None:
            raise InvalidArgument(f"notion {notion!r} needs a data model (a prior)")
        return self.tables

    def report(self, notions: Sequence[str] = ("dp",), epsilon: object = "0",
               delta: object = "0") -> Report:
        """Decide each notion in ``notions`` for the claim (ε, δ)."""
        eps = parse_epsilon(epsilon)
        d = probability(delta, "delta")
        asked = [notion(name) for name in notions]
        renyi = [n.key for n in asked if n.key in RENYI]
        if renyi:
            where = "partial.check_renyi_partial" if renyi[0] in PARTIAL_RENYI else \
                "check.check_renyi"
            raise InvalidArgument(f"notion {renyi[0]!r} is decided by "
                                  f"verifier.notions.renyi.{where}, not with an "
                                  f"(ε, δ) claim", argument="notions", value=renyi[0])
        pairs = self.pairs or ()  # set whenever there are tables (notions other than dp)
        results: dict[str, NotionResult] = {}
        for n in asked:
            if n is DP:
                results["dp"] = self._dp_result(eps, d)
            elif n is APKDP:
                tables = self._need_tables(n.key)
                rows = background_rows(tables, pairs, eps, d)
                results["apkdp"] = summarize(
                    "apkdp", (c for t in tables for c in apk_cases(t, pairs, eps)), eps, d,
                    rows)
            elif n is PPKDP:
                tables = self._need_tables(n.key)
                results["ppkdp"] = summarize(
                    "ppkdp", (c for t in tables for c in ppk_cases(t, pairs, eps)), eps, d)
            else:  # noiseless: conditioned on D(i) alone (seed 003, Definition 3)
                tables = self._need_tables(n.key)
                if self._plain is None:
                    self._plain = [Table(t.model, 0, t.table.without_background(), t.engine)
                                   for t in tables if t.knowledge == 0]
                results["noiseless"] = summarize(
                    "noiseless", (c for t in self._plain for c in ppk_cases(t, pairs, eps)),
                    eps, d)
        return Report(results, tuple(self.info))


def analyse(mech: Mechanism, *, values: Sequence[Hashable], records: int,
            models: DataModel | Sequence[DataModel] | None = None,
            knowledge: Knowledge | Sequence[Knowledge] | None = None,
            targets: object = "all", pairs: Sequence | None = None,
            budget: Budget | None = None, engine: str = "auto",
            progress: Progress | None = None, relation: Relation | None = None) -> Analysis:
    """Build the joint tables of every θ ∈ Θ (``models``), ζ ∈ Z (``knowledge``, default:
    none) and target, ready for :meth:`Analysis.report`.

    ``engine`` is ``"auto"``, ``"brute"`` or ``"counts"`` (:mod:`verifier.engines`);
    ``progress(done, total)`` is called as the tables are built.
    """
    tables, pair_list = None, None
    if models is not None:
        model_list = _as_list(models)
        know_list = _as_list(knowledge if knowledge is not None else no_knowledge())
        idx = check_targets(targets, model_list[0].n)
        pair_list = ordered_pairs(model_list[0].values, pairs)
        tables = tables_for(model_list, know_list, mech, idx, budget,
                            build_tables(engine, progress))
    return Analysis(mech, tuple(values), records, budget, engine, tables, pair_list, relation,
                    progress)


def check_notions(mech: Mechanism, *, values: Sequence[Hashable], records: int,
                  models: DataModel | Sequence[DataModel] | None = None,
                  knowledge: Knowledge | Sequence[Knowledge] | None = None,
                  targets: object = "all", pairs: Sequence | None = None,
                  epsilon: object = "0", delta: object = "0",
                  notions: Sequence[str] = ("dp",), budget: Budget | None = None,
                  engine: str = "auto", progress: Progress | None = None,
                  relation: Relation | None = None) -> Report:
    """Decide each notion in ``notions`` for the claim (ε, δ), exactly.

    ``dp`` ranges over the ordered pairs of ``relation`` (:mod:`verifier.notions.dp.neighbours`;
    default: every database of ``records`` records over ``values``, replace-one); the other notions
    need data models Θ (``models``) and use background knowledge Z (``knowledge``, default:
    none), for every target index in ``targets`` and every ordered pair of distinct values
    (or the given ``pairs``).
    """
    parse_epsilon(epsilon)
    probability(delta, "delta")
    partial = [n for n in map(notion, notions) if n.needs_model]
    if partial and models is None:
        raise InvalidArgument(f"notion {partial[0].key!r} needs a data model (a prior)")
    analysis = analyse(mech, values=values, records=records,
                       models=models if partial else None, knowledge=knowledge,
                       targets=targets, pairs=pairs, budget=budget, engine=engine,
                       progress=progress, relation=relation)
    return analysis.report(notions, epsilon, delta)


def check_partial(mech: Mechanism, models: DataModel | Sequence[DataModel], *,
                  knowledge: Knowledge | Sequence[Knowledge] | None = None,
                  targets: object = "all", pairs: Sequence | None = None,
                  epsilon: object = "0", delta: object = "0",
                  notions: Sequence[str] = ("apkdp", "ppkdp"),
                  budget: Budget | None = None, engine: str = "auto",
                  progress: Progress | None = None) -> Report:
    """APK-DP, PPK-DP and noiseless privacy of ``mech`` for Θ = ``models`` and Z = ``knowledge``."""
    first = _as_list(models)[0]
    return check_notions(mech, values=first.values, records=first.n, models=models,
                         knowledge=knowledge, targets=targets, pairs=pairs, epsilon=epsilon,
                         delta=delta, notions=notions, budget=budget, engine=engine,
                         progress=progress)
