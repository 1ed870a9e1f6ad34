"""The background value of an attacker of a symmetric mechanism, up to order.

An attacker who knows ``m`` records of a mechanism that reads its database only through
counts learns, for its purposes, only how many known records take each value: the class of
``m!/Π c_v!`` background tuples with those counts (seed 003, Lemma 4: background values
with equal counts give equal conditional laws).
"""

from __future__ import annotations

from dataclasses import dataclass

from gmpy2 import fac, mpz

__all__ = ["KnownCounts"]


@dataclass(frozen=True, slots=True)
class KnownCounts:
    """The background value of an attacker who knows records of a symmetric mechanism,
    up to order: how many of the known records take each value."""

    values: tuple
    counts: tuple[int, ...]

    @property
    def multiplicity(self) -> mpz:
        """How many background values (tuples of known records) this class stands for."""
        m = fac(sum(self.counts))
        for c in self.counts:
            m //= fac(c)
        return m

    def __repr__(self) -> str:
        pairs = zip(self.values, self.counts, strict=True)
        return "#{" + ", ".join(f"{v!r}: {c}" for v, c in pairs) + "}"

    def __sort_key__(self) -> tuple:
        return self.counts

    def as_dict(self) -> dict:
        return {"known_counts": {str(v): c for v, c in zip(self.values, self.counts, strict=True)},
                "stands_for": int(self.multiplicity)}
