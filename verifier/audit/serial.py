"""The JSON of ``plrv audit`` (``schemas/audit-output.v1.json``), which
:meth:`~verifier.audit.runner.AuditResult.to_dict` gives and the command prints.

Every number is written exactly — a double the library returned as the rational it is (and
its hexadecimal spelling), ε as ``ln(q)`` or a rational of nats, δ as a rational or
``A - C*exp(ε)`` — or, for a value known by certified bounds, as the enclosure of its two
exact ends. Each has an ``approx`` beside it: a certified decimal truncation (an interval of
two when the ends differ), for reading only. The claim/exact ratio is such an approximation.
Duck-typed where it writes a result: it imports no runner.
"""

from __future__ import annotations

from verifier.audit.rows import curve_point_json, row_json, value_json
from verifier.core.vocabulary import schema, verdict

__all__ = ["audit_json", "curve_point_json", "scan_json", "value_json", "row_json", "overall",
           "SCHEMA"]

SCHEMA = schema("audit")


def overall(result) -> str:
    return {True: "sound", False: "unsound", None: "unknown"}[result.holds]


def scan_json(scan) -> dict:
    """One scanned case: every point (value, verdict, claim and tight ε, error), the first
    unsound value, the last sound one before it, and the changes between points."""
    def point(p) -> dict:
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


def audit_json(result) -> dict:
    """The whole audit as one JSON object (``schemas/audit-output.v1.json``); with
    ``--scan``, ``cases`` holds the row of every decided point and ``scans`` the search."""
    out = {"schema": SCHEMA, "file": result.file, "verdict": verdict(result.holds),
           "soundness": overall(result),
           "holds": result.holds, "conformance": result.conformance,
           "cases": [row_json(r) for r in result.rows]}
    if result.scans:
        out["scans"] = [scan_json(s) for s in result.scans]
    return out
