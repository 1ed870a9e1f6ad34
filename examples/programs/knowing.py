"""Background knowledge and adaptive steps as programs: the same laws as
examples/user_functions.py:noisy_first_bit and examples/compose/adaptive_rr.py, written as
the code that draws (``plrv`` enumerates every choice; elsewhere ``flip`` samples)."""

from __future__ import annotations

from verifier.program import flip


def largest_record(db: tuple) -> int:
    """Release the largest record (depends only on the multiset: declared symmetric)."""
    return max(db)


def noisy_first_bit(db: tuple) -> int:
    """The attacker learns record 0 through a noisy channel: right with probability 3/4."""
    return db[0] if flip("3/4") else 1 - db[0]


def first(x: tuple, earlier: tuple) -> int:
    """Randomized response on the record: the truth with probability 3/4."""
    return x[0] if flip("3/4") else 1 - x[0]


def again(x: tuple, earlier: tuple) -> int | str:
    """If the first answer was 1, ask again (truth with probability 2/3); else stop."""
    if earlier[0] != 1:
        return "stop"
    return x[0] if flip("2/3") else 1 - x[0]
