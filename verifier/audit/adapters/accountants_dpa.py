"""dp_accounting (``pip install -e '.[accounting]'``): its events composed k times, against
the exact k-fold law.

* ``RandomizedResponseDpEvent``: see :mod:`verifier.audit.adapters.accountants`.
* ``PoissonSampledDpEvent`` of a ``RandomizedResponseDpEvent``: see
  :mod:`verifier.audit.adapters.accountants_sampled`.
* ``DiscreteLaplaceDpEvent(noise_parameter = a, sensitivity = s)`` under
  ``ADD_OR_REMOVE_ONE`` (the relation the library takes for it): the library's law is
  ``P[Z = z] = tanh(a/2)·e^{−a|z|} = (1−β)/(1+β)·β^{|z|}``, ``β = e^{−a}``, and the pair is
  ``Z`` against ``s + Z``. Outputs of equal likelihood ratio merge without changing the
  privacy loss distribution: ``z ≤ 0`` (mass ``1/(1+β)`` against ``β^s/(1+β)``), ``z ≥ s``
  (the reverse) and each ``0 < z < s`` (``(1−β)/(1+β)·β^z`` against ``…·β^{s−z}``) — a pair of
  ``s + 1`` outputs with masses rational in β. The reflection ``z ↦ s − z`` swaps the two
  laws, so this pair is a worst case in both orders. ``a`` is a double with ``e^{−a}``
  irrational, so the law is bracketed by the laws at rationals ``β_lo < β < β_hi``: a larger
  β is a post-processing of a smaller one (``DL(β₂) = DL(β₁) * R`` for ``β₂ > β₁``, ``R`` the
  law with masses ``∝ (1+β₁²)β₂^{|z|} − β₁(β₂^{|z−1|} + β₂^{|z+1|})``, all ≥ 0), so the curve
  at ``β_hi`` is below the true one and the curve at ``β_lo`` above. Only the PLD accountant
  takes this event (``RdpAccountant`` does not support it: ``options.accountant = "rdp"`` is
  refused).

``options.composition`` is ``"count"`` (one ``compose(event, count=k)``), ``"repeat"`` (``k``
calls of ``compose(event)``, ``k ≤ 1000``) or ``"self_composed"`` (one
``compose(SelfComposedDpEvent(event, k))``); the PLD accountant of dp_accounting 0.6 turns a
``SelfComposedDpEvent`` into ``count × k`` (``_maybe_compose``), so it drops the count of a
randomized response event this way too.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from gmpy2 import mpq

from verifier.audit.adapters import double_arg, in_range, option_double, positive_count
from verifier.audit.adapters.accountants import (
    BRACKET_BITS,
    MAX_REPEAT,
    composition,
    dpa_compose,
    dpa_rr,
    k_of,
    query,
    read_run,
    version_of,
)
from verifier.audit.adapters.accountants_curve import dpa_rr_curve
from verifier.audit.adapters.accountants_sampled import poisson_sampled
from verifier.audit.case import AuditCase, AuditRow
from verifier.audit.judge import curve
from verifier.audit.registry import Adapter
from verifier.core.certified import exp_bounds
from verifier.core.distribution import Dist
from verifier.core.errors import BudgetExceeded, InvalidArgument

__all__ = ["DP_ACCOUNTING", "discrete_laplace_pair", "MAX_SENSITIVITY"]

MAX_SENSITIVITY = 100  # outputs of the merged pair: s + 1


def discrete_laplace_pair(beta: mpq, s: int) -> tuple[Dist, Dist]:
    """``Z`` against ``s + Z``, ``Z`` discrete Laplace with ``P[Z = z] ∝ β^{|z|}``, outputs of
    equal likelihood ratio merged (see the module): ``"≤0"``, ``1 … s−1``, ``"≥s"``."""
    n = 1 + beta
    p: dict[Hashable, object] = {"≤0": 1 / n, f"≥{s}": beta ** s / n}
    q: dict[Hashable, object] = {"≤0": beta ** s / n, f"≥{s}": 1 / n}
    for z in range(1, s):
        p[z] = (1 - beta) / n * beta ** z
        q[z] = (1 - beta) / n * beta ** (s - z)
    return Dist(p), Dist(q)


def _discrete_laplace(case: AuditCase) -> AuditRow:
    import dp_accounting
    from dp_accounting import dp_event, pld

    case.only(("noise_parameter", "sensitivity"), ("accountant", "composition",
              "value_discretization_interval"), compose=True, epsilon=True, delta=True)
    notes: list[str] = []
    a = in_range(double_arg(case, "noise_parameter", notes), "args.noise_parameter", gt=0,
                 le=700, why=" (e^(−a) stays a normal double)")
    s = positive_count(case.arg("sensitivity"), "args.sensitivity", 1)
    if s > MAX_SENSITIVITY:
        raise BudgetExceeded(f"args.sensitivity = {s}: a pair of {s + 1} outputs, more than "
                             f"{MAX_SENSITIVITY + 1}", argument="args.sensitivity", value=s)
    accountant = case.options.get("accountant", "pld")
    if accountant != "pld":
        raise InvalidArgument(f"options.accountant = {accountant!r}: dp_accounting's "
                              f"RdpAccountant does not support DiscreteLaplaceDpEvent; give "
                              f"\"pld\"", argument="options.accountant", value=accountant)
    how = composition(case)
    interval = option_double(case, "value_discretization_interval", notes)
    if interval is not None:
        in_range(interval, "options.value_discretization_interval", gt=0)
    k = k_of(case)
    if how == "repeat" and k > MAX_REPEAT:
        raise BudgetExceeded(f"compose = {k} with options.composition = \"repeat\": more "
                             f"than {MAX_REPEAT} calls", argument="compose", value=k)
    which, at = query(case, notes)
    lo, hi = exp_bounds(-a.exact, BRACKET_BITS)
    c = curve([discrete_laplace_pair(hi, s), discrete_laplace_pair(lo, s)], k)
    notes.append(f"noise_parameter = {a} is a double with e^(−a) irrational: the law is "
                 f"bracketed by the laws at the rationals just below and above β = e^(−a) "
                 f"with {BRACKET_BITS}-bit significands (a larger β is a post-processing)")
    relation = dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE
    acc: Any = (pld.PLDAccountant(relation) if interval is None else
                pld.PLDAccountant(relation, value_discretization_interval=interval.double))
    event = dp_event.DiscreteLaplaceDpEvent(noise_parameter=a.double, sensitivity=s)
    dpa_compose(acc, event, k, how, notes)

    def read(which: str, x: float) -> float:
        return float(acc.get_epsilon(x) if which == "delta" else acc.get_delta(x))

    notes.append(f"dp_accounting {version_of('dp-accounting')}: PLDAccountant"
                 f"{' (default discretisation)' if interval is None else ''}, "
                 f"ADD_OR_REMOVE_ONE, composition = {how}")
    return read_run(case, c, notes, which, at, read,
                    {"inputs": [0, s], "runs": k,
                     "outputs": "z ≤ 0, each 0 < z < s, z ≥ s (equal ratios merged)"})


DP_ACCOUNTING = Adapter("dp_accounting", "accounting",
                        {"RandomizedResponseDpEvent": dpa_rr,
                         "DiscreteLaplaceDpEvent": _discrete_laplace,
                         "PoissonSampledDpEvent": poisson_sampled},
                        curves={"RandomizedResponseDpEvent": dpa_rr_curve})
