"""``plrv compose``: the command line of a composition (registered on the application of
:mod:`verifier.cli`); the logic is :mod:`verifier.commands.compose`. A text report by
default, as ``plrv check`` gives one; ``--json`` for one JSON object."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from verifier.commands.app import app, verdict
from verifier.commands.common import DeltaOpt, EpsilonOpt, JsonOpt, ProgressOpt, print_json
from verifier.commands.routes import refuse_options, typed_options

__all__ = ["compose"]


@app.command()
def compose(spec: Annotated[Path | None, typer.Argument(
                help="A spec file (TOML); or --mechanism.", show_default=False,
                metavar="SPEC")] = None,
            k: Annotated[int | None, typer.Option(
                "--k", help="Runs of SPEC's mechanism composed, at most 10^6 (for "
                            "composition.steps: repetitions of the steps, default 1).")] = None,
            mechanism: Annotated[str | None, typer.Option(
                "--mechanism", metavar="'KIND KEY=VALUE …'",
                help='A built-in mechanism instead of SPEC, e.g. "randomized_response '
                     'truth=3/4" (data: records=1, values=0,1 unless given; the claim: '
                     "--epsilon, --delta default 0).")] = None,
            epsilon: EpsilonOpt = None, delta: DeltaOpt = None,
            accounting: Annotated[bool, typer.Option(
                "--accounting", help="Also dp_accounting's pessimistic δ (plrv[accounting]).")]
            = False,
            enclosure: Annotated[str | None, typer.Option(
                "--enclosure", help="auto (default: exact, or certified bounds beyond "
                                    "--max-values), never, always (spec: "
                                    "composition.enclosure).")] = None,
            grid: Annotated[str | None, typer.Option(
                "--grid", help='The enclosure\'s grid spacing, e.g. "ln(1001/1000)" (spec: '
                               'composition.grid; default: chosen).')] = None,
            max_values: Annotated[int | None, typer.Option(
                "--max-values", help="Distinct privacy-loss values kept exactly (spec: "
                                     "limits.loss_values).")] = None,
            json_out: JsonOpt = False,
            progress: ProgressOpt = None) -> int:
    """δ(ε) and ε(δ) of a composition (dp): K independent runs of SPEC's mechanism (or of
    --mechanism), or the adaptive steps of SPEC's [composition]. Exact, or certified bounds
    ("exact": false) when the distinct loss values exceed the budget; then the verdict is
    unknown (exit 3) unless the bounds decide it. With notions apkdp, ppkdp or noiseless: K
    runs on the same database against the spec's data model and attacker, exact; with rdp
    or zcdp: the parts' divergences added.

    The claim (ε, δ), the spec's or --epsilon/--delta, is decided at the composed mechanism.
    """
    from verifier.commands.compose import compose_spec

    refuse_options("plrv compose", typed_options(), {  # each route's own: compose_spec
        "--k", "--mechanism", "--epsilon", "--delta", "--accounting", "--enclosure", "--grid",
        "--max-values", "--json", "--progress"})
    result, holds = compose_spec(spec, k, accounting, enclosure=enclosure, grid=grid,
                                 max_values=max_values, mechanism=mechanism,
                                 query={"epsilon": epsilon, "delta": delta}, progress=progress)
    if json_out:
        print_json(result)
    else:
        from verifier.reports.compose import compose_lines
        from verifier.reports.text import wrapped
        for label, text in compose_lines(result):
            typer.echo(wrapped(f"{label:<10} {text}"))
    return verdict(holds)
