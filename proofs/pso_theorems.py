"""Seed 002's statements as theorem records: the code's exact success against the reference's
brute force (:mod:`proofs.reference`) or a closed form. More in :mod:`proofs.pso_records`."""

from __future__ import annotations

from itertools import combinations

from gmpy2 import mpq

from verifier.pso.attacks import (
    composition_attack,
    composition_counts,
    count_mechanism,
    randomized_response_rows,
)
from verifier.pso.predicates import Predicate, Universe, parse_predicate
from verifier.pso.success import (
    Admissible,
    PSOMechanism,
    isolation_probability,
    optimal_adversary,
    success,
)

from . import reference as ref


def _universes():
    yield Universe.of_values(range(3))
    yield Universe.of_values(range(4))
    yield Universe.of_values(range(4), ["1/2", "1/4", "1/8", "1/8"])
    yield Universe.of_values(range(5))


def counting_family():
    """Universe × n × counted set q × weight bound, for the Counting Mechanism."""
    for u in _universes():
        vals = u.values
        for n in (2, 3):
            for size in (1, 2):
                for q in combinations(vals, size):
                    for bound in (Admissible(at_most=mpq(1, 8)),
                                  Admissible(at_most=mpq(1, len(vals))),
                                  Admissible(at_most=mpq(1, 2)), Admissible()):
                        yield u, n, Predicate(frozenset(q), str(q)), bound


def weights(u: Universe) -> dict:
    return {x: ref.F(u.dist[x]) for x in u.values}


def proposition_42(item) -> bool | None:
    """Optimal success against M_q (the code's, equal to the reference's brute force over
    every predicate) is at most |codomain(M_q)|·baseline = (n+1)·baseline. Vacuous where
    (n+1)·baseline ≥ 1: a probability cannot exceed it."""
    u, n, q, adm = item
    best = optimal_adversary(u, n, count_mechanism(q), adm).success
    base = ref.pso_baseline(weights(u), n, adm.at_most, adm.at_least)
    if ref.F(best) != ref.pso_optimal(weights(u), n, lambda rows: sum(x in q for x in rows),
                                      adm.at_most):
        return False
    if best > (n + 1) * base:
        return False
    return True if (n + 1) * base < 1 else None


def composition_family():
    for d in (3, 4, 5):
        for n in (2, 3, 4):
            yield d, n


def theorem_46(item) -> bool:
    """The counts of p and p ∧ b_j let the attacker isolate with probability B(n, w(p)) using
    a predicate of weight 2^{−d}; checked by full enumeration against the closed form."""
    d, n = item
    u = Universe.bit_strings(d)
    p = parse_predicate(f"x < {2 ** (d - 2)}", u)  # weight 1/4
    res = success(u, n, composition_counts(u, p), composition_attack(u),
                  Admissible(at_most=mpq(1, 2 ** d)))
    return res.success == isolation_probability(n, u.weight(p.members))


def postprocessing_family():
    for u in list(_universes())[:3]:
        for n in (2, 3):
            q = Predicate(frozenset(u.values[:1]), "first value")
            for mech in (count_mechanism(q), randomized_response_rows(u, "1/2")):
                for adm in (Admissible(at_most=mpq(1, 2)), Admissible()):
                    yield u, n, mech, adm


POST = (("parity", lambda o: o % 2 if isinstance(o, int) else sum(o) % 2),
        ("at most 1", lambda o: min(o, 1) if isinstance(o, int) else min(o)),
        ("constant", lambda o: 0))


def lemma_41(item) -> bool | None:
    """Post-processing never raises the optimal adversary's success (the code's optimum,
    equal to the reference's). Vacuous where the success before is already 1."""
    u, n, mech, adm = item
    before = optimal_adversary(u, n, mech, adm).success
    for _, f in POST:
        post = PSOMechanism(f"post({mech.name})",
                            lambda rows, k=mech.kernel, f=f: _map(k(rows), f), mech.symmetric)
        after = optimal_adversary(u, n, post, adm).success
        if ref.F(after) != ref.pso_optimal(weights(u), n, post.kernel, adm.at_most):
            return False
        if after > before:
            return False
    return True if before < 1 else None


def _map(out, f):
    from verifier.core.distribution import Dist
    return out.map(f) if isinstance(out, Dist) else f(out)
