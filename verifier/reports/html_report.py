"""``plrv report SPEC -o FILE``: one self-contained HTML page of a check — the spec, the
verdict of every notion with the claim and the tight values, the exact δ(ε) curve (drawn, and
its pieces written exactly), each notion's witness as a table, and the privacy-loss
distribution of that witness as a histogram with its atoms written exactly.

The page is the template of :mod:`verifier.notions.html_page` (the notebook view of a check
is the same template without the figures). The tables and the verdict come from one
:class:`~verifier.notions.check.Analysis`, so the curve is that of the cases the verdict was
decided on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from gmpy2 import mpq

from verifier.core.certified import decimal_string
from verifier.core.epsilon import Epsilon
from verifier.core.numbers import format_rational
from verifier.notions.check import Report, analyse
from verifier.notions.html_page import Html, exact, fragment, page, section, table
from verifier.notions.registry import notion
from verifier.notions.result import NotionResult, results_parts
from verifier.reports.curve import epsilon_pieces, sample_epsilons, sample_rows
from verifier.reports.curve_plot import curve_figure
from verifier.reports.html_figures import histogram_svg, loss_atoms, svg
from verifier.reports.plot import LABELS
from verifier.symbolic.closed_form import notion_curves

__all__ = ["CheckPage", "check_page"]

_POINTS = 40  # evenly spaced samples of the drawn curve (every breakpoint is added)
_ATOMS = 30  # atoms of a loss law listed in its table (the rest counted)


@dataclass(frozen=True)
class CheckPage:
    """The page (``html``) and the report it shows (its verdict is the command's)."""

    html: str
    report: Report


def _q(value) -> Html:
    return exact(format_rational(value), decimal_string(value))


def _spec_table(s, source: str) -> Html:
    rows = [("spec", source), ("mechanism", s.mechanism.name), ("records", s.records),
            ("values", ", ".join(map(str, s.values))), ("notions", ", ".join(s.notions)),
            ("claim ε", exact(str(s.epsilon), s.epsilon.approx())), ("claim δ", _q(s.delta))]
    return table(("", "value"), rows)


def _curve_section(curves: Mapping, s) -> Html:
    eps: Epsilon = s.epsilon
    rows = sample_rows(curves, sample_epsilons(curves, _POINTS, eps))
    claim = None if eps.infinite else (eps.approx(8), decimal_string(s.delta, 8))
    records = f"{s.records} record{'s' if s.records != 1 else ''}"
    figure = svg(curve_figure(rows, title=f"{s.mechanism.name}, {records}",
                              epsilon=str(eps), delta=format_rational(s.delta), claim=claim))
    pieces = []
    for name, curve in curves.items():
        for p in epsilon_pieces(curve):
            where = (f"{p['from']} ≤ ε" if p["to"] == "inf" else
                     f"{p['from']} ≤ ε < {p['to']}")
            pieces.append((name, exact(where), _q(mpq(p["a"])), _q(mpq(p["c"]))))
    return section("Tight δ(ε), exact",
                   Html(f"<figure>{figure}<figcaption>Tight δ against ε of each notion, "
                        "drawn from certified decimals of the exact values (a curve that "
                        "coincides with another is drawn in its own line style over "
                        "it).</figcaption></figure>"),
                   Html("<p>Each piece is δ = a − c·e<sup>ε</sup> on its interval, every "
                        "number exact:</p>"),
                   table(("notion", "interval", "a", "c"), pieces))


def _loss_section(r: NotionResult) -> Html | None:
    """The histogram and table of the privacy loss of ``r``'s witness (or worst case)."""
    if r.loss is None:
        return None
    law = loss_atoms(r.loss, r.query_epsilon)
    which = "worst case" if r.holds else "witness"
    label = LABELS.get(r.notion, r.notion)
    figure = histogram_svg(law, f"{label}: privacy loss of the {which}")
    rows: list[tuple[object, ...]] = [
        (exact(str(Epsilon.log(ratio)), Epsilon.log(ratio).approx()), _q(p), _q(q))
        for ratio, p, q in law.atoms[:_ATOMS]]
    if len(law.atoms) > _ATOMS:
        rows.append((f"… {len(law.atoms) - _ATOMS} more values", "", ""))
    rows.append((exact("+inf"), _q(law.infinite), exact("0")))
    rows.append(("≤ 0 (all together)", _q(law.rest), ""))
    return section(f"{r.notion}: privacy-loss distribution of the {which}",
                   Html(f"<figure>{figure}<figcaption>The privacy loss L = ln(P(o)/Q(o)) of "
                        f"the {which}'s two hypotheses P and Q, under P, where it is "
                        "positive.</figcaption></figure>"),
                   table(("privacy loss ℓ", "P[L = ℓ]", "Q-mass of those outputs"), rows))


def check_page(s, source: str) -> CheckPage:
    """Decide the spec ``s`` (a loaded check spec, (ε, δ) notions) and build its page."""
    partial = any(notion(n).needs_model for n in s.notions)
    analysis = analyse(s.mechanism, values=s.values, records=s.records,
                       models=s.model if partial else None, knowledge=s.knowledge,
                       targets=s.targets, pairs=s.pairs, budget=s.budget, engine=s.engine,
                       relation=s.relation)
    report = analysis.report(s.notions, s.epsilon, s.delta)
    curves = notion_curves(analysis, s.notions)
    parts: list[Html] = [section("Spec", _spec_table(s, source))]
    parts += results_parts(report.results)
    parts.append(_curve_section(curves, s))
    for r in report.results.values():
        loss = _loss_section(r)
        if loss is not None:
            parts.append(loss)
    title = f"plrv report {source}"
    body = fragment(title, "holds" if report.holds else "FAILS", parts)
    return CheckPage(page(title, body), report)
