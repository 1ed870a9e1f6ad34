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
    [limits]     datasets = budget
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gmpy2 import mpq

from verifier.core.errors import SpecError, VerifierError
from verifier.core.numbers import rational
from verifier.io.files import check_tables, read_toml
from verifier.model.mechanisms import load_function
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
from verifier.pso.success import (
    DEFAULT_BUDGET,
    Admissible,
    PSOMechanism,
    baseline,
)

__all__ = ['PSOSpec', 'load_pso_spec']

_KEYS = {
    "universe": {"bits", "values", "weights"},
    "rows": {"n"},
    "mechanism": {"kind", "predicate", "predicates", "base", "k", "truth", "function",
                  "symmetric"},
    "adversary": {"kind", "function", "weight_at_most", "weight_at_least"},
    "claim": {"factor", "slack"},
    "limits": {"datasets"},
}


@dataclass(frozen=True)
class PSOSpec:
    universe: Universe
    n: int
    mechanism: PSOMechanism
    adversary: str
    attack: object  # callable output -> predicate, for non-optimal adversaries
    admissible: Admissible
    factor: mpq
    slack: mpq
    budget: int


def load_pso_spec(path: str | Path) -> PSOSpec:
    file = str(path)
    raw = read_toml(path)
    check_tables(raw, _KEYS, file)
    key = "universe"
    search_dir = Path(path).resolve().parent
    try:
        u = raw.get("universe", {})
        if ("bits" in u) == ("values" in u):
            raise SpecError("give exactly one of bits, values", file=file, key="universe")
        universe = Universe.bit_strings(u["bits"], u.get("weights")) if "bits" in u else \
            Universe.of_values(u["values"], u.get("weights"))
        key = "rows.n"
        n = raw.get("rows", {}).get("n")
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise SpecError(f"n = {n!r} must be a positive integer", file=file, key=key)
        key = "mechanism"
        m = raw.get("mechanism", {})
        kind = m.get("kind")
        if kind not in MECHANISMS:
            raise SpecError(f"kind = {kind!r} is not one of {', '.join(MECHANISMS)}",
                            file=file, key="mechanism.kind")
        mech = _mechanism(kind, m, universe, search_dir)
        key = "adversary"
        a = raw.get("adversary", {})
        akind = a.get("kind", "optimal")
        if akind not in ATTACKS:
            raise SpecError(f"kind = {akind!r} is not one of {', '.join(ATTACKS)}",
                            file=file, key="adversary.kind")
        admissible = Admissible(
            rational(a["weight_at_most"], "weight_at_most") if "weight_at_most" in a else None,
            rational(a["weight_at_least"], "weight_at_least") if "weight_at_least" in a else None)
        attack = _attack(akind, a, universe, m, n, admissible, search_dir)
        key = "claim"
        c = raw.get("claim", {})
        factor = rational(c.get("factor", 1), "factor")
        slack = rational(c.get("slack", 0), "slack")
        key = "limits.datasets"
        budget = raw.get("limits", {}).get("datasets", DEFAULT_BUDGET)
    except SpecError:
        raise
    except VerifierError as exc:
        raise SpecError(str(exc), file=file, key=key) from None
    return PSOSpec(universe, n, mech, akind, attack, admissible, factor, slack, budget)


def _mechanism(kind: str, m: dict, universe: Universe, search_dir: Path) -> PSOMechanism:
    if kind == "count":
        return count_mechanism(parse_predicate(m.get("predicate"), universe))
    if kind == "counts":
        return counts_mechanism([parse_predicate(q, universe) for q in m.get("predicates", [])])
    if kind == "composition_counts":
        return composition_counts(universe, parse_predicate(m.get("base"), universe))
    if kind == "predicate":
        return predicate_mechanism(parse_predicate(m.get("predicate"), universe))
    if kind == "bit_predicates":
        return bit_predicates(universe)
    if kind == "bit_suppression":
        return bit_suppression(universe, m.get("k"))
    if kind == "interval_buckets":
        return interval_buckets(m.get("k"))
    if kind == "randomized_response":
        return randomized_response_rows(universe, m.get("truth"))
    if kind == "identity":
        return identity_mechanism()
    f = load_function(m.get("function"), search_dir=search_dir, name="function")
    return PSOMechanism(m.get("function"), f, bool(m.get("symmetric", False)))


def _attack(kind: str, a: dict, universe: Universe, m: dict, n: int, admissible: Admissible,
            search_dir: Path):
    if kind == "optimal":
        return None
    if kind == "trivial":
        _, _, members = baseline(universe, n, admissible)
        pred = Predicate(members, "baseline predicate")
        return lambda out: pred
    if kind == "composition":
        return composition_attack(universe)
    if kind == "full":
        return full_attack(universe)
    if kind == "bit_suppression":
        return bit_suppression_attack(universe, m.get("k"))
    if kind == "interval_buckets":
        return interval_attack
    return load_function(a.get("function"), search_dir=search_dir, name="function")


