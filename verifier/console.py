"""Human-readable reports for the terminal (display only; every number shown exact first)."""

from __future__ import annotations

from functools import cmp_to_key

from rich.console import Console
from rich.table import Table

from .check import Report
from .knowledge import describe_indices
from .render import jsonable, show_delta, show_epsilon, show_rational, show_value
from .spec import Spec

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
    if spec.model is not None:
        console.print(f"[bold]data[/]       {spec.model.describe()}")
    else:
        console.print(f"[bold]data[/]       {spec.records} records over {list(spec.values)}")
    if any(n != "dp" for n in spec.notions):
        targets = spec.targets if spec.targets == "all" else describe_indices(
            [spec.targets] if isinstance(spec.targets, int) else spec.targets)
        console.print(f"[bold]attacker[/]   knows {spec.knowledge.name}; targets {targets}")
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
