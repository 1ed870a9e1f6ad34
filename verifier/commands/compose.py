"""``plrv compose SPEC``: the (ε, δ) of a composition, exact or certified.

The spec (:mod:`verifier.specs.compose`) is either a check spec with ``notions = ["dp"]``
— ``--k K`` independent runs of its mechanism — or an adaptive ``[composition]`` whose steps
see the earlier outputs (``--k`` repeats the steps; default once). Its neighbouring relation
(``[neighbours]``, default replace-one) and its claim (ε, δ) are those of the composition.

The values are exact while the distinct privacy-loss values fit ``limits.loss_values``
(``--max-values``); beyond it (``enclosure = "auto"``, the default) or when asked
(``"always"``) they are certified enclosures ``[lower, upper]`` on a grid
(:mod:`verifier.notions.composition.enclosure`), reported with ``"exact": false``, the grid
and the reason, and the verdict is ``unknown`` (exit 3) where the enclosure does not decide
it. With ``--accounting`` the result also gives dp_accounting's pessimistic δ at ε and the
difference (:mod:`verifier.interop.accounting`; one mechanism, exact values only).

The claim is the spec's or ``--epsilon``/``--delta``; ``--mechanism`` stands for a spec of
one built-in mechanism (:mod:`verifier.specs.mechanism_text`). The result is one dictionary
in the shared vocabulary (:mod:`verifier.core.vocabulary`), printed as JSON or read by the
text report (:mod:`verifier.reports.compose`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from verifier.commands.routes import refuse_options
from verifier.core.errors import InvalidArgument, SpecError
from verifier.core.vocabulary import pair, stamped
from verifier.notions.composition.enclosure import (
    ENCLOSURE_MODES,
    CompositionEnclosure,
    enclose_composition,
)
from verifier.notions.composition.grid import parse_grid
from verifier.notions.serial import composition_json
from verifier.specs.compose import ComposeSpec, load_compose_spec

__all__ = ["compose_spec", "accountant_json"]

# what each route applies besides --json and --mechanism (every route prints its report as
# text or JSON; --mechanism is read before the route is known); every other option given is
# refused (verifier.commands.routes.refuse_options)
DP = frozenset({"--k", "--accounting", "--enclosure", "--grid", "--max-values", "--epsilon",
                "--delta", "--progress"})
STEPS = DP - {"--accounting"}
RENYI = frozenset({"--k", "--progress"})
_RENYI_WHY = {**dict.fromkeys(("--accounting", "--enclosure", "--grid", "--max-values"),
                              "it applies to dp's composition; rdp and zcdp of a composition "
                              "are computed from the parts' divergences"),
              **dict.fromkeys(("--epsilon", "--delta"),
                              "the claim of rdp and zcdp is the spec's rho or rdp_epsilon")}

PARTIAL = frozenset({"--k", "--epsilon", "--delta", "--progress"})
_PARTIAL_WHY = {
    "--accounting": "dp_accounting composes dp; apkdp, ppkdp and noiseless of k runs are "
                    "read off the runs' exact joint law",
    **dict.fromkeys(("--enclosure", "--grid", "--max-values"),
                    "it bounds dp's composition; apkdp, ppkdp and noiseless of k runs are "
                    "exact, within limits.work and limits.memory"),
}

MAX_RUNS = 1_000_000  # --k: more runs are refused outright; below, the work is estimated first



def _positive(value: object, option: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidArgument(f"{option} {value!r} is not a positive integer", argument=option,
                              value=value)
    return value


def compose_spec(path: Path | None, k: int | None = None, accounting: bool = False,
                 interval: str = "1/10000", *, enclosure: str | None = None,
                 grid: str | None = None, max_values: int | None = None,
                 mechanism: str | None = None, query: Mapping[str, str | None] | None = None,
                 progress: bool | None = None) -> tuple[dict, bool | None]:
    """``(result, holds)`` of the composition SPEC describes (or ``mechanism``, a built-in
    mechanism on the command line: :mod:`verifier.specs.mechanism_text`), its claim replaced
    by ``query`` (``--epsilon``, ``--delta``): exact tight δ at the claimed ε and tight ε at
    the claimed δ as strings, or their enclosures (``holds`` None: unknown); ``progress``
    shows a bar over the pairs (or histograms) on stderr."""
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
    claimed = {name: text for name, text in (query or {}).items() if text is not None}
    given = {"--k": k, "--accounting": accounting, "--enclosure": enclosure, "--grid": grid,
             "--max-values": max_values, "--progress": progress,
             **{f"--{name}": text for name, text in claimed.items()}}
    typed = {option: value for option, value in given.items() if value not in (None, False)}
    s = _load(path, mechanism, claimed)
    if s.problem is not None:
        refuse_options("plrv compose of apkdp, ppkdp and noiseless", typed, PARTIAL,
                       _PARTIAL_WHY)
        return _partial(s, k, progress)
    if s.renyi is not None:
        refuse_options("plrv compose of rdp and zcdp", typed, RENYI, _RENYI_WHY)
        return _renyi(s, k, progress)
    refuse_options("plrv compose", typed, DP if s.mechanism is not None else STEPS,
                   {"--accounting": "it compares k runs of one mechanism, not "
                                    "composition.steps"})
    return _dp(s, k, accounting, interval, enclosure, grid, chosen_grid, max_values, progress)


def _load(path: Path | None, mechanism: str | None, query: Mapping[str, str]) -> ComposeSpec:
    """The spec file, or the built-in mechanism of ``--mechanism`` (one of them)."""
    if mechanism is not None:
        if path is not None:
            raise InvalidArgument("--mechanism: give SPEC or --mechanism, not both (--mechanism "
                                  "stands for a spec of one built-in mechanism); remove it",
                                  argument="--mechanism", value=mechanism)
        from verifier.specs.mechanism_text import mechanism_spec
        return mechanism_spec(mechanism, query)
    if path is None:
        raise InvalidArgument("give SPEC (a spec file) or --mechanism \"KIND KEY=VALUE …\"",
                              argument="SPEC")
    try:
        return load_compose_spec(path, query)
    except SpecError as exc:  # a bad --epsilon/--delta is named as the option, not the key
        name = (exc.key or "").removeprefix("query.")
        if name in query:
            raise InvalidArgument(f"--{name} {query[name]!r}: {exc.detail}",
                                  argument=f"--{name}", value=query[name]) from None
        raise


def _dp(s: ComposeSpec, k: int | None, accounting: bool, interval: str, enclosure: str | None,
        grid: str | None, chosen_grid, max_values: int | None, progress: bool | None
        ) -> tuple[dict, bool | None]:
    """dp of ``k`` runs of the spec's mechanism, or of its adaptive steps."""
    from verifier.reports.progress import ProgressBar

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
    with ProgressBar(progress, "neighbouring pairs") as bar:
        r = enclose_composition(parts, s.relation, s.epsilon, s.delta, budget, mode=mode,
                                grid=chosen_grid or s.grid, progress=bar)
    if isinstance(r, CompositionEnclosure) and accounting:
        raise InvalidArgument("--accounting compares exact values; this composition is "
                              "an enclosure (use --enclosure never or raise --max-values)",
                              argument="--accounting")
    out = composition_json(r, runs, s.relation.name,
                           None if s.mechanism is None else s.mechanism.describe(),
                           [step.name for step in s.steps])
    if accounting:
        from verifier.interop.accounting import compare_composition
        assert s.mechanism is not None  # (accounting is refused for steps above)
        c = compare_composition(s.mechanism, s.relation, runs, s.epsilon, interval, s.budget)
        out["accountant"] = accountant_json(c)
    return out, r.holds


def accountant_json(c) -> dict:
    """dp_accounting's δ at ε beside the exact one (a
    :class:`~verifier.interop.accounting.Comparison`): ``difference`` is accountant − exact
    when the exact δ is rational; when it is not (``A − C·e^ε`` with ``e^ε`` irrational) the
    difference is no rational either, so it is ``null``, ``difference_note`` says why, and
    ``pessimistic`` (the accountant's δ at least the exact one, compared exactly) holds the
    comparison that matters."""
    out: dict[str, object] = {
        "delta": str(c.accountant), "interval": str(c.interval),
        "difference": None if c.difference is None else str(c.difference),
        "pessimistic": c.exact.compare(c.accountant) <= 0}
    if c.difference is None:
        out["difference_note"] = (f"the exact δ {c.exact} is irrational, so accountant − exact "
                                  f"is no exact rational; pessimistic compares them exactly")
    return out


def _renyi(s: ComposeSpec, k: int | None, progress: bool | None) -> tuple[dict, bool | None]:
    """rdp/zcdp of ``k`` runs of the spec's mechanism: the parts' divergences add
    (:mod:`verifier.notions.renyi.compose`)."""
    from verifier.notions.renyi.compose import renyi_of_composition
    from verifier.reports.renyi import renyi_json

    if k is None:
        raise InvalidArgument("--k is missing: give the number of runs of the spec's "
                              "mechanism", argument="--k")
    assert s.mechanism is not None and s.renyi is not None
    from verifier.reports.progress import ProgressBar

    with ProgressBar(progress, "zcdp: pairs searched") as bar:
        report = renyi_of_composition([s.mechanism] * k, s.relation, s.notions, s.renyi,
                                      s.budget, progress=bar)
    out: dict = {"k": k, "relation": s.relation.name}
    out.update(renyi_json(report, s.renyi, s.mechanism.describe()))
    return stamped("compose", out, report.holds), report.holds


def _partial(s: ComposeSpec, k: int | None, progress: bool | None
             ) -> tuple[dict, bool | None]:
    """apkdp, ppkdp and noiseless of ``k`` runs on the same database: the exact joint law of
    the runs' histogram (:mod:`verifier.notions.composition.partial_check`)."""
    from verifier.notions.composition.partial_check import compose_partial
    from verifier.reports.json_out import result_json
    from verifier.reports.progress import ProgressBar

    if k is None:
        raise InvalidArgument("--k is missing: give the number of runs of the spec's "
                              "mechanism", argument="--k")
    assert s.problem is not None
    with ProgressBar(progress, f"{k} runs: histograms") as bar:
        c = compose_partial(s.problem, k, progress=bar)
    claim = pair(s.epsilon, s.delta)
    out: dict = {"k": k, "notions": list(s.notions), **claim, "exact": True,
                 "holds": c.report.holds,
                 "enumerated": {"engine": c.engine, "outputs": c.outputs,
                                "histograms": c.histograms, "components": c.components}}
    out["results"] = {n: result_json(r) for n, r in c.report.results.items()}
    return stamped("compose", out, c.report.holds, claim), c.report.holds
