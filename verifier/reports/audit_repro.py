"""Reproduction scripts for accountant findings (``plrv audit --report``): the library alone,
called as the adapter calls it, with every number the very double the adapter handed it.

An accountant computes a bound, it draws nothing: its script builds the accountant, composes
the case's runs and prints the value the audit read as the claim, for a maintainer to set
against the exact value of the report.
"""

from __future__ import annotations

from verifier.audit.adapters import double_arg, double_of, option_double
from verifier.audit.case import AuditCase
from verifier.core.binary64 import F64

__all__ = ["accountant_script"]


def _d(x: F64) -> str:
    return f"float.fromhex({x.hex!r})"


def _at(case: AuditCase) -> tuple[str, str]:
    """(``"delta"`` or ``"epsilon"``, the double handed to the accountant, as Python)."""
    if case.delta is not None:
        return "delta", _d(double_of(case.delta, "delta")[0])
    assert case.epsilon is not None
    eps = case.epsilon
    text = str(eps) if eps.base is not None else eps.nats
    return "epsilon", _d(double_of(text, "epsilon")[0])


def _sampled_rr(case: AuditCase) -> list[str]:
    """``PoissonSampledDpEvent`` of randomized response: the accountant's refusal, then (route
    ``pmf``) the library's PLD of the law's pmfs, as the audit read it."""
    notes: list[str] = []
    q, p = (_d(double_arg(case, k, notes)) for k in ("sampling_probability", "noise_parameter"))
    m, k = case.args["num_buckets"], case.compose
    extra = option_double(case, "value_discretization_interval", notes)
    kw = "" if extra is None else f", value_discretization_interval={_d(extra)}"
    which, at = _at(case)
    get = "get_epsilon_for_delta" if which == "delta" else "get_delta_for_epsilon"
    return ["import math", "from fractions import Fraction", "import dp_accounting",
            "from dp_accounting.pld import pld_privacy_accountant as acct",
            "from dp_accounting.pld import privacy_loss_distribution as P",
            f"q, p, m = Fraction({q}), Fraction({p}), {m!r}",
            "event = dp_accounting.PoissonSampledDpEvent(float(q), "
            "dp_accounting.RandomizedResponseDpEvent(float(p), m))",
            "acc = acct.PLDAccountant(dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE)",
            "print('the PLD accountant supports the event:', acc.supports(event))",
            "x, o = q * (1 - p + p / m) + (1 - q) / m, (q * p / m + (1 - q) / m) * (m - 1)",
            "upper = {'x': math.log(float(x)), 'others': math.log(float(o))}",
            "lower = {'x': math.log(1 / m), 'others': math.log((m - 1) / m)}",
            f"pld = P.from_two_probability_mass_functions(lower, upper, symmetric=False{kw})",
            f"pld = pld.self_compose({k}) if {k} > 1 else pld",
            f"print('claim: {get}({which}) =', pld.{get}({at}))"]


def _dp_accounting(case: AuditCase) -> list[str]:
    if case.constructor == "PoissonSampledDpEvent":
        return _sampled_rr(case)
    a = dict(case.args)
    notes: list[str] = []
    rr = case.constructor == "RandomizedResponseDpEvent"
    relation = "REPLACE_ONE" if rr else "ADD_OR_REMOVE_ONE"
    lines = ["import dp_accounting", "from dp_accounting import dp_event, pld, rdp",
             f"relation = dp_accounting.NeighboringRelation.{relation}"]
    interval = option_double(case, "value_discretization_interval", notes)
    if case.options.get("accountant", "pld") == "rdp":
        lines.append("acc = rdp.RdpAccountant(neighboring_relation=relation)")
    else:
        extra = "" if interval is None else f", value_discretization_interval={_d(interval)}"
        lines.append(f"acc = pld.PLDAccountant(relation{extra})")
    noise = _d(double_arg(case, "noise_parameter", notes))
    second = (f"num_buckets={a['num_buckets']!r}" if rr else
              f"sensitivity={a['sensitivity']!r}")
    lines.append(f"event = dp_event.{case.constructor}(noise_parameter={noise}, {second})")
    k, how = case.compose, case.options.get("composition", "count")
    lines.append({"count": f"acc.compose(event, {k})",
                  "repeat": f"for _ in range({k}):\n    acc.compose(event)",
                  "self_composed": f"acc.compose(dp_event.SelfComposedDpEvent(event, {k}))"}
                 [str(how)])
    which, at = _at(case)
    get = "get_epsilon" if which == "delta" else "get_delta"
    return [*lines, f"print('claim: {get}({which}) =', acc.{get}({at}))"]


def _prv(case: AuditCase) -> list[str]:
    notes: list[str] = []
    pure = case.constructor == "PureDPMechanism"
    keys = ("eps",) if pure else ("epsilon", "delta")
    args = ", ".join(_d(double_arg(case, key, notes)) for key in keys)
    opts = {key: option_double(case, key, notes) for key in ("eps_error", "delta_error",
                                                             "eps_max")}
    given = ", ".join(f"{key}={_d(v)}" for key, v in opts.items() if v is not None)
    which, at = _at(case)
    k = case.compose
    compute = "compute_epsilon" if which == "delta" else "compute_delta"
    return [f"from prv_accountant import PRVAccountant, {case.constructor}",
            f"acc = PRVAccountant(prvs=[{case.constructor}({args})], {given}, "
            f"max_self_compositions=[{k}])",
            f"print('claim: {compute} (lower, estimate, upper) =', "
            f"acc.{compute}({which}={at}, num_self_compositions=[{k}]))"]


def _autodp(case: AuditCase) -> list[str]:
    p = _d(double_arg(case, "p", []))
    phi = case.options.get("accountant") == "phi"
    which, at = _at(case)
    get = "get_approxDP" if which == "delta" else "get_approx_delta"
    mech = f"RandresponseMechanism(p={p}" + (", phi_off=False, RDP_off=True)" if phi else ")")
    return ["from autodp.mechanism_zoo import RandresponseMechanism",
            "from autodp.transformer_zoo import ComposeAFA, Composition",
            f"composed = {'ComposeAFA' if phi else 'Composition'}()([{mech}], "
            f"[{case.compose}])",
            f"print('claim: {get} =', composed.{get}({at}))"]


def _pipeline_dp(case: AuditCase) -> list[str]:
    notes: list[str] = []
    kinds = case.args["mechanisms"]
    assert isinstance(kinds, tuple)
    n = len(kinds)
    weights = case.args.get("weights") or (1,) * n
    counts = case.args.get("counts") or (1,) * n
    assert isinstance(weights, tuple) and isinstance(counts, tuple)
    total_e = _d(double_arg(case, "total_epsilon", notes))
    total_d = _d(double_arg(case, "total_delta", notes))
    requests = ", ".join(
        f"acc.request_budget(MechanismType.{kind}, weight={_d(w) if isinstance(w, F64) else w}"
        f", count={c})" for kind, w, c in zip(kinds, weights, counts, strict=True))
    return ["from fractions import Fraction", "import pipeline_dp",
            "from pipeline_dp.aggregate_params import MechanismType",
            f"acc = pipeline_dp.NaiveBudgetAccountant(total_epsilon={total_e}, "
            f"total_delta={total_d})",
            f"specs = [{requests}]", f"counts = {list(counts)!r}",
            "acc.compute_budgets()",
            "print('budgets (eps, delta):', [(s.eps, s.delta) for s in specs])",
            "print('sum of count * eps, exactly:', "
            "sum(Fraction(s.eps) * c for s, c in zip(specs, counts)))",
            f"print('promised total_epsilon:', Fraction({total_e}))"]


_SCRIPTS = {"dp_accounting": _dp_accounting, "prv_accountant": _prv, "autodp": _autodp,
            "pipeline_dp": _pipeline_dp}


def accountant_script(case: AuditCase) -> str | None:
    """The script of an accountant case (see the module), or None for another library."""
    make = _SCRIPTS.get(case.library)
    return None if make is None else "\n".join(make(case))
