"""Data models Θ: distributions over databases of ``n`` records from a finite domain ``T``.

Three forms (seed 003 §3; REFERENCE.md §1): an explicit distribution over databases,
independent records with one prior each, and i.i.d. records with one prior. A family Θ is a
finite list of models; a check quantifies over all of them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from verifier.core.budget import Budget, check_database_count
from verifier.core.distribution import Dist, sort_key
from verifier.core.errors import InvalidArgument, InvalidDistribution, InvalidNumber
from verifier.core.numbers import counted, positive_int

__all__ = ["check_domain", "check_records", "DataModel", "ExplicitData", "IndependentData",
           "iid", "independent", "explicit", "prior"]


def check_domain(values: object, name: str = "values") -> tuple:
    """A record domain: a non-empty list of distinct, hashable, non-float values."""
    if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Iterable):
        raise InvalidArgument(f"{name} = {values!r:.60} is not a list of record values",
                              argument=name, value=values)
    domain = tuple(values)
    if not domain:
        raise InvalidArgument(f"{name} = [] is empty; a record needs at least one value")
    for v in domain:
        if isinstance(v, float):
            raise InvalidNumber(f"{name} contains the float {v!r}; use integers or strings",
                                argument=name, value=values)
        try:
            hash(v)
        except TypeError:
            raise InvalidArgument(f"{name} contains {v!r:.60}, which is not hashable",
                                  argument=name, value=values) from None
    if len(set(domain)) != len(domain):
        raise InvalidArgument(f"{name} = {list(domain)!r:.80} has repeated values",
                              argument=name, value=values)
    return domain


def check_records(n: object, name: str = "records") -> int:
    """The number of records: a positive ``int``."""
    return positive_int(n, name)


def prior(weights: Sequence[object] | Mapping[Hashable, object] | Dist, values: Sequence[Hashable],
          name: str = "prior") -> Dist:
    """A prior over ``values``: a :class:`Dist`, a mapping, or weights listed in domain order."""
    domain = check_domain(values)
    if isinstance(weights, Dist):
        d = weights
    elif isinstance(weights, Mapping):
        d = Dist(weights, name=name)
    else:
        if isinstance(weights, (str, bytes)) or not isinstance(weights, Iterable):
            raise InvalidDistribution(f"{name} = {weights!r} is not a list of weights")
        weights = list(weights)
        if len(weights) != len(domain):
            raise InvalidDistribution(
                f"{name} has {counted(len(weights), 'weight')} for "
                f"{counted(len(domain), 'value')} {list(domain)!r}"
            )
        d = Dist(zip(domain, weights, strict=True), name=name)
    outside = [v for v in d.support if v not in domain]
    if outside:
        raise InvalidDistribution(f"{name} gives weight to {outside[0]!r}, not in values")
    return d


@dataclass(frozen=True, eq=False)
class DataModel(ABC):
    """A distribution θ over databases of ``n`` records with values in ``values``."""

    values: tuple
    n: int

    @abstractmethod
    def distribution(self, budget: Budget | None = None) -> Dist:
        """θ as an explicit :class:`Dist` over database tuples (enumerated within budget)."""

    @abstractmethod
    def describe(self) -> str:
        """One line saying what θ is."""


@dataclass(frozen=True, eq=False)
class ExplicitData(DataModel):
    """θ given database by database."""

    dist: Dist = None  # type: ignore[assignment]

    def distribution(self, budget: Budget | None = None) -> Dist:
        return self.dist

    def describe(self) -> str:
        return (f"explicit distribution over {counted(len(self.dist), 'database')} of "
                f"{counted(self.n, 'record')}")


@dataclass(frozen=True, eq=False)
class IndependentData(DataModel):
    """Independent records, record ``j`` drawn from ``priors[j]``."""

    priors: tuple = ()

    @property
    def identical(self) -> bool:
        return all(p == self.priors[0] for p in self.priors)

    def distribution(self, budget: Budget | None = None) -> Dist:
        support = 1
        for p in self.priors:
            support *= len(p)
        budget = budget or Budget()
        if support > budget.max_databases:
            check_database_count(len(self.values), self.n, budget)
        return Dist.product(self.priors)

    def describe(self) -> str:
        def show(p: Dist) -> str:
            return "[" + ", ".join(str(p[v]) for v in self.values) + "]"
        if self.identical:
            return f"{self.n} i.i.d. records, prior {show(self.priors[0])} over {list(self.values)}"
        return f"{self.n} independent records, priors {', '.join(show(p) for p in self.priors)}"


def iid(weights, values: Sequence[Hashable], n: int) -> IndependentData:
    """``n`` i.i.d. records with the given prior over ``values``."""
    domain = check_domain(values)
    n = check_records(n)
    p = prior(weights, domain)
    return IndependentData(domain, n, (p,) * n)


def independent(priors: Sequence, values: Sequence[Hashable]) -> IndependentData:
    """Independent records with one prior each."""
    domain = check_domain(values)
    if not priors:
        raise InvalidArgument("priors = [] is empty; give one prior per record")
    ps = tuple(prior(w, domain, f"priors[{j}]") for j, w in enumerate(priors))
    return IndependentData(domain, len(ps), ps)


def explicit(dist: Dist | Mapping, values: Sequence[Hashable] | None = None) -> ExplicitData:
    """θ as an explicit distribution over database tuples of one length."""
    d = dist if isinstance(dist, Dist) else Dist(dist, name="databases")
    databases = [db for db in d.support if isinstance(db, tuple)]
    lengths = {len(db) for db in databases}
    if len(lengths) != 1 or len(databases) != len(d.support):
        raise InvalidArgument("databases must all be tuples of the same length")
    if values is None:
        values = sorted({x for db in databases for x in db}, key=sort_key)
    domain = check_domain(values)
    for db in databases:
        for x in db:
            if x not in domain:
                raise InvalidArgument(f"database {list(db)!r} has a record {x!r} not in values")
    return ExplicitData(domain, lengths.pop(), d)

