"""How much enumeration a check may do, and the error that says what would make it fit."""

from __future__ import annotations

from dataclasses import dataclass

from verifier.core.errors import BudgetExceeded, InvalidArgument

__all__ = ["Budget", "check_database_count"]

DEFAULT_MAX_DATABASES = 1 << 20
DEFAULT_MAX_COMBINATIONS = 1 << 24


@dataclass(frozen=True, slots=True)
class Budget:
    """Limits on exhaustive enumeration.

    ``max_databases`` bounds the number of databases the brute-force engine enumerates
    (``|values|^records``); ``max_combinations`` the (target value, known counts, other
    counts) combinations of the count engine.
    """

    max_databases: int = DEFAULT_MAX_DATABASES
    max_combinations: int = DEFAULT_MAX_COMBINATIONS

    def __post_init__(self) -> None:
        for name in ("max_databases", "max_combinations"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidArgument(f"{name} = {value!r} is not a positive integer")


def check_database_count(k: int, n: int, budget: Budget, *, hint: str = "") -> int:
    """``k^n`` if within ``budget``, else :class:`BudgetExceeded` saying what would fit."""
    total = k ** n
    if total > budget.max_databases:
        fit = 0
        while k ** (fit + 1) <= budget.max_databases:
            fit += 1
        raise BudgetExceeded(
            f"records = {n} with {k} values gives {k}^{n} = {total} databases, over the budget "
            f"of {budget.max_databases}; use records ≤ {fit}, or raise the budget to {total} "
            f"(--budget {total}){hint}"
        )
    return total
