"""User functions for examples/user_functions.toml: a mechanism and background knowledge.

A mechanism takes the database (a tuple of records) and returns an output, or a
verifier.Dist over outputs; knowledge likewise returns what the attacker learns.
"""

from verifier import Dist


def largest_record(db):
    """Release the largest record (depends only on the multiset: declared symmetric)."""
    return max(db)


def noisy_first_bit(db):
    """The attacker learns record 0 through a noisy channel: right with probability 3/4."""
    return Dist({db[0]: "3/4", 1 - db[0]: "1/4"})
