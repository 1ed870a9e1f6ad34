"""Command-line option values read exactly, every error naming the option and its value."""

from __future__ import annotations

from gmpy2 import mpq

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
    x = rational(text, name)
    if x <= 0:
        raise InvalidArgument(f"{name} {text} must be > 0")
    return x


def strictly_between_0_and_1(text: str, name: str) -> mpq:
    """An exact rational in the open interval (0, 1)."""
    x = rational(text, name)
    if not 0 < x < 1:
        raise InvalidArgument(f"{name} {text} must lie strictly between 0 and 1")
    return x
