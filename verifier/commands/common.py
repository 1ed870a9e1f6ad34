"""What the ``plrv`` commands share: the option types, reading a spec with the command-line
overrides, checking output paths before any work, and printing JSON."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated

import typer


def absolute(value: Path | None) -> Path | None:
    """An output path made absolute as the command line is read (symbolic links are left
    for the output checks to refuse), so that nothing run later — user code that changes
    the working directory — can move where the output goes."""
    return None if value is None else Path(os.path.abspath(value))


SpecArg = Annotated[Path, typer.Argument(help="A spec file (TOML).", show_default=False,
                                         metavar="SPEC")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]
FullOpt = Annotated[bool, typer.Option(
    "--full", help="With --json: add the per-row tables (per background value, every output "
                   "of a witness, the optimal strategy).")]
BudgetOpt = Annotated[int | None, typer.Option(
    "--budget", min=1, help="Largest number of databases to enumerate (spec: limits.databases).")]
CountsOpt = Annotated[int | None, typer.Option(
    "--budget-counts", min=1,
    help="Largest number of count combinations (spec: limits.combinations).")]
EngineOpt = Annotated[str | None, typer.Option(
    "--engine", help="auto (default), brute or counts (spec: limits.engine).")]
ProgressOpt = Annotated[bool | None, typer.Option(
    "--progress/--no-progress",
    help="Show a progress bar on stderr (default: when stderr is a terminal; --progress "
         "forces it).")]
PlotOpt = Annotated[Path | None, typer.Option(
    "--plot", callback=absolute,
    help="Draw the curves to a .png, .pdf or .svg file (needs plrv[plot]).")]
EpsilonOpt = Annotated[str | None, typer.Option(
    "--epsilon", help='The claimed ε instead of the spec\'s query.epsilon, e.g. "ln(3)" or '
                      '"1/2" (nats).')]
DeltaOpt = Annotated[str | None, typer.Option(
    "--delta", help='The claimed δ instead of the spec\'s query.delta, e.g. "1/1000".')]
HtmlOpt = Annotated[Path | None, typer.Option(
    "--html", metavar="FILE", callback=absolute,
    help="Also write the report as one self-contained HTML page (.html): the cases, claimed "
         "against exact values, verdicts, witnesses as tables.")]
CertOpt = Annotated[Path | None, typer.Option(
    "--certificate", callback=absolute,
    help="Also write a certificate (JSON): the evidence, for plrv verify-certificate.")]


def load_overridden(spec: Path, budget: int | None, budget_counts: int | None, engine: str | None,
                    at: dict | None = None, command: str = "check",
                    query: Mapping[str, str] | None = None):
    """Read SPEC for ``command`` and apply the command-line overrides; ``query`` replaces
    keys of ``[query]`` (``--epsilon``, ``--delta``) before the spec is read, so they are
    validated, reported and certified exactly as if the file had them."""
    from dataclasses import replace

    from verifier.core.errors import InvalidArgument, SpecError
    from verifier.engines.choice import ENGINES
    from verifier.specs.check import load_spec

    try:
        s = load_spec(spec, command=command, at=at, query=query, limits={  # read with the spec
            k: v for k, v in (("databases", budget), ("combinations", budget_counts)) if v})
    except SpecError as exc:  # a bad --epsilon/--delta is named as the option, not the key
        name = (exc.key or "").removeprefix("query.")
        if query and name in query:
            raise InvalidArgument(f"--{name} {query[name]!r}: {exc.detail}",
                                  argument=f"--{name}", value=query[name]) from None
        raise
    if not hasattr(s, "budget"):  # a noise spec (plrv check only): its route refuses the
        return s                  # enumeration options (verifier.commands.check.NOISE)
    if budget is not None:
        s = replace(s, budget=replace(s.budget, max_databases=budget))
    if budget_counts is not None:
        s = replace(s, budget=replace(s.budget, max_combinations=budget_counts))
    if engine is not None:
        if engine not in ENGINES:
            raise InvalidArgument(f"--engine {engine!r} is not one of {', '.join(ENGINES)}")
        s = replace(s, engine=engine)
    return s


def check_outputs(spec: Path | None = None,
                  **paths: tuple[Path | None, tuple[str, ...] | None]) -> None:
    """Check every output path named on the command line before any work is done: each on
    its own, none of them the spec being read, and no two of them the same file."""
    from verifier.core.errors import InvalidArgument
    from verifier.specs.files import check_output_path

    seen: dict[Path, str] = {}
    source = None if spec is None else Path(os.path.realpath(spec))
    for option, (path, extensions) in paths.items():
        if path is None:
            continue
        p = Path(os.path.realpath(check_output_path(path, option, extensions)))
        if p == source:
            raise InvalidArgument(f"{option} {path}: is the spec being read; writing there "
                                  f"would replace it", argument=option)
        if p in seen:
            raise InvalidArgument(f"{seen[p]} and {option} both name {path}; one would "
                                  f"replace the other", argument=option)
        seen[p] = option


def echo(text: str) -> None:
    """A command's text output, folded at 80 columns
    (:func:`verifier.reports.text.wrapped`)."""
    from verifier.reports.text import wrapped

    typer.echo(wrapped(text))


def print_json(obj: object) -> None:
    from verifier.reports.json_out import dumps

    typer.echo(dumps(obj))


def full_needs_json(full: bool, json_out: bool) -> None:
    """``--full`` adds rows to the JSON only: alone it would be ignored, so it is refused."""
    if full and not json_out:
        from verifier.core.errors import InvalidArgument
        raise InvalidArgument("--full goes with --json (it adds the per-row tables to the JSON)",
                              argument="--full")
