"""The text report of ``plrv compose``, read off its JSON (the same numbers, display only):
what was composed, the claim, the verdict, the tight values with certified decimals, and
where they are attained."""

from __future__ import annotations

import re
from collections.abc import Mapping

from gmpy2 import mpq

from verifier.core.certified import shown_decimal
from verifier.core.delta import Delta
from verifier.core.epsilon import Epsilon
from verifier.reports.renyi import renyi_lines, where_sentence
from verifier.reports.text import short

__all__ = ["compose_lines"]

_SAID = {"holds": "holds", "fails": "does not hold", "unknown": "unknown (not decided)"}
_RENYI = ("rdp", "zcdp")
_FORM = re.compile(r"(\S+) ([+-]) (\S+)\*exp\((\S+)\)")  # "A - C*exp(x)", as str(δ) writes


def _shown_delta(text: str) -> str:
    """The decimal of an exact δ written by ``str()``: read with gmpy2 directly, as the
    rationals of k runs exceed the length :class:`Delta` accepts from a reader (10^5 runs of
    randomized response: 120,000 characters)."""
    m = _FORM.fullmatch(text)
    if m is None:
        return shown_decimal(mpq(text))
    a, sign, c, x = m.groups()
    return shown_decimal(Delta.make(mpq(a), mpq(c) if sign == "-" else -mpq(c),
                                    Epsilon.of_nats(mpq(x))))


def _value(value: object, approx: object = None) -> str:
    if isinstance(value, Mapping):  # a certified enclosure
        return (f"in [{short(str(value['lower']))}, {short(str(value['upper']))}] "
                f"(certified bounds, not exact)")
    return f"{short(str(value))}" + (f"  ≈ {approx}" if approx not in (None, value) else "")


def compose_lines(out: Mapping) -> list[tuple[str, str]]:
    """``(label, text)`` lines for the terminal from :func:`~verifier.commands.compose`'s
    dictionary (``plrv compose --json``)."""
    k = out["k"]
    runs = f"{k} run{'s' if k != 1 else ''}"
    renyi = {n: out[n] for n in _RENYI if isinstance(out.get(n), Mapping)}
    described = next((r["mechanism"] for r in renyi.values() if "mechanism" in r), None)
    what = (out.get("mechanism") or described
            or (f"steps {', '.join(out['steps'])}" if "steps" in out
                else f"its mechanism, for {', '.join(out.get('notions', ()))}"))
    lines = [("composed", f"{runs} of {what}")]
    if "relation" in out:
        lines.append(("relation", str(out["relation"])))
    if renyi:
        return lines + renyi_lines(renyi)
    claim = out["claim"]
    lines.append(("claim", f"ε = {claim['epsilon']}, δ = {claim['delta']}"))
    if "results" in out:  # apkdp, ppkdp, noiseless
        e = out["enumerated"]
        lines.append(("engine", f"{e['engine']}: {e['histograms']} histograms of {e['outputs']} "
                                f"outputs"))
        for name, r in out["results"].items():
            lines += _notion(name, r, r.get("approx", {}))
        return lines
    if "route" in out:
        lines.append(("route", str(out["route"])))
    approx = out.get("approx", {})
    lines += _notion("dp", out, {"delta": approx.get("tight_delta"),
                                 "epsilon": approx.get("tight_epsilon")})
    if "enclosure" in out:
        enc = out["enclosure"]
        lines.append(("enclosure", f"{enc['reason']}; grid {', '.join(enc['grid']) or 'exact'}"))
    acc = out.get("accountant")
    if acc is not None:
        diff = acc["difference"] if acc["difference"] is not None else acc["difference_note"]
        lines.append(("accountant", f"dp_accounting δ = {short(acc['delta'])} "
                                    f"({'pessimistic' if acc['pessimistic'] else 'optimistic'}"
                                    f"; difference {short(str(diff))})"))
    return lines


def _notion(name: str, r: Mapping, approx: Mapping) -> list[tuple[str, str]]:
    claim, tight = r["claim"], r["tight"]
    delta = tight["delta"]
    lines = [(name, _SAID[r["verdict"]]),
             (f"  tight δ at ε = {claim['epsilon']}:",
              # the decimal read off the exact δ, as plrv check shows it: within 10^−6 of
              # 1 it is "1 − 5.2e-27", not a truncation "0.999999" that hides the distance
              _value(delta, None if isinstance(delta, Mapping) else _shown_delta(str(delta)))),
             (f"  tight ε at δ = {claim['delta']}:",
              _value(tight["epsilon"], None if isinstance(approx.get("epsilon"), list)
                     else approx.get("epsilon")))]
    side = "witness" if "witness" in r else "worst case"
    where = r.get("witness") or r.get("worst_case")
    said = where_sentence(where) if where else ""
    if said:
        lines.append((f"  {side}", said))
    return lines
