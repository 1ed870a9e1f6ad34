"""The user-written mechanisms of the gallery (docs/gallery.md), each symmetric: it reads the
database only through its counts. Probabilities are exact (Fractions and plrv's rationals).
"""

from fractions import Fraction
from math import comb

from verifier import BOTTOM, Dist, geometric_count

_NOISY = geometric_count([1], "1/2")  # the count of 1s plus clamped geometric noise (1/2)
_NOISY_TWO = geometric_count([2], "1/2")


def noisy_threshold(db):
    """The count of 1s plus two-sided geometric noise P[k] ∝ (1/2)^|k|, clamped to 0..n,
    released only if it is at least 3; else ⊥."""
    out: dict = {}
    for c, p in _NOISY.kernel(db).items():
        o = c if c >= 3 else BOTTOM
        out[o] = out.get(o, 0) + p
    return Dist(out)


def noisy_top1(db):
    """Which of the counts of 1s and of 2s is larger, each with its own clamped geometric
    noise (1/2), a tie broken by a fair coin: the output is 1 or 2."""
    ones, twos = _NOISY.kernel(db), _NOISY_TWO.kernel(db)
    out = {1: Fraction(0), 2: Fraction(0)}
    for c1, p1 in ones.items():
        for c2, p2 in twos.items():
            w = Fraction(p1) * Fraction(p2)
            if c1 == c2:
                out[1] += w / 2
                out[2] += w / 2
            else:
                out[1 if c1 > c2 else 2] += w
    return Dist(out)


SAMPLE = 3  # records drawn without replacement


def sample_count(db):
    """The count of 1s among SAMPLE records drawn uniformly without replacement: the
    hypergeometric law C(c, k)·C(n − c, m − k)/C(n, m)."""
    n, c = len(db), sum(1 for x in db if x == 1)
    return Dist({k: Fraction(comb(c, k) * comb(n - c, SAMPLE - k), comb(n, SAMPLE))
                 for k in range(SAMPLE + 1) if comb(c, k) * comb(n - c, SAMPLE - k)})
