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

from gmpy2 import mpq

from verifier.audit.case import Enclosure
from verifier.core.binary64 import F64
from verifier.core.certified import Certified, decimal_string
from verifier.core.delta import Delta
from verifier.core.epsilon import Epsilon
from verifier.core.numbers import format_rational
from verifier.core.vocabulary import jsonable, schema, verdict

__all__ = ["audit_json", "scan_json", "value_json", "row_json", "overall", "SCHEMA"]

SCHEMA = schema("audit")
_PREC = 128


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


def row_json(row) -> dict:
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
