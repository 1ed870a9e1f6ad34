"""The DP-testing literature's algorithms, with exact discrete noise.

Each function receives a query-answer vector ``q`` (a tuple of integers) and returns the exact
law of its output (a ``verifier.Dist``). Neighbouring vectors differ by at most 1 in every
coordinate (``[neighbours] relation = "linf"``), as in the testing literature (Ding, Wang,
Wang, Zhang, Kifer 2018, "Detecting Violations of Differential Privacy", CCS — StatDP).

The published algorithms draw Laplace noise of scale ``b``; here its discrete counterpart,
the two-sided geometric law ``P[Z = k] ∝ α^|k|`` with ``α = e^{−1/b}``, whose privacy proofs
carry over unchanged (every step compares ``P[Z ≥ r]`` with ``P[Z ≥ r − s]``, at most
``α^{−s}`` times larger). All noise is summed exactly over its infinite support
(:mod:`verifier.model.noise`); only a released noisy value is clamped (post-processing).

With ``β = 1/2`` every scale below is a power of ``β``, so every claim is at a log of a
rational: ``ε = 2·ln 2 = ln 4`` for report noisy max, ``ε = 4·ln 2 = ln 16`` for the sparse
vector technique.
"""

from __future__ import annotations

from verifier.core.distribution import Dist
from verifier.model.noise import Noisy, at_most, clamp, geometric_mass, noisy_sum

BETA = "1/2"
T = 1        # the sparse vector technique's public threshold
LO, HI = -1, 3  # a released noisy value is clamped to LO..HI


# ----------------------------------------------------------------- report noisy max

def report_noisy_max(q: tuple) -> Dist:
    """Report Noisy Max (Dwork and Roth 2014, *The Algorithmic Foundations of Differential
    Privacy*, §3.3; StatDP's ``noisy_max_v1a``): add noise of scale ``2/ε`` to every query
    and release the index of the largest noisy answer (the first on a tie).

    ``P[i] = Σ_v P[X_i = v]·Π_{j<i} P[X_j < v]·Π_{j>i} P[X_j ≤ v]``, ``X_j = q_j + Z_j``,
    ``α = β = e^{−ε/2}``. Literature: ε-DP. (Dwork–Roth, Claim 3.9, prove it with scale
    1/ε for counting queries, whose answers all move the same way; for arbitrary neighbours
    at ‖·‖∞ ≤ 1 the same argument needs scale 2/ε, the scale StatDP uses.)
    """
    out = {}
    for i, qi in enumerate(q):
        factors = [Noisy(qi, "=")] + [Noisy(qj, "<" if j < i else "<=")
                                      for j, qj in enumerate(q) if j != i]
        out[i] = noisy_sum(factors, BETA)
    return Dist(out)


def noisy_max_with_value(q: tuple) -> Dist:
    """Report noisy max releasing the noisy maximum *with* its index (StatDP's
    ``noisy_max_v1b`` releases the maximum value: "INCORRECT"): the pair
    ``(i, clamp(X_i, LO, HI))``. Literature: not ε-DP (Ding et al. 2018, where StatDP detects it).
    """
    out: dict = {}
    for i, qi in enumerate(q):
        others = [Noisy(qj, "<" if j < i else "<=") for j, qj in enumerate(q) if j != i]
        # the clamped end values collect an infinite range of v
        out[(i, LO)] = noisy_sum([Noisy(qi, "="), *others], BETA, hi=LO)
        out[(i, HI)] = noisy_sum([Noisy(qi, "="), *others], BETA, lo=HI)
        for v in range(LO + 1, HI):
            out[(i, v)] = noisy_sum([Noisy(qi, "="), *others], BETA, lo=v, hi=v)
    return Dist({k: w for k, w in out.items() if w != 0})


# ----------------------------------------------------------------- sparse vector technique

def _first_above(q: tuple, threshold_power: int, query_power: int | None, strict: bool
                 ) -> Dist:
    """The index of the first query whose noisy answer reaches the noisy threshold, or
    ``len(q)`` (all ⊥): SVT with cutoff ``c = 1``.

    ``P[k] = Σ_u P[T + ρ = u]·Π_{j<k} P[X_j < u]·P[X_k ≥ u]`` (``>`` when ``strict``),
    ``ρ ~ β^threshold_power``, ``X_j = q_j + ν_j``, ``ν ~ β^query_power`` (``None``: no
    noise on the queries, ``X_j = q_j``).
    """
    up = ">" if strict else ">="
    out = {}
    for k in range(len(q) + 1):
        if query_power is None:
            factors = [Noisy(T, "=", power=threshold_power)]
            lo = max(q[:k], default=None)
            hi = q[k] if k < len(q) else None
            if strict and hi is not None:
                hi -= 1
            # q_j < u for j < k and q_k ≥ u: u in (max q_{<k}, q_k]
            out[k] = noisy_sum(factors, BETA, lo=None if lo is None else lo + 1, hi=hi)
            continue
        factors = [Noisy(T, "=", power=threshold_power)]
        factors += [Noisy(qj, "<" if not strict else "<=", power=query_power) for qj in q[:k]]
        if k < len(q):
            factors.append(Noisy(q[k], up, power=query_power))
        out[k] = noisy_sum(factors, BETA)
    return Dist({k: w for k, w in out.items() if w != 0})


def sparse_vector(q: tuple) -> Dist:
    """The sparse vector technique (Lyu, Su, Li 2017, "Understanding the Sparse Vector
    Technique for Differential Privacy", PVLDB, Algorithm 1), cutoff ``c = 1``, sensitivity
    ``Δ = 1``: ``ε1 = ε2 = ε/2``, threshold noise ``ρ ~ Lap(Δ/ε1) = Lap(2/ε)``, query noise
    ``ν_i ~ Lap(2cΔ/ε2) = Lap(4/ε)``; answer ⊤ when ``q_i + ν_i ≥ T + ρ`` and stop.
    Discrete: ``β = e^{−ε/4}``, ``ρ`` with ``β²``, ``ν`` with ``β``. Literature: ε-DP
    (Lyu et al. 2017, the privacy proof of Algorithm 1).
    """
    return _first_above(q, 2, 1, strict=False)


def svt_no_query_noise(q: tuple) -> Dist:
    """SVT without noise on the queries (Lyu et al. 2017, Algorithm 5; StatDP's ``iSVT1``):
    ⊤ when ``q_i ≥ T + ρ``. Literature: not ε'-DP for any finite ε' (Lyu et al. 2017)."""
    return _first_above(q, 2, None, strict=False)


def svt_no_threshold_noise(q: tuple) -> Dist:
    """SVT with an exact threshold (``ρ = 0``): every ⊥ answer is then compared against the
    same fixed ``T`` and costs privacy of its own, so the ε no longer stays independent of
    the number of ⊥ answers (the role of ``ρ`` in the privacy proof of Lyu et al. 2017,
    Algorithm 1).
    Literature: not ε-DP once there are more than ``ε/ε2`` ⊥ answers."""
    out = {}
    for k in range(len(q) + 1):
        below = [at_most(T - 1, qj, BETA) for qj in q[:k]]
        p = 1 - at_most(T - 1, q[k], BETA) if k < len(q) else 1
        for b in below:
            p *= b
        out[k] = p
    return Dist({k: w for k, w in out.items() if w != 0})


def svt_wrong_scale(q: tuple) -> Dist:
    """SVT with query noise that does not scale with ``c`` (Lyu et al. 2017, Algorithm 4;
    StatDP's ``iSVT3``): ``ε1 = ε/4``, ``ρ ~ Lap(4/ε)``, ``ν_i ~ Lap(4/(3ε))``, ⊤ when
    ``q_i + ν_i > T + ρ``. Discrete: ``β = e^{−ε/4}``, ``ρ`` with ``β``, ``ν`` with ``β³``.
    Literature: only ((1 + 6c)/4)·ε-DP, not ε-DP (Lyu et al. 2017)."""
    return _first_above(q, 1, 3, strict=True)


def svt_returns_noisy_value(q: tuple) -> Dist:
    """SVT that releases the noisy answer of the ⊤ query (Lyu et al. 2017, Algorithm 3;
    StatDP's ``iSVT4``), scales as in :func:`sparse_vector`, the value clamped to
    ``LO..HI``. Literature: not ε'-DP for any finite ε' (Lyu et al. 2017); with the value
    clamped the loss is finite but above the claim."""
    out: dict = {}
    for k in range(len(q) + 1):
        before = [Noisy(T, "=", power=2)] + [Noisy(qj, "<", power=1) for qj in q[:k]]
        if k == len(q):
            out[k] = noisy_sum(before, BETA)
            continue
        a = mass(q[k])
        # value v released: u ≤ v; the clamped ends collect all v ≤ LO or ≥ HI
        for v in range(LO + 1, HI):
            out[(k, v)] = a(v) * noisy_sum(before, BETA, hi=v)
        low = noisy_sum([*before, Noisy(q[k], ">=", power=1)], BETA, hi=LO)
        out[(k, LO)] = low - (1 - at_most(LO, q[k], BETA)) * noisy_sum(before, BETA, hi=LO)
        out[(k, HI)] = ((1 - at_most(HI - 1, q[k], BETA)) * noisy_sum(before, BETA, hi=HI)
                        + noisy_sum([*before, Noisy(q[k], ">=", power=1)], BETA, lo=HI + 1))
    return Dist({k: w for k, w in out.items() if w != 0})


def mass(centre: int):
    """``v ↦ P[centre + Z = v]`` with parameter ``β``."""
    return lambda v: geometric_mass(v - centre, BETA)


__all__ = ["report_noisy_max", "noisy_max_with_value", "sparse_vector", "svt_no_query_noise",
           "svt_no_threshold_noise", "svt_wrong_scale", "svt_returns_noisy_value", "clamp"]
