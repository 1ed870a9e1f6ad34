"""The report of ``plrv audit``: the terminal table, from the same dictionary per case as the
JSON (:mod:`verifier.audit.serial`, ``schemas/audit-output.v1.json``, re-exported here)."""

from __future__ import annotations

from collections.abc import Mapping

from gmpy2 import mpq

from verifier.audit.runner import AuditResult
from verifier.audit.scan import MAX_LINEAR, ScanResult
from verifier.audit.serial import (
    SCHEMA,
    audit_json,
    curve_point_json,
    overall,
    row_json,
    scan_json,
    value_json,
)
from verifier.core.numbers import counted

__all__ = ["audit_json", "curve_point_json", "print_audit", "print_scans", "scan_json",
           "scan_lines",
           "value_json", "SCHEMA"]

_SHOWN = 160  # characters of an exact value shown in the terminal (all are in --json)


def print_scans(result: AuditResult) -> None:
    """Each scanned case: a table of its points, then the boundary found."""
    from rich.table import Table

    from verifier.reports.terminal import console

    c = console()
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
        for line in scan_lines(s):
            c.print(line)
    c.print(f"verdict: {overall(result)}")


def scan_lines(s: ScanResult) -> list[str]:
    """What a scan found, as ``plrv audit --scan`` prints it under its table: the first
    unsound value (and the last sound one before it), then each change between values."""
    if s.undecided:
        head = (f"case[{s.case}]: no unsound value of {s.key} among the {len(s.points)} "
                "values decided; bisection does not decide the values between them, so "
                "the scan is undecided (scan at most "
                f"{MAX_LINEAR} integers, a grid LO..HI/N or a list to decide each value)")
    elif s.first_unsound is None:
        head = f"case[{s.case}]: no unsound value of {s.key} found"
    else:
        below = f" (last sound before it: {s.last_sound})" if s.last_sound else ""
        head = (f"case[{s.case}]: first unsound {s.key} = {s.first_unsound}{below}"
                + (" — a proved change of verdict; the smallest if soundness is "
                   "monotone in the key" if s.method == "bisection" else ""))
    return [head, *(f"  change: {change}" for change in s.changes)]


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


_SHOWN_OUTPUTS = 5  # outputs of a witness named in the text (all are in --json)


def _output(o: object) -> str:
    """One output of a witness: ``[o, loss]`` as ``o (L = loss)``, the words of ``plrv
    check``, else the value as it is."""
    if isinstance(o, (list, tuple)) and len(o) == 2 and isinstance(o[1], str):
        return f"{_shown(o[0])} (L = {o[1]})"
    return _shown(o)


def _shown(v: object) -> str:
    """A witness value as text: lists in brackets, strings as they are."""
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_shown(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_shown(x)}" for k, x in v.items()) + "}"
    return str(v)


def witness_text(witness: Mapping) -> str:
    """An audit witness in a short readable form: ``inputs A vs B, outputs {o1, …, o5} (64
    outputs; first 5 shown)``, then any other entry as ``key value``.

    >>> witness_text({"inputs": [[0], [1]], "outputs": list(range(7))})
    'inputs [0] vs [1], outputs {0, 1, 2, 3, 4, …} (7 outputs; first 5 shown)'
    """
    parts = []
    for key, v in witness.items():
        if key == "inputs" and isinstance(v, (list, tuple)) and len(v) == 2:
            parts.append(f"inputs {_shown(v[0])} vs {_shown(v[1])}")
        elif key == "outputs" and isinstance(v, (list, tuple)):
            head = ", ".join(_output(o) for o in v[:_SHOWN_OUTPUTS])
            more = len(v) > _SHOWN_OUTPUTS
            parts.append(f"outputs {{{head}{', …' if more else ''}}}" + (
                f" ({counted(len(v), 'output')}; first {_SHOWN_OUTPUTS} shown)" if more
                else ""))
        else:
            parts.append(f"{key} {_shown(v)}")
    return ", ".join(parts)


def _pair(v: Mapping | None, w: Mapping | None) -> str:
    """``ε ≈ …, δ ≈ …`` of one side (claim or tight) as certified decimals."""
    return f"ε {_approx(v)}, δ {_approx(w)}"


def _approx(v: Mapping | None) -> str:
    if v is None:
        return "-"
    text = str(v["approx"])
    return f"= {v['value']}" if _same(v.get("value"), text) else f"≈ {text}"


def _same(value: object, decimal: str) -> bool:
    """Whether the decimal shown is the exact value itself: a double's ``0.0`` or ``0.5``
    is ``= 0``, ``= 1/2``, not ``≈`` (``1.0986122886681098`` is not a double's exact value)."""
    if not isinstance(value, str):
        return False
    try:
        return mpq(value) == mpq(decimal)
    except ValueError:  # "ln(3)", "inf", an interval "[a, b]"
        return value == decimal


def print_audit(result: AuditResult) -> None:
    """One block per case, each line at most 80 columns (a long value wraps under its
    label): the library and constructor, in full, with the verdict; the arguments; claim
    and tight ε, δ as certified decimals; the exact values; a short witness; the notes."""
    from verifier.reports.text import wrapped

    lines = [f"plrv audit {result.file} (≈: certified decimals; exact values in --json)"]
    for r in (row_json(row) for row in result.rows):
        lines += ["", f"case[{r['case']}] {r['library']}.{r['constructor']}: {r['verdict']}"]
        rows = [("args", _args(r["args"]) or "none"),
                ("claim", _pair(r["claim"]["epsilon"], r["claim"]["delta"])),
                ("tight", _pair(r["tight"]["epsilon"], r["tight"]["delta"])
                 + (f" (claim/tight ε {_approx({'approx': r['ratio'].lstrip('≈ ')})})"
                    if r["ratio"] else "")),
                ("exactness", r["exactness"])]
        for what, sign in (("epsilon", "ε"), ("delta", "δ")):
            for side in ("claim", "tight"):
                v = r[side][what]
                if v is not None:
                    exact = v["value"] if v["value"] is not None else (
                        f"in [{v['enclosure'][0]}, {v['enclosure'][1]}]")
                    if len(exact) > _SHOWN:
                        kind = "exact" if v["value"] is not None else "enclosure"
                        exact = f"≈ {v['approx']} ({kind}: {len(exact)} characters, in --json)"
                    rows.append((f"{side} {sign}", exact))
        if r["witness"]:
            rows.append(("witness", witness_text(r["witness"])))
        rows += [("note", note) for note in r["notes"]]
        for x in r.get("curve", []):
            if x["passed"] is not True:
                lib = "-" if x["library"] is None else x["library"]["approx"]
                exact = "-" if x["exact"] is None else x["exact"]["approx"]
                rows.append((f"curve {x['point']}", f"library {lib}, exact {exact} "
                             f"({x['tolerance']}): "
                             f"{'undecided' if x['passed'] is None else 'outside'}"))
        lines += [f"  {label:<10} {text}" for label, text in rows]
    lines += ["", f"verdict: {overall(result)}"]
    print(wrapped("\n".join(lines)))
