"""The Rényi forms of a small instance (:class:`~verifier.search.small.Instance`), for the
conjectures about APK-RDP and PPK-RDP (REFERENCE.md §8).

The instance's tables become the mechanism, data model and knowledge they are, and
:func:`verifier.notions.renyi.partial.check_renyi_partial` gives the tight ``D_α`` of each
form exactly (``ln(S_α)/(α − 1)`` with a rational moment ``S_α``, or ``+∞``).
"""

from __future__ import annotations

from gmpy2 import mpq

from verifier.core.distribution import Dist
from verifier.model.data import explicit
from verifier.model.knowledge import knowledge
from verifier.model.mechanisms import mechanism
from verifier.notions.renyi.divergence import Renyi
from verifier.notions.renyi.partial import check_renyi_partial
from verifier.search.small import Instance

__all__ = ["rdp_values", "apk_le_ppk_rdp", "shown_moments"]

_MEMO: dict[tuple[Instance, int], dict[str, Renyi]] = {}


def rdp_values(inst: Instance, order: int = 2) -> dict[str, Renyi]:
    """``{"apk": D_α, "ppk": D_α, "noiseless": D_α}`` of ``inst`` at ``order``, exactly."""
    key = (inst, order)
    if key not in _MEMO:
        mech_t, know_t = dict(inst.mechanism), dict(inst.knowledge)
        mech = mechanism(lambda db: Dist(dict(mech_t[db])), "table")
        know = knowledge(lambda db: Dist(dict(know_t[db])), "table")
        model = explicit(Dist(dict(inst.prior)), inst.values)
        r = check_renyi_partial(mech, model, ["apkrdp", "ppkrdp", "noiselessrdp"],
                                knowledge=know, targets=inst.target, orders=[order],
                                rho="0").results
        _MEMO[key] = {k: r[f"{k}rdp"].orders[0].value  # type: ignore[union-attr]
                      for k in ("apk", "ppk", "noiseless")}
    return _MEMO[key]


def apk_le_ppk_rdp(inst: Instance) -> bool:
    """Whether every order-2 claim PPK-RDP meets, APK-RDP meets: ``D_2^APK ≤ D_2^PPK``."""
    v = rdp_values(inst)
    return v["apk"].compare(v["ppk"]) <= 0


def shown_moments(inst: Instance) -> dict[str, mpq]:
    """The instance's δs and its finite order-2 moments ``S_2`` (``D_2 = ln S_2``)."""
    out = dict(inst.deltas)
    for k, v in rdp_values(inst).items():
        if v.moment is not None:
            out[f"{k}_S2"] = v.moment
    return out
