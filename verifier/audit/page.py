"""An audit in the HTML template of plrv's results (:mod:`verifier.notions.html_page`): the
notebook view of an :class:`~verifier.audit.runner.AuditResult` and the page of ``plrv audit
--html``. One table of the cases (the library's claim against the exact tight values, the
verdict), then per case its arguments, every claimed and exact value exactly beside its
decimal, its witness as a table and its notes; with ``--scan``, a table of each scan.
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from verifier.audit.rows import row_json, value_json
from verifier.notions.html_page import Html, exact, fragment, section, table, verdict

__all__ = ["audit_parts", "audit_html", "overall"]

_LISTED = 20  # entries of a witness's list or mapping shown (the rest counted)


def overall(holds: bool | None) -> str:
    return {True: "sound", False: "unsound", None: "unknown"}[holds]


def _value(v: Mapping | None) -> Html | str:
    """A claimed or tight value: exact (or the enclosure of two exact ends) and its decimal."""
    if v is None:
        return "–"
    if v["value"] is not None:
        return exact(v["value"], v["approx"])
    lo, hi = v["enclosure"]
    return Html(exact(f"[{lo}, {hi}]", v["approx"]) + " (an enclosure)")


def _plain(v: object) -> str:
    """An argument or witness entry as text (a double as its decimal and hex spelling)."""
    if isinstance(v, dict) and "f64" in v:
        return f"{v.get('approx')} (double {v['f64']})"
    if isinstance(v, list):
        shown = ", ".join(_plain(x) for x in v[:_LISTED])
        return f"[{shown}{', …' if len(v) > _LISTED else ''}]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_plain(x)}" for k, x in v.items()) + "}"
    return str(v)


def _code(v: object) -> Html:
    return Html(f"<code>{escape(_plain(v))}</code>")


def _entries(mapping: Mapping) -> Html:
    """A mapping as a two-column table; a list of pairs (a witness's outputs and their
    losses) as a table of its own, the first :data:`_LISTED` rows."""
    rows: list[tuple[object, object]] = []
    for key, v in mapping.items():
        pairs = isinstance(v, list) and v and all(isinstance(x, list) and len(x) == 2
                                                  for x in v)
        if pairs:
            inner: list[tuple[object, object]] = [(_code(a), _code(b))
                                                  for a, b in v[:_LISTED]]
            if len(v) > _LISTED:
                inner.append((f"… {len(v) - _LISTED} more", ""))
            head = ("output", "privacy loss") if key == "outputs" else ("", "")
            rows.append((key, table(head, inner)))
        else:
            rows.append((key, _code(v)))
    return table(("", "value"), rows)


def audit_parts(result: Any) -> list[Html]:
    """The sections of an audit's report (``result``: an AuditResult)."""
    rows = [row_json(r) for r in result.rows]
    summary = table(("#", "library", "constructor", "claim ε", "tight ε", "claim δ", "tight δ",
                     "exactness", "verdict"), [
        (r["case"], r["library"], r["constructor"], _value(r["claim"]["epsilon"]),
         _value(r["tight"]["epsilon"]), _value(r["claim"]["delta"]),
         _value(r["tight"]["delta"]), r["exactness"], verdict(r["verdict"])) for r in rows])
    parts = [section("Cases: the library's claim against the exact tight values", summary)]
    for r in rows:
        given = {"args": r["args"], "options": r["options"], "d_in": r["d_in"],
                 "compose": r["compose"],
                 "asked at": {k: v for k, v in r["at"].items() if v is not None}}
        body: list[object] = [Html("<p>"), verdict(r["verdict"]),
                              Html(f" — claim/tight ε {escape(r['ratio'] or '–')}</p>"),
                              _entries({k: v for k, v in given.items() if v})]
        if r["witness"]:
            body += [Html("<p>Witness:</p>"), _entries(r["witness"])]
        if r["notes"]:
            body.append(Html("<ul>" + "".join(f"<li>{escape(n)}</li>" for n in r["notes"])
                             + "</ul>"))
        parts.append(section(f"case[{r['case']}] {r['library']}.{r['constructor']}", *body))
    for s in result.scans:
        points = [(p.value, _value(None if p.row is None else value_json(p.row.claim_epsilon)),
                   _value(None if p.row is None else value_json(p.row.tight_epsilon)),
                   verdict(p.verdict) if p.error is None else f"error: {p.error}")
                  for p in s.points]
        found = ("no unsound value found" if s.first_unsound is None
                 else f"first unsound value: {s.first_unsound}")
        parts.append(section(f"case[{s.case}] scanned over {s.key} ({s.method}): {found}",
                             table((s.key, "claim ε", "tight ε", "verdict"), points)))
    return parts


def audit_html(result: Any) -> str:
    """An audit as the template's fragment (what a notebook shows)."""
    return str(fragment(f"plrv audit {result.file}", overall(result.holds),
                        audit_parts(result)))
