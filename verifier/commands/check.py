"""The command logic of ``plrv check``: read the spec (with the command line's overrides),
route it to the engine that decides it, render the report, return the exit status.

Routes: a discrete Laplace/Gaussian spec (:mod:`verifier.commands.noise`), the Rényi notions
(:mod:`verifier.commands.renyi`), ``--mode certified`` (:mod:`verifier.commands.certified`),
else the exact engines. A route refuses every option it cannot apply, never ignores it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import typer

from verifier.commands.app import verdict
from verifier.commands.common import (
    check_outputs,
    full_needs_json,
    load_overridden,
    print_json,
)

__all__ = ["run_check"]


def run_check(spec: Path, json_out: bool, full: bool, budget: int | None,
              budget_counts: int | None, engine: str | None, progress: bool | None,
              certificate: Path | None, workers: int | None, scheduler: str | None,
              at: str | None,
              closed_form: bool, mode: str, query: Mapping[str, str | None]) -> int:
    """``plrv check``; ``query`` holds the ``--epsilon``/``--delta`` overrides of ``[query]``."""
    from verifier.parallel import run_on
    from verifier.reports.progress import ProgressBar
    from verifier.specs.check import run_spec
    from verifier.specs.files import read_toml

    full_needs_json(full, json_out)
    check_outputs(spec, **{"--certificate": (certificate, None)})
    point = note = None
    if at is not None or "parameters" in read_toml(spec):  # sympy only for such specs
        from verifier.specs.symbolic import point_note
        from verifier.symbolic.parameters import parse_point
        point = parse_point(at) if at is not None else None
        note = point_note(spec, point)
    if mode not in ("exact", "certified"):
        from verifier.core.errors import InvalidArgument
        raise InvalidArgument(f"--mode {mode!r} is not exact or certified", argument="--mode")
    s = load_overridden(spec, budget, budget_counts, engine, point,
                        query={k: v for k, v in query.items() if v is not None})
    refused = {"--full": full, "--certificate": certificate, "--closed-form": closed_form,
               "--workers": workers, "--scheduler": scheduler, "--progress": progress,
               "--mode certified": mode == "certified"}
    if not hasattr(s, "mechanism"):  # discrete Laplace or Gaussian noise
        from verifier.commands.noise import noise_check
        return noise_check(s, json_out, refused)
    if s.renyi is not None:  # rdp, zcdp
        from verifier.commands.renyi import renyi_check
        return renyi_check(s, json_out, refused)
    if mode == "certified":
        from verifier.commands.certified import certified_check
        return certified_check(s, json_out, certificate, closed_form, full)
    with run_on(workers, scheduler), ProgressBar(progress, "joint tables") as bar:
        if certificate is None:
            report = run_spec(s, progress=bar)
        else:
            from verifier.certificates.emit import write_check_certificate
            report = write_check_certificate(s, certificate, progress=bar)
    curves = None
    if closed_form:
        from verifier.symbolic.closed_form import spec_curves
        curves = spec_curves(s)
    if json_out:
        from verifier.reports.json_out import check_json, closed_form_json
        print_json(check_json(report, full, s.doubles) | ({"parameters": note} if note else {})
                   | ({"closed_form": closed_form_json(curves)} if curves is not None else {}))
    else:
        from verifier.reports.terminal import print_check, print_closed_form
        if note:
            typer.echo(f"parameters: {note}")
        print_check(s, report)
        if curves is not None:
            print_closed_form(curves)
    return verdict(report.holds)
