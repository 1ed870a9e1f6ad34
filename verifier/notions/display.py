"""The readable ``repr`` and notebook HTML of the results that are not a
:class:`~verifier.notions.result.NotionResult`: Rényi DP and zCDP, DP of a sum plus an exact
noise law, and the certified enclosure of a composition.

Each result is described once, as a title, a verdict (``holds``, ``FAILS`` or ``UNDECIDED``)
and rows of ``(name, text)``; :func:`result_repr` writes them on one line and
:func:`result_html` as a table. Exact values are written exactly, with a certified decimal
(``≈``) after an irrational one; an enclosure's ends are given as decimals, marked ``≈``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from verifier.core.certified import Certified, shown_decimal
from verifier.core.numbers import Rational, counted, format_rational
from verifier.notions.result import witness_text

__all__ = ["Described", "verdict_word", "result_repr", "result_html", "report_repr",
           "report_html", "rdp_described", "zcdp_described", "noise_described",
           "enclosure_described"]

Described = tuple[str, str, list[tuple[str, str]]]  # title, verdict, rows


def verdict_word(holds: bool | None) -> str:
    """``holds``, ``FAILS``, or ``UNDECIDED`` (a comparison not decided: never a pass)."""
    return "UNDECIDED" if holds is None else "holds" if holds else "FAILS"


def _value(value: Any) -> str:
    """An exact value (with ``≈`` its certified decimal where it is not a short rational),
    or an enclosure's decimal."""
    if isinstance(value, Certified):
        return str(value)
    if isinstance(value, Rational):
        return format_rational(value)
    text = str(value)
    approx = shown_decimal(value)
    return text if approx == text or text == "inf" else f"{text} ≈ {approx}"


def _interval(lo: str, hi: str) -> str:
    """An enclosure ``[lo, hi]`` from the certified decimals of its ends."""
    return f"≈ {lo} (an enclosure)" if lo == hi else f"in [≈ {lo}, ≈ {hi}] (an enclosure)"


def _conversions(conversions: Sequence[tuple[str, Any]]) -> list[tuple[str, str]]:
    return [(f"{what} by {c.source}" + ("" if c.order is None
                                        else f" (α = {format_rational(c.order)})"),
             _value(c.value)) for what, c in conversions]


def rdp_described(r: Any) -> Described:
    """An :class:`~verifier.notions.renyi.check.RdpResult`: ``D_α`` per order against its
    bound, the witness of the first order that fails (else of the first order)."""
    rows = [(f"D_{o.order}", f"{_value(o.value)} {'≤' if o.holds else '>'} {o.bound}")
            for o in r.orders]
    shown = next((o for o in r.orders if not o.holds), r.orders[0] if r.orders else None)
    if shown is not None:
        rows.append(("witness" if not shown.holds else "worst case",
                     f"{witness_text(shown.witness)} (α = {shown.order})"))
    rows.append(("cases", str(r.cases)))
    return "rdp", verdict_word(r.holds), rows + _conversions(r.conversions)


def zcdp_described(z: Any) -> Described:
    """A :class:`~verifier.notions.renyi.check.ZcdpResult`: the tight ρ* (exact, or enclosed)
    against the claimed ρ, where it is attained, the witness."""
    if z.infinite:
        tight = "inf"
    elif z.exact is not None:
        tight = format_rational(z.exact)
    else:
        tight = _interval(shown_decimal(z.lo), shown_decimal(z.hi))
    rows = [("claimed ρ", format_rational(z.rho)), ("tight ρ*", tight), ("attained at", z.at),
            ("witness" if z.holds is False else "worst case", witness_text(z.witness)),
            ("cases", str(z.cases))]
    if z.reason:
        rows.append(("found by", z.reason))
    return "zcdp", verdict_word(z.holds), rows + _conversions(z.conversions)


def noise_described(n: Any) -> Described:
    """A :class:`~verifier.notions.dp.noise_check.NoiseResult` (``sum + noise``)."""
    approx = shown_decimal(n.delta_enclosure)
    delta = (n.delta if approx == n.delta else f"{n.delta} ≈ {approx}") if n.delta else \
        f"≈ {approx} (an enclosure)"
    if n.epsilon_enclosure is None:
        epsilon = n.epsilon or "inf"
    elif n.epsilon and n.epsilon_exact:
        approx = n.epsilon_enclosure.approx()
        epsilon = n.epsilon if approx == n.epsilon else f"{n.epsilon} ≈ {approx}"
    else:
        epsilon = f"≈ {n.epsilon_enclosure.approx()} (an enclosure)"
    rows = [("tight δ(ε)", delta), ("tight ε(δ)", epsilon),
            ("witness" if n.holds is False else "worst case",
             f"{n.witness[0]} vs {n.witness[1]}"), ("pairs", str(n.pairs))]
    return "dp", verdict_word(n.holds), rows + [("note", note) for note in n.notes]


def enclosure_described(e: Any) -> Described:
    """A :class:`~verifier.notions.composition.enclosure.CompositionEnclosure`: certified
    bounds, never exact values."""
    rows = [("claim", f"ε = {e.query_epsilon}, δ = {format_rational(e.query_delta)}"),
            ("tight δ(ε)", _interval(shown_decimal(e.delta_lo), shown_decimal(e.delta_hi))),
            ("tight ε(δ)", _interval(shown_decimal(e.epsilon_lo), shown_decimal(e.epsilon_hi))),
            ("grid", ", ".join(str(g) for g in e.grids) or "none"),
            ("witness" if e.holds is False else "worst case", witness_text(e.witness)),
            ("enclosed", f"{e.enclosed} of {counted(e.cases, 'pair')}"), ("why", e.reason)]
    return e.notion, verdict_word(e.holds), rows


def result_repr(kind: str, described: Described) -> str:
    """``Kind(title VERDICT; name: text; …)``."""
    title, verdict, rows = described
    return f"{kind}({title} {verdict}; " + "; ".join(f"{k}: {v}" for k, v in rows) + ")"


def result_html(described: Described) -> str:
    """A two-column table: the verdict, then one row per field."""
    title, verdict, rows = described
    body = "".join(f"<tr><td>{escape(k)}</td><td><code>{escape(v)}</code></td></tr>"
                   for k, v in rows)
    return (f"<table><tr><th>{escape(title)}</th><th><b>{escape(verdict)}</b></th></tr>"
            f"{body}</table>")


def report_repr(kind: str, holds: bool | None, parts: Mapping[str, object]) -> str:
    """``Kind(holds=…,`` one result per line ``)``."""
    lines = "".join(f"\n  {part!r}," for part in parts.values())
    return f"{kind}(holds={holds},{lines}\n)"


def report_html(parts: Mapping[str, Any]) -> str:
    return "".join(part._repr_html_() for part in parts.values())
