"""An audit's rows as plain data: every number exact — a double the library returned as the
rational it is (and its hexadecimal spelling), ε as ``ln(q)`` or a rational of nats, δ as a
rational or ``A - C*exp(ε)`` — or, for a value known by certified bounds, the enclosure of its
two exact ends, each with a certified decimal ``approx`` beside it. ``plrv audit --json``
(:mod:`verifier.reports.audit`) and the HTML of an audit (:mod:`verifier.audit.page`) are
both written from them.
"""

from __future__ import annotations

from gmpy2 import mpq

from verifier.audit.case import AuditRow, CurvePoint, Enclosure
from verifier.core.binary64 import F64
from verifier.core.certified import Certified, decimal_string
from verifier.core.delta import Delta
from verifier.core.epsilon import Epsilon
from verifier.core.numbers import format_rational
from verifier.core.plain import jsonable

__all__ = ["curve_point_json", "value_json", "row_json"]

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
        **({"curve": [curve_point_json(x) for x in row.curve]} if row.curve else {}),
    }


def curve_point_json(x: CurvePoint) -> dict:
    """One point of an accountant's ``--conformance`` curve check: the library's value (the
    double, exactly), the exact value (or its enclosure), the tolerance, pass or fail."""
    return {"point": x.point, "library": value_json(x.library), "exact": value_json(x.exact),
            "tolerance": x.tolerance, "passed": x.passed, "detail": x.detail}
