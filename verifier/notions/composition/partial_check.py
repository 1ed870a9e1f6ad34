"""APK-DP, PPK-DP and noiseless privacy of ``k`` runs of a check spec's mechanism.

The spec's data models Θ, attackers Z, targets and pairs are those of ``plrv check``; each
one-run table becomes a mixture (:mod:`verifier.engines.mixtures`), each mixture the joint
table of the ``k`` runs' histogram (:mod:`verifier.notions.composition.partial`), and the
notions are read off those tables by the cases of one run
(:mod:`verifier.notions.partial.cases`, as :class:`verifier.notions.check.Analysis` reads
them; noiseless privacy from the mixtures with ζ summed out). The whole job is estimated and
refused by its limits before any table of the runs is built.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gmpy2 import mpq

from verifier.core.errors import InvalidArgument
from verifier.engines.joint import check_targets
from verifier.engines.mixtures import Mixtures, mixture_tables
from verifier.model.knowledge import no_knowledge
from verifier.notions.check import Report
from verifier.notions.composition.partial import check_budget, composed_table
from verifier.notions.partial.cases import (
    Table,
    apk_cases,
    background_rows,
    ordered_pairs,
    ppk_cases,
)
from verifier.notions.problem import CheckProblem
from verifier.notions.result import NotionResult, summarize

__all__ = ["PARTIAL_NOTIONS", "PartialComposition", "compose_partial"]

PARTIAL_NOTIONS = ("apkdp", "ppkdp", "noiseless")


@dataclass(frozen=True)
class PartialComposition:
    """The notions' results for ``k`` runs, and what was enumerated."""

    k: int
    report: Report
    engine: str           # the one-run mixtures' engine: "counts" or "brute"
    outputs: int          # distinct outputs of one run (the most over the tables)
    histograms: int       # histograms of k runs of one table
    components: int       # mixture components over every table


def _report(problem: CheckProblem, knowing: list[Table], plain: list[Table],
            pairs: tuple) -> Report:
    """Each notion read off the runs' tables as :meth:`Analysis.report` reads one run's."""
    eps, d = problem.epsilon, mpq(problem.delta)
    results: dict[str, NotionResult] = {}
    for n in problem.notions:
        if n == "apkdp":
            rows = background_rows(knowing, pairs, eps, d)
            results[n] = summarize(n, (c for t in knowing for c in apk_cases(t, pairs, eps)),
                                   eps, d, rows)
        elif n == "ppkdp":
            results[n] = summarize(n, (c for t in knowing for c in ppk_cases(t, pairs, eps)),
                                   eps, d)
        else:
            results[n] = summarize(n, (c for t in plain for c in ppk_cases(t, pairs, eps)),
                                   eps, d)
    return Report(results, (f"{problem.mechanism.name}: runs' histograms",))


def _listed(x) -> list:
    return list(x) if isinstance(x, (list, tuple)) else [x]


def compose_partial(problem: CheckProblem, k: int,
                    progress: Callable[[int, int], None] | None = None) -> PartialComposition:
    """The exact APK/PPK/noiseless δ at ε and ε at δ of ``k`` runs of ``problem``'s
    mechanism on the same database (REFERENCE.md §9)."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InvalidArgument(f"k = {k!r} is not a positive integer", argument="k", value=k)
    other = [n for n in problem.notions if n not in PARTIAL_NOTIONS]
    if other:
        raise InvalidArgument(f"notion {other[0]!r} is not composed here (apkdp, ppkdp and "
                              f"noiseless are)", argument="notions", value=other[0])
    if problem.model is None:
        raise InvalidArgument("composition under partial knowledge needs a data model",
                              argument="model")
    models = _listed(problem.model)
    knowledges = _listed(problem.knowledge) if problem.knowledge is not None \
        else [no_knowledge()]
    targets = check_targets(problem.targets, models[0].n)
    pairs = ordered_pairs(models[0].values, problem.pairs)
    found: list[tuple[int, int, Mixtures]] = []
    engines = set()
    for mi, data in enumerate(models):
        for zi, know in enumerate(knowledges):
            know.check_against(data.n, targets)
            mixtures, engine = mixture_tables(data, problem.mechanism, know, targets,
                                              problem.budget)
            engines.add(engine)
            found += [(mi, zi, mixtures[i]) for i in targets]
    knowing = [n for n in problem.notions if n != "noiseless"]
    jobs = [(mi, zi, m) for mi, zi, m in found if knowing]
    if "noiseless" in problem.notions:  # conditioned on D(i) alone: ζ summed out of the mixture
        jobs += [(mi, -1, m.without_background()) for mi, zi, m in found if zi == 0]
    histograms = check_budget([m for _, _, m in jobs], k, problem.budget)
    total = histograms * len(jobs)
    tables: dict[bool, list[Table]] = {True: [], False: []}
    for j, (mi, zi, mix) in enumerate(jobs):
        jt = composed_table(mix, k, progress, j * histograms, total)
        tables[zi < 0].append(Table(mi, max(zi, 0), jt, f"{k} runs: histograms"))
    report = _report(problem, tables[False], tables[True], pairs)
    return PartialComposition(k, report, "/".join(sorted(engines)),
                              max(len(m.outputs) for _, _, m in found), histograms,
                              sum(m.components for _, _, m in found))
