"""Singling-out spec files (``plrv pso``): TOML tables read into a :class:`PSOSpec`.

Spec (TOML)::

    [universe]   bits = d  |  values = [...];  weights = [...] (default: uniform)
    [rows]       n = 4
    [mechanism]  kind (see verifier.pso.attacks.MECHANISMS) and its keys:
                 predicate = "..." (count, predicate), predicates = [...] (counts),
                 base = "..." (composition_counts), k = 2 (bit_suppression,
                 interval_buckets), truth = "3/4" (randomized_response),
                 function = "module:function" with symmetric = true|false (function)
    [adversary]  kind = "optimal" | "trivial" | "composition" | "full" | "bit_suppression"
                 | "interval_buckets" | "function" (function = "module:function");
                 weight_at_most = "1/64" and/or weight_at_least = "..."
    [claim]      factor = c (default 1), slack = δ (default 0):  Succ ≤ c·baseline + δ
    [limits]     records, datasets, predicates, user_seconds, user_memory
                 (verifier.core.budget.PSO_LIMITS)
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from gmpy2 import mpq

from verifier.core.budget import PSO_LIMITS, Budget, budget_from_limits
from verifier.core.distribution import BOTTOM, Dist
from verifier.core.numbers import nonnegative, probability
from verifier.model.sandbox import Sandbox, sandbox_for
from verifier.model.sandbox_wire import Labelled
from verifier.model.user_code import UserFunction, as_output_dist, load_from
from verifier.pso.attacks import (
    ATTACKS,
    MECHANISMS,
    bit_predicates,
    bit_suppression,
    bit_suppression_attack,
    composition_attack,
    composition_counts,
    count_mechanism,
    counts_mechanism,
    full_attack,
    identity_mechanism,
    interval_attack,
    interval_buckets,
    predicate_mechanism,
    randomized_response_rows,
)
from verifier.pso.predicates import Predicate, Universe, parse_predicate
from verifier.pso.problem import PSOProblem
from verifier.pso.success import (
    Admissible,
    PSOMechanism,
    baseline,
)
from verifier.specs.files import check_kind, check_tables, read_toml
from verifier.specs.keys import Document, Table, anything, list_of, record_value, string

__all__ = ['PSOSpec', 'load_pso_spec', 'MECHANISM_KEYS']

_KEYS = {
    "universe": {"bits", "values", "weights"},
    "rows": {"n"},
    "mechanism": {"kind", "predicate", "predicates", "base", "k", "truth", "function",
                  "symmetric"},
    "adversary": {"kind", "function", "weight_at_most", "weight_at_least"},
    "claim": {"factor", "slack"},
    "limits": set(PSO_LIMITS),
}
MAX_BITS = 16
MECHANISM_KEYS = {  # kind -> the keys it takes besides kind
    "count": {"predicate"}, "counts": {"predicates"}, "composition_counts": {"base"},
    "predicate": {"predicate"}, "bit_predicates": set(), "bit_suppression": {"k"},
    "interval_buckets": {"k"}, "randomized_response": {"truth"}, "identity": set(),
    "function": {"function", "symmetric"},
}


PSOSpec = PSOProblem  # the name the readers and commands use


def load_pso_spec(path: str | Path) -> PSOSpec:
    """Read a singling-out spec; every problem is a :class:`SpecError` naming file and key."""
    file = str(path)
    raw = read_toml(path)
    check_kind(raw, "pso", file)
    check_tables(raw, _KEYS, file)
    search_dir = Path(path).resolve().parent
    doc = Document(raw, file)
    u = doc.table("universe", required=True)
    rows, limits = doc.table("rows", required=True), doc.table("limits")
    m = doc.table("mechanism", required=True)
    a, c = doc.table("adversary"), doc.table("claim")

    universe = _universe(u)
    n = rows.integer("n", lo=1, missing="missing: the number of rows n")
    budget = budget_from_limits(limits.rest(), PSO_LIMITS, file)
    rows.check("n", budget.check_records, n, "rows.n")  # before anything of size n exists
    kind = m.string("kind", MECHANISMS, missing="missing: name the mechanism kind")
    m.only({"kind", *MECHANISM_KEYS[kind]}, f"mechanism kind {kind!r}")
    where = sandbox_for(search_dir, budget)  # user code: its own process, under the limits
    mech = _mechanism(kind, m, universe, where)
    akind = a.string("kind", ATTACKS, "optimal")
    a.only({"kind", "weight_at_most", "weight_at_least", *(("function",) if akind == "function"
                                                           else ())}, f"adversary kind {akind!r}")
    at_most = a.rational("weight_at_most", None, probability)
    at_least = a.rational("weight_at_least", None, probability)
    if at_most is not None and at_least is not None and at_least > at_most:
        raise a.fail("weight_at_least", f"weight_at_least = {at_least} is above weight_at_most "
                                        f"= {at_most}: no predicate weight is admissible",
                     a.get("weight_at_least"))
    admissible = Admissible(at_most, at_least)
    attack = _attack(akind, a, universe, m, n, admissible, where, budget)
    factor = c.rational("factor", mpq(1), nonnegative)
    slack = c.rational("slack", mpq(0), nonnegative)
    doc.finish(f"plrv pso with mechanism kind {kind!r} and adversary kind {akind!r}")
    return PSOSpec(universe, n, mech, akind, attack, admissible, factor, slack, budget)


def _universe(u: Table) -> Universe:
    given = u.given("bits", "values")
    if len(given) != 1:
        raise u.fail("", "give exactly one of bits, values")
    if "bits" in u:
        d = u.integer("bits", 1, MAX_BITS)
        size = 2 ** d
    else:
        vals = u.read("values", lambda v, k: list_of(v, k, record_value))
        if len(set(vals)) != len(vals):
            raise u.fail("values", f"values = {vals!r:.60} repeats a value", u.get("values"))
        size = len(vals)
    weights = u.list_of("weights", anything, None, length=size) if "weights" in u else None
    if "bits" in u:
        return u.check("weights" if weights is not None else "bits",
                       Universe.bit_strings, d, weights)
    return u.check("weights" if weights is not None else "values", Universe.of_values, vals,
                   weights)


def _predicate(m: Table, key: str, universe: Universe) -> Predicate:
    return m.read(key, lambda text, k: parse_predicate(string(text, k), universe))


def _mechanism(kind: str, m: Table, universe: Universe, where: Sandbox | None
               ) -> PSOMechanism:
    if kind == "count":
        return count_mechanism(_predicate(m, "predicate", universe))
    if kind == "counts":
        qs = m.list_of("predicates", lambda t, k: parse_predicate(string(t, k), universe))
        return counts_mechanism(qs)
    if kind == "composition_counts":
        base = _predicate(m, "base", universe)
        return m.check("base", composition_counts, universe, base)
    if kind == "predicate":
        return predicate_mechanism(_predicate(m, "predicate", universe))
    if kind == "bit_predicates":
        return m.check("kind", bit_predicates, universe)
    if kind == "bit_suppression":
        return m.check("k", bit_suppression, universe, m.integer("k", lo=1))
    if kind == "interval_buckets":
        return m.check("k", interval_buckets, m.integer("k", lo=1))
    if kind == "randomized_response":
        truth = m.rational("truth", check=probability)
        return m.check("truth", randomized_response_rows, universe, truth)
    if kind == "identity":
        return identity_mechanism()
    f = m.read("function", lambda ref, k: load_from(ref, where, k))
    symmetric = m.boolean("symmetric", False)
    return PSOMechanism(f.reference, lambda rows: as_output_dist(f(rows), f), symmetric,
                        prefetch=lambda datasets: f.prefetch((rows,) for rows in datasets))


def _checked_attack(f: UserFunction) -> Callable[[object], object]:
    """A user adversary whose answers are checked: a predicate (a set or list of values, a
    :class:`Predicate`), a tuple of predicates, ``None``, or a ``Dist`` of these."""
    def ok(value: object) -> bool:
        if value is None or value is BOTTOM or isinstance(value, (Predicate, set, frozenset,
                                                                   list)):
            return True
        return isinstance(value, tuple) and bool(value) and \
            all(isinstance(v, Predicate) for v in value)

    def attack(output: object) -> object:
        value = _predicates(f(output))
        if isinstance(value, Dist):
            bad = [v for v in value.support if not ok(v)]
        else:
            bad = [] if ok(value) else [value]
        if bad:
            raise f.fail(f"returned {bad[0]!r:.60}; an adversary returns a predicate (a set "
                         f"of values), a tuple of predicates, None, or a Dist of these")
        return value
    return attack


def _predicates(value: object) -> object:
    """Predicates an isolated adversary returned (read as members and label) as predicates."""
    if isinstance(value, Labelled):
        return Predicate(value.members, value.label)
    if isinstance(value, tuple):
        return tuple(_predicates(v) for v in value)
    if isinstance(value, Dist):
        return value.map(_predicates)
    return value


def _attack(kind: str, a: Table, universe: Universe, m: Table, n: int, admissible: Admissible,
            where: Sandbox | None, budget: Budget):
    if kind == "optimal":
        return None
    if kind == "trivial":
        _, _, members = a.check("kind", baseline, universe, n, admissible, budget)
        pred = Predicate(members, "baseline predicate")
        return lambda out: pred
    if kind == "composition":
        return a.check("kind", composition_attack, universe)
    if kind == "full":
        return a.check("kind", full_attack, universe)
    if kind == "bit_suppression":
        return a.check("kind", bit_suppression_attack, universe, m.integer("k", lo=1))
    if kind == "interval_buckets":
        return interval_attack
    f = a.read("function", lambda ref, k: load_from(ref, where, k))
    return _checked_attack(f)
