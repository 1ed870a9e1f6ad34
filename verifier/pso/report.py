"""The ``plrv pso`` report: exact success against the exact baseline, as one typed value.

The claim checked (seed 002, stated explicitly because Definition 3.6's inequality did not
survive in the seed): ``success ≤ factor · baseline + slack``.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import cast

from gmpy2 import mpq

from verifier.pso.problem import PSOProblem
from verifier.pso.success import (
    baseline,
    optimal_adversary,
    success,
)

__all__ = ["PSOReport", "pso_report"]


@dataclass(frozen=True)
class PSOReport:
    """Success and baseline (Claim 3.1's ``max B(n, w')`` with a predicate attaining it), the
    distribution of the adversary's predicate weights, and the claim's verdict.

    ``searched`` and ``strategy`` are set for the optimal adversary (the number of scored
    (output, predicate) pairs and the best predicate per output), ``datasets`` otherwise.
    """

    success: mpq
    baseline: mpq
    baseline_weight: mpq | None
    baseline_predicate: frozenset
    weights: Mapping[object, mpq]
    factor: mpq
    slack: mpq
    searched: int | None = None
    strategy: Mapping[Hashable, frozenset] | None = None
    datasets: int | None = None

    @property
    def difference(self) -> mpq:
        return self.success - self.baseline

    @property
    def ratio(self) -> mpq | None:
        """success / baseline, None when the baseline is 0 (an infinite ratio)."""
        return None if self.baseline == 0 else self.success / self.baseline

    @property
    def bound(self) -> mpq:
        return self.factor * self.baseline + self.slack

    @property
    def holds(self) -> bool:
        return self.success <= self.bound

    def to_dict(self, spec: PSOProblem, full: bool = False) -> dict:
        """This report of ``spec`` as ``plrv pso --json`` prints it (``--full`` with
        ``full``: the optimal adversary's strategy)."""
        from verifier.pso.serial import pso_json

        return pso_json(spec, self, full)


def pso_report(spec: PSOProblem, progress=None) -> PSOReport:
    """Success, baseline, predicate weights and the claim's verdict; ``progress(done, total)``
    is called as the datasets are enumerated."""
    base, base_w, base_pred = baseline(spec.universe, spec.n, spec.admissible, spec.budget)
    if spec.adversary == "optimal":
        res = optimal_adversary(spec.universe, spec.n, spec.mechanism, spec.admissible,
                                spec.budget, progress)
        return PSOReport(res.success, base, base_w, frozenset(base_pred), res.weights,
                         spec.factor, spec.slack, searched=res.searched,
                         strategy=res.strategy)
    attack = cast(Callable[[Hashable], object], spec.attack)  # set for every non-optimal one
    plain = success(spec.universe, spec.n, spec.mechanism, attack, spec.admissible,
                    spec.budget, progress)
    return PSOReport(plain.success, base, base_w, frozenset(base_pred), plain.weights,
                     spec.factor, spec.slack, datasets=plain.datasets)
