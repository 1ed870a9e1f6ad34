"""``plrv report SPEC -o FILE``: the check of SPEC as one self-contained HTML page
(:mod:`verifier.reports.html_report`; registered on the application of :mod:`verifier.cli`).

The page loads nothing (inline style, plots as inline SVG drawn by matplotlib, the ``plot``
extra: without it the command says so, exit 2, before any work). It covers the (ε, δ) notions
of an enumerated mechanism — the spec reader refuses noise specs, the Rényi notions and
``[parameters]`` for it, naming them. The exit status is the verdict, as ``plrv check``'s.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from verifier.commands.app import app, verdict
from verifier.commands.common import (
    DeltaOpt,
    EpsilonOpt,
    SpecArg,
    absolute,
    check_outputs,
    load_overridden,
)
from verifier.commands.routes import refuse_options, typed_options

__all__ = ["report", "EXTENSIONS"]

EXTENSIONS = (".html", ".htm")


@app.command()
def report(spec: SpecArg,
           output: Annotated[Path, typer.Option(
               "--output", "-o", callback=absolute, show_default=False,
               help="The HTML file to write (.html): the verdicts, the δ(ε) curve, the "
                    "witnesses and their privacy-loss distributions, every exact value "
                    "beside its decimal.")],
           epsilon: EpsilonOpt = None, delta: DeltaOpt = None) -> int:
    """Decide SPEC's (ε, δ) claim, as plrv check, and write the whole report as one HTML
    page that loads nothing (plots as inline SVG; needs plrv[plot]).

    The status is the claim's (0 holds, 1 does not), as plrv check.
    """
    refuse_options("plrv report", typed_options(), {"--output", "--epsilon", "--delta"})
    check_outputs(spec, **{"--output": (output, EXTENSIONS)})
    from verifier.reports.plot import require_matplotlib
    require_matplotlib("plrv report")
    query = {k: v for k, v in (("epsilon", epsilon), ("delta", delta)) if v is not None}
    s = load_overridden(spec, None, None, None, command="report", query=query)
    from verifier.reports.html_report import check_page
    from verifier.reports.writers import write_html

    made = check_page(s, str(spec))
    write_html(made.html, output, "--output")
    for r in made.report.results.values():
        typer.echo(f"{r.notion}: {'holds' if r.holds else 'does not hold'} "
                   f"(tight δ at ε = {r.query_epsilon}: {r.delta})")
    return verdict(made.report.holds)
