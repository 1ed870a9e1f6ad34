"""``plrv curve``: the exact δ(ε) curve of each notion as pieces over ε, sampled for CSV and
plots, as JSON and as text (display only: every number is exact, decimals are labelled).

A notion's tight δ is a function of ``E = e^ε`` that is linear between consecutive breakpoints
``s_j`` (the finite likelihood ratios and the crossings of the cases' lines, all rational;
seed 003, Lemma 1: :mod:`verifier.symbolic.closed_form`). Over ε it is therefore::

    δ(ε) = a_j − c_j·e^ε        for ln(s_j) ≤ ε < ln(s_{j+1}),

with exact rationals ``a_j``, ``c_j`` and breakpoints ``ln(s_j)``, exact logs of rationals; the
last piece is the constant ``a = P[L = ∞]`` (``c = 0``) up to ε = ∞. At a sample ε given in
nats (a rational ``x ≠ 0``) ``e^x`` is irrational and δ is kept as ``a − c·exp(x)``
(:class:`~verifier.core.delta.Delta`), with a certified decimal beside it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cmp_to_key

from gmpy2 import mpq

from verifier.core.certified import log_bounds, shown_decimal
from verifier.core.delta import Delta
from verifier.core.epsilon import Epsilon
from verifier.core.numbers import format_rational
from verifier.core.vocabulary import pair, stamped, verdict

__all__ = ["FORM", "epsilon_pieces", "breakpoints", "sample_epsilons", "sample_rows",
           "curve_json", "curve_lines", "accountant_lines"]

FORM = "delta = a - c*exp(epsilon) for from <= epsilon < to"
_GRID = 100  # the grid's right end is a multiple of 1/_GRID nats


def epsilon_pieces(curve) -> list[dict[str, str]]:
    """The pieces of a :class:`~verifier.symbolic.closed_form.Curve` over ε: ``{"from",
    "to", "a", "c"}`` exact strings (``to`` is ``"inf"`` on the last piece)."""
    ps = curve.pieces
    return [{"from": str(Epsilon.log(start)),
             "to": str(Epsilon.log(ps[j + 1][0])) if j + 1 < len(ps) else "inf",
             "a": format_rational(a), "c": format_rational(c)}
            for j, (start, a, c) in enumerate(ps)]


def breakpoints(curve) -> list[Epsilon]:
    """The ε where the curve changes piece: ``ln(s_j)`` for every start after the first."""
    return [Epsilon.log(s) for s in curve.breakpoints]


def _nats_above(eps: Epsilon) -> mpq:
    """A rational ≥ ε (nats), from a certified enclosure of ``ln``."""
    if eps.nats is not None:
        return eps.nats
    assert eps.base is not None
    return log_bounds(eps.base, 64)[1]


def sample_epsilons(curves: Mapping, points: int, query: Epsilon) -> list[Epsilon]:
    """Where the curve is sampled: ``points + 1`` evenly spaced ε in nats from 0 to a rational
    right end (a multiple of 1/100 at least 5/4 of the last breakpoint and at least the claimed
    ε, at least 1), every breakpoint of every notion, and the claimed ε; sorted, each once."""
    marks = [b for c in curves.values() for b in breakpoints(c)]
    if not query.infinite:
        marks.append(query)
    top = max([mpq(1)] + [_nats_above(m) * mpq(5, 4) for m in marks])
    top = mpq(-((-top * _GRID) // 1), _GRID)  # rounded up to the grid
    grid = [Epsilon.of_nats(top * k / points) for k in range(points + 1)]
    unique = {str(e): e for e in [*grid, *marks]}
    def order(x: Epsilon, y: Epsilon) -> int:
        return x.compare(y)
    return sorted(unique.values(), key=cmp_to_key(order))


def sample_rows(curves: Mapping, epsilons: Sequence[Epsilon],
                accountant: Mapping[str, Sequence[mpq]] | None = None) -> list[dict]:
    """One row per notion and sample ε: the exact δ with a certified decimal, whether ε is a
    breakpoint of that notion, and (``accountant``: notion → the accountant's δ at each ε,
    the exact value of the float it returned) the accountant's δ beside it."""
    rows = []
    for name, curve in curves.items():
        marks = {str(b) for b in breakpoints(curve)}
        theirs = (accountant or {}).get(name)
        for k, eps in enumerate(epsilons):
            d = curve.delta(eps)
            row: dict[str, object] = {"notion": name, "epsilon": str(eps),
                                      "epsilon_approx": eps.approx(),
                                      "delta": str(d), "delta_approx": d.approx(),
                                      "breakpoint": str(eps) in marks}
            if accountant is not None:
                a = theirs[k] if theirs is not None else None
                row["accountant_delta"] = "" if a is None else format_rational(a)
                row["accountant_delta_approx"] = "" if a is None else Delta.make(
                    a, mpq(0), eps).approx()
            rows.append(row)
    return rows


def _claim(curve, epsilon: Epsilon, delta: mpq) -> dict:
    d = curve.delta(epsilon)
    return {"delta": str(d), "delta_approx": d.approx(), "holds": d.compare(delta) <= 0}


def curve_json(curves: Mapping, epsilon: Epsilon, delta: mpq,
               accountant: Mapping | None = None) -> dict:
    """``plrv curve --json``: per notion its pieces over ε (each notion's entry is read back
    exactly by :func:`verifier.symbolic.closed_form.delta_at`), its breakpoints, and the tight
    δ at the claimed ε with the verdict; ``accountant`` is added as given."""
    claim = pair(epsilon, delta)
    notions: dict[str, dict] = {}
    for name, c in curves.items():
        at = _claim(c, epsilon, delta)
        notions[name] = {"verdict": verdict(at["holds"]), "claim": claim,
                         "tight": pair(None, at["delta"]),  # (ε at δ: the curve's inverse)
                         "variable": "epsilon", "form": FORM, "pieces": epsilon_pieces(c),
                         "breakpoints": [str(b) for b in breakpoints(c)],
                         "at_claim": at}
    holds = all(n["at_claim"]["holds"] for n in notions.values())
    out: dict[str, object] = {
        "query": {"epsilon": str(epsilon), "delta": format_rational(delta)},  # deprecated
        "holds": holds,  # deprecated: verdict
        "notions": notions}
    if accountant is not None:
        out["accountant"] = dict(accountant)
    return stamped("curve", out, holds, claim)


def _term(a: str, c: str) -> str:
    if c == "0":
        return a
    e = "e^ε" if c == "1" else f"{c}·e^ε"
    return f"−{e}" if a == "0" else f"{a} − {e}"


def curve_lines(curves: Mapping, epsilon: Epsilon, delta: mpq) -> list[str]:
    """The text report: per notion one line per piece, then the claim at the claimed ε."""
    out = []
    for name, curve in curves.items():
        out.append(f"{name}: tight δ(ε), exact (one line per piece):")
        for p in epsilon_pieces(curve):
            where = (f"{p['from']} ≤ ε" if p["to"] == "inf" else
                     f"{p['from']} ≤ ε < {p['to']}")
            out.append(f"  δ = {_term(p['a'], p['c'])}   for {where}")
        claim = _claim(curve, epsilon, delta)
        verdict = "holds" if claim["holds"] else "does not hold"
        out.append(f"  at ε = {epsilon}: δ = {claim['delta']} "
                   f"(≈ {shown_decimal(curve.delta(epsilon))}); "
                   f"the claim δ ≤ {format_rational(delta)} {verdict}")
    return out


def accountant_lines(curve, epsilons: Sequence[Epsilon], theirs: Sequence[mpq],
                     interval: str) -> list[str]:
    """dp's exact δ beside dp_accounting's at each sample ε (certified decimals; the exact
    values are in --json and --csv)."""
    out = [f"dp_accounting's pessimistic δ (interval {interval}) beside the exact δ, as "
           f"certified decimals:"]
    for eps, a in zip(epsilons, theirs, strict=True):
        exact = shown_decimal(curve.delta(eps))
        out.append(f"  ε = {eps} (≈ {eps.approx()}): exact {exact}, dp_accounting "
                   f"{shown_decimal(Delta.make(a, mpq(0), eps))}")
    return out
