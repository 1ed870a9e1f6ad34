"""The ``plrv`` command line: a thin layer over :mod:`verifier.spec` and :mod:`verifier.render`.

Exit status: 0 the claim holds, 1 it does not, 2 an error (bad spec, budget exceeded, …).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from verifier.core.errors import SpecError, VerifierError

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


JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]
BudgetOpt = Annotated[int | None, typer.Option(
    "--budget", help="Largest number of databases to enumerate (spec: limits.databases).")]
CountsOpt = Annotated[int | None, typer.Option(
    "--budget-counts", help="Largest number of count combinations (spec: limits.combinations).")]
EngineOpt = Annotated[str | None, typer.Option(
    "--engine", help="auto (default), brute or counts (spec: limits.engine).")]
ProgressOpt = Annotated[bool | None, typer.Option(
    "--progress/--no-progress", help="Show progress on stderr (default: when it is a terminal).")]


def _load(spec: Path, budget: int | None, budget_counts: int | None, engine: str | None):
    """Read SPEC and apply the command-line overrides."""
    from dataclasses import replace

    from verifier.core.budget import Budget
    from verifier.core.errors import InvalidArgument
    from verifier.engines.choice import ENGINES
    from verifier.io.spec import load_spec

    s = load_spec(spec)
    if budget is not None or budget_counts is not None:
        s = replace(s, budget=Budget(
            budget if budget is not None else s.budget.max_databases,
            budget_counts if budget_counts is not None else s.budget.max_combinations))
    if engine is not None:
        if engine not in ENGINES:
            raise InvalidArgument(f"--engine {engine!r} is not one of {', '.join(ENGINES)}")
        s = replace(s, engine=engine)
    return s


class _Progress:
    """A progress bar on stderr, shown while tables are built (display only)."""

    def __init__(self, enabled: bool | None, label: str):
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.label = label
        self.bar = None
        self.task = None

    def __enter__(self):
        if self.enabled:
            from rich.console import Console
            from rich.progress import Progress
            self.bar = Progress(console=Console(stderr=True), transient=True)
            self.bar.__enter__()
        return self

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            return
        if self.task is None:
            self.task = self.bar.add_task(self.label, total=total)
        self.bar.update(self.task, completed=done, total=total)

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.__exit__(*exc)


@app.command()
def check(
    spec: Annotated[Path, typer.Argument(help="A spec file (TOML).")],
    json_out: JsonOpt = False,
    budget: BudgetOpt = None,
    budget_counts: CountsOpt = None,
    engine: EngineOpt = None,
    progress: ProgressOpt = None,
) -> None:
    """Decide the (ε, δ) claim of SPEC for every notion it names, exactly."""
    from verifier.io.json_out import report_json
    from verifier.io.spec import run_spec

    try:
        s = _load(spec, budget, budget_counts, engine)
        with _Progress(progress, "joint tables") as bar:
            report = run_spec(s, progress=bar)
    except VerifierError as exc:
        _fail(exc, spec)
    if json_out:
        def engine(notion: str) -> str:
            return "; ".join(i for i in report.info if i.startswith("dp:") == (notion == "dp"))
        _emit_json(report_json(report.results, engine))
    else:
        from verifier.io.terminal import print_report
        print_report(s, report)
    raise typer.Exit(0 if report.holds else 1)


@app.command()
def sweep(
    spec: Annotated[Path, typer.Argument(help="A spec file with a threshold_count mechanism.")],
    threshold: Annotated[str, typer.Option(help='Thresholds: "A..B" or "A,B,C".')],
    p: Annotated[str | None, typer.Option(
        "--p", help='Comma-separated P[record = last value], one curve each (two-valued '
                    'records); default: the spec\'s prior.')] = None,
    csv_out: Annotated[Path | None, typer.Option("--csv", help="Write the rows as CSV.")] = None,
    json_file: Annotated[Path | None, typer.Option(
        "--json-file", help="Write the rows as JSON.")] = None,
    json_out: JsonOpt = False,
    plot: Annotated[Path | None, typer.Option(help="Draw the curves to a PNG.")] = None,
    budget: BudgetOpt = None,
    budget_counts: CountsOpt = None,
    engine: EngineOpt = None,
    progress: ProgressOpt = None,
) -> None:
    """Tight δ at ε and tight ε at δ of a thresholded count for each threshold (thesis Fig. 3.4)."""
    from verifier.io.json_out import short
    from verifier.notions.sweep import parse_range, sweep_rows, threshold_sweep

    try:
        s = _load(spec, budget, budget_counts, engine)
        thresholds = parse_range(threshold)
        ps = [x.strip() for x in p.split(",")] if p else None
        with _Progress(progress, "thresholds") as bar:
            points = threshold_sweep(s, thresholds, ps, progress=bar)
    except VerifierError as exc:
        _fail(exc, spec)
    rows = sweep_rows(points)
    if csv_out is not None:
        import csv
        with open(csv_out, "w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    if json_file is not None:
        sys.set_int_max_str_digits(0)
        json_file.write_text(json.dumps(rows, indent=1, ensure_ascii=False), encoding="utf-8")
    if plot is not None:
        from verifier.io.plot import plot_threshold_sweep
        plot_threshold_sweep(points, plot, title=f"{s.mechanism.name}, n = {s.records}",
                             epsilon=str(s.epsilon), delta=str(s.delta))
    if json_out:
        _emit_json({"rows": rows})
        return
    from rich.console import Console
    from rich.table import Table
    table = Table(title=f"threshold sweep: δ at ε = {s.epsilon}, ε at δ = {short(str(s.delta))}"
                        f" (exact; long values in --csv/--json)")
    for col in ("p", "T", "notion", "δ (exact)", "δ ≈", "ε (exact)", "ε ≈", "holds"):
        table.add_column(col)
    for row in rows:
        table.add_row(row["p"], str(row["threshold"]), row["notion"], short(row["delta"]),
                      row["delta_approx"], short(row["epsilon"]), row["epsilon_approx"],
                      "yes" if row["holds"] else "no")
    Console(highlight=False, width=160).print(table)


@app.command()
def guess(
    spec: Annotated[Path | None, typer.Argument(help="A guessing spec (TOML).")] = None,
    json_out: JsonOpt = False,
    eta: Annotated[str | None, typer.Option(help="Target advantage η: find ε.")] = None,
    diameter: Annotated[str | None, typer.Option(
        help="Diameter R of the domain in units of the goal's precision (without SPEC).")] = None,
    prior: Annotated[str | None, typer.Option(
        help="Prior probability of the goal, P[X ∈ g(x)] (without SPEC; default: worst case).")
    ] = None,
    plot: Annotated[Path | None, typer.Option(
        help="Draw advantage against ε for several priors (simplified bound) to a PNG.")] = None,
    tolerance: Annotated[str | None, typer.Option(
        help="Relative width of the certified interval of the precise inversion.")] = None,
) -> None:
    """Guessing advantage of an attacker (seed 004): exact advantage, bounds, ε from η."""
    from verifier.guessing.bounds import max_advantage, simplified_epsilon, worst_prior_for_eta

    try:
        if spec is None:
            if eta is None or diameter is None:
                raise SpecError("without SPEC give --eta and --diameter (and optionally --prior)")
            p = prior if prior is not None else worst_prior_for_eta(eta)
            eps = simplified_epsilon(p, eta, diameter)
            out = {"epsilon": str(eps), "epsilon_approx": eps.approx(), "prior": str(p),
                   "eta": eta, "diameter": diameter, "worst_case_prior": prior is None}
            if not eps.infinite:
                out["max_advantage_at_epsilon"] = str(max_advantage(eps, diameter))
            if plot is not None:
                from verifier.io.plot import plot_advantage
                plot_advantage(plot, diameter)
            if json_out:
                _emit_json(out)
            else:
                for k, v in out.items():
                    typer.echo(f"{k:26} {v}")
            return
        from verifier.guessing.report import guess_report, report_json
        from verifier.io.guess_spec import load_guess_spec
        s = load_guess_spec(spec)
        from dataclasses import replace
        if eta is not None:
            from verifier.guessing.bounds import check_eta
            s = replace(s, eta=check_eta(eta))
        if tolerance is not None:
            from verifier.core.numbers import rational
            t = rational(tolerance, "--tolerance")
            if t <= 0:
                raise SpecError(f"--tolerance {tolerance} must be > 0")
            s = replace(s, tolerance=t)
        rep = guess_report(s)
    except VerifierError as exc:
        _fail(exc, spec)
    if plot is not None:
        from verifier.io.plot import plot_advantage
        plot_advantage(plot, rep["diameter"][0])
    if json_out:
        _emit_json(report_json(rep))
        return
    from verifier.io.terminal import print_guess
    print_guess(s, rep)


@app.command()
def pso(
    spec: Annotated[Path, typer.Argument(help="A predicate-singling-out spec (TOML).")],
    json_out: JsonOpt = False,
    progress: ProgressOpt = None,
) -> None:
    """Predicate singling out (seed 002): exact success, baseline, and the claim's verdict."""
    from verifier.io.pso_spec import load_pso_spec
    from verifier.pso.report import pso_json, pso_report

    try:
        s = load_pso_spec(spec)
        with _Progress(progress, "datasets") as bar:
            rep = pso_report(s, progress=bar)
    except VerifierError as exc:
        _fail(exc, spec)
    if json_out:
        _emit_json(pso_json(s, rep))
    else:
        from verifier.io.terminal import print_pso
        print_pso(s, rep)
    raise typer.Exit(0 if rep["claim"]["holds"] else 1)


@app.command()
def family(
    spec: Annotated[Path, typer.Argument(help="A spec file: [data], [mechanism], [query].")],
    param: Annotated[str, typer.Option(help="The mechanism parameter that varies, e.g. truth.")],
    range_: Annotated[str, typer.Option("--range", help='The closed interval "lo..hi".')],
    timeout: Annotated[int, typer.Option(help="z3 time limit in seconds.")] = 20,
    json_out: JsonOpt = False,
) -> None:
    """Does the spec's (ε, δ)-DP claim hold for every value of one parameter? (z3, then exact)

    Exit status: 0 holds for the whole interval, 1 a confirmed counterexample, 2 error,
    3 unknown (a solver timeout or an unconfirmed witness is never reported as holding).
    """
    from verifier.io.spec import load_spec
    from verifier.symbolic.family import check_family

    try:
        s = load_spec(spec)
        if ".." not in range_:
            raise SpecError(f'--range {range_!r} is not of the form "lo..hi"')
        lo, hi = (x.strip() for x in range_.split("..", 1))
        params = {k: v for k, v in s.mechanism.params.items() if k not in (param, "values")}
        res = check_family(s.mechanism.name, param, lo, hi, values=s.values,
                           records=s.records, params=params, epsilon=s.epsilon,
                           delta=s.delta, timeout_ms=timeout * 1000)
    except VerifierError as exc:
        _fail(exc, spec)
    out = {"status": res.status, "parameter": res.parameter,
           "interval": [str(res.interval[0]), str(res.interval[1])],
           "claim": {"epsilon": str(s.epsilon), "delta": str(s.delta)}, "detail": res.detail}
    if res.counterexample is not None:
        from verifier.io.json_out import jsonable
        out["counterexample"] = {param: str(res.counterexample),
                                 "delta": str(res.exact.delta),
                                 "epsilon": str(res.exact.epsilon),
                                 "witness": jsonable(res.exact.witness)}
    if json_out:
        _emit_json(out)
    else:
        typer.echo(f"{s.mechanism.name}, {param} ∈ [{out['interval'][0]}, {out['interval'][1]}]"
                   f", claim (ε = {s.epsilon}, δ = {s.delta})-DP on {s.records} records:")
        typer.echo(f"  {res.status}: {res.detail}")
        if res.counterexample is not None:
            c = out["counterexample"]
            typer.echo(f"  at {param} = {c[param]}: exact δ = {c['delta']} at ε = {s.epsilon}, "
                       f"tight ε = {c['epsilon']}")
    raise typer.Exit({"holds": 0, "fails": 1}.get(res.status, 3))


def main() -> None:  # console-script entry point
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
