"""The baseline of predicate singling out: what a trivial adversary achieves (seed 002).

A fixed predicate of weight ``w'`` isolates a row of ``n`` i.i.d. rows with probability
``B(n, w') = n·w'·(1 − w')^(n−1)`` (Definition 3.4, Claim 3.1), which increases up to
``w' = 1/n`` and decreases after; the best trivial adversary takes the admissible
(Definition 3.5) realizable weight nearest ``1/n`` from either side. The realizable weights
are the subset sums of ``D``'s weights, built by weight class and bounded before any is built.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

from gmpy2 import lcm, mpq, mpz

from verifier.core.budget import LIMITS, Budget
from verifier.pso.predicates import Universe

__all__ = ["isolation_probability", "realizable_weights", "baseline", "Admissible",
           "as_budget", "DEFAULT_BUDGET"]

DEFAULT_BUDGET = LIMITS["datasets"].default


def as_budget(budget: Budget | int | None) -> Budget:
    """A :class:`Budget`; a bare integer is the ``limits.datasets`` limit."""
    if budget is None:
        return Budget()
    if isinstance(budget, Budget):
        return budget
    return Budget(max_datasets=budget)


def isolation_probability(n: int, w: object) -> mpq:
    """``B(n, w) = n·w·(1 − w)^(n−1)``: the chance a fixed predicate of weight ``w`` isolates."""
    w = mpq(w)
    return n * w * (1 - w) ** (n - 1)


@dataclass(frozen=True)
class Admissible:
    """Admissible predicates: weight ``≤ at_most`` and/or ``≥ at_least`` (Definition 3.5)."""

    at_most: mpq | None = None
    at_least: mpq | None = None

    def __call__(self, w: mpq) -> bool:
        return (self.at_most is None or w <= self.at_most) and (
            self.at_least is None or w >= self.at_least)

    def __str__(self) -> str:
        parts = []
        if self.at_most is not None:
            parts.append(f"w(p) ≤ {self.at_most}")
        if self.at_least is not None:
            parts.append(f"w(p) ≥ {self.at_least}")
        return " and ".join(parts) or "any weight"


def _weight_sums(universe: Universe, budget: Budget) -> tuple[dict, dict]:
    """Every realizable weight ``t`` with how it was reached: ``t ↦ (s, w, j)`` means
    ``t = s + j·w`` with ``j`` values of weight ``w`` added to a predicate of weight ``s``.

    Values of equal weight ``w`` (``c`` of them) add ``j·w`` for ``j = 0 … c`` at once, so a
    uniform universe of any size costs ``|X|`` steps; the number of distinct weights is
    checked against ``limits.predicates`` as it grows. Predicates are rebuilt only for the
    weights asked for (:func:`_members`), never stored.
    """
    by_weight: dict[mpq, list] = {}
    for u in universe.values:
        by_weight.setdefault(universe.dist[u], []).append(u)
    budget.require("predicates", _weight_sums_bound(by_weight, budget.limit("predicates")),
                   "distinct predicate weights under D (at most: Π (values of each weight + 1),"
                   " and at most 1 + the common denominator)",
                   ", or use a smaller universe or a uniform distribution")
    sums: dict[mpq, tuple | None] = {mpq(0): None}
    for w, vals in by_weight.items():
        for s in list(sums):
            for j in range(1, len(vals) + 1):
                t = s + j * w
                if t not in sums:
                    sums[t] = (s, w, j)
            budget.require("predicates", len(sums), "distinct predicate weights under D",
                           ", or use a smaller universe or a uniform distribution")
    return sums, by_weight


def _weight_sums_bound(by_weight: dict, cap: int) -> int:
    """An upper bound on the number of realizable weights, known before any is built: a
    predicate takes ``j ∈ 0 … c`` of the ``c`` values of each weight (``Π (c + 1)``), and a
    weight is a multiple of ``1/L`` in ``[0, 1]`` for ``L`` the common denominator
    (``L + 1``). Past ``cap`` the product is not pursued."""
    product = 1
    for vals in by_weight.values():
        product *= len(vals) + 1
        if product > cap:
            break
    common = mpz(1)
    for w in by_weight:
        common = lcm(common, w.denominator)
        if common > cap:
            break
    return min(product, int(common) + 1)


def _members(sums: dict, by_weight: dict, t: mpq) -> frozenset:
    out: list = []
    step = sums[t]
    while step is not None:
        s, w, j = step
        out += by_weight[w][:j]
        step = sums[s]
    return frozenset(out)


def realizable_weights(universe: Universe, budget: Budget | int | None = None
                       ) -> dict[mpq, frozenset]:
    """Every weight ``w(p)`` a predicate can have under ``D``, with one predicate realising it
    (for small universes; :func:`baseline` builds only the predicate it reports)."""
    sums, by_weight = _weight_sums(universe, as_budget(budget))
    return {t: _members(sums, by_weight, t) for t in sums}


def baseline(universe: Universe, n: int, admissible: Admissible,
             budget: Budget | int | None = None) -> tuple[mpq, mpq | None, frozenset]:
    """The best trivial adversary (Claim 3.1): ``(B(n, w*), w*, a predicate of weight w*)``."""
    b = as_budget(budget)
    b.check_records(n, "rows.n")  # B(n, w) has about n·log2(den w) bits
    sums, by_weight = _weight_sums(universe, b)
    ok = sorted(w for w in sums if admissible(w))
    if not ok:
        return mpq(0), None, frozenset()
    i = bisect_left(ok, mpq(1, n))
    candidates = [ok[j] for j in (i - 1, i) if 0 <= j < len(ok)]
    best = max(candidates, key=lambda w: (isolation_probability(n, w), -w))
    return isolation_probability(n, best), best, _members(sums, by_weight, best)
