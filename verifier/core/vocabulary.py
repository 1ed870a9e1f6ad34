"""The keys every command's ``--json`` shares (docs/reference/json.md).

Every JSON object a command prints carries ``schema`` — ``{"name": "<command>-output",
"version": 1}``, naming ``schemas/<command>-output.v1.json`` — and ``verdict``, one word of
:data:`VERDICTS` matching the exit status (``holds`` 0, ``fails`` 1, ``unknown`` 3). A command
that decides a claim gives it as ``claim`` and the tight values it computed as ``tight``
(inside each notion's entry where there are several), each an object named by the notion's
own quantities: ``{"epsilon", "delta"}`` for the (ε, δ) notions, ``rho`` for zCDP,
``rdp_epsilon`` for RDP. A value is an exact string (``"ln(3)"``, ``"1/4"``,
``"3/4 - 1/4*exp(1/2)"``), ``{"lower", "upper"}`` (exact strings) for a certified enclosure,
or ``null`` where it is not computed. (``plrv audit`` writes each value as an object
``{"value", "enclosure", "approx"}``: a library's claim is often a double.)

The result objects' ``to_dict()`` and the commands' ``--json`` are built from these helpers,
so the two are the same dictionary; :func:`jsonable` and :func:`witness_json` write outcomes
and witnesses.
"""

from __future__ import annotations

from collections.abc import Mapping

from gmpy2 import mpq

from verifier.core.plain import jsonable

__all__ = ["SCHEMA_VERSION", "VERDICTS", "schema", "verdict", "exact", "enclosure", "pair",
           "stamped", "jsonable", "witness_json", "WITNESS_OUTPUTS"]

SCHEMA_VERSION = 1
VERDICTS = {True: "holds", False: "fails", None: "unknown"}


def schema(command: str) -> dict[str, object]:
    """``{"name": "<command>-output", "version": 1}``."""
    return {"name": f"{command}-output", "version": SCHEMA_VERSION}


def verdict(holds: bool | None) -> str:
    """``holds``, ``fails`` or ``unknown`` (exit status 0, 1, 3)."""
    return VERDICTS[holds]


def exact(value: object) -> str | None:
    """An exact value as its string (``None`` stays ``null``)."""
    return None if value is None else str(value)  # (rationals: format_rational's form)


def enclosure(lower: object, upper: object) -> dict[str, str | None]:
    """A certified enclosure: ``{"lower", "upper"}``, exact ends."""
    return {"lower": exact(lower), "upper": exact(upper)}


def pair(epsilon: object, delta: object) -> dict[str, object]:
    """``{"epsilon", "delta"}``: exact strings, enclosures (passed as dicts) or ``null``."""
    return {"epsilon": epsilon if isinstance(epsilon, Mapping) else exact(epsilon),
            "delta": delta if isinstance(delta, Mapping) else exact(delta)}


def stamped(command: str, body: Mapping[str, object], holds: bool | None,
            claim: Mapping[str, object] | None = None) -> dict[str, object]:
    """``body`` with ``schema`` and ``verdict`` (and ``claim``) first."""
    head: dict[str, object] = {"schema": schema(command), "verdict": verdict(holds)}
    if claim is not None:
        head["claim"] = dict(claim)
    return head | {k: v for k, v in body.items() if k not in head}


WITNESS_OUTPUTS = 20  # outputs of a witness listed without --full
_MPQ = type(mpq(0))


def witness_json(witness: Mapping[str, object], full: bool) -> dict:
    """A witness (or worst case): its keys made JSON-ready, its outputs listed (the first
    :data:`WITNESS_OUTPUTS` without ``full``, ``outputs_truncated`` saying so)."""
    out = {k: jsonable(v) for k, v in witness.items() if k not in ("outputs", "outputs_truncated")}
    outputs = list(witness.get("outputs", ()))  # type: ignore[call-overload]
    shown = outputs if full else outputs[:WITNESS_OUTPUTS]
    out["outputs"] = [[jsonable(o), loss] for o, loss in shown]
    if len(shown) < len(outputs) or witness.get("outputs_truncated"):
        out["outputs_truncated"] = True
    return out
