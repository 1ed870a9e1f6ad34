"""The mechanism of examples/compose/threshold_rr.toml: randomized response on one bit.

The bit says whether at least 30 of the records are 1; it is released truthfully with
probability 3/4 and flipped with 1/4. It reads the database through its count of ones only,
so the spec declares it symmetric (the count engine then calls it once per count).
"""

from verifier import Dist

THRESHOLD = 30


def threshold_bit(db):
    bit = int(sum(db) >= THRESHOLD)
    return Dist({bit: "3/4", 1 - bit: "1/4"})
