"""The problem a check spec states, as plain typed values: what every command computes on.

:mod:`verifier.specs.check` reads a spec file into a :class:`CheckProblem` (published as
``verifier.Spec``); the layers below the readers — notions, sweeps, the symbolic engine,
certificates — take this object and never a file or a raw table.
"""

from __future__ import annotations

from dataclasses import dataclass

from verifier.core.budget import Budget
from verifier.core.epsilon import Epsilon
from verifier.model.data import DataModel
from verifier.model.knowledge import Knowledge
from verifier.model.mechanisms import Mechanism
from verifier.notions.dp.neighbours import Relation
from verifier.notions.renyi.check import RenyiClaim

__all__ = ["CheckProblem"]


@dataclass(frozen=True)
class CheckProblem:
    """A parsed check spec: everything :func:`verifier.notions.check.check_notions` needs
    (``path`` names the file it came from, for messages only)."""

    path: str | None
    values: tuple
    records: int
    model: DataModel | tuple[DataModel, ...] | None  # a tuple is a family Θ
    mechanism: Mechanism
    knowledge: Knowledge | tuple[Knowledge, ...]  # a tuple is a family Z
    targets: object
    pairs: tuple | None
    epsilon: Epsilon
    delta: object
    notions: tuple[str, ...]
    budget: Budget
    engine: str
    relation: Relation | None = None  # dp's neighbouring relation (None: replace-one)
    doubles: tuple = ()  # (dotted key, F64): the spec's {f64 = "…"} values, for reports
    renyi: RenyiClaim | None = None  # the claim of notions rdp and zcdp (then ε, δ unused)
