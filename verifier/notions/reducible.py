"""Θ-reducibility (thesis Definition 59, reconstructed in REFERENCE.md §4).

``M`` is Θ-reducible if for every θ ∈ Θ, target ``i`` and background values ``B1, B2`` there
is a bijection ``φ: O → O`` with ``P[M(D)=O | D(i)=t, ζ(D)=B1] = P[M(D)=φ(O) | D(i)=t, ζ(D)=B2]``
for every record value ``t`` and output ``O``. On a finite output set such a bijection exists
iff the two backgrounds have the same multiset of *output profiles*, the vectors
``(P[M(D)=O | D(i)=t, ζ(D)=B])_t`` over the outputs of positive probability (outputs of
probability 0 under every ``t`` pair up among themselves). Theorem 2: a Θ-reducible mechanism
has APK δ = PPK δ (the conditioned output laws, hence the privacy losses, agree up to φ).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable

from verifier.engines.joint import JointTable

__all__ = ["reducibility_witness", "is_theta_reducible"]


def _profiles(jt: JointTable, bg: Hashable) -> Counter:
    """The multiset of output profiles ``(P[O | t, B])_t`` (``None`` where ``P[t, B] = 0``)."""
    conds = {t: jt.conditional(t, bg) for t in jt.values}
    outputs = {o for d in conds.values() if d is not None for o in d.support}
    return Counter(tuple(None if conds[t] is None else conds[t][o] for t in jt.values)
                   for o in outputs)


def reducibility_witness(jt: JointTable) -> tuple[Hashable, Hashable] | None:
    """Two background values with no bijection between their outputs, or None if every pair
    has one (the table's target is then reducible)."""
    backgrounds = jt.backgrounds()
    if not backgrounds:
        return None
    first = backgrounds[0]
    reference = _profiles(jt, first)
    for bg in backgrounds[1:]:
        if _profiles(jt, bg) != reference:
            return first, bg
    return None


def is_theta_reducible(tables) -> bool:
    """Whether every joint table (every θ, ζ and target) admits the bijections."""
    return all(reducibility_witness(t) is None for t in tables)


