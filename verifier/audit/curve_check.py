"""``--conformance`` for accountants: the library's curve for one run against the exact one.

An accountant draws nothing, so its conformance is numeric, not sampled: the privacy loss
distribution (PLD) or Rényi curve the library holds for ONE run of the event is set against
the one plrv computes exactly for the law the audit decided on, point by point, each within
the tolerance the library states or its arithmetic implies.

* **PLD** (dp_accounting's ``PLDAccountant``, pessimistic estimate): the library rounds each
  privacy loss ``ℓ = ln(P(o)/Q(o))`` *up* to a multiple ``i·v`` of its
  ``value_discretization_interval`` ``v`` and sums the masses ``P(o)`` that land on ``i``. A
  library atom ``(i·v, w)`` passes when every exact loss assigned to it satisfies
  ``i·v − v < ℓ ≤ i·v`` (decided by certified logarithms; ``ℓ`` is the log of a rational) and
  ``|w − m| ≤ 2⁻⁴⁰·m`` for the exact mass ``m`` of those losses; an exact loss no library
  atom covers, and mass at ``+∞`` (outputs ``Q`` cannot give), are points of their own.
* **PRV** (prv_accountant's ``PRVAccountant``): the one-run privacy random variable the
  accountant composes, discretised on its grid (``CellCentred``: each cell's mass on its
  centre, the grid then shifted so that the mean is kept, a shift the library asserts is
  below half a cell): each node holding mass must lie within one cell width of the exact
  losses it holds, its mass within 2⁻⁴⁰ (relative) of theirs.
* **RDP** (dp_accounting's ``RdpAccountant``, autodp): at each order ``α`` (the double the
  library evaluates, read exactly) the library's value ``r`` passes when
  ``|r − D_α| ≤ 2⁻⁴⁰·D_α``, ``D_α = max(D_α(P‖Q), D_α(Q‖P))`` enclosed by certified bounds
  (:func:`~verifier.notions.renyi.divergence.divergence_bounds`).

The relative tolerance :data:`MASS_TOLERANCE` bounds what double arithmetic on a handful of
logarithms and exponentials can do (each a few units of 2⁻⁵³) with a margin of 2¹³; a
different model — another relation, number of buckets or noise parameter — moves a value by
far more. A point that certified arithmetic cannot place on either side of its tolerance is
undecided (``passed = None``); a failed point makes the case unknown, as a failed fit does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from gmpy2 import mpq

from verifier.audit.case import CurvePoint, Enclosure
from verifier.core.binary64 import F64
from verifier.core.certified import decimal_string, log_bounds
from verifier.core.distribution import Dist
from verifier.notions.renyi.divergence import divergence_bounds, terms_of

__all__ = ["CurvePoint", "MASS_TOLERANCE", "pld_points", "prv_points", "rdp_points",
           "curve_note", "exact_losses"]

MASS_TOLERANCE = mpq(1, 2**40)  # relative: masses and Rényi values in doubles
_PREC = 256
_TOL_TEXT = "2^-40 relative"


def _within(lib: mpq, lo: mpq, hi: mpq) -> bool | None:
    """Whether ``|lib − x| ≤ t·x`` for the real ``x ∈ [lo, hi]`` (``0 ≤ lo``): True when it
    holds for every such ``x``, False when for none, None otherwise."""
    t = MASS_TOLERANCE
    if hi * (1 - t) <= lib <= lo * (1 + t):
        return True
    if lib < lo * (1 - t) or lib > hi * (1 + t):
        return False
    return None


def exact_losses(p: Dist, q: Dist) -> tuple[dict[mpq, mpq], mpq]:
    """The exact PLD of ``P`` against ``Q``: ``{P(o)/Q(o): mass under P}`` (losses as the
    ratios whose logs they are) and the mass at ``+∞`` (``P(o) > 0 = Q(o)``)."""
    ratios: dict[mpq, mpq] = {}
    infinite = mpq(0)
    for o, po in p.items():
        if po == 0:
            continue
        qo = q[o]
        if qo == 0:
            infinite += po
        else:
            r = po / qo
            ratios[r] = ratios.get(r, mpq(0)) + po
    return ratios, infinite


def pld_points(p: Dist, q: Dist, atoms: Mapping[int, F64], interval: F64,
               infinity: F64, side: str = "") -> list[CurvePoint]:
    """The points of a pessimistic PLD check (see the module): ``atoms`` maps the library's
    grid index ``i`` (loss ``i·interval``) to its mass."""
    v = interval.exact
    ratios, infinite = exact_losses(p, q)
    logs = {r: ((mpq(0), mpq(0)) if r == 1 else log_bounds(r, _PREC)) for r in ratios}
    covered: set[mpq] = set()
    out = []
    for i in sorted(atoms):
        top = i * v
        mine = [r for r, (lo, hi) in logs.items() if top - v < lo and hi <= top]
        unsure = [r for r, (lo, hi) in logs.items() if r not in mine
                  and not (hi <= top - v or lo > top)]
        covered.update(mine)
        mass = sum((ratios[r] for r in mine), mpq(0))
        w = atoms[i].exact
        fit = _within(w, mass, mass) if not unsure else None
        losses = ", ".join(f"ln({r})" for r in mine) or "none"
        out.append(CurvePoint(f"{side}loss {i}·v", atoms[i], mass,
                              f"every loss ℓ in (i·v − v, i·v]; mass {_TOL_TEXT}",
                              False if not mine else fit,
                              f"exact losses here: {losses}"))
    for r in ratios:
        if r not in covered:
            lo, hi = logs[r]
            out.append(CurvePoint(f"{side}loss ln({r})", None, ratios[r],
                                  "a library atom at ⌈ℓ/v⌉·v", False,
                                  f"no library atom covers ℓ ∈ [{decimal_string(lo, 9)}, "
                                  f"{decimal_string(hi, 9)}]"))
    out.append(CurvePoint(f"{side}mass at +inf", infinity, infinite, _TOL_TEXT,
                          _within(infinity.exact, infinite, infinite)))
    return out


def prv_points(atoms: Sequence[tuple[mpq, mpq, mpq]], nodes: Mapping[mpq, mpq],
               width: mpq) -> list[CurvePoint]:
    """The points of a discretised privacy random variable's check (prv_accountant): each
    exact atom ``(loss, mass_lo, mass_hi)`` — a rational loss, its mass enclosed — must sit
    within ``width`` of one node of the library's grid (``nodes``: position → mass, both read
    exactly), whose mass must be within 2⁻⁴⁰ (relative) of the atoms' there; a node holding
    mass near no exact loss fails."""
    out = []
    used: set[int] = set()
    for node in sorted(nodes):
        near = [j for j, (loss, _, _) in enumerate(atoms) if abs(node - loss) <= width]
        used.update(near)
        lo = sum((atoms[j][1] for j in near), mpq(0))
        hi = sum((atoms[j][2] for j in near), mpq(0))
        losses = ", ".join(decimal_string(atoms[j][0], 9) for j in near) or "none"
        out.append(CurvePoint(f"node {decimal_string(node, 9)}", nodes[node],
                              lo if lo == hi else Enclosure(lo, hi),
                              f"every loss within {decimal_string(width, 4)} (a cell and the "
                              f"library's mean shift); mass {_TOL_TEXT}",
                              _within(nodes[node], lo, hi) if near else False,
                              f"exact losses here: {losses}"))
    for j, (loss, lo, hi) in enumerate(atoms):
        if j not in used:
            out.append(CurvePoint(f"loss {decimal_string(loss, 9)}", None, Enclosure(lo, hi),
                                  f"a node within {decimal_string(width, 4)}", False,
                                  "no node of the library's grid holds this loss"))
    return out


def rdp_points(p: Dist, q: Dist, values: Sequence[tuple[F64, F64]]) -> list[CurvePoint]:
    """The points of an RDP check: ``values`` pairs each order (the library's double) with
    the library's Rényi value there; the exact value is the larger of the two directions."""
    out = []
    forward, backward = terms_of(p, q), terms_of(q, p)
    for order, value in values:
        a = order.exact
        if forward is None or backward is None:
            out.append(CurvePoint(f"order {order}", value, None, _TOL_TEXT,
                                  False, "the exact divergence is +inf"))
            continue
        f_lo, f_hi = divergence_bounds(forward, a, _PREC)
        b_lo, b_hi = divergence_bounds(backward, a, _PREC)
        lo, hi = max(f_lo, b_lo), max(f_hi, b_hi)
        fit = _within(value.exact, lo, hi)
        side = "" if fit is not False else (
            " (the library's value is below the exact one)" if value.exact < lo else
            " (the library's value is above the exact one)")
        out.append(CurvePoint(f"order {order}", value, Enclosure(lo, hi), _TOL_TEXT, fit,
                              side.strip(" ()")))
    return out


def curve_note(what: str, points: Sequence[CurvePoint]) -> str:
    """One line: how many points passed, failed or were undecided, and the first failure."""
    failed = [x for x in points if x.passed is False]
    undecided = [x for x in points if x.passed is None]
    head = (f"conformance ({what}, one run, numeric): {len(points) - len(failed) - len(undecided)}"
            f" of {len(points)} points within tolerance")
    if undecided:
        head += f", {len(undecided)} undecided"
    if failed:
        x = failed[0]
        lib = "none" if x.library is None else (str(x.library) if isinstance(x.library, F64)
                                               else str(x.library))
        head += (f"; {len(failed)} outside, the first at {x.point}: the library's {lib} "
                 f"({x.tolerance}){': ' + x.detail if x.detail else ''}")
    return head
