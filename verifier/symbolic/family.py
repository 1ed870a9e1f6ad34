"""Claims over a whole parameter family, decided by z3 and confirmed by the exact engine.

Question: does a mechanism satisfy (ε, δ)-DP for *every* value of one parameter in a closed
interval — randomized response for every ``truth ∈ [lo, hi]``, the geometric count for every
``α ∈ [lo, hi]``? The claim fails at ``t`` iff some ordered neighbouring pair has (seed 003,
Lemma 1)::

    Σ_O max(0, P_t[M(D1)=O] − e^ε·P_t[M(D2)=O]) > δ

with output probabilities that are rational functions of ``t``. The ordered pairs are those of
the spec's neighbouring relation (:mod:`verifier.notions.dp.neighbours`: ``replace-one`` by
default, ``add-remove-one``, ``linf`` / ``l1`` over ``[input]`` vectors, listed ``pairs`` or a
predicate), each input a tuple of records the kernel reads. For ``e^ε`` rational this is
a sentence of real arithmetic, which z3 decides (:mod:`verifier.solver`):

* ``unsat`` — the claim holds for every ``t`` in the interval (a proof, not a sample);
* ``sat`` — a counterexample ``t``, taken as a rational and **re-checked by the exact engine**
  under the same relation (:func:`verifier.notions.dp.neighbours.check_relation`); only a
  confirmed counterexample is reported as one;
* ``unknown`` or a timeout — reported as unknown, never as "holds".
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from itertools import product

from gmpy2 import mpq

from verifier.core.budget import Budget
from verifier.core.epsilon import Epsilon, parse_epsilon
from verifier.core.errors import BudgetExceeded, InvalidArgument, VerifierError
from verifier.core.numbers import counted, format_rational, probability, rational
from verifier.model.data import check_domain, check_records
from verifier.model.kernels import geometric_clamped_weights, randomized_response_weights
from verifier.model.mechanisms import build_mechanism
from verifier.notions.dp.neighbours import Relation, check_relation, relation_pairs, replace_one
from verifier.notions.result import NotionResult
from verifier.symbolic.solver import find_parameter, z3_api

__all__ = ["FAMILIES", "FamilyResult", "check_family"]

SymbolicKernel = Callable[[tuple, object, Sequence[Hashable], dict], dict]


def _rr(db: tuple, t, values: Sequence[Hashable], params: dict) -> dict:
    """Randomized response on every record with symbolic ``truth = t``."""
    same, other = randomized_response_weights(t, len(values))
    out = {}
    for reports in product(values, repeat=len(db)):
        p = 1
        for x, y in zip(db, reports, strict=True):
            p = p * (same if x == y else other)
        out[reports] = p
    return out


def _geometric(db: tuple, a, values: Sequence[Hashable], params: dict) -> dict:
    """The clamped geometric count with symbolic ``alpha = a`` (see mechanisms.geometric_count)."""
    counted = set(params.get("counts", [1]))
    return geometric_clamped_weights(sum(1 for x in db if x in counted), len(db), a)


FAMILIES: dict[tuple[str, str], SymbolicKernel] = {
    ("randomized_response", "truth"): _rr,
    ("geometric_count", "alpha"): _geometric,
}


class _OutOfTime(Exception):
    """The time limit of a family check was reached (it answers unknown)."""


@dataclass(frozen=True)
class FamilyResult:
    """``status``: ``"holds"`` (for every parameter value), ``"fails"`` (a confirmed
    counterexample) or ``"unknown"``."""

    status: str
    parameter: str
    interval: tuple[mpq, mpq]
    counterexample: mpq | None = None
    exact: NotionResult | None = None
    detail: str = ""
    neighbours: str = "replace-one"  # the relation, described

    def to_dict(self, *, mechanism: str, records: int, epsilon: object, delta: object) -> dict:
        """This result as ``plrv family --json`` prints it for the spec's ``mechanism``
        (its name), ``records`` and claim (``epsilon``, ``delta``)."""
        from verifier.symbolic.serial import family_json

        return family_json(self, mechanism=mechanism, records=records,
                           epsilon=parse_epsilon(epsilon), delta=delta)


def check_family(kind: str, param: str, lo: object, hi: object, *, values: Sequence[Hashable],
                 records: int, params: dict | None = None, epsilon: object = "0",
                 delta: object = "0", timeout_ms: int = 20_000,
                 max_databases: int = 256, relation: Relation | None = None) -> FamilyResult:
    """Decide (ε, δ)-DP of ``kind`` for every ``param ∈ [lo, hi]`` (three-valued), over the
    ordered pairs of ``relation`` (default: replace-one over ``records`` records)."""
    if (kind, param) not in FAMILIES:
        known = ", ".join(f"{k}.{p}" for k, p in FAMILIES)
        raise InvalidArgument(f"no parameter family {kind}.{param}; known: {known}",
                              argument="param", value=param)
    try:
        lo_q, hi_q = rational(lo, "range start"), rational(hi, "range end")
    except VerifierError as exc:
        raise InvalidArgument(str(exc), argument="range", value=(lo, hi)) from None
    if lo_q > hi_q:
        raise InvalidArgument(f"range {format_rational(lo_q)}..{format_rational(hi_q)} is empty",
                              argument="range", value=(lo, hi))
    params = dict(params or {})
    domain = check_domain(values)
    n = check_records(records)
    for end in (lo_q, hi_q):  # the mechanism must be valid across the interval
        try:
            build_mechanism(kind, {**params, param: end}, domain)
        except VerifierError as exc:
            raise InvalidArgument(str(exc), argument="range", value=(lo, hi)) from None
    eps: Epsilon = parse_epsilon(epsilon)
    if eps.rate is None:
        raise InvalidArgument(f"epsilon = {eps} : a family check needs ε = ln(q) (or 0) so "
                              f"that e^ε is rational")
    d = probability(delta, "delta")
    if relation is None or relation.name in ("replace-one", "add-remove-one"):
        if len(domain) ** n > max_databases:
            raise BudgetExceeded(f"data.records = {n}: {len(domain)}^{n} databases, over the "
                                 f"family check's limit of {max_databases}; use fewer records",
                                 argument="records", value=n)
    elif len(relation.inputs) > max_databases:
        raise BudgetExceeded(f"neighbours {relation.name}: {len(relation.inputs)} "
                             f"inputs exceed the family check's limit of {max_databases}; use "
                             f"fewer [input] vectors (or [data] records)", argument="input",
                             value=len(relation.inputs))
    rel = relation if relation is not None else replace_one(domain, n)
    pairs = list(relation_pairs(rel, Budget()))
    inputs = tuple(dict.fromkeys(x for pair in pairs for x in pair))
    described = rel.describe()
    if not pairs:
        return FamilyResult("holds", param, (lo_q, hi_q), detail="no two inputs are neighbours: "
                            "the claim holds vacuously", neighbours=described)
    kernel = FAMILIES[(kind, param)]
    z = z3_api()
    E = z["Q"](int(eps.rate.numerator), int(eps.rate.denominator))
    D = z["Q"](int(d.numerator), int(d.denominator))

    deadline = time.monotonic() + timeout_ms / 1000

    def left_ms() -> int:
        """Milliseconds left of ``timeout_ms`` (building formulas and re-checking included)."""
        left = deadline - time.monotonic()
        if left <= 0:
            raise _OutOfTime
        return max(1, int(left * 1000))

    def violated(t):
        cache = {}
        for x in inputs:
            left_ms()
            cache[x] = kernel(x, t, domain, params)
        terms = []
        for x, y in pairs:
            left_ms()
            p1, p2 = cache[x], cache[y]
            diffs = [p1.get(o, 0) - E * p2.get(o, 0) for o in set(p1) | set(p2)]
            terms.append(z["Sum"]([z["If"](v > 0, v, 0) for v in diffs]) > D)
        return z["Or"](terms)

    def out_of_time(what: str) -> FamilyResult:
        return FamilyResult("unknown", param, (lo_q, hi_q),
                            detail=f"out of time: the time limit of {timeout_ms / 1000:g} s was "
                                   f"reached {what}", neighbours=described)

    tried: list[mpq] = []
    for _ in range(3):  # a solver witness that the exact engine does not confirm is excluded
        try:
            answer = find_parameter(violated, lo_q, hi_q, left_ms, tried)
        except _OutOfTime:
            return out_of_time(f"while building the formula over {counted(len(pairs), 'pair')}")
        if answer.status == "unsat":
            return FamilyResult("holds", param, (lo_q, hi_q),
                                detail="z3: no parameter value violates the claim",
                                neighbours=described)
        if answer.status == "unknown":
            return FamilyResult("unknown", param, (lo_q, hi_q), detail=f"z3: {answer.reason}",
                                neighbours=described)
        t = answer.witness
        assert t is not None  # a sat answer carries its rational witness
        if time.monotonic() >= deadline:
            return out_of_time(f"before the exact re-check of z3's witness at {param} = "
                               f"{format_rational(t)}")
        mech = build_mechanism(kind, {**params, param: t}, domain)
        exact = check_relation(mech, rel, eps, d)
        if not exact.holds:
            return FamilyResult("fails", param, (lo_q, hi_q), t, exact,
                                "counterexample found by z3, confirmed by the exact engine",
                                described)
        tried.append(t)
    return FamilyResult("unknown", param, (lo_q, hi_q),
                        detail="z3 found violations the exact engine did not confirm at the "
                               "rational points tried", neighbours=described)
