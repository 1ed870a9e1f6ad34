"""The command logic of ``plrv check``: read the spec (with the command line's overrides),
route it to the engine that decides it, render the report, return the exit status.

Routes: a discrete Laplace/Gaussian spec (:mod:`verifier.commands.noise`), the Rényi notions
(:mod:`verifier.commands.renyi`), ``--mode certified`` (:mod:`verifier.commands.certified`),
else the exact engines. Each route declares the options it applies (:data:`EXACT`,
:data:`CERTIFIED`, :data:`RENYI`, :data:`NOISE`); any other option typed is refused
(:func:`verifier.commands.routes.refuse_options`), never ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from verifier.commands.app import verdict
from verifier.commands.common import (
    check_outputs,
    echo,
    full_needs_json,
    load_overridden,
    print_json,
)
from verifier.commands.routes import refuse_options, without

__all__ = ["run_check"]


_CERTIFIED_WHY = {
    "--workers": "the certified enclosure runs in one process",
    "--scheduler": "the certified enclosure runs in one process",
    "--budget": "the certified enclosure enumerates no databases: it sums the records' count "
                "law in ball arithmetic",
    "--budget-counts": "the certified enclosure enumerates no count combinations",
    "--engine": "the certified enclosure is its own engine",
    "--progress": "the certified enclosure draws no progress bar",
    "--certificate": "a certificate records exact values; the certified mode gives intervals",
    "--closed-form": "the closed form is exact; the certified mode gives intervals",
    "--full": "the certified mode gives intervals, not the per-row tables",
}
_RENYI_WHY = {
    "--full": "the Rényi report has no per-row tables",
    "--certificate": "certificates record the (ε, δ) notions",
    "--closed-form": "the closed form is δ(ε) of the (ε, δ) notions",
    "--workers": "the divergences are computed in one process",
    "--scheduler": "the divergences are computed in one process",
    "--mode": "rdp and zcdp are exact or certified enclosures already",
}
_NOISE_WHY = {
    **_RENYI_WHY,
    "--budget": "its noise mechanism is decided without enumeration",
    "--budget-counts": "its noise mechanism is decided without enumeration",
    "--engine": "its noise mechanism is decided without enumeration",
    "--at": "the spec declares no [parameters]",
    "--full": "the noise report has no per-row tables",
    "--certificate": "certificates record enumerated mechanisms",
    "--workers": "the noise check runs in one process",
    "--scheduler": "the noise check runs in one process",
    "--progress": "the noise check draws no progress bar",
    "--mode": "its values are exact or certified enclosures already",
}
# what each route applies (every other option typed is refused)
EXACT = frozenset({"--json", "--full", "--budget", "--budget-counts", "--engine", "--progress",
                   "--certificate", "--workers", "--scheduler", "--at", "--closed-form",
                   "--mode", "--epsilon", "--delta"})
CERTIFIED = frozenset({"--json", "--mode", "--at", "--epsilon", "--delta"})
RENYI = frozenset({"--json", "--at", "--epsilon", "--delta", "--budget", "--budget-counts",
                   "--engine", "--progress"})
NOISE = frozenset({"--json", "--epsilon", "--delta"})


def run_check(spec: Path, json_out: bool, full: bool, budget: int | None,
              budget_counts: int | None, engine: str | None, progress: bool | None,
              certificate: Path | None, workers: int | None, scheduler: str | None,
              at: str | None,
              closed_form: bool, mode: str, query: Mapping[str, str | None],
              typed: Mapping[str, object] | None = None) -> int:
    """``plrv check``; ``query`` holds the ``--epsilon``/``--delta`` overrides of ``[query]``,
    ``typed`` the options typed (:func:`verifier.commands.routes.typed_options`), which the
    route taken applies or refuses."""
    from verifier.parallel import run_on
    from verifier.reports.progress import ProgressBar
    from verifier.specs.check import run_spec
    from verifier.specs.files import read_toml

    typed = without(typed or {}, *(("--mode",) if mode == "exact" else ()))
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
    if not hasattr(s, "mechanism"):  # discrete Laplace or Gaussian noise
        from verifier.commands.noise import noise_check
        what = s.choice.kind if hasattr(s, "choice") else s.noise.kind
        refuse_options(f"plrv check on a {what} spec", typed, NOISE, _NOISE_WHY)
        return noise_check(s, json_out)
    if s.renyi is not None:  # rdp, zcdp
        from verifier.commands.renyi import renyi_check
        refuse_options("plrv check of the Rényi notions rdp and zcdp", typed, RENYI,
                       _RENYI_WHY)
        return renyi_check(s, json_out, note, progress)
    if mode == "certified":
        from verifier.commands.certified import certified_check
        refuse_options("plrv check --mode certified", typed, CERTIFIED, _CERTIFIED_WHY)
        return certified_check(s, json_out, note)
    refuse_options("plrv check", typed, EXACT)
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
            echo(f"parameters: {note}")
        print_check(s, report)
        if curves is not None:
            print_closed_form(curves)
    return verdict(report.holds)
