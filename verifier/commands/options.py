"""Command-line option values read exactly, every error naming the option and its value."""

from __future__ import annotations

from gmpy2 import mpq

from verifier.core import numbers
from verifier.core.errors import InvalidArgument
from verifier.core.numbers import rational

__all__ = ["interval", "number_list", "positive", "strictly_between_0_and_1"]

def interval(text: str, name: str = "--range") -> tuple[mpq, mpq]:
    """``"lo..hi"`` with exact rationals ``lo ≤ hi``."""
    lo_text, dots, hi_text = text.partition("..")
    if not dots:
        raise InvalidArgument(f'{name} {text!r} is not of the form "lo..hi"')
    lo, hi = rational(lo_text.strip(), name), rational(hi_text.strip(), name)
    if lo > hi:
        raise InvalidArgument(f"{name} {text!r}: the interval is empty (lo > hi)")
    return lo, hi


def number_list(text: str) -> list[str]:
    """``"1/10, 1/2"`` → ``["1/10", "1/2"]`` (each read exactly by its user)."""
    return [x.strip() for x in text.split(",")]


def positive(text: str, name: str) -> mpq:
    """An exact rational ``> 0``."""
    return numbers.positive(text, name)


def strictly_between_0_and_1(text: str, name: str) -> mpq:
    """An exact rational in the open interval (0, 1)."""
    return numbers.open_unit(text, name)
