"""Exhaustive families of small instances on which the theorems are checked exactly."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

from verifier import (
    Mechanism,
    count,
    geometric_count,
    iid,
    independent,
    mean_query,
    randomized_response,
    sum_query,
    threshold_count,
)
from verifier.model.data import DataModel


@dataclass(frozen=True)
class Instance:
    """θ, M, a target and the known indices: one case of a partial-knowledge theorem."""

    model: DataModel
    mech: Mechanism
    target: int
    known: tuple[int, ...]

    def __str__(self) -> str:
        return (f"{self.mech.describe()} | {self.model.describe()} | target {self.target} | "
                f"known {list(self.known)}")


def _models():
    yield iid(["1/2", "1/2"], [0, 1], 2)
    yield iid(["4/5", "1/5"], [0, 1], 3)
    yield independent([["1/3", "2/3"], ["1/2", "1/2"], ["3/4", "1/4"], ["1/5", "4/5"]], [0, 1])
    yield iid(["1/2", "1/3", "1/6"], [0, 1, 2], 2)
    yield independent([["1/2", "1/4", "1/4"], ["1/3", "1/3", "1/3"], ["0", "1/2", "1/2"]],
                      [0, 1, 2])
    yield iid(["9/10", "1/10"], [0, 1], 5)


def _mechanisms(values):
    yield count([1])
    yield threshold_count([1], 2)
    yield geometric_count([1], "1/2")
    yield sum_query()
    if len(values) == 2:
        yield randomized_response("3/4", values)
    else:
        yield mean_query()


def partial_knowledge_family(max_records: int = 5):
    """Every model × mechanism × target × set of known indices (not holding the target)."""
    for model in _models():
        if model.n > max_records:
            continue
        for mech in _mechanisms(model.values):
            if mech.name == "randomized_response" and model.n > 3:
                continue  # its output space is 2^n tuples; n ≤ 3 keeps the family quick
            for target in range(model.n):
                others = [j for j in range(model.n) if j != target]
                for size in range(len(others) + 1):
                    for known in combinations(others, size):
                        yield Instance(model, mech, target, known)
