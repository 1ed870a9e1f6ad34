"""The executor abstraction: map a function over independent shards, results in shard order.

An :class:`Executor` runs ``fn(shard)`` for every shard and returns the results in the order
of the shards, whatever the order in which they complete, so that a merge over them (exact
addition of integers, concatenation of cases) is the serial computation regrouped: the
merged result is equal (``==``) to the serial one and a witness chosen by the merge is the
one the serial run chooses. A shard that fails with a :class:`VerifierError` re-raises it
(the lowest-numbered failing shard's, so the error does not depend on completion order); a
shard lost with its worker fails the job with :class:`ShardFailed`, naming the shard — a job
never returns a partial result.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

from verifier.core.errors import VerifierError

__all__ = ["Executor", "SerialExecutor", "ShardFailed", "MissingDistributed",
           "current_executor", "use_executor"]

Progress = Callable[[int, int], None]


class ShardFailed(VerifierError, RuntimeError):
    """A shard could not be computed (its worker died or the cluster went away)."""


class MissingDistributed(VerifierError, ImportError):
    """``--workers``/``--scheduler`` asked for without Dask installed."""


class Executor:
    """Runs shards; :attr:`parallel` is ``False`` for the in-process serial executor."""

    parallel = False
    workers = 1

    def map(self, fn: Callable, shards: Sequence, labels: Sequence[str],
            progress: Progress | None = None) -> list:
        """``[fn(s) for s in shards]``; ``labels[j]`` names shard ``j`` in errors;
        ``progress(done, total)`` is called as shards complete."""
        raise NotImplementedError

    def describe(self) -> str:
        return "serial"


class SerialExecutor(Executor):
    """Every shard in this process, one after the other (the default)."""

    def map(self, fn: Callable, shards: Sequence, labels: Sequence[str],
            progress: Progress | None = None) -> list:
        out = []
        for j, shard in enumerate(shards):
            out.append(fn(shard))
            if progress:
                progress(j + 1, len(shards))
        return out


_SERIAL = SerialExecutor()
_CURRENT: ContextVar[Executor | None] = ContextVar("plrv_executor", default=None)


def current_executor() -> Executor:
    """The executor installed by :func:`use_executor` (serial when none is)."""
    return _CURRENT.get() or _SERIAL


@contextmanager
def use_executor(executor: Executor) -> Iterator[Executor]:
    """Run the enclosed computation's shards on ``executor``."""
    token = _CURRENT.set(executor)
    try:
        yield executor
    finally:
        _CURRENT.reset(token)
