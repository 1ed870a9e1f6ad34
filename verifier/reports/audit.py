"""The report of ``plrv audit``: JSON (``schemas/audit-output.v1.json``) and a terminal table,
both from one dictionary per case.

Every number is written exactly — a double the library returned as the rational it is (and
its hexadecimal spelling), ε as ``ln(q)`` or a rational of nats, δ as a rational or
``A - C*exp(ε)`` — or, for a value known by certified bounds, as the enclosure of its two
exact ends. Each has an ``approx`` beside it: a certified decimal truncation (an interval of
two when the ends differ), for reading only. The claim/exact ratio is such an approximation.
"""

from __future__ import annotations

from collections.abc import Mapping

from gmpy2 import mpq

from verifier.audit.case import AuditRow, Enclosure
from verifier.audit.runner import AuditResult
from verifier.audit.scan import MAX_LINEAR, ScanPoint, ScanResult
from verifier.core.binary64 import F64
from verifier.core.certified import Certified, decimal_string
from verifier.core.delta import Delta
from verifier.core.epsilon import Epsilon
from verifier.core.numbers import format_rational
from verifier.reports.json_out import jsonable
from verifier.reports.vocabulary import schema, verdict

__all__ = ["audit_json", "print_audit", "print_scans", "scan_json", "value_json", "SCHEMA"]

SCHEMA = schema("audit")
_PREC = 128
_SHOWN = 160  # characters of an exact value shown in the terminal (all are in --json)


def _exact(v: object) -> tuple[str, str]:
    """(exact text, certified decimal) of an exact value."""
    if isinstance(v, F64):
        return format_rational(v.exact), repr(v.double)
    if isinstance(v, (Epsilon, Delta)):
        return str(v), v.approx()
    if isinstance(v, int) and not isinstance(v, bool):
        v = mpq(v)
    if isinstance(v, mpq):
        return format_rational(v), decimal_string(v)
    raise TypeError(f"not an exact value: {v!r}")


def value_json(v: object) -> dict | None:
    """One claimed or tight value: ``value`` (exact) or ``enclosure`` (two exact ends),
    ``approx``, and ``f64`` (hex) when it is a double the library returned."""
    if v is None:
        return None
    if isinstance(v, Enclosure):
        (lo, lo_a), (hi, hi_a) = _exact(v.lower), _exact(v.upper)
        return {"value": None, "enclosure": [lo, hi],
                "approx": lo_a if lo_a == hi_a else f"[{lo_a}, {hi_a}]"}
    if isinstance(v, Certified):
        exact = v.value
        if exact is not None:
            return value_json(exact)
        ends = v.enclose(_PREC)
        return {"value": None, "enclosure": [format_rational(e) for e in ends],
                "approx": v.approx()}
    text, approx = _exact(v)
    out: dict[str, object] = {"value": text, "enclosure": None, "approx": approx}
    if isinstance(v, F64):
        out["f64"] = v.hex
    return out


def _arg(v: object) -> object:
    if isinstance(v, F64):
        return {"f64": v.hex, "approx": repr(v.double)}
    if isinstance(v, tuple):
        return [_arg(x) for x in v]
    if isinstance(v, Epsilon):
        return str(v)
    return jsonable(v)


def row_json(row: AuditRow) -> dict:
    c = row.case
    return {
        "case": c.index,
        "library": c.library,
        "constructor": c.constructor,
        "args": {k: _arg(v) for k, v in c.args.items()},
        "options": {k: _arg(v) for k, v in c.options.items()},
        "d_in": _arg(c.d_in),
        "compose": c.compose,
        "at": {"epsilon": None if c.epsilon is None else str(c.epsilon),
               "delta": None if c.delta is None else format_rational(c.delta)},
        "claim": {"epsilon": value_json(row.claim_epsilon),
                  "delta": value_json(row.claim_delta)},
        "tight": {"epsilon": value_json(row.tight_epsilon),
                  "delta": value_json(row.tight_delta)},
        "verdict": row.verdict,
        "ratio": row.ratio,
        "exactness": row.exactness,
        "witness": {str(k): _arg(v) for k, v in row.witness.items()},
        "notes": list(row.notes),
    }


def _overall(result: AuditResult) -> str:
    return {True: "sound", False: "unsound", None: "unknown"}[result.holds]


def scan_json(scan: ScanResult) -> dict:
    """One scanned case: every point (value, verdict, claim and tight ε, error), the first
    unsound value, the last sound one before it, and the changes between points."""
    def point(p: ScanPoint) -> dict:
        r = p.row
        return {"value": p.value, "verdict": p.verdict, "error": p.error,
                "claim_epsilon": None if r is None else value_json(r.claim_epsilon),
                "tight_epsilon": None if r is None else value_json(r.tight_epsilon),
                "claim_delta": None if r is None else value_json(r.claim_delta),
                "tight_delta": None if r is None else value_json(r.tight_delta)}
    return {"case": scan.case, "key": scan.key, "method": scan.method,
            "first_unsound": scan.first_unsound, "last_sound": scan.last_sound,
            "undecided": scan.undecided,
            "changes": list(scan.changes), "points": [point(p) for p in scan.points]}


def audit_json(result: AuditResult) -> dict:
    """The whole audit as one JSON object (``schemas/audit-output.v1.json``); with
    ``--scan``, ``cases`` holds the row of every decided point and ``scans`` the search."""
    out = {"schema": SCHEMA, "file": result.file, "verdict": verdict(result.holds),
           "soundness": _overall(result),
           "holds": result.holds, "conformance": result.conformance,
           "cases": [row_json(r) for r in result.rows]}
    if result.scans:
        out["scans"] = [scan_json(s) for s in result.scans]
    return out


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
    c.print(f"verdict: {_overall(result)}")


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
    c.print(f"verdict: {_overall(result)}")
