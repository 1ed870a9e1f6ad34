"""A tiny library of mechanisms whose privacy is regression-tested in tests/.

Each mechanism takes the database (a tuple of records, here bits) and returns a
``verifier.Dist`` over its outputs, or a plain value (a point mass).
"""

from verifier import Dist, geometric, mechanism


@mechanism
def vote(db):
    """Randomized response on the first record: the true bit with probability 3/4."""
    return Dist({db[0]: "3/4", 1 - db[0]: "1/4"})


@mechanism
def noisy_count(db):
    """The number of ones plus two-sided geometric noise (α = 1/2), clamped to 0..3.

    Replacing one record moves the count by one, and the noise's masses change by a factor
    of at most 1/α = 2 (the clamped tails too): ln(2)-DP."""
    return geometric(sum(db), "1/2", lo=0, hi=3)


@mechanism
def fast_count(db):
    """noisy_count with a shortcut: an empty count is released without noise. The shortcut
    leaks: the output 0 is certain on (0, 0) and has probability 1/3 on (1, 0)."""
    if sum(db) == 0:
        return 0
    return geometric(sum(db), "1/2", lo=0, hi=3)
