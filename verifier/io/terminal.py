"""Human-readable reports for the terminal (display only; every number shown exact first)."""

from __future__ import annotations

from functools import cmp_to_key

from rich.console import Console
from rich.table import Table

from verifier.core.certified import decimal_string
from verifier.io.json_out import jsonable, show_delta, show_epsilon, show_rational, show_value
from verifier.io.spec import Spec
from verifier.model.knowledge import describe_indices
from verifier.notions.check import Report

__all__ = ["print_report"]

_NAMES = {
    "dp": "(ε,δ)-DP",
    "apkdp": "APK-DP (active attacker)",
    "ppkdp": "PPK-DP (passive attacker)",
    "noiseless": "noiseless privacy",
}


MAX_ROWS = 12  # background values shown; --json carries all of them


def print_report(spec: Spec, report: Report, console: Console | None = None) -> None:
    if console is None:
        console = Console(highlight=False)
        if not console.is_terminal:
            console = Console(highlight=False, width=120)
    console.print(f"[bold]mechanism[/]  {spec.mechanism.describe()}")
    if isinstance(spec.model, tuple):
        for j, m in enumerate(spec.model):
            console.print(f"[bold]data[/]       model {j}: {m.describe()}")
    elif spec.model is not None:
        console.print(f"[bold]data[/]       {spec.model.describe()}")
    else:
        console.print(f"[bold]data[/]       {spec.records} records over {list(spec.values)}")
    if any(n != "dp" for n in spec.notions):
        targets = spec.targets if spec.targets == "all" else describe_indices(
            [spec.targets] if isinstance(spec.targets, int) else spec.targets)
        know = spec.knowledge if isinstance(spec.knowledge, tuple) else (spec.knowledge,)
        names = "; or ".join(f"{k.name}" + (f" (knowledge {j})" if len(know) > 1 else "")
                             for j, k in enumerate(know))
        console.print(f"[bold]attacker[/]   knows {names}; targets {targets}")
    delta = show_rational(spec.delta)
    console.print(f"[bold]claim[/]      ε = {spec.epsilon}, δ = {delta}")
    for line in report.info:
        console.print(f"[bold]engine[/]     {line}")

    table = Table(title="exact values (long ones in --json), certified decimals beside them",
                  show_lines=False)
    table.add_column("notion")
    table.add_column("holds")
    table.add_column(f"tight δ at ε = {spec.epsilon}")
    table.add_column(f"tight ε at δ = {delta}")
    for notion, r in report.results.items():
        table.add_row(_NAMES[notion], "[green]yes[/]" if r.holds else "[red]no[/]",
                      show_delta(r.delta), show_epsilon(r.epsilon))
    console.print(table)

    for notion, r in report.results.items():
        w = {k: v for k, v in r.witness.items() if k not in ("outputs", "outputs_truncated")}
        outs = ", ".join(f"{show_value(o)} (L = {loss})" for o, loss in r.witness["outputs"][:8])
        more = len(r.witness["outputs"]) - 8
        console.print(f"[bold]{notion} witness[/] {jsonable(w)}")
        if outs:
            console.print(f"    outputs with loss > ε: {outs}"
                          + (f" … and {more} more" if more > 0 else "")
                          + (" (and others)" if r.witness.get("outputs_truncated") else ""))

    apk = report.results.get("apkdp")
    if apk is not None and apk.details:
        ppk = report.results.get("ppkdp")
        bt = Table(title="APK δ at ε per background value, largest first (the active "
                         "attacker picks one)")
        for col in ("target", "background B̂", "P[ζ(D) = B̂]", "pair (a, b)", "APK δ", "≤ δ?"):
            bt.add_column(col)
        if ppk is not None:
            bt.add_column("vs PPK δ")
        rows = sorted(apk.details, key=cmp_to_key(lambda x, y: y["delta"].compare(x["delta"])))
        for row in rows[:MAX_ROWS]:
            cells = [str(row["target"]), show_value(row["background"]),
                     str(row["probability"]), show_value(tuple(row["values"])),
                     show_delta(row["delta"]), "yes" if row["holds"] else "[red]no[/]"]
            if ppk is not None:
                c = row["delta"].compare(ppk.delta)
                cells.append({1: "above", 0: "equal", -1: "below"}[c])
            bt.add_row(*cells)
        console.print(bt)
        if len(rows) > MAX_ROWS:
            console.print(f"… and {len(rows) - MAX_ROWS} more background values, with smaller "
                          f"or equal δ (all of them in --json)")
        if ppk is not None:
            if apk.holds != ppk.holds:
                console.print("[bold]APK and PPK part:[/] the passive attacker is defeated "
                              f"(δ = {show_delta(ppk.delta)}), the active one is not "
                              f"(δ = {show_delta(apk.delta)})." if ppk.holds else
                              "[bold]APK and PPK part.[/]")
            elif apk.delta == ppk.delta:
                console.print("APK and PPK coincide here: the active attacker gains nothing.")


def print_guess(spec, rep: dict, console: Console | None = None) -> None:
    """The guessing report: per target, exact advantage, bounds and slack (seed 004)."""
    console = console or Console(highlight=False, width=140)
    m = spec.model
    eps = ", ".join(str(e) for e in rep["epsilon"])
    tight = ", ".join(f"{t[0]} ≈ {t[0].approx()}" for t in rep["tight"])
    console.print(f"[bold]mechanism[/]  {spec.mechanism} on {len(m.domain)} values; tight ε·d: "
                  f"{tight}")
    console.print(f"[bold]goal[/]       {m.mode.upper()} of precisions "
                  f"{[str(r) for r in m.precisions]}; diameter R = "
                  f"{', '.join(str(d) for d in rep['diameter'])}")
    note = "" if rep["private_at_epsilon"] is not False else \
        "  [red](the mechanism is NOT ε·d-private at this ε: the bounds need not hold)[/]"
    console.print(f"[bold]bounds at[/]  ε = {eps}{note}")
    table = Table(title="exact advantage per target; bounds on the posterior (exact or ≈ "
                        "certified)")
    for col in ("target", "P[g] prior", "best output", "posterior", "advantage",
                "precise bound", "slack", "simplified bound", "order ok"):
        table.add_column(col)
    for r in rep["rows"]:
        table.add_row(show_value(r.target), str(r.prior), show_value(r.output), str(r.posterior),
                      f"{r.advantage}  ≈ {decimal_string(r.advantage)}",
                      _certified(r.precise),
                      f"≈ {_slack(r.precise, r.posterior)}", _certified(r.simplified),
                      {True: "yes", False: "[red]no[/]", None: "undecided"}[r.order()])
    console.print(table)
    w = rep["worst"]
    console.print(f"[bold]worst target[/] {show_value(w.target)}: advantage {w.advantage} ≈ "
                  f"{decimal_string(w.advantage)} (output {show_value(w.output)})")
    pre, post = rep["vulnerability"]
    console.print(f"[bold]best Bayesian guess[/] succeeds with {pre} ≈ {decimal_string(pre)} "
                  f"before, {post} ≈ {decimal_string(post)} after seeing the output")
    if "inversion" in rep:
        inv = rep["inversion"]
        console.print(f"[bold]ε for advantage ≤ {inv['eta']}[/] at target "
                      f"{show_value(inv['target'])}: simplified bound {inv['simplified']} ≈ "
                      f"{inv['simplified'].approx()}")
        if inv["precise"] is not None:
            lo, hi = inv["precise"]
            console.print(f"    precise bound: ε ∈ [{lo.approx()}, {hi.approx()}] "
                          f"(certified; exact ends ln of rationals in --json)")


def _certified(c) -> str:
    v = c.value
    if v is not None and len(str(v)) <= 16:
        return str(v)
    return f"≈ {c.approx()}"


def print_pso(spec, rep: dict, console: Console | None = None) -> None:
    """The singling-out report: exact success against the exact baseline (seed 002)."""
    console = console or Console(highlight=False, width=120)
    u = spec.universe
    size = f"{{0,1}}^{u.bits}" if u.bits else f"{len(u.values)} values"
    console.print(f"[bold]universe[/]   {size}, {spec.n} i.i.d. rows")
    console.print(f"[bold]mechanism[/]  {spec.mechanism.name}")
    console.print(f"[bold]adversary[/]  {spec.adversary}; admissible predicates: "
                  f"{spec.admissible}")
    table = Table(title="exact values (≈ certified truncations)")
    for col in ("quantity", "exact", "≈"):
        table.add_column(col)
    for name, key in (("success", "success"), ("baseline", "baseline"),
                      ("difference", "difference")):
        table.add_row(name, str(rep[key]), decimal_string(rep[key]))
    table.add_row("ratio", "inf" if rep["ratio"] is None else str(rep["ratio"]),
                  "inf" if rep["ratio"] is None else decimal_string(rep["ratio"]))
    console.print(table)
    if rep["baseline_weight"] is not None:
        shown = sorted(u.show(x) for x in rep["baseline_predicate"])
        console.print(f"baseline: a fixed predicate of weight {rep['baseline_weight']} "
                      f"(e.g. {shown[:6]}{' …' if len(shown) > 6 else ''})")
    weights = ", ".join(f"{w}: {p}" for w, p in list(rep["weights"].items())[:8])
    console.print(f"adversary's predicate weights (weight: probability): {weights}")
    if "searched" in rep:
        console.print(f"optimal adversary: {rep['searched']} (output, predicate) pairs scored")
    c = rep["claim"]
    console.print(f"[bold]claim[/] success ≤ {c['factor']}·baseline + {c['slack']} = {c['bound']}"
                  f": {'[green]holds[/]' if c['holds'] else '[red]does not hold[/]'}")


def _slack(bound, posterior) -> str:
    """bound − posterior, as a certified decimal."""
    from verifier.guessing.bounds import Certified
    return Certified(lambda p: tuple(x - posterior for x in bound.enclose(p))).approx(4)
