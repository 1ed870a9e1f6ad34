"""Exhaustive families of small instances on which the theorems are checked exactly."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations

from verifier import (
    Dist,
    Knowledge,
    Mechanism,
    count,
    explicit,
    geometric_count,
    iid,
    independent,
    knowledge,
    known_indices,
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
    know: Knowledge | None = None  # a randomized ζ, used instead of ``known`` when set

    @property
    def knowledge(self) -> Knowledge:
        return self.know if self.know is not None else known_indices(self.known)

    def __str__(self) -> str:
        what = self.know.name if self.know is not None else f"known {list(self.known)}"
        return (f"{self.mech.describe()} | {self.model.describe()} | target {self.target} | "
                f"{what}")


def correlated() -> DataModel:
    """Three binary records that are not independent: mostly all equal (a household)."""
    return explicit({(0, 0, 0): "2/5", (1, 1, 1): "1/5", (0, 1, 1): "1/10", (1, 0, 0): "1/10",
                     (0, 0, 1): "1/10", (1, 1, 0): "1/10"}, [0, 1])


def noisy_record(j: int, truth: str = "3/4") -> Knowledge:
    """ζ(D) = D_j read through randomized response: randomized background knowledge."""
    lie = str(1 - Fraction(truth))

    def see(db: tuple) -> Dist:
        return Dist({db[j]: truth, 1 - db[j]: lie})
    return knowledge(see, f"record {j} seen through randomized response {truth}")


def _models():
    yield iid(["1/2", "1/2"], [0, 1], 2)
    yield iid(["4/5", "1/5"], [0, 1], 3)
    yield independent([["1/3", "2/3"], ["1/2", "1/2"], ["3/4", "1/4"], ["1/5", "4/5"]], [0, 1])
    yield iid(["1/2", "1/3", "1/6"], [0, 1, 2], 2)
    yield independent([["1/2", "1/4", "1/4"], ["1/3", "1/3", "1/3"], ["0", "1/2", "1/2"]],
                      [0, 1, 2])
    yield iid(["9/10", "1/10"], [0, 1], 5)
    yield correlated()


def _mechanisms(values):
    yield count([1])
    yield threshold_count([1], 2)
    yield geometric_count([1], "1/2")
    yield sum_query()
    if len(values) == 2:
        yield randomized_response("3/4", values)
    else:
        yield mean_query()


def partial_knowledge_family(max_records: int = 5) -> list[Instance]:
    """Every model × mechanism × target × set of known indices (not holding the target), and
    randomized knowledge on the small binary models. The same objects on every call, so that
    the records share the tables computed for them (:mod:`proofs.partial_common`)."""
    if max_records not in _FAMILIES:
        _FAMILIES[max_records] = list(_family(max_records))
    return _FAMILIES[max_records]


_FAMILIES: dict[int, list[Instance]] = {}


def _family(max_records: int):
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
                if model.values == (0, 1) and model.n <= 3:  # randomized background knowledge
                    yield Instance(model, mech, target, (), noisy_record(others[0]))
