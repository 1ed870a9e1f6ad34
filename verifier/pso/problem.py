"""A singling-out question as plain typed values (seed 002): the universe and ``D``, the
number of rows, the mechanism, the adversary, the admissible weights and the claim
``success ≤ factor·baseline + slack``. :mod:`verifier.specs.pso` reads a spec file into it.
"""

from __future__ import annotations

from dataclasses import dataclass

from gmpy2 import mpq

from verifier.core.budget import Budget
from verifier.pso.baseline import Admissible
from verifier.pso.predicates import Universe
from verifier.pso.success import PSOMechanism

__all__ = ["PSOProblem"]


@dataclass(frozen=True)
class PSOProblem:
    """What :func:`verifier.pso.report.pso_report` computes on."""

    universe: Universe
    n: int
    mechanism: PSOMechanism
    adversary: str
    attack: object  # callable output -> predicate, for non-optimal adversaries
    admissible: Admissible
    factor: mpq
    slack: mpq
    budget: Budget
