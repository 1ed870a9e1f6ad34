"""Seed 002 (Cohen & Nissim): the singling-out records, with their independent checks.

Claim 3.1 (the baseline), Proposition 4.2, Theorem 4.4, Lemma 4.1, Theorem 4.6, Remark 4.7,
the isolation probability's maximum (§3.2), k-anonymity of the anonymizers' outputs and the
bit-suppression attack of §6.2 with its exact success.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations, combinations_with_replacement, product
from math import comb

from gmpy2 import mpq

from verifier.pso.attacks import (
    bit_suppression,
    bit_suppression_attack,
    count_mechanism,
    interval_buckets,
    predicate_mechanism,
)
from verifier.pso.predicates import EMPTY, Predicate, Universe
from verifier.pso.success import (
    Admissible,
    PSOMechanism,
    baseline,
    isolation_probability,
    optimal_adversary,
    success,
)

from . import reference as ref
from .pso_theorems import (
    _universes,
    composition_family,
    counting_family,
    lemma_41,
    postprocessing_family,
    proposition_42,
    theorem_46,
    weights,
)
from .record import Theorem

__all__ = ["PSO_RECORDS"]


def baseline_family():
    for u in _universes():
        for n in (1, 2, 3, 5, 8):
            for adm in (Admissible(), Admissible(at_most=mpq(1, 8)), Admissible(at_most=mpq(1, 3)),
                        Admissible(at_least=mpq(1, 2)), Admissible(at_least=mpq(2, 3))):
                yield u, n, adm


def claim_31(item) -> bool | None:
    """The code's baseline is max B(n, w) over the admissible weights realisable under D, the
    reference listing every subset. Vacuous where the best weight is 1/n itself: no choice."""
    u, n, adm = item
    value, w, members = baseline(u, n, adm)
    expected = ref.pso_baseline(weights(u), n, adm.at_most, adm.at_least)
    if ref.F(value) != expected or (w is not None and u.weight(members) != w):
        return False
    return None if w == mpq(1, n) else True


def predicate_family():
    for u in list(_universes())[:3]:
        for n in (2, 3):
            for q in combinations(u.values, 1):
                for adm in (Admissible(at_most=mpq(1, 2)), Admissible()):
                    yield u, n, Predicate(frozenset(q), str(q)), adm


def theorem_44(item) -> bool | None:
    """The predicate mechanism (q(x_1), …, q(x_n)) helps no more than the count of q (the
    permutation argument): equal optimal success, hence at most (n+1)·baseline."""
    u, n, q, adm = item
    pred = optimal_adversary(u, n, predicate_mechanism(q), adm).success
    cnt = optimal_adversary(u, n, count_mechanism(q), adm).success
    if ref.F(pred) != ref.pso_optimal(weights(u), n, lambda rows: tuple(x in q for x in rows),
                                      adm.at_most):
        return False
    base = ref.pso_baseline(weights(u), n, adm.at_most, adm.at_least)
    if pred != cnt or ref.F(pred) > (n + 1) * base:
        return False
    return True if ref.F(pred) > base else None


def remark47_family():
    for d in (3, 4):
        for n in (2, 3, 4):
            for k in range(1, n):  # the base count is over the n − 1 other rows
                yield d, n, k


def remark_47(item) -> bool:
    """Remark 4.7, reconstructed: with counts below k suppressed (⊥), the attack still works
    with one extra query. r = parity of the low bits (weight 1/2), p = top two bits 0
    (weight 1/4); the queries are #(r∧¬p), #((r∧¬p) ∨ p) and #((r∧¬p) ∨ (p∧b_j)): their
    differences are #p and #(p∧b_j). It isolates exactly when #p = 1 and #(r∧¬p) ≥ k:
    probability n·w_p·Σ_{j≥k} C(n−1, j)·w_s^j·(1 − w_p − w_s)^(n−1−j), w_s = w(r∧¬p)."""
    d, n, k = item
    u = Universe.bit_strings(d)
    top = 2 ** (d - 2)
    p = frozenset(x for x in u.values if x < top)
    s = frozenset(x for x in u.values if x >= top and bin(x % top).count("1") % 2 == 1)
    bits = [frozenset(x for x in p if u.bit(x, j)) for j in range(d)]

    def kernel(rows):
        def count(pred):
            c = sum(x in pred for x in rows)
            return c if c >= k else None
        return (count(s), count(s | p)) + tuple(count(s | b) for b in bits)

    def attack(out):
        base, with_p = out[0], out[1]
        if base is None or with_p is None or with_p - base != 1:
            return EMPTY
        row = sum((out[2 + j] - base) << (d - 1 - j) for j in range(d))
        return Predicate(frozenset({row}), str(row))
    res = success(u, n, PSOMechanism("suppressed counts", kernel, True), attack,
                  Admissible(at_most=mpq(1, 2 ** d)))
    wp, ws = Fraction(len(p), 2 ** d), Fraction(len(s), 2 ** d)
    expected = n * wp * sum((comb(n - 1, j) * ws ** j * (1 - wp - ws) ** (n - 1 - j)
                             for j in range(k, n)), Fraction(0))
    return ref.F(res.success) == expected and expected > 0


def isolation_family():
    yield from range(2, 12)


def isolation_maximum(n: int) -> bool:
    """§3.2: B(n, w) = n·w·(1−w)^(n−1) (the code's) is largest at w = 1/n on a grid of 400
    weights, and B(n, 1/n) = (1 − 1/n)^(n−1) decreases with n (towards 1/e, from above)."""
    grid = [Fraction(j, 400) for j in range(401)] + [Fraction(1, n)]
    values = {w: ref.F(isolation_probability(n, w)) for w in grid}
    if any(values[w] != ref.isolation(n, w) for w in grid):
        return False
    at = Fraction(1, n)
    return max(values.values()) == values[at] == (1 - at) ** (n - 1) and \
        values[at] > ref.isolation(n + 1, Fraction(1, n + 1))


def anonymizer_family():
    for d, n, k in ((3, 4, 2), (3, 5, 2), (2, 6, 3), (3, 3, 1)):
        yield "bit suppression", d, n, k
    for m, n, k in ((5, 4, 2), (4, 5, 2), (6, 6, 3)):
        yield "interval buckets", m, n, k


def law_of(mech: PSOMechanism, rows: tuple) -> tuple:
    """A deterministic anonymizer's release on ``rows``."""
    out = mech.kernel(rows)
    assert isinstance(out, tuple)
    return out


def k_anonymous(item) -> bool:
    """Every group the anonymizer releases generalises at least k rows of the dataset (each
    released pattern or interval matches ≥ k rows, counted directly), for every dataset."""
    kind, size, n, k = item
    if kind == "bit suppression":
        u = Universe.bit_strings(size)
        mech = bit_suppression(u, k)
        for rows in product(u.values, repeat=n):
            for pattern, members in law_of(mech, rows):
                matching = sum(all(c == "*" or int(c) == u.bit(x, j) for j, c in
                                   enumerate(pattern)) for x in rows)
                if members < k or matching < k:
                    return False
        return True
    mech = interval_buckets(k)
    for rows in combinations_with_replacement(range(size), n):
        for lo, hi, members in law_of(mech, rows):
            if members < k or sum(lo <= x <= hi for x in rows) < k:
                return False
    return True


def bit_suppression_family():
    yield 4, 4, 2, mpq(1, 8)  # examples/pso_bit_suppression.toml
    yield 3, 4, 2, mpq(1, 4)
    yield 3, 3, 3, mpq(1, 4)


def _suppression_reference(d: int, n: int, k: int, at_most: Fraction) -> Fraction:
    """§6.2's attack, written again: the first group of k rows (in index order) is released
    as a pattern with * where they disagree; the adversary outputs the completions whose
    suppressed bits read below ⌈2^|S|/k⌉; success when it isolates a row, weight ≤ bound."""
    size = 2 ** d
    total = Fraction(0)
    for rows in product(range(size), repeat=n):
        group = rows[:k] if n - k >= k else rows
        bit = [[x >> (d - 1 - j) & 1 for j in range(d)] for x in group]
        free = [j for j in range(d) if len({b[j] for b in bit}) > 1]
        if not free:
            continue
        cut = -(-(2 ** len(free)) // len(group))
        pred = [x for x in range(size) if all(x >> (d - 1 - j) & 1 == bit[0][j]
                                               for j in range(d) if j not in free)
                and sum((x >> (d - 1 - j) & 1) << (len(free) - 1 - i)
                        for i, j in enumerate(free)) < cut]
        if Fraction(len(pred), size) <= at_most and sum(x in pred for x in rows) == 1:
            total += Fraction(1, size ** n)
    return total


def bit_suppression_exact(item) -> bool:
    """§6.2: the bit-suppression attack's exact success (the code's enumeration) equals a
    direct re-implementation of the anonymizer and the attack over every dataset."""
    d, n, k, at_most = item
    u = Universe.bit_strings(d)
    res = success(u, n, bit_suppression(u, k), bit_suppression_attack(u, k),
                  Admissible(at_most=at_most))
    expected = _suppression_reference(d, n, k, ref.F(at_most))
    return ref.F(res.success) == expected and expected > 0


PSO_RECORDS = [
    Theorem("pso-claim-3.1", "seed 002, Claim 3.1",
            "the baseline is max B(n, w) over the admissible weights realisable under D",
            baseline_family, claim_31, compared_with="reference (every subset)"),
    Theorem("pso-isolation-maximum", "seed 002, §3.2",
            "B(n, w) = n·w·(1−w)^(n−1) is largest at w = 1/n; B(n, 1/n) decreases to 1/e",
            isolation_family, isolation_maximum, method="closed form"),
    Theorem("pso-proposition-4.2", "seed 002, Proposition 4.2",
            "the optimal adversary against one count succeeds at most (n+1)·baseline",
            counting_family, proposition_42, compared_with="reference optimum"),
    Theorem("pso-theorem-4.4", "seed 002, Theorem 4.4",
            "the predicate mechanism is PSO secure: it helps no more than the count",
            predicate_family, theorem_44, compared_with="reference optimum"),
    Theorem("pso-lemma-4.1", "seed 002, Lemma 4.1",
            "post-processing never raises the optimal singling-out success",
            postprocessing_family, lemma_41, compared_with="reference optimum"),
    Theorem("pso-theorem-4.6", "seed 002, Theorem 4.6",
            "counts of p and p ∧ b_j isolate with probability B(n, w(p)) at weight 2^-d",
            composition_family, theorem_46, method="closed form"),
    Theorem("pso-remark-4.7", "seed 002, Remark 4.7 (reconstructed)",
            "suppressing counts below k does not stop the attack: one more query isolates "
            "whenever #p = 1 and the base count reaches k", remark47_family, remark_47,
            method="closed form"),
    Theorem("pso-k-anonymity", "seed 002, §6",
            "the bit-suppression and interval anonymizers' outputs are k-anonymous",
            anonymizer_family, k_anonymous, compared_with="direct count of matching rows"),
    Theorem("pso-bit-suppression", "seed 002, §6.2",
            "the bit-suppression attack's exact success (examples/pso_bit_suppression.toml)",
            bit_suppression_family, bit_suppression_exact, method="worked example",
            compared_with="direct re-implementation"),
]
