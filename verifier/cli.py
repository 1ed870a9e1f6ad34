"""The ``plrv`` command line: a thin layer over :mod:`verifier.spec` and :mod:`verifier.render`.

Exit status: 0 the claim holds, 1 it does not, 2 an error (bad spec, budget exceeded, …).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from .errors import SpecError, VerifierError

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="plrv: exact verification of privacy guarantees of small, finite mechanisms.",
)


@app.callback()
def _root() -> None:
    """plrv: exact verification of privacy guarantees of small, finite mechanisms."""


def _fail(exc: VerifierError, path: Path | None = None) -> None:
    where = f"{path}: " if path is not None and not isinstance(exc, SpecError) else ""
    typer.echo(f"error: {where}{exc}", err=True)
    raise typer.Exit(2)


def _emit_json(obj: dict) -> None:
    sys.set_int_max_str_digits(0)  # exact numbers can be thousands of digits long
    typer.echo(json.dumps(obj, indent=2, ensure_ascii=False))


@app.command()
def check(
    spec: Annotated[Path, typer.Argument(help="A spec file (TOML).")],
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    budget: Annotated[Optional[int], typer.Option(
        help="Largest number of databases to enumerate (overrides [limits] databases).")] = None,
) -> None:
    """Decide the (ε, δ) claim of SPEC for every notion it names, exactly."""
    from .budget import Budget
    from .render import result_json
    from .spec import load_spec, run_spec

    try:
        s = load_spec(spec)
        if budget is not None:
            from dataclasses import replace
            s = replace(s, budget=Budget(budget))
        report = run_spec(s)
    except VerifierError as exc:
        _fail(exc, spec)
    engine = "; ".join(report.info)
    if json_out:
        _emit_json({n: result_json(r, engine) for n, r in report.results.items()})
    else:
        from .console import print_report
        print_report(s, report)
    raise typer.Exit(0 if report.holds else 1)


def main() -> None:  # console-script entry point
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
