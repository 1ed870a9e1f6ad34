"""The mechanism of examples/renyi_partial.toml: a noisy count released above a threshold.

The count of 1s plus two-sided geometric noise P[k] ∝ (1/2)^|k|, clamped to 0..n, is
released only if it is at least 3; below that the output is ⊥ (verifier.BOTTOM).
"""

from verifier import BOTTOM, Dist, geometric_count

_NOISY = geometric_count([1], "1/2")


def noisy_threshold(db):
    """The clamped noisy count if it is at least 3, else ⊥ (symmetric: it reads the count)."""
    out: dict = {}
    for c, p in _NOISY.kernel(db).items():
        o = c if c >= 3 else BOTTOM
        out[o] = out.get(o, 0) + p
    return Dist(out)
