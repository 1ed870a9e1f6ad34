"""Symbolic validity of a spec with parameters: distributions for every admissible value.

Each prior (``data.prior``, each ``data.priors[j]``, ``data.weights``) must sum to 1 as an
identity of rational functions, and each entry ``e = N/D`` must be defined and ≥ 0 for every
admissible value: z3 searches a point with ``D = 0`` or ``N·D < 0`` (no division). The
mechanism parameters must keep their ranges: ``0 ≤ truth ≤ 1``, ``0 < alpha < 1``. A
violation is refused with the key and a rational parameter value that breaks it, verified
exactly; an undecided search is refused too (the spec is not accepted unchecked).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from gmpy2 import mpq

from verifier.core.errors import SpecError, VerifierError
from verifier.core.numbers import format_rational
from verifier.symbolic.parameters import Parameters, format_point, poly_terms, poly_value
from verifier.symbolic.solver import Terms, decide

__all__ = ["check_validity", "violation"]

Fail = Callable[[str, str], SpecError]


def violation(params: Parameters, element: Any, strict: bool, timeout_ms: int = 20_000
              ) -> dict[str, mpq] | str | None:
    """An admissible point where ``element`` is undefined or negative (``strict``: ≤ 0),
    exactly verified; None when there is none; a string saying why it is undecided."""
    z = Terms()
    xs = [z.real(n) for n in params.names]
    named = dict(zip(params.names, xs, strict=True))
    cons = []
    for p, x in zip(params.items, xs, strict=True):
        if p.lower is not None:
            cons.append(x > z.const(p.lower) if p.lower_strict else x >= z.const(p.lower))
        if p.upper is not None:
            cons.append(x < z.const(p.upper) if p.upper_strict else x <= z.const(p.upper))
    num = z.poly(poly_terms(element.numer), xs)
    den = z.poly(poly_terms(element.denom), xs)
    bad = num * den <= 0 if strict else num * den < 0
    answer = decide(cons + [z.Or(den == 0, bad)], named, timeout_ms)
    if answer.status == "unsat":
        return None
    if answer.status == "unknown":
        return f"z3 could not decide ({answer.reason})"
    for model in answer.models:
        point = dict(model.values)
        if not all(p.admits(point[p.name]) for p in params.items):
            continue
        xs_q = [point[n] for n in params.names]
        d = poly_value(element.denom, xs_q)
        if d == 0 or (poly_value(element.numer, xs_q) / d <= 0 if strict
                      else poly_value(element.numer, xs_q) / d < 0):
            return point
    return "z3 found only irrational points, and no nearby rational confirms them"


def _rows(params: Parameters, raw: Mapping, exprs: Mapping
          ) -> list[tuple[str, list[tuple[str, Any]]]]:
    """``(row key, [(entry key, element)])`` for every prior row of the spec."""
    data = raw.get("data", {})

    def entry(path: tuple, value: object) -> Any:
        return exprs[path] if path in exprs else params.element(value)

    rows = []
    for key in ("prior", "weights"):
        if isinstance(data.get(key), list):
            rows.append((f"data.{key}", [(f"data.{key}[{j}]", entry(("data", key, j), v))
                                         for j, v in enumerate(data[key])]))
    for j, row in enumerate(data.get("priors", []) or []):
        rows.append((f"data.priors[{j}]",
                     [(f"data.priors[{j}][{k}]", entry(("data", "priors", j, k), v))
                      for k, v in enumerate(row)]))
    return rows


def _symbolic_rows(params: Parameters, raw: Mapping, exprs: Mapping) -> list:
    return [(k, es) for k, es in _rows(params, raw, exprs)
            if any(not e.numer.is_ground or not e.denom.is_ground for _, e in es)]


def check_sums(params: Parameters, raw: Mapping, exprs: Mapping, fail: Fail) -> None:
    """Each symbolic prior sums to 1 as an identity of rational functions."""
    one = params.field.one
    for key, entries in _symbolic_rows(params, raw, exprs):
        total = sum((e for _, e in entries), params.field.zero)
        if total != one:
            where = _not_one(params, total)
            raise fail(key, f"sums to {params.field.to_sympy(total)}, not 1"
                            + (f" (at {format_point(where)} it is "
                               f"{format_rational(params.value(total, where))})"
                               if where else ""))


def check_validity(sym, fail: Fail) -> None:
    """Refuse the spec unless every distribution is valid for every admissible value."""
    params: Parameters = sym.parameters
    one = params.field.one
    check_sums(params, sym.raw, sym.expressions, fail)
    for _, entries in _symbolic_rows(params, sym.raw, sym.expressions):
        for entry_key, e in entries:
            _require(params, e, False, entry_key, "is negative or undefined", fail)
    mech: Mapping = sym.raw.get("mechanism", {})
    for name, strict in (("truth", False), ("alpha", True)):
        e = sym.expressions.get(("mechanism", name))
        if e is None or (e.numer.is_ground and e.denom.is_ground) or name not in mech:
            continue
        word = "≤ 0" if strict else "negative or undefined"
        _require(params, e, strict, f"mechanism.{name}", f"is {word}", fail)
        _require(params, one - e, strict, f"mechanism.{name}",
                 f"is {'≥ 1' if strict else 'above 1'}", fail)


def _require(params: Parameters, e: Any, strict: bool, key: str, what: str,
             fail: Fail) -> None:
    found = violation(params, e, strict)
    if isinstance(found, dict):
        raise fail(key, f"{what} at {format_point(found)}, inside the declared bounds "
                        f"{params.describe()}")
    if isinstance(found, str):
        raise fail(key, f"cannot check that it is a probability for every admissible value: "
                        f"{found}")


def _not_one(params: Parameters, total: Any) -> dict[str, mpq] | None:
    """A rational admissible point where ``total ≠ 1``: the sample point, or one of a few
    nearby rationals (a non-zero rational function vanishes at finitely many points of a
    line through them)."""
    base = params.sample_point()
    for k in range(8):
        point = {n: v + mpq(k, 97) * (i + 1) for i, (n, v) in enumerate(base.items())}
        if not all(p.admits(point[p.name]) for p in params.items):
            continue
        try:
            if params.value(total, point) != 1:
                return point
        except VerifierError:  # undefined there: try the next point
            continue
    return None
