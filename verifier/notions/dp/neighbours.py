"""Neighbouring relations for classical (ε, δ)-DP.

Classical DP (seed 003, Definition 2; REFERENCE.md §3, Lemma 1) quantifies over the ordered
pairs of a *neighbouring relation* ``~``::

    δ(ε) = max_{x ~ y} Σ_O max(0, P[M(x)=O] − e^ε·P[M(y)=O])

The relations its community states claims with:

- ``replace-one``: databases of ``n`` records that differ in the value of one record (the
  relation of seed 003, Definition 2; :func:`verifier.notions.dp.brute.dp_cases`);
- ``add-remove-one``: a database of ``n`` records and the database of ``n − 1`` records left
  when one is removed, in both directions (dp_accounting's ``ADD_OR_REMOVE_ONE``);
- ``linf`` / ``l1``: inputs given as integer vectors, neighbours when ``‖x − y‖ ≤ distance``
  (the query-answer vectors of the DP-testing literature: ``linf`` with distance 1);
- ``pairs``: an explicit list of neighbouring inputs (both directions count);
- a predicate ``"module:function"``: ``f(x, y)`` true when ``x ~ y``.

Every relation is used with ordered pairs ``x ≠ y``: a claim must hold in both directions.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import product

from gmpy2 import comb

from verifier.core.budget import Budget, format_size
from verifier.core.distribution import Dist
from verifier.core.epsilon import parse_epsilon
from verifier.core.errors import InvalidArgument
from verifier.core.numbers import counted, probability
from verifier.engines.counts import compositions
from verifier.model.data import check_domain
from verifier.model.mechanisms import Mechanism
from verifier.model.program_mechanism import as_mechanism
from verifier.notions.dp.brute import dp_cases
from verifier.notions.dp.pairs import LossMemo
from verifier.notions.loss import output_losses
from verifier.notions.result import Case, NotionResult, summarize

__all__ = ["Relation", "RELATIONS", "replace_one", "add_remove_one", "vector_relation",
           "explicit_pairs", "predicate_relation", "relation_cases", "relation_pairs",
           "vectors", "check_relation"]

RELATIONS = ("replace-one", "add-remove-one", "linf", "l1", "pairs")  # or "module:function"
Input = tuple


@dataclass(frozen=True)
class Relation:
    """A neighbouring relation: its name, and the inputs or databases it ranges over.

    ``values`` and ``records`` describe databases (``replace-one``, ``add-remove-one``, and
    the other relations when their inputs are databases: enumerated within the budget's
    ``databases`` limit); ``inputs`` lists the inputs of the other relations;
    ``related(x, y)`` decides ``x ~ y`` for ``linf``, ``l1`` and a predicate; ``pairs``
    lists them for ``pairs``.
    """

    name: str
    values: tuple = ()
    records: int = 0
    inputs: tuple[Input, ...] = ()
    related: Callable[[Input, Input], bool] | None = field(default=None, compare=False)
    pairs: tuple[tuple[Input, Input], ...] = ()
    distance: int | None = None

    def describe(self) -> str:
        if self.name in ("replace-one", "add-remove-one"):
            return (f"{self.name} over databases of {counted(self.records, 'record')} over "
                    f"{counted(len(self.values), 'value')}")
        what = f"{self.name} (distance {self.distance})" if self.distance is not None \
            else self.name
        return f"{what} over {counted(len(self.inputs), 'input')}"


def replace_one(values: Sequence[Hashable], records: int) -> Relation:
    """Databases of ``records`` records over ``values`` differing in one record's value."""
    return Relation("replace-one", check_domain(values), _records(records))


def add_remove_one(values: Sequence[Hashable], records: int) -> Relation:
    """A database of ``records`` records and each database of ``records − 1`` records
    obtained by removing one of them, in both directions."""
    return Relation("add-remove-one", check_domain(values), _records(records))


def _records(n: object) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InvalidArgument(f"records = {n!r} is not a positive integer", argument="records",
                              value=n)
    return n


def vectors(coordinates: int, lo: int, hi: int) -> tuple[Input, ...]:
    """Every integer vector of ``coordinates`` coordinates, each in ``lo..hi``."""
    if isinstance(coordinates, bool) or not isinstance(coordinates, int) or coordinates < 1:
        raise InvalidArgument(f"coordinates = {coordinates!r} is not a positive integer",
                              argument="coordinates", value=coordinates)
    if lo > hi:
        raise InvalidArgument(f"range = [{lo}, {hi}] is empty", argument="range", value=[lo, hi])
    return tuple(product(range(lo, hi + 1), repeat=coordinates))


def _inputs(inputs: Sequence[Sequence[Hashable]]) -> tuple[Input, ...]:
    out = tuple(dict.fromkeys(tuple(x) for x in inputs))
    if len(out) < 2:
        raise InvalidArgument(f"inputs = {list(inputs)!r:.60}: a relation needs two inputs",
                              argument="inputs", value=list(inputs))
    return out


def _linf(x: Input, y: Input) -> int:
    return max(abs(a - b) for a, b in zip(x, y, strict=True))


def _l1(x: Input, y: Input) -> int:
    return sum(abs(a - b) for a, b in zip(x, y, strict=True))


def vector_relation(norm: str, distance: int, inputs: Sequence[Sequence[int]]) -> Relation:
    """``x ~ y`` iff ``‖x − y‖ ≤ distance`` in the norm ``"linf"`` or ``"l1"``."""
    if norm not in ("linf", "l1"):
        raise InvalidArgument(f"relation = {norm!r} is not a vector distance (linf, l1)",
                              argument="relation", value=norm)
    if isinstance(distance, bool) or not isinstance(distance, int) or distance < 1:
        raise InvalidArgument(f"distance = {distance!r} is not a positive integer",
                              argument="distance", value=distance)
    xs = _inputs(inputs)
    odd = [v for x in xs for v in x if isinstance(v, bool) or not isinstance(v, int)]
    if odd:
        raise InvalidArgument(f"relation = {norm!r} measures integer vectors; {odd[0]!r} is "
                              f"not an integer", argument="relation", value=norm)
    if len({len(x) for x in xs}) != 1:
        raise InvalidArgument("inputs: vectors of different lengths have no distance",
                              argument="inputs", value=[list(x) for x in xs[:4]])
    norm_f = _linf if norm == "linf" else _l1
    return Relation(norm, inputs=xs, related=lambda x, y: norm_f(x, y) <= distance,
                    distance=distance)


def explicit_pairs(pairs: Sequence[Sequence[Sequence[Hashable]]]) -> Relation:
    """The listed pairs ``[x, y]`` are neighbours, in both directions."""
    ordered: dict[tuple[Input, Input], None] = {}
    for j, pair in enumerate(pairs):
        if len(pair) != 2:
            raise InvalidArgument(f"pairs[{j}] has {len(pair)} elements, not 2",
                                  argument="pairs", value=list(pair))
        x, y = tuple(pair[0]), tuple(pair[1])
        if x == y:
            raise InvalidArgument(f"pairs[{j}] = {[list(x), list(y)]!r}: an input is not its "
                                  f"own neighbour", argument="pairs", value=list(pair))
        if (x, y) in ordered:
            raise InvalidArgument(f"pairs[{j}] = {[list(x), list(y)]!r} is listed twice (each "
                                  f"pair counts in both directions)", argument="pairs",
                                  value=list(pair))
        ordered[(x, y)] = ordered[(y, x)] = None
    if not ordered:
        raise InvalidArgument("pairs = []: list at least one pair of neighbours",
                              argument="pairs", value=[])
    return Relation("pairs", inputs=tuple(dict.fromkeys(x for p in ordered for x in p)),
                    pairs=tuple(ordered))


def predicate_relation(name: str, f: Callable[[Input, Input], object],
                       inputs: Sequence[Sequence[Hashable]]) -> Relation:
    """``x ~ y`` iff ``f(x, y)`` is true (it must return a boolean); ``name`` names it."""
    def related(x: Input, y: Input) -> bool:
        answer = f(x, y)
        if not isinstance(answer, bool):
            raise InvalidArgument(f"relation {name}({list(x)}, {list(y)}) returned "
                                  f"{answer!r:.40}, not a boolean", argument="relation",
                                  value=name)
        return answer

    return Relation(name, inputs=_inputs(inputs), related=related)


# ------------------------------------------------------------------------------ cases

def _case(relation: Relation, x: Input, y: Input, p: Dist, q: Dist, memo: LossMemo) -> Case:
    key = "databases" if relation.name == "add-remove-one" else "inputs"
    return Case({"relation": relation.name, key: [list(x), list(y)]}, memo.loss(p, q),
                partial(_outputs, p, q), laws=(p, q))


def _outputs(p: Dist, q: Dist) -> list:
    return [(o, loss) for o, _, _, loss in output_losses(p, q)]


def _add_remove_by_counts(relation: Relation, mech: Mechanism, budget: Budget,
                          memo: LossMemo) -> Iterator[Case]:
    """A symmetric mechanism: ``(c + e_a, n)`` against ``(c, n − 1)`` for the counts ``c``
    of the ``n − 1`` records kept and the value ``a`` of the removed one, both directions."""
    domain, n = relation.values, relation.records
    k = len(domain)
    budget.require("combinations", int(comb(n - 1 + k - 1, k - 1)) * k * 2,
                   "dp by counts: add-remove-one count pairs")
    on_counts = mech.on_counts
    assert on_counts is not None
    mech.warm_counts(compositions(n - 1, k), domain)  # user code: a few round trips
    mech.warm_counts(compositions(n, k), domain)
    for c in compositions(n - 1, k):
        kept = tuple(v for v, m in zip(domain, c, strict=True) for _ in range(m))
        q = memo.intern(on_counts(dict(zip(domain, c, strict=True)), n - 1))
        for ai, a in enumerate(domain):
            p = memo.intern(on_counts(dict(zip(domain, (x + (j == ai) for j, x in
                                                         enumerate(c)), strict=True)), n))
            yield _case(relation, kept + (a,), kept, p, q, memo)
            yield _case(relation, kept, kept + (a,), q, p, memo)


def _runner(mech: Mechanism, memo: LossMemo) -> Callable[[Input], Dist]:
    """``mech`` on an input, run once per input and its law interned in ``memo``."""
    outputs: dict[Input, Dist] = {}

    def run(x: Input) -> Dist:
        if x not in outputs:
            outputs[x] = memo.intern(mech(x))
        return outputs[x]

    return run


def _add_remove_brute(relation: Relation, mech: Mechanism, budget: Budget,
                      memo: LossMemo) -> Iterator[Case]:
    domain, n = relation.values, relation.records
    total = budget.require_power("databases", len(domain), n,
                                 "dp add-remove-one: databases of n records")
    budget.require("work", total * n * 2, f"dp add-remove-one: databases × removals = "
                                          f"{format_size(total)} × {n}")
    run = _runner(mech, memo)
    mech.warm(product(domain, repeat=n))  # user code: the laws in a few round trips
    mech.warm(product(domain, repeat=n - 1))
    for big in product(domain, repeat=n):
        for i in range(n):
            small = big[:i] + big[i + 1:]
            if i and big[i] == big[i - 1]:
                continue  # removing either of two equal adjacent records leaves one database
            yield _case(relation, big, small, run(big), run(small), memo)
            yield _case(relation, small, big, run(small), run(big), memo)


def _ordered_pairs(relation: Relation, budget: Budget) -> Iterator[tuple[Input, Input]]:
    if relation.pairs:
        yield from relation.pairs
        return
    xs = relation.inputs
    if relation.records:  # the inputs are the databases of records records over values
        budget.require_power("databases", len(relation.values), relation.records,
                             f"{relation.name}: databases of n records")
    budget.require("work", len(xs) * len(xs), f"dp over {relation.name}: ordered pairs of "
                                              f"{format_size(len(xs))} inputs")
    related = relation.related
    assert related is not None
    if relation.name in ("linf", "l1"):  # symmetric by construction
        for x in xs:
            for y in xs:
                if x != y and related(x, y):
                    yield x, y
        return
    # a predicate: both directions are asked once, in enumeration order, and must agree
    reverse: set[tuple[int, int]] = set()
    for i, x in enumerate(xs):
        for j, y in enumerate(xs):
            if j < i:
                if (i, j) in reverse:
                    reverse.discard((i, j))
                    yield x, y
            elif j > i:
                forward, backward = related(x, y), related(y, x)
                if forward != backward:
                    raise InvalidArgument(
                        f"relation {relation.name} is not symmetric: {relation.name}"
                        f"({list(x)}, {list(y)}) is {forward} but {relation.name}({list(y)}, "
                        f"{list(x)}) is {backward}; neighbours are neighbours both ways",
                        argument="relation", value=relation.name)
                if backward:
                    reverse.add((j, i))
                if forward:
                    yield x, y


def relation_pairs(relation: Relation, budget: Budget | None = None
                   ) -> Iterator[tuple[Input, Input]]:
    """Every ordered pair ``x ~ y`` of ``relation``, one by one (databases included)."""
    budget = budget or Budget()
    if relation.name in ("replace-one", "add-remove-one"):
        domain, n = relation.values, relation.records
        total = budget.require_power("databases", len(domain), n,
                                     f"{relation.name}: databases of n records")
        budget.require("work", total * n * len(domain), f"{relation.name}: ordered pairs")
        for d in product(domain, repeat=n):
            for i in range(n):
                if relation.name == "replace-one":
                    for b in domain:
                        if b != d[i]:
                            yield d, d[:i] + (b,) + d[i + 1:]
                elif not (i and d[i] == d[i - 1]):
                    yield d, d[:i] + d[i + 1:]
                    yield d[:i] + d[i + 1:], d
        return
    yield from _ordered_pairs(relation, budget)


def relation_cases(relation: Relation, mech: Mechanism, budget: Budget | None = None,
                   engine: str = "auto", memo: LossMemo | None = None) -> Iterator[Case]:
    """One case per ordered pair ``x ~ y`` of ``relation``: the privacy loss of ``M(x)``
    against ``M(y)`` (seed 003, Definition 4), labelled with the relation and the inputs."""
    budget = budget or Budget()
    memo = memo if memo is not None else LossMemo()
    if relation.name == "replace-one":
        yield from dp_cases(mech, relation.values, relation.records, budget, engine, memo)
        return
    if relation.name == "add-remove-one":
        if engine == "counts" and not mech.symmetric:
            raise InvalidArgument(f"engine = 'counts' does not apply: the mechanism "
                                  f"{mech.name} is not declared symmetric")
        by_counts = mech.symmetric and engine != "brute"
        yield from (_add_remove_by_counts if by_counts else _add_remove_brute)(
            relation, mech, budget, memo)
        return
    if engine == "counts":
        raise InvalidArgument(f"engine = 'counts' does not apply to relation "
                              f"{relation.name!r}: its inputs are enumerated one by one")
    run = _runner(mech, memo)
    mech.warm(relation.inputs)  # user code: the laws in a few round trips
    for x, y in _ordered_pairs(relation, budget):
        yield _case(relation, x, y, run(x), run(y), memo)


def check_relation(mech: Mechanism, relation: Relation, epsilon: object = "0",
                   delta: object = "0", budget: Budget | None = None,
                   engine: str = "auto") -> NotionResult:
    """Decide (ε, δ)-DP of ``mech`` under ``relation``, exactly (seed 003, Lemma 1).

    >>> from verifier.model.mechanisms import mechanism
    >>> from verifier.model.noise import geometric
    >>> m = mechanism(lambda x: geometric(sum(x), "1/2", lo=0, hi=2))
    >>> r = check_relation(m, vector_relation("linf", 1, vectors(1, 0, 2)), "ln(2)")
    >>> str(r.delta), str(r.epsilon), r.holds
    ('0', 'ln(2)', True)
    """
    mech = as_mechanism(mech)
    eps = parse_epsilon(epsilon)
    d = probability(delta, "delta")
    return summarize("dp", relation_cases(relation, mech, budget, engine), eps, d)
