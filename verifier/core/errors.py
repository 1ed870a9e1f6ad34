"""The exception hierarchy: one root, leaves that also inherit the matching builtin.

Every error names the argument it is about and shows the offending value, so that a
message read in a log is enough to fix the input.
"""

from __future__ import annotations

__all__ = [
    "VerifierError",
    "InvalidNumber",
    "InvalidDistribution",
    "NullEvent",
    "UnknownName",
    "InvalidArgument",
    "BudgetExceeded",
    "SpecError",
]


class VerifierError(Exception):
    """Root of every error raised by plrv."""


class InvalidNumber(VerifierError, ValueError):
    """A number that cannot be read exactly (a float, a malformed string, a bad ε)."""


class InvalidDistribution(VerifierError, ValueError):
    """Weights that are negative or do not sum to exactly 1."""


class NullEvent(VerifierError, ZeroDivisionError):
    """Conditioning on an event of probability zero."""


class UnknownName(VerifierError, LookupError):
    """A mechanism kind, notion or user function that does not exist."""

    def __str__(self) -> str:  # LookupError would quote the message like a key
        return str(self.args[0]) if self.args else ""


class InvalidArgument(VerifierError, ValueError):
    """An argument outside its allowed range (an index, a threshold, a pair of values)."""


class BudgetExceeded(VerifierError, ValueError):
    """An instance larger than the enumeration budget allows."""


class SpecError(VerifierError, ValueError):
    """A spec file that is malformed: names the file, the key and what is wrong."""

    def __init__(self, message: str, *, file: str | None = None, key: str | None = None):
        self.file = file
        self.key = key
        self.detail = message
        where = ": ".join(part for part in (file, key) if part)
        super().__init__(f"{where}: {message}" if where else message)
