"""Plain text for exact values: short forms, digit counts, certified decimals (display only).

Exact values are shown exactly when they are short. A long one keeps its shape and says how
many digits each number has — ``ln(<3952-digit>/<3951-digit>)``, ``<23-digit>/<24-digit>`` —
and carries its certified decimal beside it (a truncation, marked ``≈``); the exact value in
full is in ``--json``. Nothing here imports rich: the terminal renderer styles these strings.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping
from typing import Any

from gmpy2 import mpq

from verifier.core.certified import shown_decimal
from verifier.core.delta import Delta
from verifier.core.distribution import Bottom
from verifier.core.epsilon import Epsilon
from verifier.core.numbers import format_rational

__all__ = ["WIDTH", "wrapped", "cite", "LONG", "short", "digits", "show_value", "show_rational",
           "show_delta", "show_epsilon", "exact_cell", "exact_approx", "witness_sentence"]

WIDTH = 80  # columns of every command's text output (a terminal's own width when shown in one)
LONG = 60  # exact strings longer than this are shown by their shape and digit counts
_RUN = re.compile(r"\d{13,}")  # a run of digits too long to read at a glance
_MPQ = type(mpq(0))


_LABEL = re.compile(r"\S+(?: \S+)*? {2,}(?=\S)")  # "mechanism  …": a label padded to a column
_SOURCES = {"seed 000": "Desfontaines 2020 §3.1.3", "seed 001": "Desfontaines 2020 §3.2.2",
            "seed 002": "Cohen and Nissim 2019", "seed 003": "Desfontaines et al. 2019",
            "seed 004": "Pankova and Laud 2022", "thesis": "Desfontaines 2020"}
_SOURCE = re.compile(r"\bseed 00[0-4]\b|\bthesis\b")


def wrapped(text: str, width: int = WIDTH) -> str:
    """``text`` folded at ``width`` columns, line by line: a continuation is indented under
    the value of a ``label      value`` line, else two columns deeper than its line; a word
    longer than the room (a long exact value) is broken. Every text output goes through
    this, or through rich at the same width (error lines excepted: one line each, the exit
    status contract).

    >>> print(wrapped("mechanism  " + "word " * 16, 40))
    mechanism  word word word word word word
               word word word word word word
               word word word word
    """
    out = []
    for line in text.split("\n"):
        if len(line) <= width:
            out.append(line)
            continue
        lead = len(line) - len(line.lstrip(" "))
        label = _LABEL.match(line, lead)
        indent = label.end() if label and len(label.group()) <= 16 else lead + 2
        out.append(textwrap.fill(line[lead:], width, initial_indent=" " * lead,
                                 subsequent_indent=" " * indent, break_on_hyphens=False,
                                 replace_whitespace=False, drop_whitespace=True))
    return "\n".join(out)


def cite(text: str) -> str:
    """``text`` with the papers' numbers (``seed 003``, ``thesis``) replaced by their
    authors and year, as docs/mathematics.md names them.

    >>> cite("seed 003 Lemma 4; thesis Theorem 1")
    'Desfontaines et al. 2019 Lemma 4; Desfontaines 2020 Theorem 1'
    """
    return _SOURCE.sub(lambda m: _SOURCES[m.group()], text)


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
    dec = shown_decimal(x, 6)
    return dec if "−" not in dec and mpq(dec) == x else f"≈ {dec}"


def exact_cell(x: mpq) -> str:
    """A table cell for an exact rational: the value when short, else its certified decimal
    and the digit counts of numerator and denominator (``≈ 0.919749 (20/21 digits)``); the
    exact value is in ``--json``."""
    text = format_rational(x)
    if len(text) <= 24:
        return text
    num, _, den = text.lstrip("-").partition("/")
    size = f"{len(num)}/{len(den)} digits" if den else f"{len(num)} digits"
    return f"≈ {shown_decimal(x)} ({size})"


def exact_approx(x: mpq) -> str:
    """An exact rational with its certified decimal beside it (``7/20 ≈ 0.35``); a long one
    by its certified decimal and digit counts (``≈ 0.919749 (20/21 digits)``)."""
    cell = exact_cell(x)
    if "≈" in cell:
        return cell
    dec = shown_decimal(x)
    return cell if dec == cell else f"{cell} ≈ {dec}"


def show_delta(d: Delta) -> str:
    text = str(d)
    approx = shown_decimal(d)
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
