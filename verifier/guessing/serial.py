"""The JSON of ``plrv guess`` (``schemas/guess-output.v1.json``), which
:meth:`~verifier.guessing.report.GuessReport.to_dict` and
:meth:`~verifier.guessing.report.EtaReport.to_dict` give and the command prints; the shared
keys are :mod:`verifier.core.vocabulary`'s. Duck-typed: it imports no report class."""

from __future__ import annotations

from gmpy2 import mpq

from verifier.core.numbers import format_rational
from verifier.core.vocabulary import jsonable, stamped

__all__ = ["guess_json", "eta_json"]


def _cert(c) -> dict:
    return {"value": str(c) if c.value is not None else None, "approx": c.approx()}


def _slack(bound, posterior: mpq) -> dict:
    from verifier.guessing.bounds import Certified  # (imported when a guess is written)

    return _cert(Certified(lambda p: tuple(x - posterior for x in bound.enclose(p))))


def guess_json(rep) -> dict:
    """``plrv guess SPEC`` (a :class:`~verifier.guessing.report.GuessReport`)."""
    rows = [{"target": jsonable(r.target), "prior": str(r.prior), "posterior": str(r.posterior),
             "advantage": str(r.advantage), "output": jsonable(r.output),
             "precise_bound": _cert(r.precise), "simplified_bound": _cert(r.simplified),
             "slack_precise": _slack(r.precise, r.posterior),
             "slack_simplified": _slack(r.simplified, r.posterior),
             "order_holds": r.order()} for r in rep.rows]
    w = rep.worst
    out: dict[str, object] = {
        "holds": rep.holds,
        "epsilon": [str(e) for e in rep.epsilon] if len(rep.epsilon) > 1
        else str(rep.epsilon[0]),
        "tight_epsilon": [{"epsilon": str(t[0]), "witness": jsonable(list(t[1]))}
                          for t in rep.tight],
        "private_at_epsilon": rep.private_at_epsilon,
        "bounds_hold": rep.bounds_hold,
        "diameter": [format_rational(d) for d in rep.diameter],
        "worst": {"target": jsonable(w.target), "advantage": str(w.advantage),
                  "prior": str(w.prior), "posterior": str(w.posterior),
                  "output": jsonable(w.output)},
        "vulnerability": {"prior": str(rep.vulnerability[0]),
                          "posterior": str(rep.vulnerability[1])},
        "targets": rows,
    }
    out = stamped("guess", out, rep.holds)
    inv = rep.inversion
    if inv is not None:
        out["inversion"] = {
            "eta": format_rational(inv.eta), "target": jsonable(inv.target),
            "simplified_epsilon": str(inv.simplified),
            "precise_epsilon": None if inv.precise is None else
            [str(inv.precise[0]), str(inv.precise[1])]}
    return out


def eta_json(rep) -> dict:
    """``plrv guess --eta --diameter`` (a :class:`~verifier.guessing.report.EtaReport`)."""
    out: dict[str, object] = {
        "epsilon": str(rep.epsilon), "epsilon_approx": rep.epsilon.approx(),
        "prior": format_rational(rep.prior), "eta": format_rational(rep.eta),
        "diameter": format_rational(rep.diameter), "worst_case_prior": rep.worst_case_prior}
    if rep.max_advantage is not None:
        out["max_advantage_at_epsilon"] = str(rep.max_advantage)
    return stamped("guess", out, True)
