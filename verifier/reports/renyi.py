"""The report of ``plrv check`` on the Rényi notions: the terminal lines, from the JSON
dictionary (:func:`verifier.notions.serial.renyi_json`: ``schemas/check-output.v1.json``,
keys ``rdp`` and ``zcdp``, and their partial-knowledge forms ``apkrdp`` … ``noiselesszcdp``
in the same shapes).

Exact values are written in the text form of ε (``ln(7/3)``, ``ln(61/9)/2``); a certified
enclosure is marked ``"exactness": "enclosure"`` with its two rational ends, and its decimal
beside it is a labelled approximation. A converted ε or δ is an upper bound from a named
proposition, never the tight value.
"""

from __future__ import annotations

from collections.abc import Mapping

from verifier.notions.result import VACUOUS_RELATION_NOTE
from verifier.notions.serial import renyi_json
from verifier.reports.text import short, witness_sentence

__all__ = ["renyi_json", "renyi_lines", "where_sentence"]

def where_sentence(witness: Mapping) -> str:
    """Where a value is attained, from a witness in its JSON form (a count class of the
    known records said as the (ε, δ) notions say it; nothing for a vacuous note)."""
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
        where = where_sentence(o.get("witness") or o.get("worst_case") or {})
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
    where = where_sentence(z.get("witness") or z.get("worst_case") or {})
    if where:
        lines.append(("  pair", where))
    return lines
