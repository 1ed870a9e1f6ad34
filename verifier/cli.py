"""The ``plrv`` command line: load a spec, run the library, render the report, set the exit code.

Each command returns its exit status; the application (:mod:`verifier.commands.app`) turns any
exception into one ``error: …`` line and exit 2, so that only a decided verdict exits 0 or 1
(0 holds, 1 does not hold, 3 unknown). The library modules and rich are imported only when a
command runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from verifier.commands.app import FAILS, HOLDS, UNKNOWN, app
from verifier.commands.app import verdict as _verdict
from verifier.commands.common import (
    BudgetOpt,
    CertOpt,
    CountsOpt,
    DeltaOpt,
    EngineOpt,
    EpsilonOpt,
    FullOpt,
    HtmlOpt,
    JsonOpt,
    PlotOpt,
    ProgressOpt,
    SpecArg,
    absolute,
    check_outputs,
    full_needs_json,
    load_overridden,
    print_json,
)
from verifier.commands.executor_options import SchedulerOpt, WorkersOpt
from verifier.commands.routes import refuse_options, typed_options


@app.command()
def check(spec: SpecArg, json_out: JsonOpt = False, full: FullOpt = False,
          budget: BudgetOpt = None, budget_counts: CountsOpt = None, engine: EngineOpt = None,
          progress: ProgressOpt = None, certificate: CertOpt = None,
          workers: WorkersOpt = None, scheduler: SchedulerOpt = None,
          at: Annotated[str | None, typer.Option(
              help="For a spec with [parameters]: the point, e.g. p=1/3 (default: a sample "
                   "point).")] = None,
          closed_form: Annotated[bool, typer.Option(
              "--closed-form", help="Also give each notion's tight δ as an exact piecewise-"
                                    "linear function of E = e^ε.")] = False,
          mode: Annotated[str, typer.Option(
              "--mode", help="exact (default), or certified: APK/PPK δ as certified intervals "
                             "(ball arithmetic) beyond exact reach; never exact. certified "
                             "applies --json, --at, --epsilon and --delta, and refuses the "
                             "other options.")] = "exact",
          epsilon: EpsilonOpt = None, delta: DeltaOpt = None,
          ) -> int:
    """Decide the (ε, δ) claim of SPEC for every notion it names, exactly.

    The claim holds when it holds for every notion. With --mode certified the verdict is
    given only when the certified interval decides it, else the status is 3 (unknown).
    """
    from verifier.commands.check import run_check

    return run_check(spec, json_out, full, budget, budget_counts, engine, progress,
                     certificate, workers, scheduler, at, closed_form, mode,
                     {"epsilon": epsilon, "delta": delta}, typed_options())


@app.command()
def sweep(
    spec: Annotated[Path, typer.Argument(help="A spec file with a threshold_count mechanism.",
                                         show_default=False)],
    threshold: Annotated[str, typer.Option(help='Thresholds: "A..B" or "A,B,C".')],
    p: Annotated[str | None, typer.Option(
        "--p", help='Comma-separated P[record = last value], one curve each (two-valued '
                    'records); default: the spec\'s prior. Refused where no prior enters '
                    '(notions = ["dp"], [neighbours]) and with data.models.')] = None,
    csv_out: Annotated[Path | None, typer.Option("--csv", callback=absolute,
                                                     help="Write the rows as CSV.")] = None,
    json_file: Annotated[Path | None, typer.Option(
        "--json-file", callback=absolute, help="Write the rows as JSON.")] = None,
    json_out: JsonOpt = False,
    plot: PlotOpt = None,
    budget: BudgetOpt = None,
    budget_counts: CountsOpt = None,
    engine: EngineOpt = None,
    progress: ProgressOpt = None,
    workers: WorkersOpt = None,
    scheduler: SchedulerOpt = None,
) -> int:
    """Tight δ at ε and tight ε at δ of a thresholded count for each threshold
    (Desfontaines 2020, Figure 3.4).

    The claim holds when it holds at every point (p, threshold, notion).
    """
    from verifier.commands.options import number_list
    from verifier.notions.sweep import parse_range, threshold_sweep
    from verifier.parallel import run_on
    from verifier.reports.plot import EXTENSIONS
    from verifier.reports.progress import ProgressBar

    refuse_options("plrv sweep", typed_options(), {
        "--threshold", "--p", "--csv", "--json-file", "--json", "--plot", "--budget",
        "--budget-counts", "--engine", "--progress", "--workers", "--scheduler"})
    check_outputs(spec, **{"--csv": (csv_out, None), "--json-file": (json_file, None),
                "--plot": (plot, EXTENSIONS)})
    if plot is not None:
        from verifier.reports.plot import require_matplotlib
        require_matplotlib()
    s = load_overridden(spec, budget, budget_counts, engine, command="sweep")
    if p is not None:
        from verifier.commands.sweep import refuse_p
        refuse_p(s)
    thresholds = parse_range(threshold)
    with run_on(workers, scheduler), ProgressBar(progress, "thresholds") as bar:
        report = threshold_sweep(s, thresholds, number_list(p) if p else None, progress=bar)
    if csv_out is not None or json_file is not None or plot is not None:
        from verifier.reports.writers import write_sweep
        write_sweep(report, csv_out, json_file, plot)
    if json_out:
        from verifier.reports.json_out import sweep_json
        print_json(sweep_json(report))
    else:
        from verifier.reports.terminal import print_sweep
        print_sweep(report)
    return _verdict(report.holds)


@app.command()
def guess(
    spec: Annotated[Path | None, typer.Argument(help="A guessing spec (TOML).",
                                                show_default=False)] = None,
    json_out: JsonOpt = False,
    eta: Annotated[str | None, typer.Option(help="Target advantage η: find ε.")] = None,
    diameter: Annotated[str | None, typer.Option(
        help="Diameter R of the domain in units of the goal's precision (without SPEC).")] = None,
    prior: Annotated[str | None, typer.Option(
        help="Prior probability of the goal, P[X ∈ g(x)] (without SPEC; default: worst case).")
    ] = None,
    plot: Annotated[Path | None, typer.Option(
        callback=absolute,
        help="Draw advantage against ε for several priors (simplified bound) to a .png, .pdf "
             "or .svg file (needs plrv[plot]).")] = None,
    tolerance: Annotated[str | None, typer.Option(
        help="Relative width of the certified interval of the precise inversion of η (with "
             "SPEC and η; an OR goal over several attributes has none).")] = None,
    certificate: CertOpt = None,
) -> int:
    """Guessing advantage of an attacker (Pankova and Laud 2022): exact advantage, bounds, ε from η.

    With SPEC the claim is: posterior ≤ precise bound ≤ simplified bound for every target at
    the ε used (exit 3 if a certified comparison stays undecided); η (--eta or query.eta)
    asks which ε keeps the advantage at most η. Without SPEC (--eta and --diameter) ε is
    computed and the exit status is 0.
    """
    from verifier.reports.plot import EXTENSIONS

    check_outputs(spec, **{"--plot": (plot, EXTENSIONS),
                           "--certificate": (certificate, None)})
    if plot is not None:
        from verifier.reports.plot import require_matplotlib
        require_matplotlib()
    typed = typed_options()
    if spec is None:
        refuse_options("plrv guess without SPEC", typed,
                       {"--json", "--eta", "--diameter", "--prior", "--plot"},
                       {"--certificate": "certificates record a spec's report",
                        "--tolerance": "only a spec's precise bound is inverted"})
        return _guess_eta(eta, diameter, prior, plot, json_out)
    from dataclasses import replace

    from verifier.commands.options import strictly_between_0_and_1
    from verifier.guessing.bounds import check_tolerance
    from verifier.guessing.problem import precise_inversion
    from verifier.guessing.report import guess_report
    from verifier.specs.guess import load_guess_spec

    with_spec = {"--json", "--eta", "--plot", "--certificate", "--tolerance"}
    refuse_options("plrv guess SPEC", typed, with_spec,
                   {"--diameter": "the spec's domain has its own diameter",
                    "--prior": "the spec's [prior] is used"})
    s = load_guess_spec(spec)
    if eta is not None:
        s = replace(s, eta=strictly_between_0_and_1(eta, "--eta"))
    if tolerance is not None:
        if s.eta is None or not precise_inversion(s.model):
            refuse_options("plrv guess SPEC", {"--tolerance": tolerance}, (),
                           {"--tolerance": "it sets the width of the precise inversion of η; "
                                           + ("no η is given (--eta or query.eta)"
                                              if s.eta is None else "goal.mode = 'or' over "
                                              "several attributes has no precise inversion")})
        s = replace(s, tolerance=check_tolerance(tolerance, "--tolerance"))
    if certificate is None:
        rep = guess_report(s)
    else:
        from verifier.certificates.emit_guess import write_guess_certificate
        rep = write_guess_certificate(s, certificate, source=spec)
    if plot is not None:
        from verifier.reports.writers import write_advantage_plot
        write_advantage_plot(plot, rep.diameter[0])
    if json_out:
        from verifier.reports.json_out import guess_json
        print_json(guess_json(rep))
    else:
        from verifier.reports.terminal import print_guess
        print_guess(s, rep)
    return _verdict(rep.holds)


def _guess_eta(eta: str | None, diameter: str | None, prior: str | None, plot: Path | None,
               json_out: bool) -> int:
    """``plrv guess --eta --diameter [--prior]``: ε for a target advantage."""
    from verifier.commands.options import strictly_between_0_and_1
    from verifier.core.errors import InvalidArgument
    from verifier.guessing.bounds import check_diameter
    from verifier.guessing.report import eta_report

    if eta is None or diameter is None:
        raise InvalidArgument("without SPEC give --eta and --diameter (and optionally --prior)")
    rep = eta_report(strictly_between_0_and_1(eta, "--eta"),
                     check_diameter(diameter, "--diameter"),
                     None if prior is None else strictly_between_0_and_1(prior, "--prior"))
    if plot is not None:
        from verifier.reports.writers import write_advantage_plot
        write_advantage_plot(plot, rep.diameter)
    if json_out:
        from verifier.reports.json_out import eta_json
        print_json(eta_json(rep))
    else:
        from verifier.reports.terminal import print_eta
        print_eta(rep)
    return HOLDS


@app.command()
def pso(
    spec: Annotated[Path, typer.Argument(help="A predicate-singling-out spec (TOML).",
                                         show_default=False)],
    json_out: JsonOpt = False,
    full: FullOpt = False,
    progress: ProgressOpt = None,
    certificate: CertOpt = None,
    workers: WorkersOpt = None,
    scheduler: SchedulerOpt = None,
) -> int:
    """Predicate singling out (Cohen and Nissim 2020): exact success, baseline, verdict.

    The claim: success ≤ factor · baseline + slack ([claim] factor, slack).
    """
    from verifier.parallel import run_on
    from verifier.pso.report import pso_report
    from verifier.reports.progress import ProgressBar
    from verifier.specs.pso import load_pso_spec

    refuse_options("plrv pso", typed_options(), {"--json", "--full", "--progress",
                                                 "--certificate", "--workers", "--scheduler"})
    full_needs_json(full, json_out)
    check_outputs(spec, **{"--certificate": (certificate, None)})
    s = load_pso_spec(spec)
    with run_on(workers, scheduler), ProgressBar(progress, "datasets") as bar:
        if certificate is None:
            rep = pso_report(s, progress=bar)
        else:
            from verifier.certificates.emit_pso import write_pso_certificate
            rep = write_pso_certificate(s, certificate, progress=bar, source=spec)
    if json_out:
        from verifier.reports.json_out import pso_json
        print_json(pso_json(s, rep, full))
    else:
        from verifier.reports.terminal import print_pso
        print_pso(s, rep)
    return _verdict(rep.holds)


@app.command()
def family(
    spec: Annotated[Path, typer.Argument(
        help="A spec file: [data], [mechanism], [query].", show_default=False)],
    param: Annotated[str, typer.Option(help="The mechanism parameter that varies, e.g. truth.")],
    range_: Annotated[str, typer.Option("--range", help='The closed interval "lo..hi".')],
    timeout: Annotated[int, typer.Option(min=1, help="z3 time limit in seconds.")] = 20,
    json_out: JsonOpt = False,
) -> int:
    """Does the spec's (ε, δ)-DP claim hold for every value of one parameter? (z3, then exact)

    0 holds for the whole interval, 1 a counterexample confirmed by the exact engine, 3 unknown
    (a solver timeout or an unconfirmed witness is never reported as holding).
    """
    from verifier.commands.options import interval
    from verifier.core.errors import InvalidArgument, VerifierError
    from verifier.specs.check import load_spec
    from verifier.symbolic.family import check_family

    refuse_options("plrv family", typed_options(), {"--param", "--range", "--timeout",
                                                    "--json"})
    s = load_spec(spec, command="family")
    lo, hi = interval(range_, "--range")
    params = {k: v for k, v in s.mechanism.params.items() if k not in (param, "values")}
    try:
        res = check_family(s.mechanism.kind or "function", param, lo, hi, values=s.values,
                           records=s.records, params=params, epsilon=s.epsilon, delta=s.delta,
                           timeout_ms=timeout * 1000, relation=s.relation)
    except VerifierError as exc:
        given = {"param": ("--param", param), "range": ("--range", range_)}
        if exc.argument not in given:
            raise
        option, text = given[exc.argument]
        raise InvalidArgument(f"{option} {text!r}: {exc}", argument=option) from None
    if json_out:
        from verifier.reports.json_out import family_json
        print_json(family_json(res, mechanism=s.mechanism.name, records=s.records,
                                epsilon=s.epsilon, delta=s.delta))
    else:
        from verifier.reports.terminal import print_family
        print_family(res, mechanism=s.mechanism.name, records=s.records, epsilon=s.epsilon,
                     delta=s.delta)
    return {"holds": HOLDS, "fails": FAILS}.get(res.status, UNKNOWN)


@app.command()
def audit(spec: Annotated[Path, typer.Argument(
              metavar="CONFIG", help="An audit config (TOML): [[case]] tables.",
              show_default=False)],
          json_out: JsonOpt = False,
          conformance: Annotated[int | None, typer.Option(
              "--conformance", min=1, help="Also draw N outputs from the library at each "
                                           "witness input and test them against plrv's law "
                                           "(needs plrv[conformance]); an accountant's "
                                           "one-run PLD or Rényi curve is checked against the "
                                           "exact one instead.")] = None,
          scan: Annotated[str | None, typer.Option(
              "--scan", metavar="KEY=RANGE",
              help="Decide every case at each value of KEY (compose, epsilon, delta, d_in, "
                   "args.NAME, options.NAME): LO..HI integers (bisection beyond 200), "
                   "LO..HI/N doubles, or V1,V2,…; report the first unsound value.")] = None,
          report: Annotated[Path | None, typer.Option(
              "--report", metavar="DIR",
              help="Write one Markdown report per unsound case into DIR (library version, "
                   "configuration, claim, exact values, witness, reproduction script).")
          ] = None,
          html: HtmlOpt = None) -> int:
    """Audit the privacy claims of DP libraries (opendp, dp_accounting, autodp,
    prv_accountant, diffprivlib, pipeline_dp, pydp), one row per [[case]]: the library's own
    claim against the exact (or certified) tight values of the law it implements. 0 all
    sound, 1 any unsound, 3 any unknown."""
    from verifier.commands.audit import audit_config

    refuse_options("plrv audit", typed_options(),
                   {"--json", "--conformance", "--scan", "--report", "--html"})
    return _verdict(audit_config(spec, json_out, conformance, scan, report, html))


# the commands about proofs and evidence register themselves on the same application
from verifier import cli_proofs  # noqa: E402, F401
from verifier.commands import compose_command as _compose  # noqa: E402, F401
from verifier.commands import curve as _curve  # noqa: E402, F401
from verifier.commands import report as _report  # noqa: E402, F401


def main() -> None:  # console-script entry point
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
