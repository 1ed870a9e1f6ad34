"""Finite probability distributions with exact rational weights.

A :class:`Dist` is immutable and canonical: weights are ``mpq``, strictly positive (zero
weights are dropped), they sum to exactly 1, and the support is sorted. Two distributions
are equal exactly when they give every outcome the same probability.

>>> coin = Dist({0: "1/2", 1: "1/2"})
>>> coin.map(lambda x: x + 1)[2]
mpq(1,2)
>>> (coin * coin).prob(lambda xy: sum(xy) == 1)
mpq(1,2)
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from typing import Any

from gmpy2 import mpq

from verifier.core.errors import InvalidDistribution, NullEvent
from verifier.core.numbers import format_rational, rational

__all__ = ["Dist", "BOTTOM", "Bottom", "sort_key"]


class Bottom:
    """The output ``⊥`` of a mechanism that releases nothing (e.g. a count under threshold)."""

    _instance: Bottom | None = None
    __slots__ = ()

    def __new__(cls) -> Bottom:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "⊥"

    def __reduce__(self):
        return (Bottom, ())


BOTTOM = Bottom()
_ONE = mpq(1)
_MPQ = type(_ONE)


def sort_key(value: Any) -> tuple:
    """A total order on mixed outcomes: ⊥ first, then numbers, strings, tuples, the rest."""
    kind = type(value)
    if kind is int or kind is _MPQ:  # the common outputs first (what the checks below give)
        return (1, value)
    if value is BOTTOM:
        return (0,)
    if isinstance(value, bool):
        return (1, int(value))
    if isinstance(value, (int, _MPQ)) or type(value).__name__ in ("Fraction", "mpz"):
        return (1, value)
    if isinstance(value, str):
        return (2, value)
    if isinstance(value, tuple):
        return (3, len(value), tuple(sort_key(v) for v in value))
    if isinstance(value, frozenset):
        return (4, len(value), tuple(sorted(sort_key(v) for v in value)))
    own = getattr(value, "__sort_key__", None)
    if own is not None:
        return (5, type(value).__name__, own())
    return (6, type(value).__name__, repr(value))


class Dist:
    """An immutable finite distribution ``{outcome: probability}`` with exact weights."""

    __slots__ = ("_items", "_weights", "_hash")
    _items: tuple[tuple[Hashable, mpq], ...]
    _weights: dict[Hashable, mpq]
    _hash: int | None

    def __init__(self, weights: Mapping[Hashable, object] | Iterable[tuple[Hashable, object]],
                 *, name: str = "distribution"):
        pairs = weights.items() if isinstance(weights, Mapping) else weights
        merged: dict[Hashable, mpq] = {}
        for outcome, w in pairs:
            q = rational(w, f"{name}[{outcome!r}]")
            if q < 0:
                raise InvalidDistribution(
                    f"{name}[{outcome!r}] = {format_rational(q)} is a negative weight"
                )
            merged[outcome] = merged.get(outcome, mpq(0)) + q
        total = sum(merged.values(), mpq(0))
        if total != 1:
            raise InvalidDistribution(
                f"{name} sums to {format_rational(total)}, not 1"
            )
        self._init_trusted({k: v for k, v in merged.items() if v != 0})

    def _init_trusted(self, weights: Mapping[Any, mpq]) -> None:
        items = tuple(sorted(weights.items(), key=lambda kv: sort_key(kv[0])))
        object.__setattr__(self, "_items", items)
        object.__setattr__(self, "_weights", dict(items))
        object.__setattr__(self, "_hash", None)

    @classmethod
    def _trusted(cls, weights: Mapping[Any, mpq]) -> Dist:
        """Build from weights already exact, positive and summing to 1 (internal)."""
        d = cls.__new__(cls)
        d._init_trusted(weights)
        return d

    @classmethod
    def point(cls, outcome: Hashable) -> Dist:
        """The point mass at ``outcome`` (a deterministic result)."""
        d = cls.__new__(cls)
        item = (outcome, _ONE)  # one outcome: nothing to sort (mechanisms call this per input)
        object.__setattr__(d, "_items", (item,))
        object.__setattr__(d, "_weights", dict((item,)))
        object.__setattr__(d, "_hash", None)
        return d

    @classmethod
    def uniform(cls, outcomes: Iterable[Hashable]) -> Dist:
        values = list(dict.fromkeys(outcomes))
        if not values:
            raise InvalidDistribution("uniform distribution over an empty set")
        w = mpq(1, len(values))
        return cls._trusted({v: w for v in values})

    @classmethod
    def from_masses(cls, masses: Mapping[Hashable, mpq], *, name: str = "distribution") -> Dist:
        """Normalise non-negative exact masses; a zero total is a :class:`NullEvent`."""
        total = sum(masses.values(), mpq(0))
        if total == 0:
            raise NullEvent(f"{name}: the event has probability 0")
        return cls._trusted({k: v / total for k, v in masses.items() if v != 0})

    def __setattr__(self, key, value):
        raise AttributeError("Dist is immutable")

    def __reduce__(self):  # pickled by its exact weights (shards sent to other processes)
        return (Dist._trusted, (dict(self._items),))

    # -- reading -------------------------------------------------------------
    def __getitem__(self, outcome: Hashable) -> mpq:
        return self._weights.get(outcome, mpq(0))

    def items(self) -> tuple[tuple[Hashable, mpq], ...]:
        return self._items

    @property
    def support(self) -> tuple[Hashable, ...]:
        return tuple(k for k, _ in self._items)

    def __iter__(self) -> Iterator[Hashable]:
        return iter(self.support)

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, outcome: Hashable) -> bool:
        return outcome in self._weights

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Dist) and self._weights == other._weights

    def __hash__(self) -> int:
        h = self._hash
        if h is None:
            h = hash(frozenset(self._weights.items()))
            object.__setattr__(self, "_hash", h)
        return h

    def __repr__(self) -> str:
        body = ", ".join(f"{k!r}: {format_rational(v)}" for k, v in self._items)
        return f"Dist({{{body}}})"

    # -- operations -------------------------------------------------------------
    def map(self, f: Callable[[Hashable], Hashable]) -> Dist:
        """Push-forward: the distribution of ``f(X)``."""
        out: dict[Hashable, mpq] = {}
        for k, w in self._items:
            y = f(k)
            out[y] = out.get(y, mpq(0)) + w
        return Dist._trusted(out)

    def bind(self, kernel: Callable[[Hashable], Dist]) -> Dist:
        """Compose with a kernel: the distribution of ``Y ~ kernel(X)``, ``X ~ self``."""
        out: dict[Hashable, mpq] = {}
        for k, w in self._items:
            for y, v in kernel(k).items():
                out[y] = out.get(y, mpq(0)) + w * v
        return Dist._trusted(out)

    def prob(self, event: Callable[[Hashable], bool]) -> mpq:
        """``P[event(X)]``."""
        return sum((w for k, w in self._items if event(k)), mpq(0))

    def condition(self, event: Callable[[Hashable], bool]) -> Dist:
        """The distribution of ``X`` given ``event(X)``; a null event raises :class:`NullEvent`."""
        kept = {k: w for k, w in self._items if event(k)}
        total = sum(kept.values(), mpq(0))
        if total == 0:
            raise NullEvent("conditioning on an event of probability 0")
        return Dist._trusted({k: w / total for k, w in kept.items()})

    def expectation(self, f: Callable[[Hashable], object] = lambda x: x) -> mpq:
        """``E[f(X)]`` for an exact-valued ``f``."""
        return sum((w * rational(f(k), "f(x)") for k, w in self._items), mpq(0))

    def __mul__(self, other: Dist) -> Dist:
        """The product distribution of independent pairs ``(X, Y)``."""
        return Dist._trusted(
            {(x, y): v * w for x, v in self._items for y, w in other._items}
        )

    @staticmethod
    def product(dists: Iterable[Dist]) -> Dist:
        """Independent tuples ``(X_1, …, X_n)``."""
        out: dict[tuple, mpq] = {(): mpq(1)}
        strict = True
        for d in dists:
            out = {t + (x,): v * w for t, v in out.items() for x, w in d._items}
            keys = [sort_key(x) for x, _ in d._items]
            strict = strict and all(a < b for a, b in zip(keys, keys[1:], strict=False))
        if not strict:  # outcomes whose keys tie: the sort decides their order
            return Dist._trusted(out)
        # each factor's outcomes strictly increasing: the tuples come in lexicographic order,
        # the order of their sort keys, and are not sorted again
        d = Dist.__new__(Dist)
        object.__setattr__(d, "_items", tuple(out.items()))
        object.__setattr__(d, "_weights", out)
        object.__setattr__(d, "_hash", None)
        return d

    def marginal(self, index: int) -> Dist:
        """The distribution of the ``index``-th coordinate of tuple outcomes."""
        return self.map(lambda t: t[index])  # type: ignore[index]
