"""Plain text for exact values: short forms, digit counts, certified decimals (display only).

Exact values are shown exactly when they are short. A long one keeps its shape and says how
many digits each number has — ``ln(<3952-digit>/<3951-digit>)``, ``<23-digit>/<24-digit>`` —
and carries its certified decimal beside it (a truncation, marked ``≈``); the exact value in
full is in ``--json``. Nothing here imports rich: the terminal renderer styles these strings.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from gmpy2 import mpq

from verifier.core.certified import decimal_string
from verifier.core.delta import Delta
from verifier.core.distribution import Bottom
from verifier.core.epsilon import Epsilon
from verifier.core.numbers import format_rational

__all__ = ["LONG", "short", "digits", "show_value", "show_rational", "show_delta",
           "show_epsilon", "exact_cell", "exact_approx", "witness_sentence"]

LONG = 60  # exact strings longer than this are shown by their shape and digit counts
_RUN = re.compile(r"\d{13,}")  # a run of digits too long to read at a glance
_MPQ = type(mpq(0))


def digits(number: str) -> str:
    """``<N-digit>`` for a run of ``N`` digits."""
    return f"<{len(number)}-digit>"


def short(text: str) -> str:
    """An exact string, or — when too long to read — the same string with every long run of
    digits replaced by its digit count.

    >>> short("ln(3)")
    'ln(3)'
    >>> short("ln(" + "7" * 50 + "/" + "3" * 49 + ")")
    'ln(<50-digit>/<49-digit>)'
    """
    if len(text) <= LONG:
        return text
    return _RUN.sub(lambda m: digits(m.group()), text)


def show_value(value: object) -> str:
    """An outcome, record or background value as a user reads it (no Python quoting of
    numbers; strings quoted)."""
    if isinstance(value, tuple):
        return "(" + ", ".join(show_value(v) for v in value) + ")"
    if isinstance(value, list):
        return "[" + ", ".join(show_value(v) for v in value) + "]"
    if isinstance(value, _MPQ):
        return format_rational(value)
    if isinstance(value, Bottom):
        return "⊥"
    return repr(value) if isinstance(value, str) else str(value)


def show_rational(x: mpq) -> str:
    """A rational exactly when short (``1/100``), else its decimal (``1e-100``), marked ≈ only
    when the decimal is not exact."""
    text = format_rational(x)
    if len(text) <= 24:
        return text
    dec = decimal_string(x, 6)
    return dec if mpq(dec) == x else f"≈ {dec}"


def exact_cell(x: mpq) -> str:
    """A table cell for an exact rational: the value when short, else its certified decimal
    and the digit counts of numerator and denominator (``≈ 0.919749 (20/21 digits)``); the
    exact value is in ``--json``."""
    text = format_rational(x)
    if len(text) <= 24:
        return text
    num, _, den = text.lstrip("-").partition("/")
    size = f"{len(num)}/{len(den)} digits" if den else f"{len(num)} digits"
    return f"≈ {decimal_string(x)} ({size})"


def exact_approx(x: mpq) -> str:
    """An exact rational with its certified decimal beside it (``7/20 ≈ 0.35``); a long one
    by its certified decimal and digit counts (``≈ 0.919749 (20/21 digits)``)."""
    cell = exact_cell(x)
    if "≈" in cell:
        return cell
    dec = decimal_string(x)
    return cell if dec == cell else f"{cell} ≈ {dec}"


def show_delta(d: Delta) -> str:
    text = str(d)
    approx = d.approx()
    return text if text == approx else f"{short(text)}  ≈ {approx}"


def show_epsilon(e: Epsilon) -> str:
    text = str(e)
    approx = e.approx()
    return text if text == approx else f"{short(text)}  ≈ {approx}"


def _background(value: object) -> str:
    values, counts = getattr(value, "values", None), getattr(value, "counts", None)
    if isinstance(values, tuple) and isinstance(counts, tuple):  # a count class
        return "the known records hold " + ", ".join(
            f"{c} × {show_value(v)}" for v, c in zip(values, counts, strict=True))
    return f"the known records are {show_value(value)}"


def witness_sentence(witness: Mapping[str, Any]) -> str:
    """Where δ is attained, as a sentence: the two databases (DP), or the target, its two
    values, the background value, the data model and the attacker (APK/PPK/noiseless)."""
    if "inputs" in witness:  # a neighbouring relation other than replace-one
        x, y = witness["inputs"]
        return f"inputs {show_value(tuple(x))} and {show_value(tuple(y))} ({witness['relation']})"
    if "databases" in witness:
        d1, d2 = witness["databases"]
        if "index" not in witness:
            return (f"databases {show_value(tuple(d1))} and {show_value(tuple(d2))} "
                    f"({witness.get('relation')})")
        return (f"databases {show_value(tuple(d1))} and {show_value(tuple(d2))} "
                f"(differing in record {witness.get('index')})")
    parts = []
    if "target" in witness:
        parts.append(f"target record {witness['target']}")
    if "values" in witness:
        a, b = witness["values"]
        parts.append(f"taking value {show_value(a)} against {show_value(b)}")
    if "background" in witness:
        parts.append(_background(witness["background"]))
    if witness.get("model") or witness.get("knowledge"):
        parts.append(f"data model {witness.get('model')}, attacker {witness.get('knowledge')}")
    return ", ".join(parts)
