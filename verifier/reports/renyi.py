"""The report of ``plrv check`` on the Rényi notions: JSON (``schemas/check-output.v1.json``,
keys ``rdp`` and ``zcdp``, and their partial-knowledge forms ``apkrdp`` … ``noiselesszcdp``
in the same shapes) and the terminal lines, both from one dictionary.

Exact values are written in the text form of ε (``ln(7/3)``, ``ln(61/9)/2``); a certified
enclosure is marked ``"exactness": "enclosure"`` with its two rational ends, and its decimal
beside it is a labelled approximation. A converted ε or δ is an upper bound from a named
proposition, never the tight value.
"""

from __future__ import annotations

from collections.abc import Mapping

from gmpy2 import mpq

from verifier.core.certified import Certified, certified_decimal
from verifier.core.numbers import format_rational
from verifier.notions.result import VACUOUS_RELATION_NOTE
from verifier.reports.json_out import jsonable
from verifier.reports.text import short, witness_sentence
from verifier.reports.vocabulary import enclosure, verdict

__all__ = ["renyi_json", "renyi_lines"]

_PREC = 128


def _interval(enclose, prec: int = _PREC) -> list[str]:
    lo, hi = enclose(prec)
    return [format_rational(lo), format_rational(hi)]


def _conversion(what: str, c, at: Mapping[str, str | None]) -> dict:
    v = c.value
    out: dict[str, object] = {"quantity": what, "at": dict(at), "source": c.source,
                              "order": None if c.order is None else format_rational(c.order)}
    if isinstance(v, Certified):
        out |= {"exactness": "enclosure", "value": None, "enclosure": _interval(v.enclose),
                "approx": v.approx()}
    elif isinstance(v, mpq):
        out |= {"exactness": "exact", "value": format_rational(v), "enclosure": None,
                "approx": certified_decimal(lambda prec: (v, v))}
    else:
        out |= {"exactness": "exact", "value": str(v), "enclosure": None,
                "approx": v.approx()}
    return out


def _conversions(rows, claim) -> list[dict]:
    """A converted ε is taken at the query's δ, a converted δ at its ε."""
    at_delta = {"delta": None if claim.delta is None else format_rational(claim.delta)}
    at_epsilon = {"epsilon": str(claim.epsilon)}
    return [_conversion(what, c, at_delta if what == "epsilon" else at_epsilon)
            for what, c in rows]


def _where(witness: Mapping) -> str:
    if "note" in witness:
        return ""
    if "centres" in witness:
        a, b = witness["centres"]
        return f"centres {a} and {b}"
    bg = witness.get("background")
    if isinstance(bg, Mapping) and isinstance(bg.get("known_counts"), Mapping):
        # a count class in its JSON form: said as the (ε, δ) notions say it
        held = ", ".join(f"{c} × {v}" for v, c in bg["known_counts"].items())
        rest = {k: v for k, v in witness.items() if k != "background"}
        return f"{witness_sentence(rest)}, the known records hold {held}"
    return witness_sentence(witness)


def _side(holds: bool | None) -> str:
    return "witness" if holds is False else "worst_case"


def renyi_json(report, claim, mechanism: str | None = None) -> dict:
    """Each Rényi notion of ``report`` (a :class:`~verifier.notions.renyi.check.RenyiReport`)
    for the claim ``claim``: its ``verdict``, ``claim`` and ``tight`` values (``rdp_epsilon``,
    the tight D_α per order as ``orders`` lists them; ``rho``: exact, ``"inf"`` or an
    enclosure) beside the older keys."""
    out: dict[str, object] = {}
    for name, r in report.results.items():
        if hasattr(r, "orders"):  # rdp and its partial-knowledge forms (apkrdp, …)
            out[name] = {
                "verdict": verdict(r.holds),
                "tight": {"rdp_epsilon": [str(o.value) for o in r.orders]},
                "holds": r.holds,
                "claim": ({"rdp_epsilon": [str(b) for b in claim.budgets]}
                          if claim.budgets is not None else
                          {"rho": format_rational(claim.rho)}),
                "orders": [{"order": o.order, "value": str(o.value),
                            "exactness": "exact", "approx": o.value.approx(),
                            "bound": str(o.bound), "holds": o.holds,
                            _side(o.holds): {k: jsonable(v) for k, v in o.witness.items()}}
                           for o in r.orders],
                "conversions": _conversions(r.conversions, claim),
                "cases": r.cases,
            }
        else:
            exact = None if r.exact is None else format_rational(r.exact)
            out[name] = {
                "verdict": verdict(r.holds),
                "tight": {"rho": "inf" if r.infinite else exact if exact is not None else
                          enclosure(r.lo, r.hi)},
                "holds": r.holds,
                "claim": {"rho": format_rational(r.rho)},
                "rho": "inf" if r.infinite else exact if exact is not None else
                       f"[{format_rational(r.lo)}, {format_rational(r.hi)}]",
                "exactness": "exact" if exact is not None or r.infinite else "enclosure",
                "enclosure": None if r.infinite else [format_rational(r.lo),
                                                      format_rational(r.hi)],
                "approx": "inf" if r.infinite else _approx(r.lo, r.hi),
                "attained": r.at,
                "method": r.reason,
                "evaluations": r.evaluations,
                _side(r.holds): {k: jsonable(v) for k, v in r.witness.items()},
                "conversions": _conversions(r.conversions, claim),
                "cases": r.cases,
            }
        if mechanism is not None:
            out[name]["mechanism"] = mechanism  # type: ignore[index]
    return out


def _approx(lo: mpq, hi: mpq) -> str:
    return certified_decimal(lambda prec: (lo, hi), 6, 64)  # an interval where they differ


_NOTE = VACUOUS_RELATION_NOTE
_VERDICT = {True: "holds", False: "does not hold", None: "unknown (not decided)"}


def renyi_lines(out: Mapping, info: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """``(label, text)`` lines for the terminal, from :func:`renyi_json`'s dictionary."""
    lines = [("engine", i) for i in info]
    out = {name: r for name, r in out.items()  # the notions (not schema, verdict, …)
           if isinstance(r, Mapping) and ("orders" in r or "rho" in r)}
    for name in out:
        if "orders" in out[name]:
            lines += _rdp_lines(name, out[name])
        elif "rho" in out[name]:
            lines += _zcdp_lines(name, out[name])
    for name in out:
        if out[name].get("cases") == 0:
            lines.append(("note", f"{name} holds {_NOTE}"))
        for c in out[name].get("conversions", []):
            at = ", ".join(f"{'ε' if k == 'epsilon' else 'δ'} = {v}" for k, v in c["at"].items())
            sym = "ε" if c["quantity"] == "epsilon" else "δ"
            value = (f"{short(c['value'])}  ≈ {c['approx']}" if c["exactness"] == "exact"
                     else f"≈ {c['approx']} (certified enclosure)")
            order = f" at α = {c['order']}" if c["order"] is not None else ""
            lines.append((f"{name} → dp", f"{sym} ≤ {value} at {at} ({c['source']}{order})"))
    return lines


def _rdp_lines(name: str, r: Mapping) -> list[tuple[str, str]]:
    """The verdict of ``rdp`` (or a partial-knowledge form) and its tight value per order."""
    lines = []
    claim = r["claim"]
    said = f"ρ = {claim['rho']} (D_α ≤ ρ·α)" if "rho" in claim else "a budget per order"
    pairs = "ordered pairs" if name == "rdp" else "cases"
    lines.append((name, f"{_VERDICT[r['holds']]} for {said}; tight D_α per order, "
                        f"exact ({r['cases']} {pairs})"))
    for o in r["orders"]:
        mark = "ok" if o["holds"] else "exceeds"
        where = _where(o.get("witness") or o.get("worst_case") or {})
        lines.append((f"  α = {o['order']}", f"{short(o['value'])}  ≈ {o['approx']}   "
                                              f"bound {o['bound']}: {mark}"
                                              + (f"   at {where}" if where else "")))
    return lines


def _zcdp_lines(name: str, z: Mapping) -> list[tuple[str, str]]:
    """The verdict of ``zcdp`` (or a partial-knowledge form) and its tight ρ*."""
    lines = []
    if z["exactness"] == "exact":
        tight = f"{z['rho']}  ≈ {z['approx']}"
    else:
        tight = (f"≈ {z['approx']} (a certified enclosure, not exact: "
                 f"[{short(z['enclosure'][0])}, {short(z['enclosure'][1])}])")
    lines.append((name, f"{_VERDICT[z['holds']]} for ρ = {z['claim']['rho']}; tight ρ* "
                        f"{tight}, attained at {z['attained']} — {z['method']}"))
    where = _where(z.get("witness") or z.get("worst_case") or {})
    if where:
        lines.append(("  pair", where))
    return lines
