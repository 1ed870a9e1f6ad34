"""The DP-testing zoo (``examples/zoo/zoo_algorithms.py``) written as programs that draw noise.

Each function takes a query-answer vector ``q`` (a tuple of integers) and *runs* the
algorithm: it draws its noise with :mod:`verifier.program` (sampling in production, enumerated
exactly by plrv). The noise is the two-sided geometric law ``P[Z = k] ∝ α^|k|`` with
``α = β^s`` for the scale ``s`` of each algorithm, ``β = 1/2``, as in the zoo.

A program can only draw from finite laws, so every noisy value is *clamped* to the window
a window ``lo..hi``: ``clamp(c + Z, lo, hi)`` is drawn exactly as ``c + clamped_geometric_noise(α,
lo − c, hi − c)``. The algorithms then compare clamped values, which moves ties to the window's
ends — a different (finite) mechanism from the zoo's, whose laws sum the noise over all
integers. ``docs/how-to/programs.md`` lists the exact ε plrv finds for both.

Sources: report noisy max (Dwork and Roth 2014, §3.3; StatDP's ``noisy_max_v1a``/``v1b``);
the sparse vector technique and its variants (Lyu, Su, Li 2017, "Understanding the Sparse
Vector Technique for Differential Privacy", PVLDB: Algorithm 1 correct; Algorithm 3 releases
the noisy answer, Algorithm 4 uses query noise that does not scale with the cutoff, Algorithm 5
adds no query noise; StatDP's ``iSVT4``, ``iSVT3``, ``iSVT1``), cutoff ``c = 1``.
"""

from __future__ import annotations

from verifier.program import clamped_geometric_noise

T = 1            # the sparse vector technique's public threshold
MAX_WINDOW = (-2, 4)  # report noisy max: noisy values clamped to -2..4
SVT_WINDOW = (-1, 3)  # the sparse vector technique: to -1..3 (the zoo's window for a value)
ALPHA = {1: "1/2", 2: "1/4", 3: "1/8"}  # β^s for β = 1/2


def noisy(centre: int, scale: int, window: tuple[int, int] = SVT_WINDOW) -> int:
    """``clamp(centre + Z, lo, hi)``, ``P[Z = k] ∝ (β^scale)^|k|``, ``(lo, hi) = window``."""
    lo, hi = window
    return centre + clamped_geometric_noise(ALPHA[scale], lo - centre, hi - centre)


def report_noisy_max(q: tuple) -> int:
    """The index of the largest noisy answer (the first on a tie), noise ``β`` (scale 2/ε
    for ε = ln 4). Literature: ε-DP."""
    best, top = 0, None
    for i, qi in enumerate(q):
        x = noisy(qi, 1, MAX_WINDOW)
        if top is None or x > top:
            best, top = i, x
    return best


def noisy_max_with_value(q: tuple) -> tuple:
    """Report noisy max releasing the noisy maximum too (StatDP's ``noisy_max_v1b``).
    Literature: not ε-DP."""
    best, top = 0, MAX_WINDOW[0] - 1
    for i, qi in enumerate(q):
        x = noisy(qi, 1, MAX_WINDOW)
        if x > top:
            best, top = i, x
    return (best, top)


def _first_above(q: tuple, threshold_scale: int | None, query_scale: int | None,
                 strict: bool = False) -> int:
    """The index of the first query whose noisy answer reaches the noisy threshold, or
    ``len(q)`` when none does (``None``: no noise there)."""
    rho = T if threshold_scale is None else noisy(T, threshold_scale)
    for i, qi in enumerate(q):
        x = qi if query_scale is None else noisy(qi, query_scale)
        if x > rho or (x == rho and not strict):
            return i
    return len(q)


def sparse_vector(q: tuple) -> int:
    """Lyu et al. 2017, Algorithm 1 (ε1 = ε2 = ε/2: threshold noise β², query noise β for
    ε = ln 16). Literature: ε-DP."""
    return _first_above(q, 2, 1)


def svt_no_query_noise(q: tuple) -> int:
    """Algorithm 5: no noise on the queries. Literature: not ε'-DP for any finite ε'."""
    return _first_above(q, 2, None)


def svt_no_threshold_noise(q: tuple) -> int:
    """An exact threshold (``ρ = 0``): each ⊥ answer costs privacy of its own.
    Literature: not ε-DP once there are more ⊥ answers than ε/ε2."""
    return _first_above(q, None, 1)


def svt_wrong_scale(q: tuple) -> int:
    """Algorithm 4 (ε1 = ε/4: threshold noise β, query noise β³, ``>``).
    Literature: only ((1 + 6c)/4)·ε-DP."""
    return _first_above(q, 1, 3, strict=True)


def svt_returns_noisy_value(q: tuple) -> tuple:
    """Algorithm 3: releases the noisy answer of the query that reaches the threshold.
    Literature: not ε'-DP for any finite ε' (finite here: the value is clamped)."""
    rho = noisy(T, 2)
    for i, qi in enumerate(q):
        x = noisy(qi, 1)
        if x >= rho:
            return (i, x)
    return (len(q), None)
