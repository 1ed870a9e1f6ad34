"""``plrv compose SPEC``: the (ε, δ) of a composition, exact or certified.

The spec (:mod:`verifier.specs.compose`) is either a check spec with ``notions = ["dp"]``
— ``--k K`` independent runs of its mechanism — or an adaptive ``[composition]`` whose steps
see the earlier outputs (``--k`` repeats the steps; default once). Its neighbouring relation
(``[neighbours]``, default replace-one) and its claim (ε, δ) are those of the composition.

The values are exact while the distinct privacy-loss values fit ``limits.loss_values``
(``--max-values``); beyond it (``enclosure = "auto"``, the default) or when asked
(``"always"``) they are certified enclosures ``[lower, upper]`` on a grid
(:mod:`verifier.notions.composition.enclosure`), reported with ``"exact": false``, the grid
and the reason, and the verdict is ``null`` (exit 3) where the enclosure does not decide it.
With ``--accounting`` the result also gives dp_accounting's pessimistic δ at ε and the
difference (:mod:`verifier.interop.accounting`; one mechanism, exact values only).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from verifier.commands.routes import refuse_options
from verifier.core.errors import InvalidArgument
from verifier.notions.composition.enclosure import (
    ENCLOSURE_MODES,
    CompositionEnclosure,
    enclose_composition,
)
from verifier.notions.composition.grid import parse_grid
from verifier.specs.compose import ComposeSpec, load_compose_spec

__all__ = ["compose_spec"]

# what each route applies (--json always: plrv compose prints one JSON object); every other
# option given is refused (verifier.commands.routes.refuse_options)
DP = frozenset({"--k", "--accounting", "--enclosure", "--grid", "--max-values"})
STEPS = DP - {"--accounting"}
RENYI = frozenset({"--k"})
_RENYI_WHY = dict.fromkeys(("--accounting", "--enclosure", "--grid", "--max-values"),
                           "it applies to dp's composition; rdp and zcdp of a composition "
                           "are computed from the parts' divergences")

PARTIAL = frozenset({"--k"})
_PARTIAL_WHY = {
    "--accounting": "dp_accounting composes dp; apkdp, ppkdp and noiseless of k runs are "
                    "read off the runs' exact joint law",
    **dict.fromkeys(("--enclosure", "--grid", "--max-values"),
                    "it bounds dp's composition; apkdp, ppkdp and noiseless of k runs are "
                    "exact, within limits.work and limits.memory"),
}

MAX_RUNS = 1_000_000  # --k: more runs are refused outright; below, the work is estimated first

ENCLOSURE_NOTE = ("certified bounds, not exact values: every privacy-loss value was rounded "
                  "up (upper bounds) or down (lower bounds) onto the grid, and the exact value "
                  "lies between them")


def _positive(value: object, option: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidArgument(f"{option} {value!r} is not a positive integer", argument=option,
                              value=value)
    return value


def compose_spec(path: Path, k: int | None = None, accounting: bool = False,
                 interval: str = "1/10000", *, enclosure: str | None = None,
                 grid: str | None = None, max_values: int | None = None
                 ) -> tuple[dict, bool | None]:
    """``(result, holds)`` of the composition SPEC describes: exact tight δ at the claimed ε
    and tight ε at the claimed δ as strings, or their enclosures (``holds`` None: unknown)."""
    if k is not None:
        _positive(k, "--k")
        if k > MAX_RUNS:
            raise InvalidArgument(f"--k {k}: more than {MAX_RUNS} runs are refused (the exact "
                                  f"law's integers grow with every run; smaller k is "
                                  f"estimated before it starts)", argument="--k",
                                  value=k)
    if max_values is not None:
        _positive(max_values, "--max-values")
    if enclosure is not None and enclosure not in ENCLOSURE_MODES:
        raise InvalidArgument(f"--enclosure {enclosure!r} is not one of "
                              f"{', '.join(ENCLOSURE_MODES)}", argument="--enclosure",
                              value=enclosure)
    chosen_grid = None if grid is None else parse_grid(grid, "--grid")
    given = {"--k": k, "--accounting": accounting, "--enclosure": enclosure, "--grid": grid,
             "--max-values": max_values}
    typed = {option: value for option, value in given.items() if value not in (None, False)}
    s = load_compose_spec(path)
    if s.problem is not None:
        refuse_options("plrv compose of apkdp, ppkdp and noiseless", typed, PARTIAL,
                       _PARTIAL_WHY)
        return _partial(s, k)
    if s.renyi is not None:
        refuse_options("plrv compose of rdp and zcdp", typed, RENYI, _RENYI_WHY)
        return _renyi(s, k)
    refuse_options("plrv compose", typed, DP if s.mechanism is not None else STEPS,
                   {"--accounting": "it compares k runs of one mechanism, not "
                                    "composition.steps"})
    return _dp(s, k, accounting, interval, enclosure, grid, chosen_grid, max_values)


def _dp(s: ComposeSpec, k: int | None, accounting: bool, interval: str, enclosure: str | None,
        grid: str | None, chosen_grid, max_values: int | None) -> tuple[dict, bool | None]:
    """dp of ``k`` runs of the spec's mechanism, or of its adaptive steps."""
    if s.mechanism is not None:
        if k is None:
            raise InvalidArgument("--k is missing: give the number of runs of the spec's "
                                  "mechanism", argument="--k")
        parts: list = [s.mechanism] * k
        runs = k
    else:
        runs = 1 if k is None else k
        parts = list(s.steps) * runs
    budget = s.budget if max_values is None else replace(s.budget, max_loss_values=max_values)
    mode = enclosure or s.enclosure
    if mode == "never" and (grid is not None or s.grid is not None):
        source = "--grid" if grid is not None else "composition.grid"
        raise InvalidArgument(f"{source} is never used with enclosure = 'never' (exact or "
                              f"refused); leave it out or allow an enclosure",
                              argument=source, value=grid or str(s.grid))
    from verifier.reports.progress import ProgressBar

    # shown on a terminal only: the coefficients of k streamed runs
    with ProgressBar(None, f"{runs} runs: coefficients") as bar:
        r = enclose_composition(parts, s.relation, s.epsilon, s.delta, budget, mode=mode,
                                grid=chosen_grid or s.grid, progress=bar)
    out: dict = {"k": runs, "relation": s.relation.name}
    if s.steps:
        out["steps"] = [step.name for step in s.steps]
    out.update({"epsilon": str(r.query_epsilon), "delta": str(r.query_delta)})
    if isinstance(r, CompositionEnclosure):
        if accounting:
            raise InvalidArgument("--accounting compares exact values; this composition is "
                                  "an enclosure (use --enclosure never or raise --max-values)",
                                  argument="--accounting")
        out.update(_enclosure(r))
        return out, r.holds
    from verifier.reports.json_out import witness_json

    pair = witness_json(r.witness, False)  # the pair (a composition lists no outputs)
    pair.pop("outputs", None)
    out["route"] = pair.pop("route", "tree")  # how the shown pair's law was computed
    out.update({"exact": True, "tight_delta": str(r.delta), "tight_epsilon": str(r.epsilon),
                "holds": r.holds, "worst_case" if r.holds else "witness": pair,
                "approx": {"tight_delta": r.delta.approx(), "tight_epsilon": r.epsilon.approx()}})
    if accounting:
        from verifier.interop.accounting import compare_composition
        assert s.mechanism is not None  # (accounting is refused for steps above)
        c = compare_composition(s.mechanism, s.relation, runs, s.epsilon, interval, s.budget)
        out["accountant"] = {"delta": str(c.accountant), "interval": str(c.interval),
                             "difference": None if c.difference is None else str(c.difference)}
    return out, r.holds


def _enclosure(r: CompositionEnclosure) -> dict:
    verdict = {True: "holds", False: "fails", None: "unknown"}[r.holds]
    return {
        "exact": False,
        "tight_delta": {"lower": str(r.delta_lo), "upper": str(r.delta_hi)},
        "tight_epsilon": {"lower": str(r.epsilon_lo), "upper": str(r.epsilon_hi)},
        "holds": r.holds,
        "verdict": verdict,
        "enclosure": {"note": ENCLOSURE_NOTE, "reason": r.reason,
                      "grid": [str(g) for g in r.grids], "pairs": r.cases,
                      "pairs_enclosed": r.enclosed, "witness": dict(r.witness)},
        "approx": {"tight_delta": [r.delta_lo.approx(), r.delta_hi.approx()],
                   "tight_epsilon": [r.epsilon_lo.approx(), r.epsilon_hi.approx()]},
    }


def _renyi(s: ComposeSpec, k: int | None) -> tuple[dict, bool | None]:
    """rdp/zcdp of ``k`` runs of the spec's mechanism: the parts' divergences add
    (:mod:`verifier.notions.renyi.compose`)."""
    from verifier.notions.renyi.compose import renyi_of_composition
    from verifier.reports.renyi import renyi_json

    if k is None:
        raise InvalidArgument("--k is missing: give the number of runs of the spec's "
                              "mechanism", argument="--k")
    assert s.mechanism is not None and s.renyi is not None
    from verifier.reports.progress import ProgressBar

    with ProgressBar(None, "zcdp: pairs searched") as bar:  # shown on a terminal only
        report = renyi_of_composition([s.mechanism] * k, s.relation, s.notions, s.renyi,
                                      s.budget, progress=bar)
    out: dict = {"k": k, "relation": s.relation.name}
    out.update(renyi_json(report, s.renyi, s.mechanism.describe()))
    return out, report.holds


def _partial(s: ComposeSpec, k: int | None) -> tuple[dict, bool | None]:
    """apkdp, ppkdp and noiseless of ``k`` runs on the same database: the exact joint law of
    the runs' histogram (:mod:`verifier.notions.composition.partial_check`)."""
    from verifier.notions.composition.partial_check import compose_partial
    from verifier.reports.json_out import result_json
    from verifier.reports.progress import ProgressBar

    if k is None:
        raise InvalidArgument("--k is missing: give the number of runs of the spec's "
                              "mechanism", argument="--k")
    assert s.problem is not None
    with ProgressBar(None, f"{k} runs: histograms") as bar:  # shown on a terminal only
        c = compose_partial(s.problem, k, progress=bar)
    out: dict = {"k": k, "notions": list(s.notions), "epsilon": str(s.epsilon),
                 "delta": str(s.delta), "exact": True,
                 "holds": c.report.holds,
                 "enumerated": {"engine": c.engine, "outputs": c.outputs,
                                "histograms": c.histograms, "components": c.components}}
    out["results"] = {n: result_json(r) for n, r in c.report.results.items()}
    return out, c.report.holds
