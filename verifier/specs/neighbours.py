"""The ``[input]`` and ``[neighbours]`` tables of a check spec: what classical DP ranges over.

::

    [input]                 # the inputs themselves, instead of [data] records
    coordinates = 3         # vectors of 3 integers ...
    range = [0, 2]          # ... each in 0..2 (or: vectors = [[0, 0, 1], ...])
    [neighbours]
    relation = "linf"       # "replace-one", "add-remove-one", "linf", "l1", "pairs",
    distance = 1            #   or a predicate "module:function"; pairs = [[x, y], ...]

Without ``[input]`` the inputs are the databases of ``[data]`` (``records`` records over
``values``); without ``[neighbours]`` the relation is ``replace-one`` (seed 003,
Definition 2), or ``linf`` with distance 1 for ``[input]`` vectors.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import product

from verifier.core.budget import Budget
from verifier.core.errors import did_you_mean
from verifier.model.sandbox import Sandbox
from verifier.model.user_code import load_from
from verifier.notions.dp.neighbours import (
    RELATIONS,
    Relation,
    add_remove_one,
    explicit_pairs,
    predicate_relation,
    replace_one,
    vector_relation,
    vectors,
)
from verifier.specs.keys import Table, integer_value, list_of, record_value

__all__ = ["INPUT_KEYS", "NEIGHBOURS_KEYS", "read_input", "read_relation"]

INPUT_KEYS = {"coordinates", "range", "vectors"}
NEIGHBOURS_KEYS = {"relation", "distance", "pairs"}


def _vector(value: object, name: str) -> tuple:
    return tuple(list_of(value, name, integer_value))


def read_input(table: Table) -> tuple[tuple, int, tuple[tuple, ...]]:
    """``(values, coordinates, inputs)`` of an ``[input]`` table: the integers a coordinate
    takes, the length of a vector, and every input vector."""
    if "vectors" in table:
        if table.given("coordinates", "range"):
            raise table.fail("vectors", "give either vectors or coordinates and range")
        listed = table.list_of("vectors", _vector)
        xs = tuple(dict.fromkeys(listed))
        if len(xs) != len(listed):
            twice = next(x for j, x in enumerate(listed) if x in listed[:j])
            raise table.fail("vectors", f"vectors lists {list(twice)} twice", list(twice))
        lengths = sorted({len(x) for x in xs})
        if len(lengths) != 1:
            raise table.fail("vectors", f"vectors of different lengths {lengths}")
        values = tuple(sorted({v for x in xs for v in x}))
        return values, lengths[0], xs
    coordinates = table.integer("coordinates", lo=1, hi=64,
                                missing="missing: the length of an input vector")
    lo, hi = table.list_of("range", integer_value, length=2,
                           missing="missing: [lo, hi], the integers a coordinate takes")
    if lo > hi:
        raise table.fail("range", f"range = [{lo}, {hi}] is empty", [lo, hi])
    count = (hi - lo + 1) ** coordinates if coordinates * (hi - lo + 1).bit_length() < 64 \
        else 1 << 64
    if count > 1 << 20:
        raise table.fail("coordinates", f"{hi - lo + 1}^{coordinates} input vectors exceed "
                                        f"1048576; use fewer coordinates or a smaller range")
    return tuple(range(lo, hi + 1)), coordinates, vectors(coordinates, lo, hi)


def read_relation(table: Table, values: tuple, records: int, inputs: tuple[tuple, ...] | None,
                  where: Sandbox | None, budget: Budget | None = None) -> Relation:
    """The relation of a ``[neighbours]`` table over ``inputs`` (``[input]`` vectors) or, when
    ``inputs`` is None, the databases of ``records`` records over ``values`` — enumerated
    within ``budget``'s ``databases`` limit (``limits.databases``), which the relation keeps
    (its ``values`` and ``records``) so that a lower limit given later applies too."""
    if inputs is not None and "relation" not in table:
        raise table.fail("relation", "missing: [input] gives vectors, which replace-one (the "
                                     "default, over databases) does not compare; name the "
                                     'relation, e.g. relation = "linf" with distance = 1')
    name = table.string("relation", default="replace-one")
    if name not in RELATIONS and ":" not in name:
        raise table.fail("relation", f"relation = {name!r} is not one of "
                                     f"{', '.join(RELATIONS)} or a predicate "
                                     f'"module:function"{did_you_mean(name, RELATIONS)}', name)
    extra = [k for k in table.given("distance", "pairs")
             if not (k == "distance" and name in ("linf", "l1"))
             and not (k == "pairs" and name == "pairs")]
    if extra:
        raise table.fail(extra[0], f"relation = {name!r} takes no {extra[0]}",
                         table.get(extra[0]))
    if name in ("replace-one", "add-remove-one"):
        if inputs is not None:
            raise table.fail("relation", f"relation = {name!r} compares databases: give "
                                         f"[data] records and values instead of [input]", name)
        build = replace_one if name == "replace-one" else add_remove_one
        return table.check("relation", build, values, records)
    if inputs is None:
        table.check("relation", (budget or Budget()).require_power, "databases", len(values),
                    records, f"relation = {name!r} enumerates the databases one by one")
    everything = inputs if inputs is not None else tuple(product(values, repeat=records))

    def over_data(relation: Relation) -> Relation:  # the databases, kept for the budget
        return relation if inputs is not None else replace(relation, values=tuple(values),
                                                           records=records)
    if name in ("linf", "l1"):
        distance = table.integer("distance", lo=1, default=1)
        return over_data(table.check("relation", vector_relation, name, distance, everything))
    if name == "pairs":
        known = set(everything)
        pair = lambda v, k: list_of(v, k, lambda x, kk: tuple(list_of(  # noqa: E731
            x, kk, record_value)), length=2)
        pairs = table.list_of("pairs", pair, missing="missing: list [x, y] pairs of inputs")
        for j, (x, y) in enumerate(pairs):
            for z in (x, y):
                if z not in known:
                    raise table.fail("pairs", f"pairs[{j}]: {list(z)} is not an input",
                                     [list(x), list(y)])
        return table.check("pairs", explicit_pairs, pairs)
    f = table.read("relation", lambda ref, k: load_from(ref, where, k))
    return over_data(table.check("relation", predicate_relation, name, f, everything))
