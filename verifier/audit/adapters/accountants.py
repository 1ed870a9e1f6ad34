"""Privacy accountants audited on k-fold compositions of mechanisms plrv computes exactly.

Each case composes one mechanism ``compose = k`` times and reads the accountant either at
``delta`` (its ε, the claim ``(ε, δ)``) or at ``epsilon`` (its δ); plrv compares the claim
with the exact tight curve of the k-fold law (:mod:`verifier.audit.judge`). The number the
accountant is asked at is handed to it as a double, and that double is the claim's δ (or ε).

* **prv_accountant** ``PureDPMechanism(eps)`` (Gopi, Lee and Wutschitz, "Numerical
  Composition of Differential Privacy", 2021): its privacy random variable is ``±eps`` with
  masses ``e^eps/(1+e^eps)`` and ``1/(1+e^eps)`` — the loss of binary randomized response
  with truth ``e^eps/(1+e^eps)``. ``eps`` is a double ``d``; ``e^d`` is irrational
  (Lindemann) for ``d ≠ 0``, so the law is bracketed by randomized response at rationals
  ``q_lo < e^d < q_hi`` with 128-bit significands (the curve of k-fold randomized response
  grows with its ε: a smaller ε is a post-processing of a larger one; Kairouz, Oh and
  Viswanath, "The Composition Theorem for Differential Privacy", 2015), and the values are
  enclosures.
  ``ApproximateDPMechanism(epsilon, delta)`` is the dominating pair of (ε, δ)-DP: mass δ
  at +∞ and that randomized response scaled by ``1 − δ``, bracketed the same way. The claim
  is the upper end of ``compute_epsilon`` / ``compute_delta``; ``options``: ``eps_error``,
  ``delta_error`` (required, as the library requires them), ``eps_max``.
* **autodp** ``RandresponseMechanism(p)``: binary randomized response with truth ``p`` (the
  double), composed by ``Composition`` (``options.accountant = "rdp"``) or ``ComposeAFA``
  (``"phi"``, the analytical Fourier accountant); the claim is ``get_approxDP(δ)`` or
  ``get_approx_delta(ε)``.
* **dp_accounting** ``RandomizedResponseDpEvent(noise_parameter, num_buckets)``: the input
  bucket with probability ``1 − p + p/m``, each other with ``p/m``, under
  ``REPLACE_ONE``; ``options.accountant = "pld"`` (``PLDAccountant``, with its
  ``value_discretization_interval`` option, default the library's) or ``"rdp"``
  (``RdpAccountant``); ``options.composition`` is ``"count"`` (default: one
  ``compose(event, count=k)``, the documented way), ``"repeat"`` (``k`` calls of
  ``compose(event)``, ``k ≤ 1000``) or ``"self_composed"`` (one
  ``compose(SelfComposedDpEvent(event, k))``). dp_accounting 0.6's ``PLDAccountant`` drops
  ``count`` for this event (it composes the event's PLD once), and turns a
  ``SelfComposedDpEvent`` into that same count, so ``"count"`` and ``"self_composed"`` audit
  that path. Its other events: :mod:`verifier.audit.adapters.accountants_dpa`. The ``m − 2``
  buckets other than the two inputs' are one output (ratio 1).

All the mechanisms are symmetric in their two inputs (relabelling the outputs swaps them),
so the pair of inputs 0 and 1 is a worst case.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from typing import Any

from gmpy2 import mpq

from verifier.audit.adapters import (
    double_arg,
    double_of,
    in_range,
    option_double,
    positive_count,
    quiet,
)
from verifier.audit.case import AuditCase, AuditRow
from verifier.audit.judge import Claim, Curve, curve, judge, read_double
from verifier.audit.registry import Adapter
from verifier.core.binary64 import F64
from verifier.core.budget import Budget, format_size
from verifier.core.certified import exp_bounds
from verifier.core.distribution import Dist
from verifier.core.errors import BudgetExceeded, InvalidArgument, OutOfRange

__all__ = ["PRV_ACCOUNTANT", "AUTODP", "BRACKET_BITS", "MAX_REPEAT", "composition",
           "dpa_compose", "dpa_rr", "approximate_pair", "k_ary",
           "k_of", "query", "read_run", "version_of"]

BRACKET_BITS = 128  # precision of the rationals that bracket e^d for a double ε d
# k calls of dp_accounting's compose(event): 1000 take about a second, 10 000 minutes
MAX_REPEAT = 1000
# a double ε beyond this is refused: e^ε is bracketed by rationals (MPFR) and handed to the
# library, which models nothing meaningful there
MAX_EPSILON = 1 << 20
# bytes per cell of prv_accountant's grid, measured: 3.9 million cells took 780 MB (5 s),
# 4.5 million 580 MB (11 s, k = 1000)
BYTES_PER_CELL = 200


def _rr(truth: mpq) -> tuple[Dist, Dist]:
    """Binary randomized response on inputs 0 and 1: the laws at 0 and at 1."""
    return _k_ary(truth, 2)


def _k_ary(truth: mpq, m: int) -> tuple[Dist, Dist]:
    """Randomized response over ``m`` values, truth ``truth``, the others equally likely:
    the laws at inputs 0 and 1, on the outputs 0, 1 and (for ``m > 2``) ``"others"``, the
    ``m − 2`` remaining buckets merged. Each of those has mass ``(1 − truth)/(m − 1)`` under
    both inputs (likelihood ratio 1), and merging outputs of equal ratio leaves the privacy
    loss distribution — hence δ(ε) of every composition — unchanged, so the pair has three
    outputs whatever ``m`` (a million buckets cost no more than three)."""
    other = (1 - truth) / (m - 1)
    p: dict[Hashable, object] = {0: truth, 1: other}
    q: dict[Hashable, object] = {0: other, 1: truth}
    if m > 2:
        p["others"] = q["others"] = other * (m - 2)
    return Dist(p), Dist(q)


def _k(case: AuditCase) -> int:
    if case.compose is None:
        raise InvalidArgument(f"{case.library}.{case.constructor}: compose is missing (the "
                              f"number of runs the accountant composes)", argument="compose")
    return case.compose


def _query(case: AuditCase, notes: list[str]) -> tuple[str, F64]:
    """``("delta", δ)`` or ``("epsilon", ε)``: where the accountant is read, as the double
    it is handed."""
    if (case.delta is None) == (case.epsilon is None):
        raise InvalidArgument("give exactly one of delta (read the accountant's ε at it) and "
                              "epsilon (read its δ at it)",
                              argument="delta" if case.delta is not None else "epsilon")
    if case.delta is not None:
        d, note = double_of(case.delta, "delta")
        which = "delta"
    else:
        assert case.epsilon is not None
        if case.epsilon.infinite:
            raise InvalidArgument("epsilon = inf: an accountant is read at a finite ε",
                                  argument="epsilon", value="inf")
        text = str(case.epsilon) if case.epsilon.base is not None else case.epsilon.nats
        d, note = double_of(text, "epsilon")
        which = "epsilon"
    if note:
        notes.append(note)
    return which, d


def _run(case: AuditCase, c: Curve, notes: list[str], which: str, at: F64,
         read: Callable[[str, float], float], witness: dict) -> AuditRow:
    value = read_double(quiet(read, which, at.double, notes=notes))
    claim_e: Claim = value if which == "delta" else at
    claim_d: Claim = at if which == "delta" else value
    return judge(case, claim_e, claim_d, c, witness, notes)


def _version(distribution: str) -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version(distribution)
    except PackageNotFoundError:
        return "(version unknown)"


def _witness(k: int, p: Dist, q: Dist) -> dict:
    return {"inputs": [0, 1], "runs": k,
            "laws": [{str(o): str(w) for o, w in p.items()},
                     {str(o): str(w) for o, w in q.items()}]}


# ------------------------------------------------------------------ prv_accountant


def _approximate(truth: mpq, delta: mpq) -> tuple[Dist, Dist]:
    """The dominating pair of (ε, δ)-DP (Kairouz, Oh and Viswanath 2015), truth
    ``e^ε/(1+e^ε)``: P-only mass δ, then randomized response scaled by ``1 − δ``, Q-only δ."""
    p: dict[Hashable, object] = {"P only": delta, 0: (1 - delta) * truth,
                                 1: (1 - delta) * (1 - truth)}
    q: dict[Hashable, object] = {"Q only": delta, 0: (1 - delta) * (1 - truth),
                                 1: (1 - delta) * truth}
    return Dist(p), Dist(q)


def _cells(lib: Any, case: AuditCase, d: F64, dd: F64, k: int, errors: dict[str, F64],
           eps_max: F64 | None) -> None:
    """Refuse (naming ``options.eps_max``, or ``options.eps_error`` without it) an accountant
    whose grid would take more than ``limits.memory`` at ``BYTES_PER_CELL``:
    ``PRVAccountant`` lays cells of width ``eps_error/√(k/2·ln(12/delta_error))`` over
    ``[−L, L]``, ``L = eps_max`` or the library's own safe size (an RDP bound, cheap) —
    arithmetic in doubles, for a size estimate only."""
    eps_error, delta_error = errors["eps_error"].double, errors["delta_error"].double
    if eps_max is not None:
        half, key = eps_max.double, "options.eps_max"
    else:
        from prv_accountant.accountant import compute_safe_domain_size
        prv = (lib.PureDPMechanism(d.double) if case.constructor == "PureDPMechanism" else
               lib.ApproximateDPMechanism(d.double, dd.double))
        half = quiet(compute_safe_domain_size, [prv], [k], eps_error, delta_error)
        key = "options.eps_error"
    # float ok: a size estimate, never a verdict
    cells = 2 * half * math.sqrt(k / 2 * math.log(12 / delta_error)) / eps_error
    limit = Budget().max_memory
    if not cells * BYTES_PER_CELL <= limit:
        shown = errors["eps_error"] if eps_max is None else eps_max
        raise BudgetExceeded(f"{key}: prv_accountant's grid would have about {cells:.3g} cells "
                             f"(domain ±{half:.4g} at cells of eps_error/√(k/2·ln(12/"
                             f"delta_error))), about {BYTES_PER_CELL} bytes each: more than "
                             f"limits.memory = {format_size(limit)} bytes; raise "
                             f"options.eps_error or give a smaller options.eps_max",
                             argument=key, value=str(shown))


def _prv(case: AuditCase) -> AuditRow:
    """PureDPMechanism(eps) or ApproximateDPMechanism(epsilon, delta) (see the module)."""
    import prv_accountant

    pure = case.constructor == "PureDPMechanism"
    keys = ("eps",) if pure else ("epsilon", "delta")
    case.only(keys, ("eps_error", "delta_error", "eps_max"), compose=True, epsilon=True,
              delta=True)
    notes: list[str] = []
    d = in_range(double_arg(case, keys[0], notes), f"args.{keys[0]}", ge=0, le=MAX_EPSILON)
    dd = F64(0.0) if pure else in_range(double_arg(case, "delta", notes), "args.delta", ge=0,
                                        lt=1)
    d0 = dd.exact
    k = _k(case)
    which, at = _query(case, notes)
    if which == "delta" and at.exact >= 1:
        raise InvalidArgument(f"delta = {at}: prv_accountant reads no ε at δ ≥ 1 (compute_"
                              f"epsilon fails there); the claim would be vacuous anyway",
                              argument="delta", value=str(at))
    errors = {}
    for key in ("eps_error", "delta_error"):
        v = option_double(case, key, notes)
        if v is None:
            raise InvalidArgument(f"prv_accountant.PRVAccountant needs options.{key}",
                                  argument=f"options.{key}")
        errors[key] = v
    in_range(errors["eps_error"], "options.eps_error", gt=0, le=MAX_EPSILON)
    in_range(errors["delta_error"], "options.delta_error", gt=0, lt=1)
    if which == "delta" and 0 < at.exact <= errors["delta_error"].exact:
        raise OutOfRange(f"options.delta_error = {errors['delta_error']} must be below "
                         f"delta = {at}: the accountant's upper ε is read at δ − delta_error",
                         argument="options.delta_error", value=str(errors["delta_error"]))
    eps_max = option_double(case, "eps_max", notes)
    if eps_max is not None:
        in_range(eps_max, "options.eps_max", gt=0)
        in_range(eps_max, "options.eps_max", gt=d, why=f" (above args.{keys[0]}: one "
                 f"run's privacy loss reaches ±{keys[0]}, a narrower domain cuts it off)")
    _cells(prv_accountant, case, d, dd, k, errors, eps_max)

    def pair(e: mpq) -> tuple[Dist, Dist]:
        return _rr(e / (1 + e)) if pure else _approximate(e / (1 + e), d0)

    if d.exact == 0:
        c = curve([pair(mpq(1))], k)
    else:
        lo, hi = exp_bounds(d.exact, BRACKET_BITS)
        c = curve([pair(lo), pair(hi)], k)
        notes.append(f"{keys[0]} = {d} is a double with e^{keys[0]} irrational: the law is "
                     f"bracketed by the laws at the rationals just below and above e^{keys[0]}"
                     f" with {BRACKET_BITS}-bit significands (MPFR, rounded down and up)")
    prv = (prv_accountant.PureDPMechanism(d.double) if pure else
           prv_accountant.ApproximateDPMechanism(d.double, dd.double))
    acc = quiet(prv_accountant.PRVAccountant, prvs=[prv],
                eps_error=errors["eps_error"].double, delta_error=errors["delta_error"].double,
                max_self_compositions=[k],
                eps_max=None if eps_max is None else eps_max.double, notes=notes)

    def read(which: str, x: float) -> float:
        if which == "delta":
            return acc.compute_epsilon(delta=x, num_self_compositions=[k])[2]
        return acc.compute_delta(epsilon=x, num_self_compositions=[k])[2]

    notes.append(f"prv_accountant {_version('prv-accountant')}: the claim "
                 f"is the upper bound of compute_{'epsilon' if which == 'delta' else 'delta'}")
    return _run(case, c, notes, which, at, read,
                {"inputs": [0, 1], "runs": k, "truth": f"e^{keys[0]}/(1+e^{keys[0]})"})


PRV_ACCOUNTANT = Adapter("prv_accountant", "prv", {"PureDPMechanism": _prv,
                                                   "ApproximateDPMechanism": _prv})


# ------------------------------------------------------------------------- autodp


def _autodp_rr(case: AuditCase) -> AuditRow:
    from autodp.mechanism_zoo import RandresponseMechanism
    from autodp.transformer_zoo import ComposeAFA, Composition

    case.only(("p",), ("accountant",), compose=True, epsilon=True, delta=True)
    notes: list[str] = []
    p = in_range(double_arg(case, "p", notes), "args.p", ge=0, le=1)
    accountant = case.options.get("accountant")
    if accountant not in ("rdp", "phi"):
        raise InvalidArgument(f"options.accountant = {accountant!r}: give \"rdp\" "
                              f"(Composition) or \"phi\" (ComposeAFA)",
                              argument="options.accountant", value=accountant)
    k = _k(case)
    which, at = _query(case, notes)
    pair = _rr(p.exact)
    c = curve([pair], k)
    if accountant == "phi":
        mech = RandresponseMechanism(p=p.double, phi_off=False, RDP_off=True)
        composed = quiet(ComposeAFA(), [mech], [k], notes=notes)
    else:
        mech = RandresponseMechanism(p=p.double)
        composed = quiet(Composition(), [mech], [k], notes=notes)

    def read(which: str, x: float) -> float:
        return float(composed.get_approxDP(x) if which == "delta"
                     else composed.get_approx_delta(x))

    composer = "ComposeAFA (phi)" if accountant == "phi" else "Composition (RDP)"
    getter = "get_approxDP" if which == "delta" else "get_approx_delta"
    notes.append(f"autodp {_version('autodp')}: {composer}, the claim is {getter}")
    return _run(case, c, notes, which, at, read, _witness(k, *pair))


AUTODP = Adapter("autodp", "autodp", {"RandresponseMechanism": _autodp_rr})


# ------------------------------------------------------------------ dp_accounting


def _dpa_rr(case: AuditCase) -> AuditRow:
    import dp_accounting
    from dp_accounting import pld, rdp

    case.only(("noise_parameter", "num_buckets"), ("accountant", "composition",
              "value_discretization_interval"), compose=True, epsilon=True, delta=True)
    how = composition(case)
    notes: list[str] = []
    p = in_range(double_arg(case, "noise_parameter", notes), "args.noise_parameter", gt=0,
                 lt=1, why=" (the library's range)")
    m = positive_count(case.arg("num_buckets"), "args.num_buckets", 2)
    accountant = case.options.get("accountant")
    if accountant not in ("pld", "rdp"):
        raise InvalidArgument(f"options.accountant = {accountant!r}: give \"pld\" "
                              f"(PLDAccountant) or \"rdp\" (RdpAccountant)",
                              argument="options.accountant", value=accountant)
    interval = option_double(case, "value_discretization_interval", notes)
    if interval is not None:
        in_range(interval, "options.value_discretization_interval", gt=0)
    if interval is not None and accountant != "pld":
        raise InvalidArgument("options.value_discretization_interval applies to the pld "
                              "accountant only", argument="options.value_discretization_interval")
    k = _k(case)
    if how == "repeat" and k > MAX_REPEAT:
        raise BudgetExceeded(f"compose = {k} with options.composition = \"repeat\" calls the "
                             f"library's compose {k} times, more than {MAX_REPEAT} (each call "
                             f"grows the accountant's state: minutes at 10 000)",
                             argument="compose", value=k)
    which, at = _query(case, notes)
    truth = 1 - p.exact + p.exact / m
    pair = _k_ary(truth, m)
    c = curve([pair], k)
    relation = dp_accounting.NeighboringRelation.REPLACE_ONE
    event = dp_accounting.RandomizedResponseDpEvent(noise_parameter=p.double, num_buckets=m)
    if accountant == "pld":
        acc = (pld.PLDAccountant(relation) if interval is None
               else pld.PLDAccountant(relation, value_discretization_interval=interval.double))
    else:
        acc = rdp.RdpAccountant(neighboring_relation=relation)
    dpa_compose(acc, event, k, how, notes)

    def read(which: str, x: float) -> float:
        return float(acc.get_epsilon(x) if which == "delta" else acc.get_delta(x))

    default = accountant == "pld" and interval is None
    notes.append(f"dp_accounting {_version('dp-accounting')}: "
                 f"{'PLDAccountant' if accountant == 'pld' else 'RdpAccountant'}"
                 f"{' (default discretisation)' if default else ''}"
                 f", REPLACE_ONE, "
                 f"{_HOW[how]}")
    return _run(case, c, notes, which, at, read, _witness(k, *pair))


_HOW = {"count": "compose(event, count=k)", "repeat": "k calls of compose(event)",
        "self_composed": "compose(SelfComposedDpEvent(event, k))"}


def composition(case: AuditCase) -> str:
    """``options.composition`` of a dp_accounting case (default ``"count"``), checked."""
    how = case.options.get("composition", "count")
    if not isinstance(how, str) or how not in _HOW:
        raise InvalidArgument(f"options.composition = {how!r}: give \"count\" "
                              f"(compose(event, k)), \"repeat\" (k calls of compose(event)) "
                              f"or \"self_composed\" (compose(SelfComposedDpEvent(event, k)))",
                              argument="options.composition", value=how)
    return how


def dpa_compose(acc: Any, event: Any, k: int, how: str, notes: list[str]) -> None:
    """Compose ``event`` ``k`` times into the dp_accounting accountant ``acc`` the way
    ``options.composition`` says (``how``, checked by :func:`composition`): one
    ``compose(event, k)``, ``k`` calls, or one ``SelfComposedDpEvent(event, k)``."""
    from dp_accounting import dp_event

    if how == "count":
        quiet(acc.compose, event, k, notes=notes)
    elif how == "self_composed":
        quiet(acc.compose, dp_event.SelfComposedDpEvent(event, k), notes=notes)
    else:
        for _ in range(k):
            quiet(acc.compose, event, notes=notes)


# shared with the other dp_accounting events (verifier.audit.adapters.accountants_dpa)
k_of, query, read_run, version_of, dpa_rr = _k, _query, _run, _version, _dpa_rr
# and with PipelineDP (adapters.pipelinedp) and the curve checks (adapters.accountants_curve)
approximate_pair, k_ary = _approximate, _k_ary
