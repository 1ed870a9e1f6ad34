"""Every command's JSON, built from its typed report (display only). The JSON of each result
is its ``to_dict()``, written beside it (``serial.py`` of its layer: notions, guessing, pso,
symbolic, audit) and re-exported here; this module adds what comes from the command line
(the claim's doubles, theorem rows). The keys every command shares are
:mod:`verifier.core.vocabulary`'s.

Exact values are written as exact strings (``"7/64"``, ``"ln(3)"``, ``"1/3 - 1/9*exp(1/2)"``);
decimals appear only beside them, labelled as approximations, and are certified truncations.
Exact numbers can have more than 4300 digits, Python's default limit for ``int(str)``: read
them after ``sys.set_int_max_str_digits(0)``.

By default the JSON carries each verdict with its numbers and witness; the per-row tables
(APK δ per background value, every output of a witness, the optimal adversary's strategy)
are added with ``full=True`` (``--json --full``).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Sequence

from verifier.core.numbers import format_rational
from verifier.core.vocabulary import (
    WITNESS_OUTPUTS,
    jsonable,
    stamped,
    witness_json,
)
from verifier.guessing.serial import eta_json, guess_json
from verifier.notions.serial import result_json, sweep_json, sweep_rows
from verifier.pso.serial import pso_json
from verifier.symbolic.serial import family_json, prove_json, reducible_json

__all__ = ["dumps", "jsonable", "witness_json", "result_json", "check_json", "sweep_rows",
           "sweep_json", "guess_json", "eta_json", "pso_json", "family_json", "WITNESS_OUTPUTS"]


def dumps(obj: object, indent: int | None = 2) -> str:
    """JSON text; exact integers of any length (lifts Python's int/str digit limit)."""
    sys.set_int_max_str_digits(0)
    return json.dumps(obj, indent=indent, ensure_ascii=False)


def doubles_json(doubles: Iterable) -> dict:
    """``{key: {"double", "hex", "exact"}}`` for values given as ``{f64 = "…"}``."""
    return {key: {"double": str(d), "hex": d.hex, "exact": format_rational(d.exact)}
            for key, d in doubles}


def check_json(report, full: bool = False, doubles: Sequence = ()) -> dict:
    """``plrv check``: every notion's result (a :class:`~verifier.notions.check.Report`,
    :meth:`~verifier.notions.check.Report.to_dict`). A claim given as doubles (``doubles``:
    the spec's ``{f64 = "…"}`` values) is shown under ``query.f64`` and ``claim.f64``: the
    double, its hexadecimal spelling and the rational it is read as."""
    out = report.to_dict(full)
    claim = doubles_json((k.removeprefix("query."), d) for k, d in doubles
                         if k in ("query.epsilon", "query.delta"))
    if claim:
        out["claim"]["f64"] = claim
        for name in report.results:
            out[name]["query"]["f64"] = claim
            out[name]["claim"]["f64"] = claim
    return out


def search_json(res) -> dict:
    """``plrv search`` (a :class:`~verifier.search.conjectures.SearchResult`)."""
    out: dict[str, object] = {"conjecture": res.conjecture.name,
                              "statement": res.conjecture.statement,
                              "counterexample_found": res.found, "evidence": list(res.evidence),
                              "seconds": round(res.seconds, 3)}
    if res.found:
        out["stage"] = res.stage
        out["counterexample"] = jsonable(res.counterexample.as_dict())
        out["recheck"] = {k: format_rational(v) for k, v in res.deltas.items()}
        out["size"] = dict(zip(("records", "values", "outputs", "backgrounds",
                                "largest_denominator", "denominators"),
                               res.counterexample.size(), strict=True))
    return stamped("search", out, False if res.found else None)


__all__ += ["prove_json", "reducible_json", "search_json"]


def closed_form_json(curves) -> dict:
    """``plrv check --closed-form``: per notion, δ as a function of ``exp_eps = e^ε ≥ 1`` (the
    exact upper envelope over the cases): the string of a sympy ``Piecewise`` and the pieces
    with their exact ``a``, ``c`` (δ = a − c·exp_eps), which
    :func:`verifier.symbolic.closed_form.delta_at` evaluates at any ε."""
    from verifier.symbolic.closed_form import VARIABLE, piece_rows, to_sympy

    return {name: {"variable": VARIABLE, "definition": f"{VARIABLE} = e^epsilon >= 1",
                   "piecewise": str(to_sympy(curve)), "pieces": piece_rows(curve)}
            for name, curve in curves.items()}


__all__ += ["closed_form_json"]


def certified_json(report, epsilon: object = None, delta: object = None) -> dict:
    """``check --mode certified --json``
    (:meth:`~verifier.engines.enclosure.CertifiedReport.to_dict`)."""
    return report.to_dict(epsilon, delta)


def theorems_json(table: Sequence[dict], ok: bool) -> dict:
    """``plrv theorems --json``: the rows of the theorem records under ``theorems``; the
    verdict holds when every record gives its expected verdict."""
    return stamped("theorems", {"theorems": list(table)}, ok)


__all__ += ["theorems_json"]
