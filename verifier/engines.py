"""Choosing the engine that builds the joint tables, and saying how big its work is."""

from __future__ import annotations

from collections.abc import Sequence

from .budget import Budget
from .data import DataModel
from .errors import InvalidArgument
from .joint import JointTable, brute_force_tables
from .knowledge import Knowledge
from .mechanisms import Mechanism

__all__ = ["ENGINES", "build_tables", "joint_tables"]

ENGINES = ("auto", "brute")


def _brute(data: DataModel, mech: Mechanism, know: Knowledge, targets: Sequence[int],
           budget: Budget | None) -> tuple[dict[int, JointTable], str]:
    dist = data.distribution(budget)
    tables = brute_force_tables(data, mech, know, targets, budget)
    return tables, f"brute force: {len(dist)} databases enumerated"


def build_tables(engine: str = "auto"):
    """The table builder for ``engine`` (``"auto"`` picks the fastest that applies)."""
    if engine not in ENGINES:
        raise InvalidArgument(f"engine = {engine!r} is not one of {', '.join(ENGINES)}")
    return _brute


def joint_tables(data: DataModel, mech: Mechanism, know: Knowledge, targets: Sequence[int],
                 budget: Budget | None = None, engine: str = "auto"
                 ) -> tuple[dict[int, JointTable], str]:
    """The joint tables of θ = ``data``, ζ = ``know`` for every target, and the engine used."""
    know.check_against(data.n, targets)
    return build_tables(engine)(data, mech, know, targets, budget)
