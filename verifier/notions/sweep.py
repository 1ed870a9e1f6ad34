"""Sweeps: exact tight δ and ε of a thresholded count as functions of the threshold.

Thesis §3.2.2, Figure 3.4 plots ε and δ of the thresholding mechanism ``M_T`` (Definition 60)
against the threshold ``T`` for fixed ``n`` and ``p``, for passive and active attackers. Its
closed-form bounds (Theorem 4) did not survive in the seeds; a sweep computes the exact values
instead, one :class:`SweepPoint` per (p, T, notion), gathered in a :class:`SweepReport`;
its claim is that every point holds. A spec with ``[input]`` or ``[neighbours]`` is swept under
its relation (classical DP only, which has no prior: ``--p`` is refused for it).
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, replace
from typing import cast

from gmpy2 import mpq

from verifier.core.delta import Delta
from verifier.core.epsilon import Epsilon
from verifier.core.errors import BudgetExceeded, InvalidArgument
from verifier.core.numbers import probability
from verifier.engines.counts import Progress
from verifier.model.data import DataModel, iid
from verifier.model.mechanisms import threshold_count
from verifier.notions.check import analyse
from verifier.notions.problem import CheckProblem
from verifier.notions.serial import sweep_json
from verifier.parallel import current_executor

__all__ = ["SweepPoint", "SweepReport", "parse_range", "threshold_sweep"]


@dataclass(frozen=True)
class SweepPoint:
    """One point of a sweep: tight δ at the spec's ε and tight ε at its δ."""

    p: mpq | None
    threshold: int
    notion: str
    delta: Delta
    epsilon: Epsilon
    holds: bool


@dataclass(frozen=True)
class SweepReport:
    """Every point of a sweep, the claim (ε, δ) each point was checked against, and the data
    size; the sweep's claim holds when every point holds."""

    points: tuple[SweepPoint, ...]
    epsilon: Epsilon
    delta: mpq
    mechanism: str
    records: int

    @property
    def holds(self) -> bool:
        return all(pt.holds for pt in self.points)

    def to_dict(self) -> dict:
        """This report as ``plrv sweep --json`` prints it."""
        return sweep_json(self)


_RANGE = re.compile(r"^\s*(\d{1,18})\s*\.\.\s*(\d{1,18})\s*$", re.ASCII)
_INTEGER = re.compile(r"^\s*-?\d{1,18}\s*$", re.ASCII)
MAX_POINTS = 10_000  # thresholds in one sweep


def parse_range(text: str, name: str = "--threshold") -> list[int]:
    """``"2..20"`` (inclusive) or ``"2,5,10"``: at most :data:`MAX_POINTS` thresholds."""
    m = _RANGE.match(text)
    if m:
        lo, hi = int(m.group(1)), int(m.group(2))
        if lo > hi:
            raise InvalidArgument(f"{name} {text!r}: the range is empty ({lo} > {hi})")
        if hi - lo + 1 > MAX_POINTS:
            raise BudgetExceeded(f"{name} {text!r}: {hi - lo + 1} thresholds, over the limit "
                                 f"of {MAX_POINTS} points in one sweep", argument=name)
        return list(range(lo, hi + 1))
    parts = text.split(",")
    if len(parts) > MAX_POINTS:
        raise BudgetExceeded(f"{name}: {len(parts)} thresholds, over the limit of {MAX_POINTS} "
                             f"points in one sweep", argument=name)
    try:
        if not all(_INTEGER.match(x) for x in parts):
            raise ValueError(text)
        values = [int(x) for x in parts]
    except ValueError:
        raise InvalidArgument(f'{name} {text!r} is not a range "A..B" or a list "A,B,C" of '
                              f"integers") from None
    if any(v < 0 for v in values):
        raise InvalidArgument(f"{name} {text!r}: thresholds are non-negative")
    return values


def _sweep_point(job: tuple[mpq | None, int, CheckProblem]) -> list[SweepPoint]:
    """The spec's notions at one point ``(p, T, spec with threshold T)``."""
    p, t, s = job
    report = analyse(s.mechanism, values=s.values, records=s.records, models=s.model,
                     knowledge=s.knowledge, targets=s.targets, pairs=s.pairs,
                     budget=s.budget, engine=s.engine, relation=s.relation
                     ).report(s.notions, s.epsilon, s.delta)
    return [SweepPoint(p, t, notion, r.delta, r.epsilon, r.holds)
            for notion, r in report.results.items()]


def threshold_sweep(spec: CheckProblem, thresholds: Sequence[int],
                    ps: Sequence[object] | None = None,
                    progress: Progress | None = None) -> SweepReport:
    """For each ``p`` (probability of the record value ``values[-1]``; default: the spec's
    prior) and each ``T``: the spec's notions for ``threshold_count`` with threshold ``T``."""
    if spec.mechanism.kind != "threshold_count":
        raise InvalidArgument(f"a threshold sweep needs kind = \"threshold_count\", not "
                              f"{spec.mechanism.kind or 'function'!r}")
    counted = cast(Sequence[Hashable], spec.mechanism.params["counts"])
    models: list[tuple[mpq | None, DataModel | tuple[DataModel, ...] | None]]
    if ps and spec.relation is not None:
        raise InvalidArgument(f"--p sets the prior of the records, which dp under the spec's "
                              f"[input]/[neighbours] ({spec.relation.describe()}) does not "
                              f"use: it ranges over every input; leave out --p",
                              argument="--p", value=list(ps))
    if ps:
        if len(spec.values) != 2:
            raise InvalidArgument(f"--p sets P[record = {spec.values[-1]!r}] for two-valued "
                                  f"records; values = {list(spec.values)!r} has "
                                  f"{len(spec.values)}")
        models = []
        for p in ps:
            q = probability(p, "--p")
            models.append((q, iid([1 - q, q], spec.values, spec.records)))
    else:
        models = [(None, spec.model)]
    jobs = [(p, t, replace(spec, mechanism=threshold_count(counted, t), model=model))
            for p, model in models for t in thresholds]
    labels = [f"p = {p}, threshold {t}" if p is not None else f"threshold {t}"
              for p, _ in models for t in thresholds]
    # each point is one shard of the current executor (verifier.parallel), in point order
    parts = current_executor().map(_sweep_point, jobs, labels, progress)
    points = [point for part in parts for point in part]
    return SweepReport(tuple(points), spec.epsilon, probability(spec.delta, "delta"),
                       spec.mechanism.name, spec.records)
