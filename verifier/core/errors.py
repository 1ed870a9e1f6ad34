"""The exception hierarchy: one root, leaves that also inherit the matching builtin.

Every error names the argument it is about and shows the offending value, so that a
message read in a log is enough to fix the input. The name is also kept as a field
(``argument``; a spec error's ``file``, ``key`` and ``value``) so that callers never have to
parse it back out of the message.
"""

from __future__ import annotations

from collections.abc import Iterable
from difflib import get_close_matches

__all__ = [
    "VerifierError",
    "InvalidNumber",
    "InvalidDistribution",
    "NullEvent",
    "Undecided",
    "UndecidableComparison",
    "NotComparable",
    "InexactArithmetic",
    "UnknownName",
    "InvalidArgument",
    "OutOfRange",
    "BudgetExceeded",
    "SpecError",
    "UserCodeError",
    "NO_VALUE",
    "did_you_mean",
]


class _NoValue:
    """The ``value`` of an error about a missing key (there is no value to show)."""

    def __repr__(self) -> str:
        return "NO_VALUE"


NO_VALUE = _NoValue()


def did_you_mean(word: object, known: Iterable[str]) -> str:
    """``"; did you mean `w`?"`` for the known name closest to a misspelt ``word``
    (:func:`difflib.get_close_matches`, its default cutoff 0.6), else ``""``: the tail of
    a message that refuses an unknown key, table or kind.

    >>> did_you_mean("epsilom", ["delta", "epsilon", "notions"])
    '; did you mean `epsilon`?'
    >>> did_you_mean("zzz", ["delta", "epsilon"])
    ''
    """
    if not isinstance(word, str):
        return ""
    close = get_close_matches(word, sorted(set(known)), n=1)
    return f"; did you mean `{close[0]}`?" if close else ""


class VerifierError(Exception):
    """Root of every error raised by plrv.

    ``argument`` names the argument (or spec key, relative to its table) the error is about,
    when it is known; ``value`` is the offending value (:data:`NO_VALUE` when not recorded).
    """

    def __init__(self, *args: object, argument: str | None = None,
                 value: object = NO_VALUE) -> None:
        super().__init__(*args)
        self.argument = argument
        self.value = value


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


class OutOfRange(InvalidNumber, InvalidArgument):
    """A number read exactly but outside the range its argument allows (a probability above
    1, a size of 0): both an invalid number and an invalid argument."""


class BudgetExceeded(VerifierError, ValueError):
    """An instance larger than the enumeration budget allows."""


class Undecided(VerifierError, ArithmeticError):
    """A certified comparison that enclosures did not decide within the precision limit. The
    commands answer *unknown* (exit 3) where it stops a verdict: it is never a verdict."""


class UndecidableComparison(Undecided):
    """A comparison of two exact values (an ``Epsilon``, a ``Delta``, a number) that no exact
    rule decides and certified enclosures did not separate within the precision bound: the
    values may be equal without being written alike (``ln(q)`` against ``A − C·e^x``), or agree
    to more bits than the bound. ``left`` and ``right`` are the two values; never a guess."""

    def __init__(self, message: str, *, left: object = None, right: object = None) -> None:
        super().__init__(message)
        self.left = left
        self.right = right


class NotComparable(VerifierError, TypeError):
    """An exact value compared with something that is not a number (a string such as
    ``"ln(3)"``): refused rather than answered ``False``."""


class InexactArithmetic(VerifierError, ArithmeticError):
    """Arithmetic whose exact result has no exact form here (``ln(2) + 1``, the sum of two δ
    at different ε, a division by zero): raised rather than rounded."""


class SpecError(VerifierError, ValueError):
    """A spec file that is malformed: names the file, the key and what is wrong.

    Fields: ``file``, ``key`` (dotted, e.g. ``mechanism.truth``, or ``[table]``), ``value``
    (the offending value, :data:`NO_VALUE` for a missing key) and ``detail`` (the message
    without the file and key). ``str(exc)`` is one line ``FILE: KEY: detail``.
    """

    def __init__(self, message: str, *, file: str | None = None, key: str | None = None,
                 value: object = NO_VALUE) -> None:
        self.file = file
        self.key = key
        self.detail = message
        where = ": ".join(part for part in (file, key) if part)
        super().__init__(f"{where}: {message}" if where else message, argument=key,
                         value=value)


class UserCodeError(VerifierError, RuntimeError):
    """A user function (``"module:function"`` of a spec) that could not be loaded, raised an
    exception or returned something that is not a valid answer. ``function`` names it."""

    def __init__(self, message: str, *, function: str | None = None,
                 argument: str | None = None) -> None:
        super().__init__(message, argument=argument)
        self.function = function
