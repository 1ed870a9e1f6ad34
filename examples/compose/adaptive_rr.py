"""An adaptive composition: a second randomized response only when the first said 1.

Each step is called as ``f(x, earlier_outputs)``: ``x`` is the database (a tuple of
records) and ``earlier_outputs`` the tuple of the outputs released so far.
"""

from verifier import Dist


def first(x, earlier):
    """Randomized response on the record: the truth with probability 3/4."""
    bit = x[0]
    return Dist({bit: "3/4", 1 - bit: "1/4"})


def again(x, earlier):
    """If the first answer was 1, ask again (truth with probability 2/3); else stop."""
    if earlier[0] != 1:
        return "stop"
    bit = x[0]
    return Dist({bit: "2/3", 1 - bit: "1/3"})
