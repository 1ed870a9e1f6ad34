"""The one HTML template of plrv's results: a notebook's ``_repr_html_`` (a fragment) and the
page of ``plrv report`` and ``plrv audit --html`` (the same fragment in a self-contained
document).

Text is escaped here, always: a string from a spec or a library (a mechanism's name, an
output ``<script>``) is passed as text and written escaped; only markup built by this module
(:class:`Html`) — or an SVG drawn by matplotlib — is written as it is. An exact value is
written exactly with its certified decimal beside it, marked ``≈`` and labelled an
approximation. The page loads nothing: its style is inline, its plots inline SVG, and its
Content-Security-Policy forbids every fetch, so a page that tried one would say so in the
browser's console.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape

__all__ = ["Html", "text", "exact", "verdict", "table", "section", "fragment", "page",
           "APPROX_NOTE"]

APPROX_NOTE = ("Exact values are written exactly; a decimal after “≈” is a certified "
               "truncation of the exact value beside it, an approximation for reading only.")

_STYLE = """
.plrv-report{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;color:#1b1b1b;
 line-height:1.4;max-width:70em}
.plrv-report h2{font-size:1.3em;margin:.2em 0}
.plrv-report h3{font-size:1.1em;margin:1.2em 0 .4em}
.plrv-report table{border-collapse:collapse;margin:.4em 0}
.plrv-report th,.plrv-report td{border:1px solid #c8c8c8;padding:.25em .6em;text-align:left;
 vertical-align:top}
.plrv-report th{background:#eef1f5}
.plrv-report code{font-family:ui-monospace,Menlo,Consolas,monospace;word-break:break-all}
.plrv-report .approx{color:#555;white-space:nowrap}
.plrv-report .holds{color:#176b2c}
.plrv-report .fails{color:#a4161a}
.plrv-report .unknown{color:#8a5a00}
.plrv-report .note{color:#444;font-size:.92em}
.plrv-report figure{margin:.4em 0}
.plrv-report svg{max-width:100%;height:auto}
"""


class Html(str):
    """Markup built by this module (or a drawn SVG): written as it is, never escaped again."""

    __slots__ = ()


def text(value: object) -> Html:
    """``value`` as escaped text (markup already built is kept)."""
    return value if isinstance(value, Html) else Html(escape(str(value)))


def exact(value: str, approx: str | None = None) -> Html:
    """An exact value in ``<code>``, its certified decimal beside it labelled as an
    approximation (none when ``approx`` is None or is the exact text itself)."""
    out = f"<code>{escape(value)}</code>"
    if approx is not None and approx != value:
        out += (f' <span class="approx" title="certified decimal, an approximation">'
                f"≈ {escape(approx)} (approx.)</span>")
    return Html(out)


def verdict(word: str) -> Html:
    """A verdict in bold, coloured by what it says: holds or sound, fails or unsound,
    anything else (unknown, undecided)."""
    low = word.lower()
    kind = ("holds" if low in ("holds", "sound") else
            "fails" if low in ("fails", "unsound", "does not hold") else "unknown")
    return Html(f'<b class="{kind}">{escape(word)}</b>')


def table(head: Sequence[object], rows: Iterable[Sequence[object]],
          caption: str | None = None) -> Html:
    """A table: ``head`` the column names, each row's cells text or :class:`Html`."""
    cap = f"<caption>{escape(caption)}</caption>" if caption else ""
    th = "".join(f"<th>{text(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{text(c)}</td>" for c in row) + "</tr>"
                   for row in rows)
    return Html(f"<table>{cap}<tr>{th}</tr>{body}</table>")


def section(title: str, *parts: object) -> Html:
    """A titled part of a report: an ``<h3>`` and its contents (text is escaped)."""
    return Html(f"<section><h3>{escape(title)}</h3>" + "".join(text(p) for p in parts)
                + "</section>")


def fragment(title: str, word: str, parts: Iterable[object]) -> Html:
    """The report as a fragment (a notebook shows it): its style, a title with the overall
    verdict, the note on approximations, then the parts."""
    body = "".join(text(p) for p in parts)
    return Html(f'<div class="plrv-report"><style>{_STYLE}</style>'
                f"<h2>{escape(title)}: {verdict(word)}</h2>"
                f'<p class="note">{escape(APPROX_NOTE)}</p>{body}</div>')


def page(title: str, body: Html) -> str:
    """A whole HTML document around a :func:`fragment`: UTF-8, no script, and a
    Content-Security-Policy that lets the page load nothing (inline style only)."""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
            "style-src 'unsafe-inline'\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{escape(title)}</title></head>\n<body>{body}</body></html>\n")
