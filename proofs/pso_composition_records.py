"""Seed 002 (Cohen & Nissim), more statements: Corollary 3.2, the "last bits" example of §3,
Theorem 4.9 (two PSO-secure mechanisms whose composition singles out) and Theorem 5.4 with
Claims 5.5 and 5.6 (differential privacy implies PSO security), each reconstructed from its
proof and compared with a plain ``Fraction`` computation.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from math import comb

from gmpy2 import mpq

from verifier import Dist
from verifier.model.kernels import geometric_clamped_weights
from verifier.pso.attacks import randomized_response_rows
from verifier.pso.predicates import EMPTY, Predicate, Universe
from verifier.pso.success import (
    Admissible,
    PSOMechanism,
    baseline,
    optimal_adversary,
    success,
)

from . import reference as ref
from .pso_theorems import _universes, weights
from .record import Theorem

__all__ = ["PSO_COMPOSITION_RECORDS"]

ZERO = Fraction(0)


# ------------------------------------------------------------ Corollary 3.2


def corollary32_family():
    for u in [*_universes(), Universe.bit_strings(3), Universe.of_values(
            range(3), ["1/2", "1/3", "1/6"])]:
        for n in (2, 3, 5, 8):
            for w in (Fraction(1, 16), Fraction(1, 8), Fraction(1, 5), Fraction(1, n)):
                if w <= Fraction(1, n):
                    yield u, n, "low", w
            for w in (Fraction(1, n), Fraction(1, 2), Fraction(2, 3), Fraction(9, 10)):
                if w >= Fraction(1, n):
                    yield u, n, "high", w


def corollary32(item) -> bool | None:
    """Corollary 3.2 (reconstructed: B(n, w) increases up to w = 1/n and decreases after, so
    the best realisable weight is no better than the bound itself): for w_low ≤ 1/n ≤ w_high,
    base(P_{≤w_low}) ≤ B(n, w_low) and base(P_{≥w_high}) ≤ B(n, w_high). The code's baseline
    equals the reference's (every subset). Vacuous where no weight is admissible."""
    u, n, side, w = item
    adm = Admissible(at_most=mpq(w)) if side == "low" else Admissible(at_least=mpq(w))
    value, _, _ = baseline(u, n, adm)
    expected = ref.pso_baseline(weights(u), n, adm.at_most, adm.at_least)
    if ref.F(value) != expected or expected > ref.isolation(n, w):
        return False
    return True if expected > 0 else None


# ------------------------------------------------------------ §3, the last bits


def last_bits_family():
    yield from ((3, 2, 2), (3, 2, 3), (4, 3, 2), (4, 3, 3), (4, 2, 3), (4, 2, 4))


def last_bits(item) -> bool:
    """§3, "last bits": rows uniform over {0,1}^d, M releases f(x_i) = the last k bits of
    every row (f is 2^{d−k}-to-one). The adversary outputs p_i = {x : last k bits of x =
    f(x_i)} (weight 2^{−k}) for every i: they isolate distinct rows exactly when the n
    released values are distinct, so full singling out succeeds with probability
    Π_{j<n} (1 − j/2^k) (closed form), which the code's exact success must equal; every
    predicate is admissible at weight 2^{−k}."""
    d, k, n = item
    u = Universe.bit_strings(d)
    mask = 2 ** k - 1
    mech = PSOMechanism(f"last {k} bits", lambda rows: tuple(x & mask for x in rows))

    def attack(out: tuple) -> tuple:
        return tuple(Predicate(frozenset(x for x in u.values if x & mask == y), str(y))
                     for y in out)
    res = success(u, n, mech, attack, Admissible(at_most=mpq(1, 2 ** k)))
    expected = Fraction(1)
    for j in range(n):
        expected *= 1 - Fraction(j, 2 ** k)
    return ref.F(res.success) == expected and expected > 0


# ------------------------------------------------------------ Theorem 4.9


def von_neumann(bits: list[int], d: int) -> int | None:
    """The first d bits von Neumann extracts from ``bits`` (pairs 01 → 0, 10 → 1, else
    nothing), as a number, or None when there are fewer."""
    out = [a for a, b in zip(bits[::2], bits[1::2], strict=False) if a != b]
    if len(out) < d:
        return None
    return sum(b << (d - 1 - j) for j, b in enumerate(out[:d]))


def _key(rows: tuple, d: int, r: int) -> int | None:
    return von_neumann([x >> (d - 1 - j) & 1 for x in rows[:r] for j in range(d)], d)


def theorem49_family():
    yield 3, 2, 3, False  # d bits per row, r rows of randomness, n rows (the last: message)
    yield 3, 3, 4, False
    yield 4, 3, 4, True  # 2^{−d}·n small enough for the attack to beat the baseline


def theorem49(item) -> bool:
    """Theorem 4.9, on {0,1}^d uniform: the first r rows are a source of randomness, the last
    row x_n the message. M_ext releases the von Neumann key k of the first r rows' bits (or
    ⊥); M_enc releases k ⊕ x_n (or ⊥). Checked with Fractions over every dataset: (1) each
    alone is independent of the message row (the law of its output given x_n = v is the
    same for every v), so alone neither helps to single out x_n; (2) together they give x_n
    = k ⊕ c whenever the key is complete, with probability P[Bin(⌊rd/2⌋, 1/2) ≥ d]; (3) the
    pair's adversary (the predicate {x_n}, weight 2^{−d}) succeeds with probability P[key
    complete ∧ x_n unique], the code's exact success equal to the Fraction one, and above
    the baseline at weight ≤ 2^{−d} once 2^{−d}·n is small (the theorem is asymptotic: at
    d = 3 the baseline is still higher, and the optimal adversary of M_ext alone exceeds the
    baseline too)."""
    d, r, n, beats = item
    u = Universe.bit_strings(d)
    size = 2 ** d
    ext = PSOMechanism("M_ext", lambda rows: _key(rows, d, r))

    def enc_kernel(rows):
        k = _key(rows, d, r)
        return None if k is None else k ^ rows[-1]
    pair = PSOMechanism("(M_ext, M_enc)", lambda rows: (ext.kernel(rows), enc_kernel(rows)))

    def attack(out):
        k, c = out
        return EMPTY if k is None else Predicate(frozenset({k ^ c}), str(k ^ c))
    adm = Admissible(at_most=mpq(1, size))
    got = ref.F(success(u, n, pair, attack, adm).success)
    one = Fraction(1, size ** n)
    expected, complete = ZERO, ZERO
    given: dict = {}  # (mechanism, x_n) → law of the output
    for rows in product(range(size), repeat=n):
        k = _key(rows, d, r)
        for name, out in (("ext", k), ("enc", None if k is None else k ^ rows[-1])):
            law = given.setdefault((name, rows[-1]), {})
            law[out] = law.get(out, ZERO) + one * size
        if k is not None:
            complete += one
            if attack((k, k ^ rows[-1])).members == {rows[-1]} and rows.count(rows[-1]) == 1:
                expected += one
    if got != expected:
        return False
    if any(given[(name, v)] != given[(name, 0)] for name in ("ext", "enc") for v in u.values):
        return False
    pairs = r * d // 2
    if complete != sum((Fraction(comb(pairs, j), 2 ** pairs) for j in range(d, pairs + 1)),
                       ZERO):
        return False
    base, _, _ = baseline(u, n, adm)
    return got > ref.F(base) if beats else got > 0


# ------------------------------------------------------------ Theorem 5.4


def noisy_count(q: frozenset, n: int, alpha: Fraction) -> PSOMechanism:
    """The count of rows in ``q`` plus clamped geometric noise on {0..n} (ε = ln(1/α))."""
    return PSOMechanism(f"noisy count α={alpha}", lambda rows: Dist({
        j: str(w) for j, w in geometric_clamped_weights(sum(x in q for x in rows), n,
                                                          alpha).items() if w}), True)


_THEOREM54_MECHANISMS: dict = {}  # the same objects on every run: their e^ε is kept
_UNIVERSES = list(_universes())[:3]


def theorem54_family():
    for u in _UNIVERSES:
        for n in (2, 3):
            for mech in _THEOREM54_MECHANISMS.setdefault((u, n), (
                    randomized_response_rows(u, "1/2"), randomized_response_rows(u, "2/3"),
                    noisy_count(frozenset(u.values[:1]), n, Fraction(1, 2)),
                    noisy_count(frozenset(u.values[:2]), n, Fraction(2, 3)))):
                for side, w in (("low", Fraction(1, 8)), ("low", Fraction(1, 4)),
                                ("high", Fraction(3, 4)), ("high", Fraction(7, 8))):
                    yield u, n, mech, side, w


_RATES: dict = {}


def tight_rate(u: Universe, n: int, mech: PSOMechanism) -> Fraction:
    """e^ε of the mechanism, tight: the largest P[M(x) = o]/P[M(x') = o] over datasets that
    differ in one row (every output has positive probability under every dataset here);
    computed once per mechanism and size."""
    key = (u, n, mech)
    if key not in _RATES:
        _RATES[key] = _tight_rate(u, n, mech)
    return _RATES[key]


def _tight_rate(u: Universe, n: int, mech: PSOMechanism) -> Fraction:
    laws = {rows: ref.law(mech.kernel, rows) for rows in product(u.values, repeat=n)}
    best = Fraction(1)
    for rows, law in laws.items():
        for i, v in product(range(n), u.values):
            other = laws[rows[:i] + (v,) + rows[i + 1:]]
            best = max(best, max(w / other[o] for o, w in law.items()))
    return best


def pso_optimal(w8: dict, n: int, kernel, admissible) -> Fraction:
    """The reference's brute-force optimum (:func:`proofs.reference.pso_optimal`) with any
    admissible set of weights."""
    values = list(w8)
    preds = [frozenset(values[j] for j in range(len(values)) if m >> j & 1)
             for m in range(2 ** len(values))]
    preds = [s for s in preds if admissible(sum((w8[x] for x in s), ZERO))]
    by_output: dict = {}
    for rows in product(values, repeat=n):
        p = Fraction(1)
        for x in rows:
            p *= w8[x]
        for o, w in ref.law(kernel, rows).items():
            by_output.setdefault(o, []).append((rows, p * w))
    return sum((max(sum((w for rows, w in cases if sum(x in s for x in rows) == 1), ZERO)
                    for s in preds) for cases in by_output.values()), ZERO)


def theorem54(item) -> bool | None:
    """Theorem 5.4, Claims 5.5 and 5.6 at δ = 0, reconstructed from their proofs with one
    sub-dataset: the adversary with a random index is ε-DP, so P[p(x_I) = 1] ≤ e^ε·w(p) and
    P[p(x_I) = 0] ≤ e^ε·(1 − w(p)); an isolating p holds on one row and fails on n − 1.
    Hence Succ^{≤w} ≤ n·e^ε·w (Claim 5.5) and Succ^{≥w} ≤ n/(n−1)·e^ε·(1 − w) (Claim 5.6).
    e^ε is the mechanism's tight ratio over neighbouring datasets (Fractions); the code's
    optimal adversary equals the reference's brute force. Vacuous where the bound is ≥ 1."""
    u, n, mech, side, w = item
    E = tight_rate(u, n, mech)
    adm = Admissible(at_most=mpq(w)) if side == "low" else Admissible(at_least=mpq(w))
    best = ref.F(optimal_adversary(u, n, mech, adm).success)
    if best != pso_optimal(weights(u), n, mech.kernel,
                           lambda x: x <= w if side == "low" else x >= w):
        return False
    bound = n * E * w if side == "low" else Fraction(n, n - 1) * E * (1 - w)
    if best > bound:
        return False
    return True if bound < 1 else None


PSO_COMPOSITION_RECORDS = [
    Theorem("pso-corollary-3.2", "seed 002, Corollary 3.2 (reconstructed)",
            "the baseline over weights ≤ w_low ≤ 1/n is at most B(n, w_low), over weights ≥ "
            "w_high ≥ 1/n at most B(n, w_high)", corollary32_family, corollary32,
            compared_with="reference (every subset)"),
    Theorem("pso-last-bits", "seed 002, §3 (last bits)",
            "releasing the last k bits of every row (many-to-one) allows full predicate "
            "singling out with probability Π_{j<n}(1 − j/2^k) at weight 2^{−k}",
            last_bits_family, last_bits, method="closed form"),
    Theorem("pso-theorem-4.9", "seed 002, Theorem 4.9",
            "a von Neumann key and a one-time pad of the last row are each independent of that "
            "row, but together reveal it whenever the key is complete and single it out (above "
            "the baseline once 2^{−d}·n is small)",
            theorem49_family, theorem49, method="worked example",
            compared_with="Fraction re-implementation over every dataset"),
    Theorem("pso-theorem-5.4", "seed 002, Theorem 5.4, Claims 5.5 and 5.6 (reconstructed)",
            "an ε-DP mechanism's optimal adversary isolates with probability at most "
            "n·e^ε·w at weights ≤ w, and n/(n−1)·e^ε·(1 − w) at weights ≥ w",
            theorem54_family, theorem54,
            compared_with="reference optimum, tight e^ε by enumeration"),
]
