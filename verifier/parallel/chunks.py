"""The first item of an enumeration that passes a test, with the tests spread over shards.

The serial search tests the items one by one and stops at the first that passes. Sharded, the
items are cut into consecutive chunks of :data:`CHUNK`; a round hands ``workers ×``
:data:`~verifier.parallel.databases.SHARDS_PER_WORKER` chunks to the executor, each returning
the position of its first passing item (or ``None``). The answer is the lowest such index of
the first round that has one: every item before it was tested (earlier chunks of its round,
earlier rounds whole) and failed, so it is the item the serial search stops at — never the one
that happened to complete first. Later rounds are not started once a round has an answer; the
work wasted is at most one round.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import islice
from typing import Any, TypeVar

from verifier.parallel.databases import SHARDS_PER_WORKER
from verifier.parallel.executor import Executor

__all__ = ["CHUNK", "first_passing"]

CHUNK = 16  # items per shard: a chunk of the conjecture search costs tens of milliseconds
T = TypeVar("T")


@dataclass(frozen=True)
class _Chunk:
    test: Callable[[Any], bool]
    items: tuple


def _first_in_chunk(chunk: _Chunk) -> int | None:
    """The position of the chunk's first item that passes, or ``None``."""
    for k, item in enumerate(chunk.items):
        if chunk.test(item):
            return k
    return None


def first_passing(items: Iterable[T], test: Callable[[T], bool], executor: Executor,
                  what: str = "items", chunk: int = CHUNK) -> int | None:
    """The index (from 0, in iteration order) of the first of ``items`` for which ``test``
    is true, or ``None`` when none is; ``items`` is consumed only up to the round holding
    that item (wholly when there is none). ``what`` names the items in shard errors."""
    it = iter(items)
    start = 0
    per_round = max(1, executor.workers * SHARDS_PER_WORKER)
    while True:
        chunks = []
        for _ in range(per_round):
            part = tuple(islice(it, chunk))
            if not part:
                break
            chunks.append(_Chunk(test, part))
        if not chunks:
            return None
        labels, at = [], start
        for c in chunks:
            labels.append(f"{what} {at + 1}..{at + len(c.items)}")
            at += len(c.items)
        for k, hit in enumerate(executor.map(_first_in_chunk, chunks, labels)):
            if hit is not None:
                return start + k * chunk + hit  # every chunk before the last is full
        start = at
