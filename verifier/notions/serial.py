"""The JSON forms of the notions' results, which their ``to_dict()`` and the commands'
``--json`` share (``schemas/check-output.v1.json``, ``sweep-output``; the shared keys of
:mod:`verifier.core.vocabulary`): a :class:`~verifier.notions.result.NotionResult`, a check
:class:`~verifier.notions.check.Report`, a :class:`~verifier.notions.sweep.SweepReport` and a
:class:`~verifier.notions.renyi.check.RenyiReport` (exact values in the text form of ε,
``ln(7/3)``, ``ln(61/9)/2``; a certified enclosure marked ``"exactness": "enclosure"`` with its
two rational ends; a converted ε or δ is an upper bound from a named proposition, never the
tight value). Duck-typed: this module imports none of the classes it writes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from gmpy2 import mpq

from verifier.core.certified import Certified, certified_decimal
from verifier.core.numbers import format_rational
from verifier.core.vocabulary import enclosure, jsonable, pair, stamped, verdict, witness_json

__all__ = ["result_json", "check_json", "sweep_rows", "sweep_json", "renyi_json", "noise_json",
           "composition_json", "ENCLOSURE_NOTE"]


def result_json(r, engine: str | None = None, full: bool = False) -> dict:
    """One notion's result (a :class:`~verifier.notions.result.NotionResult`): its
    ``verdict``, ``claim`` and ``tight`` values (:mod:`verifier.core.vocabulary`), exact
    strings, labelled approximations, and where δ is attained — ``witness`` when the claim
    fails, ``worst_case`` when it holds. ``delta``, ``epsilon``, ``holds`` and ``query`` are
    the older names of ``tight``, ``verdict`` and ``claim`` (deprecated)."""
    out: dict[str, object] = {
        "verdict": verdict(r.holds),
        "claim": pair(r.query_epsilon, r.query_delta),
        "tight": pair(r.epsilon, r.delta),
        "delta": str(r.delta),  # deprecated: tight.delta
        "epsilon": str(r.epsilon),  # deprecated: tight.epsilon
        "holds": r.holds,  # deprecated: verdict
        "worst_case" if r.holds else "witness": witness_json(r.witness, full),
        "query": {"epsilon": str(r.query_epsilon), "delta": format_rational(r.query_delta)},
        "approx": {"delta": r.delta.approx(), "epsilon": r.epsilon.approx()},
        "cases": r.cases,
    }
    if engine:
        out["engine"] = engine
    if full and r.details:
        out["backgrounds"] = [{k: jsonable(v) for k, v in row.items()} for row in r.details]
    return out


def check_json(report, full: bool = False) -> dict:
    """``plrv check``: every notion's result (a :class:`~verifier.notions.check.Report`).

    With ``full``, APK's rows per background value are included and, when PPK was asked too,
    each says whether its δ lies above, at or below the PPK δ (where the two part)."""
    def engine(notion: str) -> str:
        return "; ".join(i for i in report.info if i.startswith("dp:") == (notion == "dp"))

    out = {n: result_json(r, engine(n), full) for n, r in report.results.items()}
    apk, ppk = report.results.get("apkdp"), report.results.get("ppkdp")
    if full and apk is not None and ppk is not None and apk.details:
        side = {1: "above", 0: "equal", -1: "below"}
        for row, detail in zip(out["apkdp"]["backgrounds"], apk.details, strict=True):
            row["vs_ppk"] = side[detail["delta"].compare(ppk.delta)]
        out["apkdp"]["ppk_delta"] = str(ppk.delta)
    first = next(iter(out.values()))
    return stamped("check", out, report.holds, first["claim"])


def sweep_rows(points: Sequence) -> list[dict]:
    """``plrv sweep`` rows for CSV and JSON: exact strings with certified decimals beside."""
    return [{"p": "" if pt.p is None else format_rational(pt.p), "threshold": pt.threshold,
             "notion": pt.notion, "delta": str(pt.delta), "delta_approx": pt.delta.approx(),
             "epsilon": str(pt.epsilon), "epsilon_approx": pt.epsilon.approx(),
             "holds": pt.holds} for pt in points]


def sweep_json(report) -> dict:
    """``plrv sweep --json`` (a :class:`~verifier.notions.sweep.SweepReport`)."""
    claim = pair(report.epsilon, report.delta)
    rows = [{"verdict": verdict(row["holds"]), "tight": pair(row["epsilon"], row["delta"]),
             **row} for row in sweep_rows(report.points)]
    return stamped("sweep", {
        "holds": report.holds,  # deprecated: verdict
        "query": {"epsilon": str(report.epsilon), "delta": format_rational(report.delta)},
        "rows": rows}, report.holds, claim)


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


def _ends(c, prec: int = _PREC) -> list[str]:
    lo, hi = c.enclose(prec)
    return [str(lo), str(hi)]


def noise_json(r, epsilon: object, delta: object, mechanism: str,
               relation: str | None = None) -> dict:
    """``plrv check --json`` of discrete Laplace/Gaussian noise (a
    :class:`~verifier.notions.dp.noise_check.NoiseResult` for the claim ``epsilon``,
    ``delta``; notion ``dp``): each value exact or a certified enclosure, said in
    ``exactness``. ``relation`` names the neighbouring relation of noisy max / above
    threshold (the witness names two inputs), ``None`` for noise on a sum (two centres)."""
    eps_enc = r.epsilon_enclosure
    claim = pair(epsilon, delta)
    tight = pair(r.epsilon if r.epsilon_exact or eps_enc is None
                 else enclosure(*_ends(eps_enc)),
                 r.delta if r.delta_exact else enclosure(*_ends(r.delta_enclosure)))
    if not r.witness:  # no pair: the claim holds vacuously
        witness: dict = {"note": " ".join(r.notes)}
    elif relation is not None:
        witness = {"relation": relation, "inputs": [list(x) for x in r.witness]}
    else:
        witness = {"centres": list(r.witness)}
    text = "[{}, {}]".format
    return stamped("check", {"dp": {
        "verdict": verdict(r.holds),
        "claim": claim,
        "tight": tight,
        "holds": r.holds,
        "delta": r.delta if r.delta_exact else text(*_ends(r.delta_enclosure)),
        "epsilon": r.epsilon if r.epsilon_exact or eps_enc is None else text(*_ends(eps_enc)),
        "exactness": {"delta": "exact" if r.delta_exact else "enclosure",
                      "epsilon": "exact" if r.epsilon_exact else "enclosure"},
        "enclosure": {"delta": _ends(r.delta_enclosure),
                      "epsilon": None if eps_enc is None else _ends(eps_enc)},
        "approx": {"delta": r.delta_enclosure.approx(),
                   "epsilon": r.epsilon if eps_enc is None else eps_enc.approx()},
        "query": {"epsilon": str(epsilon), "delta": str(delta)},
        "mechanism": mechanism,
        "witness" if r.holds is False else "worst_case": witness,
        "cases": r.pairs,
    }}, r.holds, claim)


ENCLOSURE_NOTE = ("certified bounds, not exact values: every privacy-loss value was rounded "
                  "up (upper bounds) or down (lower bounds) onto the grid, and the exact value "
                  "lies between them")


def composition_json(r, k: int, relation: str, mechanism: str | None = None,
                     steps: Sequence[str] = ()) -> dict:
    """``plrv compose --json`` of dp: ``k`` runs of ``mechanism`` (described) or of the
    adaptive ``steps`` (their names) under ``relation`` (its name), ``r`` the exact
    :class:`~verifier.notions.result.NotionResult` or a
    :class:`~verifier.notions.composition.enclosure.CompositionEnclosure`. The witness is the
    pair and the composed mechanisms once, with the ``k`` runs they repeat."""
    claim = pair(r.query_epsilon, r.query_delta)
    out: dict = {"k": k, "relation": relation}
    if mechanism is not None:
        out["mechanism"] = mechanism
    if steps:
        out["steps"] = list(steps)
    out.update(claim)  # deprecated: the claim's ε and δ, as claim.epsilon and claim.delta
    if hasattr(r, "delta_lo"):  # an enclosure
        out.update({
            "exact": False,
            "tight": pair(enclosure(r.epsilon_lo, r.epsilon_hi),
                          enclosure(r.delta_lo, r.delta_hi)),
            "tight_delta": enclosure(r.delta_lo, r.delta_hi),  # deprecated: tight.delta
            "tight_epsilon": enclosure(r.epsilon_lo, r.epsilon_hi),  # deprecated
            "holds": r.holds,
            "enclosure": {"note": ENCLOSURE_NOTE, "reason": r.reason,
                          "grid": [str(g) for g in r.grids], "pairs": r.cases,
                          "pairs_enclosed": r.enclosed, "witness": dict(r.witness)},
            "approx": {"tight_delta": [r.delta_lo.approx(), r.delta_hi.approx()],
                       "tight_epsilon": [r.epsilon_lo.approx(), r.epsilon_hi.approx()]}})
        return stamped("compose", out, r.holds, claim)
    witness = witness_json(r.witness, False)  # the pair (a composition lists no outputs)
    witness.pop("outputs", None)
    out["route"] = witness.pop("route", "tree")  # how the shown pair's law was computed
    out.update({"exact": True, "tight": pair(r.epsilon, r.delta),
                "tight_delta": str(r.delta), "tight_epsilon": str(r.epsilon),  # deprecated
                "holds": r.holds, "worst_case" if r.holds else "witness": witness,
                "approx": {"tight_delta": r.delta.approx(), "tight_epsilon": r.epsilon.approx()}})
    return stamped("compose", out, r.holds, claim)
