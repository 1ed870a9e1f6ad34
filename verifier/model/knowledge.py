"""Background knowledge ζ: what the attacker knows about the database besides the output.

ζ maps a database to a distribution over background values ``B`` (seed 003 §4; REFERENCE.md
§1). Built-ins: no knowledge (one value; noiseless privacy), the values of a fixed set of
known indices, and any user function of the database, deterministic or randomized. A family
Z is a finite list of these.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from verifier.core.distribution import Dist
from verifier.core.errors import InvalidArgument
from verifier.core.numbers import counted
from verifier.model.program_enum import Enumerated
from verifier.model.user_code import UserFunction, as_output_dist

__all__ = ["Knowledge", "no_knowledge", "known_indices", "knowledge", "NOTHING",
           "describe_indices"]

NOTHING = "nothing"  # the single background value of the attacker who knows nothing


@dataclass(frozen=True, eq=False)
class Knowledge:
    """A background-knowledge function ``ζ: database ↦ Dist`` over background values.

    ``known`` is set when ζ reveals exactly the records at those indices (``B = (D_j)_{j ∈
    known}``); the count engine and the target checks use it. ``known = ()`` is no knowledge.
    """

    name: str
    function: Callable[[tuple], Dist]
    known: tuple[int, ...] | None = None
    prefetch: Callable[[Iterable[tuple]], None] | None = None

    def __call__(self, database: tuple) -> Dist:
        return self.function(tuple(database))

    def warm(self, databases: Iterable[tuple]) -> None:
        """ζ evaluated on ``databases`` ahead of the calls that follow (user code in its own
        process: a few round trips; anything else: nothing)."""
        if self.prefetch is not None:
            self.prefetch(databases)

    def check_against(self, n: int, targets: Sequence[int]) -> None:
        """Indices in range, and no target among the known indices."""
        if self.known is None:
            return
        for j in self.known:
            if not 0 <= j < n:
                raise InvalidArgument(
                    f"known index {j} is out of range for {counted(n, 'record')} (indices are "
                    f"0..{n - 1})"
                )
        clash = sorted(set(self.known) & set(targets))
        if clash:
            raise InvalidArgument(
                f"target {clash[0]} is among the known indices {list(self.known)}: the "
                f"attacker would already know the value it attacks"
            )


def no_knowledge() -> Knowledge:
    """ζ constant: the attacker knows nothing (noiseless privacy, seed 003 Definition 3)."""
    point = Dist.point(NOTHING)
    return Knowledge("nothing", lambda db: point, ())


def known_indices(indices: Sequence[int]) -> Knowledge:
    """ζ(D) = (D_j for j in indices): the attacker knows those records' values."""
    if isinstance(indices, (str, bytes, Mapping)) or not isinstance(indices, Iterable):
        raise InvalidArgument(f"known = {indices!r:.60} is not a list of indices",
                              argument="known", value=indices)
    idx = tuple(indices)
    for j in idx:
        if isinstance(j, bool) or not isinstance(j, int):
            raise InvalidArgument(f"known index {j!r:.60} is not an integer", argument="known",
                                  value=indices)
    if len(set(idx)) != len(idx):
        raise InvalidArgument(f"known = {list(idx)!r} repeats an index", argument="known",
                              value=indices)
    idx = tuple(sorted(idx))
    if not idx:
        return no_knowledge()
    return Knowledge(f"records {describe_indices(idx)}",
                     lambda db: Dist.point(tuple(db[j] for j in idx)), idx)


def describe_indices(idx: Sequence[int]) -> str:
    """``[0, 3, 5]``, or ``0..99 (100 indices)`` for a long contiguous run."""
    idx = list(idx)
    if len(idx) > 8:
        if idx == list(range(idx[0], idx[-1] + 1)):
            return f"{idx[0]}..{idx[-1]} ({len(idx)} indices)"
        return f"{idx[:4]}… ({len(idx)} indices)"
    return str(idx)


def knowledge(f: Callable[[tuple], object], name: str | None = None) -> Knowledge:
    """A user ζ: a returned :class:`Dist` is randomized knowledge, any other value a fact
    (a list is the tuple of its elements), and random choices drawn with
    :mod:`verifier.program` are enumerated exactly (ζ's law on a database is the program's:
    a function that draws is never sampled). A function loaded from a spec
    (:class:`~verifier.model.user_code.UserFunction`, loaded as a program by the spec reader)
    has its answers checked and its errors named after it."""
    if isinstance(f, UserFunction):
        return _user_knowledge(f, name)
    label = name or str(getattr(f, "__name__", "knowledge"))
    return Knowledge(label, f if isinstance(f, Enumerated) else Enumerated(f, label), None)


def _user_knowledge(user: UserFunction, name: str | None) -> Knowledge:
    def function(db: tuple) -> Dist:
        return as_output_dist(user(db), user)

    def prefetch(dbs: Iterable[tuple]) -> None:
        user.prefetch((tuple(db),) for db in dbs)
    return Knowledge(name or user.__name__, function, None, prefetch)

