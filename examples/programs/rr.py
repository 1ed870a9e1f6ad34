"""Randomized response as the code that ships: each record reported truthfully with
probability 3/4, else flipped. ``plrv check examples/programs/rr.toml`` enumerates this very
function; called anywhere else, ``flip`` samples (``random.SystemRandom``)."""

from __future__ import annotations

from verifier.program import clamped_geometric_noise, flip


def rr(db: tuple) -> tuple:
    # 1 - x rather than `not x`: outputs are integers or strings (True == 1 in Python, so
    # plrv refuses bools as outputs rather than merge them)
    return tuple(x if flip("3/4") else 1 - x for x in db)


def noisy_count(db: tuple) -> int:
    """The number of 1s plus two-sided geometric noise (α = 1/2), clamped to 0..n: the law of
    ``kind = "geometric_count"``."""
    c = sum(db)
    return c + clamped_geometric_noise("1/2", -c, len(db) - c)
