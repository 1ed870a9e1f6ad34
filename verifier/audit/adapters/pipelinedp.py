"""PipelineDP (``pip install -e '.[pipelinedp]'``): its budget accountant's split, against the
exact composition of the budgets it hands out.

``NaiveBudgetAccountant(total_epsilon, total_delta)`` promises that the aggregations it
budgets for are together ``(total_epsilon, total_delta)``-DP. Each ``request_budget(type,
weight = w, count = c)`` receives, from ``compute_budgets`` (PipelineDP 0.3,
``budget_accounting.py``), ``ε_i = total_epsilon·w_i / Σ_j w_j c_j`` and, for the types that
use δ (every type but ``LAPLACE``), ``δ_i = total_delta·w_i / Σ_{j uses δ} w_j c_j`` — each a
double, computed in floating point, and applied ``c_i`` times. plrv reads every ``ε_i`` and
``δ_i`` the library computed exactly and decides the promise **over every mechanism the
accountant budgets for**: an ``ε_i``-DP (or ``(ε_i, δ_i)``-DP) mechanism in each slot. The
worst case of that class is randomized response with ``e^{ε_i}`` (and mass ``δ_i`` told apart),
the dominating pair of Kairouz, Oh and Viswanath (2015); the noise PipelineDP then draws
(python-dp's) is not modelled here. So:

* every ``δ_i = 0``: the composition's tight ε at δ = 0 is exactly ``Σ c_i ε_i`` (its largest
  loss, with positive probability), a rational of doubles: sound when ``Σ c_i ε_i ≤
  total_epsilon``; when it is above and ``total_delta = 0``, unsound;
* every slot the same ``(ε_i, δ_i)``: the ``k = Σ c_i``-fold composition of that pair, its
  law bracketed at rationals around ``e^{ε_i}``, judged like any accountant
  (:func:`~verifier.audit.judge.judge`);
* otherwise sound when basic composition covers the promise (``Σ c_i ε_i ≤ total_epsilon``
  and ``Σ c_i δ_i ≤ total_delta``), else unknown (heterogeneous approximate-DP composition is
  not computed).
"""

from __future__ import annotations

from typing import Any

from gmpy2 import mpq

from verifier.audit.adapters import double_arg, in_range, positive_count, quiet
from verifier.audit.adapters.accountants import (
    BRACKET_BITS,
    approximate_pair,
    version_of,
)
from verifier.audit.case import AuditCase, AuditRow
from verifier.audit.judge import curve, judge
from verifier.audit.registry import Adapter
from verifier.core.binary64 import F64
from verifier.core.certified import exp_bounds
from verifier.core.epsilon import Epsilon
from verifier.core.errors import BudgetExceeded, InvalidArgument
from verifier.core.numbers import format_rational

__all__ = ["ADAPTER", "MAX_SLOTS"]

MAX_SLOTS = 10_000  # Σ c_i: the k of the composition


def _numbers(case: AuditCase, key: str, n: int, ints: bool) -> list[Any]:
    """``args.key``: a list of ``n`` positive integers (or doubles), default all 1."""
    raw = case.args.get(key)
    if raw is None:
        return [1 if ints else F64(1.0)] * n
    if not isinstance(raw, tuple) or len(raw) != n:
        raise InvalidArgument(f"args.{key} = {raw!r:.60}: a list of {n} values, one per "
                              f"mechanism", argument=f"args.{key}", value=raw)
    out: list[Any] = []
    for v in raw:
        if ints:
            out.append(positive_count(v, f"args.{key}", 1))
        else:
            # float ok: the double the library is handed, read back exactly as an F64
            d = v if isinstance(v, F64) else F64(float(positive_count(v, f"args.{key}", 1)))
            out.append(in_range(d, f"args.{key}", gt=0))
    return out


def _row(case: AuditCase, claim_e: F64, claim_d: F64, at_zero: mpq, holds: bool | None,
         notes: list[str], witness: dict) -> AuditRow:
    """The row of the basic-composition routes: the tight ε at the claimed δ is ``Σ c_i ε_i``
    when that δ is 0 (then exact), else not computed (the note gives ε at δ = 0)."""
    verdict = {True: "sound", False: "unsound", None: "unknown"}[holds]
    exact = claim_d.exact == 0
    if not exact:
        notes.append(f"at δ = 0 the composition's tight ε is at most {format_rational(at_zero)}"
                     f"; at the claimed δ it is not computed")
    return AuditRow(case, claim_e, claim_d, None, Epsilon.of_nats(at_zero) if exact else None,
                    verdict, None, "exact" if exact else "enclosure", witness, tuple(notes))


def _naive(case: AuditCase) -> AuditRow:
    import pipeline_dp
    from pipeline_dp.aggregate_params import MechanismType

    case.only(("total_epsilon", "total_delta", "mechanisms", "weights", "counts"))
    notes: list[str] = []
    total_e = in_range(double_arg(case, "total_epsilon", notes), "args.total_epsilon", gt=0)
    total_d = in_range(double_arg(case, "total_delta", notes), "args.total_delta", ge=0, lt=1)
    kinds = case.arg("mechanisms")
    names = [m.name for m in MechanismType]
    if not (isinstance(kinds, tuple) and kinds and all(k in names for k in kinds)):
        raise InvalidArgument(f"args.mechanisms = {kinds!r:.60}: a non-empty list of "
                              f"PipelineDP mechanism types ({', '.join(names)})",
                              argument="args.mechanisms", value=kinds)
    weights = _numbers(case, "weights", len(kinds), ints=False)
    counts = _numbers(case, "counts", len(kinds), ints=True)
    k = sum(counts)
    if k > MAX_SLOTS:
        raise BudgetExceeded(f"args.counts: {k} applications in all, more than {MAX_SLOTS}",
                             argument="args.counts", value=k)
    acc = pipeline_dp.NaiveBudgetAccountant(total_epsilon=total_e.double,
                                            total_delta=total_d.double)
    specs = [quiet(acc.request_budget, MechanismType[kind], weight=w.double, count=c,
                   notes=notes) for kind, w, c in zip(kinds, weights, counts, strict=True)]
    quiet(acc.compute_budgets, notes=notes)
    eps = [F64(float(s.eps)) for s in specs]  # float ok: the library's doubles, read exactly
    dlt = [F64(float(s.delta)) for s in specs]  # float ok: as above
    sum_e = sum((c * e.exact for c, e in zip(counts, eps, strict=True)), mpq(0))
    sum_d = sum((c * d.exact for c, d in zip(counts, dlt, strict=True)), mpq(0))
    notes.append(f"pipeline_dp {version_of('pipeline-dp')}: NaiveBudgetAccountant; the budgets "
                 f"it computed (ε_i, δ_i) × count: " + "; ".join(
                     f"{kind} ({e}, {d}) × {c}"
                     for kind, e, d, c in zip(kinds, eps, dlt, counts, strict=True)))
    notes.append(f"Σ count·ε_i = {format_rational(sum_e)}, Σ count·δ_i = "
                 f"{format_rational(sum_d)} exactly")
    witness = {"mechanisms": "randomized response at each ε_i (mass δ_i told apart)",
               "runs": k}
    if all(d.exact == 0 for d in dlt):
        holds = True if sum_e <= total_e.exact else False if total_d.exact == 0 else None
        if holds is None:
            notes.append("Σ count·ε_i exceeds total_epsilon and total_delta > 0: the curve "
                         "of the heterogeneous composition is not computed")
        return _row(case, total_e, total_d, sum_e, holds, notes, witness)
    if len({(e, d) for e, d in zip(eps, dlt, strict=True)}) == 1:
        lo, hi = exp_bounds(eps[0].exact, BRACKET_BITS)
        d0 = dlt[0].exact
        c = curve([approximate_pair(lo / (1 + lo), d0), approximate_pair(hi / (1 + hi), d0)],
                  k)
        notes.append(f"every slot has the same budget: the {k}-fold composition of its "
                     f"dominating pair, bracketed at rationals around e^ε_i with "
                     f"{BRACKET_BITS}-bit significands")
        return judge(case, total_e, total_d, c, witness, notes)
    basic = sum_e <= total_e.exact and sum_d <= total_d.exact
    if not basic:
        notes.append("basic composition does not cover the promise, and the curve of the "
                     "heterogeneous approximate-DP composition is not computed")
    return _row(case, total_e, total_d, sum_e, True if basic else None, notes, witness)


ADAPTER = Adapter("pipeline_dp", "pipelinedp", {"NaiveBudgetAccountant": _naive},
                  version=lambda: version_of("pipeline-dp"))
