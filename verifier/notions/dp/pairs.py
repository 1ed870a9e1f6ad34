"""The ordered neighbouring pairs of DP by brute force, and their privacy losses memoised.

Every ``D1`` in lexicographic order with each neighbour ``D1[i ↦ b]``, ``b ≠ D1(i)`` (seed 003,
Lemma 1: δ is the largest ``Σ_O max(0, P[M(D1)=O] − e^ε·P[M(D2)=O])`` over these pairs). Used
serially (:mod:`.brute`) and shard by shard (:mod:`.sharded`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import partial
from itertools import islice

from verifier.core.distribution import Dist
from verifier.model.mechanisms import all_databases
from verifier.notions.loss import output_losses, privacy_loss
from verifier.notions.result import Case

__all__ = ["LossMemo", "brute_cases", "witness_outputs"]


class LossMemo:
    """Privacy losses memoised by the pair of output distributions.

    Equal distributions are interned (one object per distinct law, found by hashing the law
    once per database), so a pair met again — the same two laws from other databases, as
    under any symmetric mechanism, or the same databases in another order — costs one
    dictionary look-up. ``computed`` and ``reused`` count both kinds of pair.
    """

    def __init__(self) -> None:
        self._laws: dict[Dist, Dist] = {}
        self._losses: dict[tuple[int, int], object] = {}
        self.computed = 0
        self.reused = 0

    def intern(self, dist: Dist) -> Dist:
        return self._laws.setdefault(dist, dist)

    def loss(self, p: Dist, q: Dist):
        key = (id(p), id(q))  # interned laws: equal ids are equal laws, kept alive here
        found = self._losses.get(key)
        if found is None:
            found = self._losses[key] = privacy_loss(p, q)
            self.computed += 1
        else:
            self.reused += 1
        return found


def witness_outputs(p: Dist, q: Dist) -> list:
    """``(O, L(O))`` for every output of the pair (for witnesses)."""
    return [(o, loss) for o, _, _, loss in output_losses(p, q)]


_WINDOW = 256  # databases D1 whose laws, and their neighbours', user code is asked at once


def _warmed(mech: Callable, domain: tuple, outputs: dict, firsts: Iterable[tuple]
            ) -> Iterator[tuple]:
    """``firsts`` in order; for a :class:`~verifier.model.mechanisms.Mechanism` of user code,
    each window of them is preceded by one request for the laws it will need (the window's
    databases and their neighbours not computed yet)."""
    warm = getattr(mech, "warm", None)
    if warm is None:
        yield from firsts
        return
    it = iter(firsts)
    while window := list(islice(it, _WINDOW)):
        warm(dict.fromkeys(db for d1 in window for db in (d1, *(
            d1[:i] + (b,) + d1[i + 1:] for i in range(len(d1)) for b in domain if b != d1[i]))
            if db not in outputs))
        yield from window


def brute_cases(mech: Callable[[tuple], Dist], domain: tuple, n: int, losses: LossMemo,
                outputs: dict[tuple, Dist], firsts: Iterable[tuple] | None = None
                ) -> Iterator[Case]:
    """Brute-force cases for every ``D1`` of ``firsts`` (default: every database, in
    lexicographic order), each with its neighbours ``D1[i ↦ b]`` by ``i`` then ``b``
    (``outputs``: the interned laws computed already)."""

    def run(db: tuple) -> Dist:
        if db not in outputs:
            outputs[db] = losses.intern(mech(db))
        return outputs[db]

    for d1 in _warmed(mech, domain, outputs,
                      all_databases(domain, n) if firsts is None else firsts):
        p = run(d1)
        for i in range(n):
            for b in domain:
                if b == d1[i]:
                    continue
                d2 = d1[:i] + (b,) + d1[i + 1:]
                q = run(d2)
                yield Case(
                    {"databases": [list(d1), list(d2)], "index": i},
                    losses.loss(p, q),
                    partial(witness_outputs, p, q),
                    laws=(p, q),
                )
