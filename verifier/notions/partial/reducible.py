"""Θ-reducibility (thesis Definition 59, reconstructed in REFERENCE.md §4), with certificates.

``M`` is Θ-reducible if for every θ ∈ Θ, target ``i`` and background values ``B1, B2`` there
is a bijection ``φ: O → O`` with ``P[M(D)=O | D(i)=t, ζ(D)=B1] = P[M(D)=φ(O) | D(i)=t, ζ(D)=B2]``
for every record value ``t`` and output ``O``. On a finite output set such a bijection exists
iff the two backgrounds have the same multiset of *output profiles*, the vectors
``(P[M(D)=O | D(i)=t, ζ(D)=B])_t`` over the outputs of positive probability (outputs of
probability 0 under every ``t`` pair up among themselves). Theorem 2: a Θ-reducible mechanism
has APK δ = PPK δ (the conditioned output laws, hence the privacy losses, agree up to φ).

A certificate is one bijection from a reference background ``B0`` to every other ``B``: the
bijection between any ``B1`` and ``B2`` is then ``φ_{B0,B2} ∘ φ_{B0,B1}⁻¹``. When ``φ`` moves
every numeric output by the same amount it is shown as a shift (the tally's ``c ↦ c − b1 + b2``).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Hashable, Mapping
from dataclasses import dataclass

from gmpy2 import mpq

from verifier.core.distribution import sort_key
from verifier.engines.joint import JointTable

__all__ = ["reducibility_witness", "is_theta_reducible", "Bijection", "match_profiles",
           "profiles", "certificate", "shift_of"]


def profiles(jt: JointTable, bg: Hashable) -> dict[Hashable, tuple]:
    """``O ↦ (P[O | t, B])_t`` over the outputs of positive probability (``None`` where
    ``P[t, B] = 0``)."""
    conds = {t: jt.conditional(t, bg) for t in jt.values}
    outputs = {o for d in conds.values() if d is not None for o in d.support}
    return {o: tuple(None if (d := conds[t]) is None else d[o] for t in jt.values)
            for o in outputs}


def _profiles(jt: JointTable, bg: Hashable) -> Counter:
    return Counter(profiles(jt, bg).values())


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


@dataclass(frozen=True)
class Bijection:
    """``φ`` from the outputs of ``source`` to those of ``target`` (positive probability
    only; the other outputs pair up among themselves), or the profiles with no partner."""

    source: Hashable
    target: Hashable
    mapping: Mapping[Hashable, Hashable] | None
    shift: mpq | None = None
    unmatched_source: tuple = ()
    unmatched_target: tuple = ()


def shift_of(mapping: Mapping[Hashable, Hashable]) -> mpq | None:
    """``k`` when ``φ(c) = c + k`` for every output (all numeric), else None."""
    ks = set()
    for o, p in mapping.items():
        if isinstance(o, bool) or isinstance(p, bool) or \
                not isinstance(o, (int, type(mpq(0)))) or not isinstance(p, (int, type(mpq(0)))):
            return None
        ks.add(mpq(p) - mpq(o))
    return ks.pop() if len(ks) == 1 else None


def match_profiles(source: Hashable, target: Hashable, first: Mapping[Hashable, Hashable],
                   second: Mapping[Hashable, Hashable]) -> Bijection:
    """Pair outputs with equal profiles (``first``/``second``: output ↦ profile), in output
    order within each group of equal profiles."""
    groups: dict = defaultdict(list)
    for o in sorted(second, key=sort_key):
        groups[second[o]].append(o)
    mapping, unmatched = {}, []
    for o in sorted(first, key=sort_key):
        partners = groups.get(first[o])
        if partners:
            mapping[o] = partners.pop(0)
        else:
            unmatched.append(o)
    left = tuple(o for g in groups.values() for o in g)
    if unmatched or left:
        return Bijection(source, target, None, None, tuple(unmatched),
                         tuple(sorted(left, key=sort_key)))
    return Bijection(source, target, mapping, shift_of(mapping))


def certificate(jt: JointTable) -> list[Bijection]:
    """A bijection from the first background to every other one; the list stops at the first
    pair with none (its :class:`Bijection` has ``mapping = None``)."""
    backgrounds = jt.backgrounds()
    if not backgrounds:
        return []
    first = backgrounds[0]
    reference = profiles(jt, first)
    out = []
    for bg in backgrounds[1:]:
        b = match_profiles(first, bg, reference, profiles(jt, bg))
        out.append(b)
        if b.mapping is None:
            break
    return out
