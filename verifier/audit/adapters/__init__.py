"""One adapter per audited library (each imports its library only inside its functions), and
what they share: reading an argument as the double the library is handed, and calling the
library with its printing kept off plrv's output."""

from __future__ import annotations

import contextlib
import io
import warnings
from collections.abc import Callable
from typing import TypeVar

import gmpy2
from gmpy2 import mpq

from verifier.audit.case import AuditCase
from verifier.core.binary64 import F64
from verifier.core.epsilon import parse_epsilon
from verifier.core.errors import InvalidArgument, OutOfRange, VerifierError
from verifier.core.numbers import format_rational, integer, rational

__all__ = ["double_arg", "double_of", "quiet", "positive_count", "in_range", "option_double"]

T = TypeVar("T")


def _nearest(x: mpq) -> float:
    """The double nearest to the rational ``x`` (Python's int/int division rounds correctly)."""
    return int(x.numerator) / int(x.denominator)


def double_of(value: object, name: str) -> tuple[F64, str | None]:
    """``(double, note)``: the double a library is handed for ``value`` — an F64 as it is; a
    rational string (``"3/4"``) or an integer rounded to nearest; ``"ln(q)"`` the double
    nearest to ``ln q`` (from a 256-bit correctly rounded MPFR logarithm). ``note`` says
    when the double differs from the number written."""
    if isinstance(value, F64):
        return value, None
    if isinstance(value, bool):
        raise InvalidArgument(f"{name} = {value!r} is a boolean, not a number", argument=name,
                              value=value)
    if isinstance(value, str) and value.replace(" ", "").startswith("ln("):
        eps = parse_epsilon(value, name)
        if eps.base is None:
            raise InvalidArgument(f"{name} = {value!r} is not a finite ε", argument=name,
                                  value=value)
        with gmpy2.context(gmpy2.get_context(), precision=256):
            # float ok: the double the library is handed (ln q at 256 bits, rounded once to
            # nearest), read back exactly as an F64 and named in the notes
            d = F64(float(gmpy2.log(gmpy2.mpfr(eps.base))))
        return d, f"{name} = {value} is handed to the library as the double {d.hex} = {d}"
    try:
        x = rational(value, name)
    except VerifierError as exc:
        raise InvalidArgument(str(exc), argument=name, value=value) from None
    try:
        d = F64(_nearest(x))
    except OverflowError:
        text = format_rational(x)
        shown = text if len(text) <= 40 else f"{text[:12]}… ({len(text)} characters)"
        raise InvalidArgument(f"{name} = {shown}: beyond the largest double", argument=name,
                              value=shown) from None
    if d.exact == x:
        return d, None
    return d, (f"{name} = {format_rational(x)} is not a double; the library is handed the "
               f"nearest, {d.hex} = {d}, and the audit models that double")


def double_arg(case: AuditCase, key: str, notes: list[str]) -> F64:
    """The argument ``args.key`` as the double the library is handed (see :func:`double_of`)."""
    d, note = double_of(case.arg(key), f"args.{key}")
    if note:
        notes.append(note)
    return d


def option_double(case: AuditCase, key: str, notes: list[str]) -> F64 | None:
    if key not in case.options:
        return None
    d, note = double_of(case.options[key], f"options.{key}")
    if note:
        notes.append(note)
    return d


def in_range(d: F64, name: str, *, gt: object = None, ge: object = None, lt: object = None,
             le: object = None, why: str = "") -> F64:
    """``d`` when its exact value lies in the range the bounds give (each an exact number:
    ``gt < d``, ``ge ≤ d``, ``d < lt``, ``d ≤ le``; an F64 bound is shown as the double it
    is); otherwise an :class:`OutOfRange` naming ``name`` and the range (``why``: the
    library's reason), raised before the library sees the value."""
    x = d.exact
    parts = []
    for bound, op, ok in ((gt, ">", lambda b: x > b), (ge, "≥", lambda b: x >= b),
                          (lt, "<", lambda b: x < b), (le, "≤", lambda b: x <= b)):
        if bound is not None:
            b = bound.exact if isinstance(bound, F64) else rational(bound, name)
            shown_b = str(bound) if isinstance(bound, F64) else format_rational(b)
            parts.append((f"{op} {shown_b}", ok(b)))
    if not all(ok for _, ok in parts):
        shown = str(d) if len(str(d)) <= 40 else d.hex
        raise OutOfRange(f"{name} = {shown} must be {' and '.join(t for t, _ in parts)}{why}",
                         argument=name, value=shown)
    return d


def positive_count(value: object, name: str, lo: int = 1, hi: int | None = None) -> int:
    """An integer in ``[lo, hi]`` (an error naming ``name`` otherwise)."""
    return integer(value, name, lo=lo, hi=hi)


def quiet(f: Callable[..., T], *args: object, notes: list[str] | None = None,
          **kwargs: object) -> T:
    """``f(*args, **kwargs)`` with whatever the library prints kept off plrv's standard
    output (autodp prints its binary search); its warnings are recorded, and added to
    ``notes`` (each distinct one once) when given."""
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        result = f(*args, **kwargs)
    if notes is not None:
        for message in dict.fromkeys(str(x.message) for x in w):
            note = f"the library warned: {' '.join(message.split())[:300]}"
            if note not in notes:
                notes.append(note)
    return result
