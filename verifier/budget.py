"""How much enumeration a check may do, and the error that says what would make it fit."""

from __future__ import annotations

from dataclasses import dataclass

from .errors import BudgetExceeded, InvalidArgument

__all__ = ["Budget", "check_database_count"]

DEFAULT_MAX_DATABASES = 1 << 20


@dataclass(frozen=True, slots=True)
class Budget:
    """Limits on exhaustive enumeration.

    ``max_databases`` bounds the number of databases the brute-force engine enumerates
    (``|values|^records``).
    """

    max_databases: int = DEFAULT_MAX_DATABASES

    def __post_init__(self) -> None:
        if isinstance(self.max_databases, bool) or not isinstance(self.max_databases, int) \
                or self.max_databases < 1:
            raise InvalidArgument(f"budget = {self.max_databases!r} is not a positive integer")


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
