"""The exact (ε, δ) of OpenDP's ``make_laplace_threshold`` on integer counts, one key at a time.

**What the library does** (OpenDP 0.16, ``measurements/noise_threshold``): each key ``k`` of
the input map with value ``v`` is released as ``v + Z`` when ``v + Z ≥ T`` and dropped
otherwise, ``Z`` discrete Laplace with the scale the caller passed — a double ``s``, read
exactly as the rational it is (``integerize_scale(scale, 0)``) and sampled exactly
(Canonne, Kamath and Steinke, *The Discrete Gaussian for Differential Privacy*, 2020):
``P[Z = z] = (1−β)/(1+β)·β^|z|``, ``β = e^{−1/s}``. The input metric ``L01Inf`` measures a
pair of maps key by key, a missing key counting as the value 0 ("the additive identity"): so
``{}`` and ``{k: 0}`` are at distance 0, and ``{}`` and ``{k: 1}`` at ``(1, 1, 1)``.

**Maps differing in one key** (the witnesses): for ``d_in = (l0, l1, li)`` with ``l0 ≥ 1``
and ``L = min(⌊l1⌋, ⌊li⌋)``, a pair of maps that differ in one key differ only in that
key's release (the other keys are released independently and identically on both sides, and
the hockey-stick divergence of ``P×R`` against ``Q×R`` is that of ``P`` against ``Q``). The
ordered pairs of one key are (``⊥``: the key is absent; every output below ``T`` is ``⊥``):

* ``v`` against absent, ``|v| ≤ L``: every released output has mass 0 on the right, and
  ``P(⊥) ≤ e^ε`` always, so ``δ = P[Z ≥ T − v] = β^{T−v}/(1+β)`` for ``v < T``, whatever ε;
* absent against ``v``: ``δ = max(0, 1 − e^ε·P[Z ≤ T − v − 1])``;
* ``v`` against ``v′``, ``0 < |v − v′| ≤ L``: thresholding is post-processing of ``v + Z``,
  so δ is at most that of the unthresholded pair, and equal to it when ``min(v, v′) ≥ T − 1``
  (then every output merged into ``⊥`` has the same likelihood ratio ``β^{v−v′}``, and merging
  outputs of equal ratio leaves δ unchanged): the supremum over such pairs is attained, at
  ``(T − 1 + d, T − 1)`` and its reverse, ``d = 1 … L``.

``v = 0`` against absent is always a pair (distance 0). **Over the whole relation** the
supremum is 1: keys of value 0 do not count in ``l0``, so ``n`` of them against none are at
distance 0, and release at least one key with probability ``1 − (1 − β^T/(1+β))^n → 1``.

The library's saturating cast of the released value to its integer type merges outputs above
the type's maximum; above both centres the ratio is constant, so this too leaves δ unchanged.

Every δ above is ``(A − e^ε·C)/(1+β)`` with exponential sums ``A``, ``C``
(:mod:`verifier.notions.dp.noise_loss`), compared with the claim exactly (Lindemann–Weierstrass
zero test, certified sign); the tight ε at the claimed δ is ∞ when a ε-free pair exceeds δ,
else enclosed by certified bisection.
"""

from __future__ import annotations

from dataclasses import dataclass

from gmpy2 import mpq

from verifier.core.certified import Certified
from verifier.core.epsilon import Epsilon
from verifier.core.errors import BudgetExceeded, InvalidArgument, Undecided
from verifier.core.theta import Series
from verifier.model.expnoise import ExpNoise, discrete_laplace
from verifier.notions.dp.noise_check import bisect_epsilon
from verifier.notions.dp.noise_loss import DeltaForm, pair_loss

__all__ = ["ThresholdPair", "ThresholdAnswer", "threshold_pairs", "threshold_delta",
           "threshold_answer", "release_mass", "MAX_SHIFT"]

MAX_SHIFT = 10_000  # L: pairs per kind grow linearly with it
ABSENT = None


@dataclass(frozen=True, slots=True)
class ThresholdPair:
    """An ordered pair of one key's values (``None``: the key is absent)."""

    left: int | None
    right: int | None

    def maps(self, key: str) -> tuple[dict, dict]:
        """The pair as the library's input maps."""
        return ({} if self.left is None else {key: self.left},
                {} if self.right is None else {key: self.right})

    @property
    def epsilon_free(self) -> bool:
        """Whether this pair's δ is the same at every finite ε (a key released against none)."""
        return self.left is not None and self.right is None


def _laplace(scale: mpq) -> ExpNoise:
    return discrete_laplace(scale)


def threshold_pairs(shift: int, threshold: int) -> tuple[ThresholdPair, ...]:
    """The pairs whose δ is the supremum over every pair of maps at ``L = shift`` (module)."""
    if shift > MAX_SHIFT:
        raise BudgetExceeded(f"d_in allows a change of {shift} in one key, more than "
                             f"{MAX_SHIFT} pairs to compare", argument="d_in", value=shift)
    pairs = [ThresholdPair(v, ABSENT) for v in range(-shift, shift + 1)]
    pairs += [ThresholdPair(ABSENT, v) for v in range(-shift, shift + 1)]
    for d in range(1, shift + 1):
        pairs += [ThresholdPair(threshold - 1 + d, threshold - 1),
                  ThresholdPair(threshold - 1, threshold - 1 + d)]
    return tuple(pairs)


def release_mass(noise: ExpNoise, threshold: int, value: int) -> Series:
    """``P[value + Z ≥ T]`` times the law's denominator ``1 + β``."""
    return noise.at_least(threshold - value)


def _form(noise: ExpNoise, threshold: int, pair: ThresholdPair, eps: Epsilon) -> DeltaForm:
    n = noise.denominator
    if pair.left is not None and pair.right is None:
        a = release_mass(noise, threshold, pair.left)
        return DeltaForm(a, Series(u=noise.rate), n, a)
    if pair.left is None and pair.right is not None:
        # δ = max(0, 1 − e^ε·Q(⊥)); the numerator may be negative (then δ = 0): comparisons
        # with a claim δ ≥ 0 and the enclosure (clipped at 0) read it as such
        kept = n - release_mass(noise, threshold, pair.right)  # Q(⊥)·N
        scaled = n - (kept * eps.base if eps.base is not None else kept.shift(_nats(eps)))
        return DeltaForm(n, kept, n, scaled)
    assert pair.left is not None and pair.right is not None
    # min(v, v′) ≥ T − 1 for every pair of threshold_pairs: the unthresholded δ (module)
    return pair_loss(noise, pair.left, pair.right).delta(eps)


def _nats(eps: Epsilon) -> mpq:
    assert eps.nats is not None  # a finite ε is ln(base) or a number of nats
    return eps.nats


def _sign(x: Series) -> int | None:
    try:
        return x.sign()
    except Undecided:
        return None


def threshold_delta(scale: mpq, threshold: int, shift: int, eps: Epsilon
                    ) -> tuple[tuple[ThresholdPair, DeltaForm], ...]:
    """Each pair of :func:`threshold_pairs` with its δ at ``eps`` (exact numerators)."""
    noise = _laplace(scale)
    return tuple((p, _form(noise, threshold, p, eps)) for p in threshold_pairs(shift, threshold))


@dataclass(frozen=True)
class ThresholdAnswer:
    """The answer for one claim: ``holds`` (None: undecided), the worst pair and its δ form
    (exact), the tight ε at the claimed δ (``None``: ∞; else rational bounds in nats)."""

    holds: bool | None
    witness: ThresholdPair
    delta: DeltaForm
    delta_decided: bool
    epsilon_infinite: bool
    epsilon_bounds: tuple[mpq, mpq] | None
    pairs: int
    forms: tuple[DeltaForm, ...] = ()

    @property
    def delta_certified(self) -> Certified:
        """The worst pair's δ; when the pairs were not all ranked, the largest enclosure."""
        if self.delta_decided or not self.forms:
            return Certified(self.delta.enclose)
        forms = self.forms

        def widest(prec: int) -> tuple[mpq, mpq]:
            ends = [f.enclose(prec) for f in forms]
            return max(lo for lo, _ in ends), max(hi for _, hi in ends)

        return Certified(widest)


def _worst(forms: tuple[tuple[ThresholdPair, DeltaForm], ...]) -> tuple[int, bool]:
    """The index of a pair of largest δ (all share the denominator ``1 + β``), and whether
    every comparison was decided."""
    worst, decided = 0, True
    for j in range(1, len(forms)):
        s = _sign(forms[j][1].scaled - forms[worst][1].scaled)
        if s is None:
            decided = False
        elif s > 0:
            worst = j
    return worst, decided


def _at_most(forms: tuple[tuple[ThresholdPair, DeltaForm], ...], delta: mpq) -> bool | None:
    signs = [_sign(f.minus(delta)) for _, f in forms]
    if any(s is not None and s > 0 for s in signs):
        return False
    return None if None in signs else True


def _tight_epsilon(scale: mpq, threshold: int, shift: int, delta: mpq
                   ) -> tuple[bool, tuple[mpq, mpq] | None]:
    """(∞?, bounds in nats): the smallest ε with δ(ε) ≤ ``delta``, by certified bisection."""
    noise = _laplace(scale)
    pairs = threshold_pairs(shift, threshold)
    free = [p for p in pairs if p.epsilon_free]
    for p in free:
        s = _sign(release_mass(noise, threshold, p.left or 0) - noise.denominator * delta)
        if s is None:
            return False, None
        if s > 0:
            return True, None
    rest = [p for p in pairs if not p.epsilon_free]

    def ok(nats: mpq) -> bool | None:
        eps = Epsilon.of_nats(nats)
        return _at_most(tuple((p, _form(noise, threshold, p, eps)) for p in rest), delta)

    return False, bisect_epsilon(ok)


def threshold_answer(scale: mpq, threshold: int, shift: int, eps: Epsilon,
                     delta: mpq) -> ThresholdAnswer:
    """Decide the claim (ε, δ) of the threshold release with ``scale``, ``T`` and ``L`` over
    the maps that differ in one key (the whole relation adds zero-valued keys: module)."""
    if threshold < 1:
        raise InvalidArgument(f"threshold = {threshold}: plrv models a positive threshold "
                              f"(a key is kept when v + Z ≥ T)", argument="args.threshold",
                              value=threshold)
    if shift < 0:
        raise InvalidArgument(f"d_in allows a change of {shift} in one key; it must be ≥ 0",
                              argument="d_in", value=shift)
    if eps.infinite:
        raise InvalidArgument("the claimed ε is infinite: nothing to decide",
                              argument="epsilon")
    forms = threshold_delta(scale, threshold, shift, eps)
    holds = _at_most(forms, delta)
    worst, decided = _worst(forms)
    if holds is False:  # the witness exceeds the claim, whatever the undecided comparisons
        for j, (_, f) in enumerate(forms):
            if _sign(f.minus(delta)) == 1 and (not decided or j == worst):
                worst = j
                break
    infinite, bounds = _tight_epsilon(scale, threshold, shift, delta)
    pair, form = forms[worst]
    return ThresholdAnswer(holds, pair, form, decided, infinite, bounds, len(forms),
                           tuple(f for _, f in forms))
