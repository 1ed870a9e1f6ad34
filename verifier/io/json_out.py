"""Turning results into JSON-ready values and human-readable text (display only).

Exact values are written as exact strings (``"7/64"``, ``"ln(3)"``, ``"1/3 - 1/9*exp(1/2)"``);
decimals appear only beside them, labelled as approximations, and are certified truncations.
"""

from __future__ import annotations

from collections.abc import Hashable

from gmpy2 import mpq

from verifier.core.certified import decimal_string
from verifier.core.delta import Delta
from verifier.core.distribution import Bottom
from verifier.core.epsilon import Epsilon
from verifier.core.numbers import format_rational
from verifier.notions.result import NotionResult

__all__ = ["jsonable", "result_json", "report_json", "show_value", "show_delta", "show_epsilon",
           "short",
           "show_rational"]

LONG = 60  # exact strings longer than this are summarised in human output


def jsonable(value: object) -> object:
    """A JSON-ready form of an outcome, background value or exact number."""
    if isinstance(value, Bottom):
        return "⊥"
    if isinstance(value, (Delta, Epsilon)):
        return str(value)
    if isinstance(value, type(mpq(0))):
        return format_rational(value)
    if isinstance(value, (tuple, list)):
        return [jsonable(v) for v in value]
    if isinstance(value, frozenset):
        return sorted((jsonable(v) for v in value), key=repr)
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if hasattr(value, "as_dict"):
        return value.as_dict()
    if isinstance(value, (bool, int, str)) or value is None:
        return value
    return repr(value)


def result_json(r: NotionResult, engine: str | None = None) -> dict:
    """One notion's result: exact strings, verdict, witness, and labelled approximations."""
    out = {
        "delta": str(r.delta),
        "epsilon": str(r.epsilon),
        "holds": r.holds,
        "witness": jsonable(r.witness),
        "query": {"epsilon": str(r.query_epsilon), "delta": format_rational(r.query_delta)},
        "approx": {"delta": r.delta.approx(), "epsilon": r.epsilon.approx()},
        "cases": r.cases,
    }
    if engine:
        out["engine"] = engine
    if r.details:
        out["backgrounds"] = [
            {k: jsonable(v) for k, v in row.items()} for row in r.details
        ]
    return out


def report_json(results: dict, engine) -> dict:
    """Every notion's result; when both APK and PPK were asked, each background value of APK
    also says whether its δ lies above, at or below the PPK δ (where the two part)."""
    out = {n: result_json(r, engine(n)) for n, r in results.items()}
    apk, ppk = results.get("apkdp"), results.get("ppkdp")
    if apk is not None and ppk is not None and apk.details:
        side = {1: "above", 0: "equal", -1: "below"}
        for row, detail in zip(out["apkdp"]["backgrounds"], apk.details):
            row["vs_ppk"] = side[detail["delta"].compare(ppk.delta)]
        out["apkdp"]["ppk_delta"] = str(ppk.delta)
    return out


def short(text: str) -> str:
    """An exact string, or its size when it is too long to read."""
    if len(text) <= LONG:
        return text
    if "/" in text and " " not in text:
        num, den = text.split("/")
        return f"<{len(num.lstrip('-'))}-digit/{len(den)}-digit rational>"
    return f"<{len(text)} characters>"


def show_value(value: Hashable) -> str:
    if isinstance(value, tuple):
        return "(" + ", ".join(show_value(v) for v in value) + ")"
    if isinstance(value, type(mpq(0))):
        return format_rational(value)
    return repr(value) if isinstance(value, str) else str(value)


def show_rational(x: mpq) -> str:
    """A rational exactly when short (``1/100``), else its decimal (``1e-100``), marked ≈ only
    when the decimal is not exact."""
    text = format_rational(x)
    if len(text) <= 24:
        return text
    dec = decimal_string(x, 6)
    return dec if mpq(dec) == x else f"≈ {dec}"


def show_delta(d: Delta) -> str:
    text = str(d)
    approx = d.approx()
    return text if text == approx else f"{short(text)}  ≈ {approx}"


def show_epsilon(e: Epsilon) -> str:
    text = str(e)
    approx = e.approx()
    return text if text == approx else f"{short(text)}  ≈ {approx}"
