"""The accountants' one-run curves, read from the libraries, for ``--conformance``
(:mod:`verifier.audit.curve_check` compares them with the exact ones).

* dp_accounting ``RandomizedResponseDpEvent`` under ``REPLACE_ONE``: with
  ``options.accountant = "pld"``, a fresh ``PLDAccountant`` (the case's
  ``value_discretization_interval``) composes the event once and its privacy loss
  distribution is read — the remove side's probability mass function (``SparsePLDPmf``: grid
  index → mass, or ``DensePLDPmf``: the masses from its lower index) and its mass at +∞, the
  add side too when the distribution is not symmetric; with ``"rdp"``, a fresh
  ``RdpAccountant`` composes it once and its ``orders`` and ``rdp`` are read.
* prv_accountant ``PureDPMechanism(eps)``: a ``PRVAccountant`` built as the audit builds it
  (the case's ``eps_error``, ``delta_error``, ``eps_max`` and ``k``, whose grid it sets) holds
  the one-run privacy random variable discretised on that grid (``composer.prvs[0]``: masses
  and node positions, long doubles read exactly); the exact one is ``±eps`` (the double) with
  masses ``e^eps/(1+e^eps)`` and ``1/(1+e^eps)``, enclosed.
* autodp ``RandresponseMechanism(p)`` (``options.accountant = "rdp"``): the mechanism's own
  ``RenyiDP(α)`` at the orders :data:`AUTODP_ORDERS`, each handed to autodp as a double. The
  Fourier accountant (``"phi"``) holds no Rényi curve: no check (a note says so).

The pair is the one the audit decided the case on (inputs 0 and 1, the other buckets
merged); these private attributes are dp_accounting 0.6's (``_pld``, ``_pmf_remove``,
``_loss_probs``, ``_lower_loss``, ``_probs``, ``_infinity_mass``, ``_discretization``).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from verifier.audit.adapters import double_arg, option_double, positive_count, quiet
from verifier.audit.adapters.accountants import AUTODP as _AUTODP
from verifier.audit.adapters.accountants import PRV_ACCOUNTANT as _PRV
from verifier.audit.adapters.accountants import k_ary, k_of
from verifier.audit.case import AuditCase
from verifier.audit.curve_check import CurvePoint, pld_points, prv_points, rdp_points
from verifier.core.binary64 import F64
from verifier.core.certified import exp_bounds

__all__ = ["dpa_rr_curve", "autodp_rr_curve", "prv_curve", "AUTODP_ORDERS", "AUTODP",
           "PRV_ACCOUNTANT"]

# orders at which autodp's RDP is read: fractional ones near 1 and integers up to 256
AUTODP_ORDERS = ("1.25", "1.5", "1.75", "2", "2.5", "3", "4", "5", "6", "8", "10", "16", "32",
                 "64", "128", "256")


def _double(x: Any) -> F64 | None:
    """A double the library holds, read exactly (None: not finite)."""
    # float ok: the library's own double, read exactly by F64
    value = float(x)  # float ok: as above
    return F64(value) if math.isfinite(value) else None


def _atoms(pmf: Any) -> dict[int, F64]:
    if hasattr(pmf, "_loss_probs"):
        items = pmf._loss_probs.items()
    else:
        items = ((pmf._lower_loss + j, w) for j, w in enumerate(pmf._probs))
    out = {}
    for i, w in items:
        d = _double(w)
        if d is None or d.exact != 0:
            out[int(i)] = d if d is not None else F64(0.0)
    return out


def dpa_rr_curve(case: AuditCase) -> tuple[str, list[CurvePoint]] | None:
    """dp_accounting's one-run PLD or RDP curve of ``RandomizedResponseDpEvent`` (see the
    module), with the points of its comparison."""
    import dp_accounting
    from dp_accounting import pld, rdp

    notes: list[str] = []
    p = double_arg(case, "noise_parameter", notes)
    m = positive_count(case.arg("num_buckets"), "args.num_buckets", 2)
    pair = k_ary(1 - p.exact + p.exact / m, m)
    relation = dp_accounting.NeighboringRelation.REPLACE_ONE
    event = dp_accounting.RandomizedResponseDpEvent(noise_parameter=p.double, num_buckets=m)
    if case.options.get("accountant") == "rdp":
        acc: Any = rdp.RdpAccountant(neighboring_relation=relation)
        quiet(acc.compose, event)
        # float ok: the library's own orders (doubles), read exactly by F64
        values = [(F64(float(a)), _double(r)) for a, r in zip(acc.orders, acc.rdp,  # float ok
                                                              strict=True)]
        finite = [(a, r) for a, r in values if r is not None]
        points = rdp_points(*pair, finite)
        points += [CurvePoint(f"order {a}", None, None, "a finite value", False,
                              "the library's value is not finite")
                   for a, r in values if r is None]
        return f"dp_accounting RdpAccountant, {len(values)} orders", points
    interval = option_double(case, "value_discretization_interval", notes)
    acc = (pld.PLDAccountant(relation) if interval is None else
           pld.PLDAccountant(relation, value_discretization_interval=interval.double))
    quiet(acc.compose, event)
    dist = acc._pld
    remove = dist._pmf_remove
    v = F64(float(remove._discretization))  # float ok: the library's double, read exactly
    inf = _double(remove._infinity_mass) or F64(0.0)
    points = pld_points(*pair, _atoms(remove), v, inf, "remove: " if not dist._symmetric else "")
    if not dist._symmetric:
        add = dist._pmf_add
        points += pld_points(pair[1], pair[0], _atoms(add), v,
                             _double(add._infinity_mass) or F64(0.0), "add: ")
    return f"dp_accounting PLDAccountant, v = {v}", points


def autodp_rr_curve(case: AuditCase) -> tuple[str, list[CurvePoint]] | None:
    """autodp's ``RenyiDP`` of ``RandresponseMechanism(p)`` at :data:`AUTODP_ORDERS` (None for
    the Fourier accountant, which holds no Rényi curve)."""
    from autodp.mechanism_zoo import RandresponseMechanism

    if case.options.get("accountant") != "rdp":
        return None
    p = double_arg(case, "p", [])
    pair = k_ary(p.exact, 2)
    mech = RandresponseMechanism(p=p.double)
    values = []
    for text in AUTODP_ORDERS:
        a = F64(float(text))  # float ok: the order handed to autodp, read back exactly
        values.append((a, _double(quiet(mech.RenyiDP, a.double))))
    points = rdp_points(*pair, [(a, r) for a, r in values if r is not None])
    points += [CurvePoint(f"order {a}", None, None, "a finite value", False,
                          "the library's value is not finite") for a, r in values if r is None]
    return f"autodp RandresponseMechanism.RenyiDP, {len(values)} orders", points


def _exact_of(x: Any) -> Any:
    """A numpy float or long double, read exactly as a rational."""
    from gmpy2 import mpq

    n, d = x.as_integer_ratio()
    return mpq(int(n), int(d))


def prv_curve(case: AuditCase) -> tuple[str, list[CurvePoint]] | None:
    """prv_accountant's discretised one-run PRV of ``PureDPMechanism`` (see the module; None
    for ``ApproximateDPMechanism``, whose curve is not read)."""
    import prv_accountant

    if case.constructor != "PureDPMechanism":
        return None
    notes: list[str] = []
    d = double_arg(case, "eps", notes)
    errors = {key: option_double(case, key, notes) for key in ("eps_error", "delta_error",
                                                              "eps_max")}
    k = k_of(case)
    acc = quiet(prv_accountant.PRVAccountant, prvs=[prv_accountant.PureDPMechanism(d.double)],
                eps_error=errors["eps_error"].double,  # type: ignore[union-attr]
                delta_error=errors["delta_error"].double,  # type: ignore[union-attr]
                max_self_compositions=[k],
                eps_max=None if errors["eps_max"] is None else errors["eps_max"].double)
    dprv = acc.composer.prvs[0]
    positions = dprv.domain.ts()
    nodes = {_exact_of(positions[i]): _exact_of(dprv.pmf[i]) for i in range(len(dprv.pmf))
             if dprv.pmf[i] != 0}
    lo, hi = exp_bounds(d.exact, 128)
    atoms = [(d.exact, lo / (1 + lo), hi / (1 + hi)), (-d.exact, 1 / (1 + hi), 1 / (1 + lo))]
    width = _exact_of(dprv.domain.dt())
    points = prv_points(atoms, nodes, width)
    return f"prv_accountant PRVAccountant, its grid for k = {k}", points


# prv_accountant's adapter with its curve check (the registry imports it from here)
PRV_ACCOUNTANT = replace(_PRV, curves={"PureDPMechanism": prv_curve})

# autodp's adapter with its curve check (the registry imports autodp's adapter from here)
AUTODP = replace(_AUTODP, curves={"RandresponseMechanism": autodp_rr_curve})
