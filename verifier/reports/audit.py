"""The report of ``plrv audit``: the terminal table, from the same dictionary per case as the
JSON (:mod:`verifier.audit.serial`, ``schemas/audit-output.v1.json``, re-exported here)."""

from __future__ import annotations

from collections.abc import Mapping

from verifier.audit.runner import AuditResult
from verifier.audit.scan import MAX_LINEAR, ScanResult
from verifier.audit.serial import SCHEMA, audit_json, overall, row_json, scan_json, value_json

__all__ = ["audit_json", "print_audit", "print_scans", "scan_json", "value_json", "SCHEMA"]

_SHOWN = 160  # characters of an exact value shown in the terminal (all are in --json)


def print_scans(result: AuditResult) -> None:
    """Each scanned case: a table of its points, then the boundary found."""
    from rich.table import Table

    from verifier.reports.terminal import console

    c = console(160)
    for s in result.scans:
        table = Table(title=f"case[{s.case}] scanned over {s.key} ({s.method})")
        for head in ("value", "claim ε", "tight ε", "claim δ", "tight δ", "verdict"):
            table.add_column(head)
        for p in s.points:
            j = scan_json(ScanResult(s.case, s.key, s.method, (p,), None, None, ()))
            q = j["points"][0]
            table.add_row(p.value, _short(q["claim_epsilon"]), _short(q["tight_epsilon"]),
                          _short(q["claim_delta"]), _short(q["tight_delta"]),
                          p.verdict if p.error is None else f"error: {p.error}")
        c.print(table)
        if s.undecided:
            c.print(f"case[{s.case}]: no unsound value of {s.key} among the {len(s.points)} "
                    "values decided; bisection does not decide the values between them, so "
                    "the scan is undecided (scan at most "
                    f"{MAX_LINEAR} integers, a grid LO..HI/N or a list to decide each value)")
        elif s.first_unsound is None:
            c.print(f"case[{s.case}]: no unsound value of {s.key} found")
        else:
            below = f" (last sound before it: {s.last_sound})" if s.last_sound else ""
            c.print(f"case[{s.case}]: first unsound {s.key} = {s.first_unsound}{below}"
                    + (" — a proved change of verdict; the smallest if soundness is "
                       "monotone in the key" if s.method == "bisection" else ""))
        for change in s.changes:
            c.print(f"  change: {change}")
    c.print(f"verdict: {overall(result)}")


def _short(v: Mapping | None) -> str:
    if v is None:
        return "-"
    return str(v["approx"])


def _args(args: Mapping) -> str:
    def one(v: object) -> str:
        if isinstance(v, dict) and "approx" in v:
            return str(v["approx"])
        if isinstance(v, list):
            return "[" + ", ".join(one(x) for x in v) + "]"
        return str(v)
    return ", ".join(f"{k}={one(v)}" for k, v in args.items())


def print_audit(result: AuditResult) -> None:
    """A table, one row per case (decimals are certified approximations), then each case's
    exact values, witness and notes."""
    from rich.table import Table

    from verifier.reports.terminal import console

    c = console(160)
    rows = [row_json(r) for r in result.rows]
    table = Table(title=f"plrv audit {result.file} (decimals are approximations)")
    for head in ("#", "library", "constructor", "args", "claim ε", "claim δ", "tight ε",
                 "tight δ", "claim/tight ε", "exactness", "verdict"):
        table.add_column(head)
    for r in rows:
        table.add_row(str(r["case"]), r["library"], r["constructor"], _args(r["args"]),
                      _short(r["claim"]["epsilon"]), _short(r["claim"]["delta"]),
                      _short(r["tight"]["epsilon"]), _short(r["tight"]["delta"]),
                      r["ratio"] or "-", r["exactness"], r["verdict"])
    c.print(table)
    for r in rows:
        c.print(f"case[{r['case']}] {r['library']}.{r['constructor']}: {r['verdict']}")
        for what in ("epsilon", "delta"):
            for side in ("claim", "tight"):
                v = r[side][what]
                if v is not None:
                    exact = v["value"] if v["value"] is not None else (
                        f"in [{v['enclosure'][0]}, {v['enclosure'][1]}]")
                    if len(exact) > _SHOWN:
                        kind = "exact" if v["value"] is not None else "enclosure"
                        exact = f"≈ {v['approx']} ({kind}: {len(exact)} characters, in --json)"
                    c.print(f"  {side} {what}: {exact}")
        if r["witness"]:
            c.print(f"  witness: {r['witness']}")
        for note in r["notes"]:
            c.print(f"  note: {note}")
    c.print(f"verdict: {overall(result)}")
