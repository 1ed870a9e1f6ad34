"""``plrv curve SPEC``: the exact tight δ(ε) curve of every notion a check spec names, its
breakpoints exact logs of rationals (registered on the application of :mod:`verifier.cli`).

The curve is the closed form of :mod:`verifier.symbolic.closed_form` (the upper envelope over
the notion's cases, linear in ``e^ε`` between breakpoints) written over ε: pieces
``δ = a − c·e^ε`` on ``[ln(q), ln(q'))`` (:mod:`verifier.reports.curve`). ``--csv`` and
``--plot`` sample it at evenly spaced ε and at every breakpoint; ``--accounting`` puts
dp_accounting's pessimistic δ(ε) of the same pairs beside dp's. The exit status is the claim's
verdict at the spec's ε (or ``--epsilon``), as ``plrv check`` gives it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from verifier.commands.app import app, verdict
from verifier.commands.common import (
    BudgetOpt,
    CountsOpt,
    DeltaOpt,
    EngineOpt,
    EpsilonOpt,
    JsonOpt,
    PlotOpt,
    SpecArg,
    absolute,
    check_outputs,
    echo,
    load_overridden,
    print_json,
)
from verifier.commands.routes import refuse_options, typed_options

__all__ = ["curve", "accountant_deltas"]

_INTERVAL = "1/10000"  # dp_accounting's discretisation interval (as in plrv compose)
_POINTS = 40  # evenly spaced samples by default


@app.command()
def curve(spec: SpecArg,
          plot: PlotOpt = None,
          csv_out: Annotated[Path | None, typer.Option(
              "--csv", callback=absolute,
              help="Write the sampled curve as CSV (exact δ and a certified decimal per "
                   "row).")] = None,
          json_out: JsonOpt = False,
          accounting: Annotated[bool, typer.Option(
              "--accounting", help="Also dp_accounting's pessimistic δ(ε) for dp, at the "
                                   "sample points (plrv[accounting]).")] = False,
          points: Annotated[int | None, typer.Option(
              "--points", min=1, max=10000,
              help="Evenly spaced sample points in ε for --csv, --plot and --accounting "
                   "(every breakpoint is added; default 40).")] = None,
          at: Annotated[str | None, typer.Option(
              help="For a spec with [parameters]: the point, e.g. p=1/3 (default: a sample "
                   "point).")] = None,
          epsilon: EpsilonOpt = None, delta: DeltaOpt = None,
          budget: BudgetOpt = None, budget_counts: CountsOpt = None,
          engine: EngineOpt = None) -> int:
    """The exact δ(ε) curve of SPEC for every notion it names: pieces δ = a − c·e^ε between
    breakpoints ln(q), every number exact.

    The status is the claim's at the spec's ε and δ (0 holds, 1 does not), as plrv check.
    """
    from verifier.reports.plot import EXTENSIONS

    refuse_options("plrv curve", typed_options(), {
        "--plot", "--csv", "--json", "--accounting", "--points", "--at", "--epsilon",
        "--delta", "--budget", "--budget-counts", "--engine"})
    check_outputs(spec, **{"--plot": (plot, EXTENSIONS), "--csv": (csv_out, None)})
    sampled = csv_out is not None or plot is not None or accounting
    if points is not None and not sampled:
        from verifier.core.errors import InvalidArgument
        raise InvalidArgument("--points sets the samples of --csv, --plot or --accounting; "
                              "give one of them", argument="--points", value=points)
    if plot is not None:
        from verifier.reports.plot import require_matplotlib
        require_matplotlib()
    s, note = _load(spec, at, {"epsilon": epsilon, "delta": delta}, budget, budget_counts,
                    engine)
    if accounting:
        if "dp" not in s.notions:
            from verifier.core.errors import InvalidArgument
            raise InvalidArgument("--accounting compares dp's curve; the spec names no dp in "
                                  "query.notions", argument="--accounting")
        from verifier.interop.accounting import dp_accounting
        dp_accounting()  # a missing extra is named before the curve is computed
    from verifier.reports.curve import curve_json, curve_lines, sample_epsilons, sample_rows
    from verifier.symbolic.closed_form import spec_curves

    curves = spec_curves(s)
    samples = sample_epsilons(curves, points or _POINTS, s.epsilon) if sampled else []
    theirs = {"dp": accountant_deltas(s, samples)} if accounting else None
    if csv_out is not None or plot is not None:
        _write(sample_rows(curves, samples, theirs), csv_out, plot, s)
    out = curve_json(curves, s.epsilon, s.delta, None if theirs is None else {
        "library": "dp_accounting", "notion": "dp", "interval": _INTERVAL,
        "note": "pessimistic PLD of each neighbouring pair, asked at a float <= epsilon",
        "samples": [{"epsilon": str(e), "delta": str(d),
                     "exact_delta": str(curves["dp"].delta(e))}
                    for e, d in zip(samples, theirs["dp"], strict=True)]})
    if json_out:
        print_json(out | ({"parameters": note} if note else {}))
    else:
        if note:
            echo(f"parameters: {note}")
        for line in curve_lines(curves, s.epsilon, s.delta):
            echo(line)
        if theirs is not None:
            from verifier.reports.curve import accountant_lines
            for line in accountant_lines(curves["dp"], samples, theirs["dp"], _INTERVAL):
                echo(line)
    return verdict(out["holds"])


def _load(spec: Path, at: str | None, query: dict, budget: int | None,
          budget_counts: int | None, engine: str | None):
    """The check spec at its point (``--at``; a sample point without it), with the overrides;
    the reader refuses noise mechanisms (infinitely many loss values) and the Rényi notions
    (:func:`verifier.specs.check.parse_spec`)."""
    from verifier.specs.files import read_toml

    point = note = None
    if at is not None or "parameters" in read_toml(spec):  # sympy only for such specs
        from verifier.specs.symbolic import point_note
        from verifier.symbolic.parameters import parse_point
        point = parse_point(at) if at is not None else None
        note = point_note(spec, point)
    s = load_overridden(spec, budget, budget_counts, engine, point, command="curve",
                        query={k: v for k, v in query.items() if v is not None})
    return s, note


def accountant_deltas(s, epsilons) -> list:
    """dp_accounting's δ at each ε for dp of the spec: the largest over the neighbouring
    pairs (the spec's relation, replace-one by default) of the pessimistic PLD's δ
    (:func:`verifier.interop.accounting.to_pld`) at a float ≤ ε, as the exact rational of
    the float it returns (at least the exact δ: the discretisation is pessimistic)."""
    from gmpy2 import mpq

    from verifier.interop.accounting import epsilon_float, to_pld
    from verifier.notions.composition.exact import LossDistribution
    from verifier.notions.dp.neighbours import relation_pairs, replace_one

    relation = s.relation or replace_one(s.values, s.records)
    laws = {LossDistribution.of(s.mechanism(x), s.mechanism(y))
            for x, y in relation_pairs(relation, s.budget)}
    plds = [to_pld(law, _INTERVAL) for law in laws]
    return [max(mpq(p.get_delta_for_epsilon(epsilon_float(e))) for p in plds)
            for e in epsilons]


def _write(rows: list[dict], csv_path: Path | None, plot_path: Path | None, s) -> None:
    """The sample rows as CSV and the plot, all or nothing (each file confirmed on stderr)."""
    from verifier.core.certified import decimal_string
    from verifier.core.numbers import counted, format_rational
    from verifier.reports.curve_plot import plot_curve
    from verifier.reports.writers import write_curve

    eps, d = s.epsilon, s.delta
    claim = None if eps.infinite else (eps.approx(8), decimal_string(d, 8))
    write_curve(rows, csv_path, plot_path, lambda tmp, fmt: plot_curve(
        rows, tmp, title=f"{s.mechanism.name}, {counted(s.records, 'record')}",
        epsilon=str(eps), delta=format_rational(d), claim=claim, fmt=fmt))
