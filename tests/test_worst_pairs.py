"""Every reported tight value is the worst pair's: the tight δ at ε (or its enclosure) is the
largest over every ordered pair, the tight ε at δ likewise, and the pair named attains it — the
pair with the largest δ when the claim fails, the one with the largest tight ε when it holds.

One test per route that reports a tight value, each against an independent computation over
every pair: noise on a sum (discrete Laplace and Gaussian, clamped and not) and noise on each
coordinate by direct summation in mpmath at 60 digits; report noisy max and above threshold
from the noise summed directly; rdp, zcdp and dp over a relation from laws written here with
``Fraction`` (the two-sided geometric's tails in closed form, derived by hand).
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import mpmath
import pytest
from gmpy2 import mpq

from verifier import add_remove_one, check_relation, geometric, mechanism
from verifier.core.epsilon import Epsilon, parse_epsilon
from verifier.model.expnoise import discrete_gaussian, discrete_laplace
from verifier.model.expnoise_vector import coordinate_laplace
from verifier.model.expnoise_zoo import above_threshold, noisy_max
from verifier.notions.dp.neighbours import explicit_pairs, vector_relation, vectors
from verifier.notions.dp.noise_check import check_noise_dp
from verifier.notions.dp.noise_gauss_vector import check_gaussian_vector_dp
from verifier.notions.dp.noise_zoo import check_choice_dp
from verifier.notions.renyi.check import check_renyi

TOL = mpmath.mpf(10) ** -40


@pytest.fixture(autouse=True, scope="module")
def _digits():
    with mpmath.workdps(60):
        yield


def mp(x) -> mpmath.mpf:
    return mpmath.mpf(int(x.numerator)) / int(x.denominator)


def nats(e: Epsilon) -> mpmath.mpf:
    return mp(e.nats) if e.nats is not None else mpmath.log(mp(e.base))


def inside(value: mpmath.mpf, bounds, tol=TOL) -> bool:
    return mp(bounds[0]) - tol <= value <= mp(bounds[1]) + tol


# ------------------------------------------------------------------ references

def noise_law(kind: str, param: mpq, centre: int, lo=None, hi=None) -> dict[int, mpmath.mpf]:
    """``clamp(c + Z)`` by direct summation over ``|k| ≤ 400`` (mass beyond: < e^{-100})."""
    if kind == "laplace":
        w = {k: mpmath.exp(-abs(k) / mp(param)) for k in range(-400, 401)}
    else:
        u = 1 / (2 * mp(param) ** 2)
        w = {k: mpmath.exp(-u * k * k) for k in range(-400, 401)}
    z = mpmath.fsum(w.values())
    out: dict[int, mpmath.mpf] = {}
    for k, x in w.items():
        o = k + centre
        o = o if lo is None else max(o, lo)
        o = o if hi is None else min(o, hi)
        out[o] = out.get(o, 0) + x / z
    return out


def delta_of(p: dict, q: dict, eps: mpmath.mpf) -> mpmath.mpf:
    e = mpmath.exp(eps)
    return mpmath.fsum(max(0, p[o] - e * q.get(o, 0)) for o in p)


def tight_eps(p: dict, q: dict, delta: mpmath.mpf) -> mpmath.mpf:
    """The least ε ≥ 0 with δ(ε) ≤ delta, by bisection (δ(ε) is non-increasing)."""
    if delta == 0:
        return max(mpmath.log(p[o] / q[o]) for o in p if p[o] > mpmath.mpf(10) ** -50)
    lo, hi = mpmath.mpf(0), mpmath.mpf(1)
    if delta_of(p, q, lo) <= delta:
        return lo
    while delta_of(p, q, hi) > delta:
        lo, hi = hi, 2 * hi
    # to a bracket of 10^-25 (not 2^-150 of it): the ε it gives is compared within 10^-15
    while hi - lo > mpmath.mpf(10) ** -25:
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if delta_of(p, q, mid) <= delta else (mid, hi)
    return hi


def sums(values, records):
    s = {0}
    for _ in range(records - 1):
        s = {a + v for a in s for v in values}
    return s


def all_centre_pairs(values, records):
    return sorted({(s + v, s + w) for s in sums(values, records) for v in values
                   for w in values if v != w})


def check_named(r, per_pair_delta: dict, per_pair_eps: dict):
    """The reported δ encloses the largest pair's, the reported ε the largest tight ε, and the
    named pair attains the one the verdict rests on."""
    worst_d = max(per_pair_delta.values())
    worst_e = max(per_pair_eps.values())
    assert inside(worst_d, r.delta_enclosure.enclose(128))
    if r.epsilon_enclosure is not None:
        assert inside(worst_e, r.epsilon_enclosure.enclose(128), mpmath.mpf(10) ** -15)
    named = tuple(r.witness)
    if r.holds is False:
        assert abs(per_pair_delta[named] - worst_d) < TOL
    else:
        assert abs(per_pair_eps[named] - worst_e) < mpmath.mpf(10) ** -15


# ------------------------------------------------------------------ noise on a sum

def test_clamped_gaussian_reports_the_worst_pair_not_the_first_failing_one():
    """σ = 5/2, one record in {0, 2}, clamp [1, 4], ε = the double 0.4: the pair (0, 2) fails
    with δ ≈ 0.1002, the pair (2, 0) with δ ≈ 0.1860 — the tight δ is the second."""
    noise, eps = discrete_gaussian(mpq(5, 2), 1, 4), Epsilon.of_nats(mpq(0.4))
    laws = {c: noise_law("gauss", mpq(5, 2), c, 1, 4) for c in (0, 2)}
    d = {(a, b): delta_of(laws[a], laws[b], nats(eps)) for a, b in ((0, 2), (2, 0))}
    assert mpmath.mpf("0.1002") < d[(0, 2)] < mpmath.mpf("0.1003")
    assert mpmath.mpf("0.18595") < d[(2, 0)] < mpmath.mpf("0.18596")
    r = check_noise_dp(noise, [0, 2], 1, eps, mpq(0))
    assert r.holds is False and tuple(r.witness) == (2, 0)
    assert inside(d[(2, 0)], r.delta_enclosure.enclose(128))
    assert not inside(d[(0, 2)], r.delta_enclosure.enclose(128))


@pytest.mark.parametrize("kind, param, values, records, clamp, eps, delta", [
    ("gauss", mpq(5, 2), [0, 2], 1, (1, 4), "2/5", "0"),
    ("gauss", mpq(5, 2), [0, 2], 1, (1, 4), "2/5", "1/5"),      # holds: tight ε's pair
    ("gauss", mpq(3, 2), [0, 1, 3], 2, (0, 5), "1", "1/20"),
    ("gauss", mpq(2), [0, 1, 3], 1, (None, 2), "1/2", "1/10"),  # one side clamped
    ("gauss", mpq(1), [0, 1, 3], 1, (None, None), "1", "1/100"),
    ("laplace", mpq(2), [0, 1, 3], 2, (0, 4), "1/3", "0"),
    ("laplace", mpq(2), [0, 1, 3], 2, (0, 4), "ln(3)", "0"),     # holds
    ("laplace", mpq(3, 2), [0, 2, 3], 1, (-1, None), "1", "1/10"),
    ("laplace", mpq(2), [0, 1, 3], 1, (None, None), "1/2", "1/10"),
])
def test_noise_on_a_sum_against_every_pair(kind, param, values, records, clamp, eps, delta):
    lo, hi = clamp
    noise = (discrete_laplace if kind == "laplace" else discrete_gaussian)(param, lo, hi)
    e, d = parse_epsilon(eps), mpq(delta)
    pairs = all_centre_pairs(values, records)
    centres = {c for pair in pairs for c in pair}
    laws = {c: noise_law(kind, param, c, lo, hi) for c in centres}
    per_d = {p: delta_of(laws[p[0]], laws[p[1]], nats(e)) for p in pairs}
    if lo is None and hi is None and kind == "gauss" and d == 0:
        pytest.skip("the unclamped Gaussian's tight ε at δ = 0 is ∞")
    per_e = {p: tight_eps(laws[p[0]], laws[p[1]], mp(d)) for p in pairs}
    r = check_noise_dp(noise, values, records, e, d)
    if lo is None and hi is None:  # shift-invariant: one pair per difference, named by it
        per_d = {(a - b, 0): v for (a, b), v in per_d.items()}
        per_e = {(a - b, 0): v for (a, b), v in per_e.items()}
    check_named(r, per_d, per_e)


# ------------------------------------------------------------------ noise on each coordinate

def product_delta(laws_x: list, laws_y: list, eps: mpmath.mpf) -> mpmath.mpf:
    e = mpmath.exp(eps)
    total = mpmath.mpf(0)
    for o in product(*[sorted(law) for law in laws_x]):
        p = q = mpmath.mpf(1)
        for oi, lx, ly in zip(o, laws_x, laws_y, strict=True):
            p *= lx[oi]
            q *= ly.get(oi, 0)
        total += max(0, p - e * q)
    return total


def cut_law(kind: str, param: mpq, centre: int, width: int) -> dict[int, mpmath.mpf]:
    law = noise_law(kind, param, centre)
    return {o: w for o, w in law.items() if abs(o - centre) <= width}


@pytest.mark.parametrize("kind, param, width, eps", [("laplace", mpq(1, 2), 60, "1/2"),
                                                     ("gauss", mpq(1), 25, "1/2")])
def test_noise_on_each_coordinate_against_every_pair(kind, param, width, eps):
    """Pairs with different distances: (0,0)~(1,1), (0,0)~(2,0), (0,1)~(1,0), both ways; the
    worst is not the first."""
    rel = explicit_pairs([((0, 1), (1, 0)), ((0, 0), (1, 1)), ((0, 0), (2, 0))])
    e = parse_epsilon(eps)
    per_d = {}
    for x, y in [(a, b) for a, b in rel.pairs] + [(b, a) for a, b in rel.pairs]:
        lx = [cut_law(kind, param, c, width) for c in x]
        ly = [cut_law(kind, param, c, width) for c in y]
        per_d[(x, y)] = product_delta(lx, ly, nats(e))
    if kind == "laplace":
        r = check_choice_dp(coordinate_laplace(param), rel, e, mpq(0))
    else:
        r = check_gaussian_vector_dp(param, rel, e, mpq(0))
    assert r.holds is False
    worst = max(per_d.values())
    assert inside(worst, r.delta_enclosure.enclose(128), mpmath.mpf(10) ** -30)
    assert abs(per_d[tuple(r.witness)] - worst) < mpmath.mpf(10) ** -30
    # the largest move, listed last, is the worst: the first pairs are below it
    assert abs(per_d[((0, 0), (2, 0))] - worst) < TOL
    assert per_d[((0, 1), (1, 0))] < worst and per_d[((0, 0), (1, 1))] < worst
    assert sorted(map(tuple, r.witness)) == [(0, 0), (2, 0)]


def test_gaussian_on_each_coordinate_names_the_tight_epsilon_pair_when_it_holds():
    rel = explicit_pairs([((0, 1), (1, 0)), ((0, 0), (2, 0)), ((0, 0), (1, 1))])
    r = check_gaussian_vector_dp(mpq(2), rel, parse_epsilon("2"), mpq(1, 10))
    assert r.holds is True
    # (0,0) vs (2,0) moves by 2 in one coordinate: ‖d‖² = 4 against 2 for the others
    assert sorted(map(tuple, r.witness)) == [(0, 0), (2, 0)]


# ------------------------------------------------------------------ noisy max, threshold

def laplace_cdf(scale):
    law = noise_law("laplace", mpq(scale), 0)
    cum, total = {}, mpmath.mpf(0)
    for k in sorted(law):
        total += law[k]
        cum[k] = total
    return law, cum


def ref_noisy_max(q, scale) -> dict:
    law, cum = laplace_cdf(scale)

    def le(c, v):
        k = v - c
        return mpmath.mpf(0) if k < -400 else mpmath.mpf(1) if k > 400 else cum[k]

    out = {}
    for i, qi in enumerate(q):
        total = mpmath.mpf(0)
        for v in range(min(q) - 400, max(q) + 401):
            w = law.get(v - qi, mpmath.mpf(0))
            for j, qj in enumerate(q):
                if j != i:
                    w *= le(qj, v - 1) if j < i else le(qj, v)
            total += w
        out[i] = total
    return out


def ref_above_threshold(q, scale, t_scale, threshold) -> dict:
    """The index of the first query ``q_k + ν ≥ T + ρ`` (len(q): none)."""
    t_law, _ = laplace_cdf(t_scale)
    _, cum = laplace_cdf(scale)

    def below(c, u):  # P[c + ν < u] = P[ν ≤ u − c − 1]
        k = u - c - 1
        return mpmath.mpf(0) if k < -400 else mpmath.mpf(1) if k > 400 else cum[k]

    out = {}
    for k in range(len(q) + 1):
        total = mpmath.mpf(0)
        for r, w in t_law.items():
            u = threshold + r
            for qj in q[:k]:
                w *= below(qj, u)
            if k < len(q):
                w *= 1 - below(q[k], u)
            total += w
        out[k] = total
    return out


@pytest.mark.parametrize("route", ["noisy_max", "above_threshold"])
@pytest.mark.parametrize("eps, delta", [("1/2", "0"), ("3", "1/100")])
def test_noisy_choice_against_every_pair(route, eps, delta):
    rel = vector_relation("linf", 1, vectors(2, 0, 2))
    if route == "noisy_max":
        m = noisy_max(2)
        laws = {x: ref_noisy_max(x, 2) for x in rel.inputs}
    else:
        m = above_threshold(2, 4, 1)
        laws = {x: ref_above_threshold(x, 2, 4, 1) for x in rel.inputs}
    e, d = parse_epsilon(eps), mpq(delta)
    pairs = [(x, y) for x in rel.inputs for y in rel.inputs
             if x != y and max(abs(a - b) for a, b in zip(x, y, strict=True)) <= 1]
    per_d = {p: delta_of(laws[p[0]], laws[p[1]], nats(e)) for p in pairs}
    per_e = {p: tight_eps(laws[p[0]], laws[p[1]], mp(d)) for p in pairs}
    r = check_choice_dp(m, rel, e, d)
    assert r.pairs == len(pairs)
    check_named(r, per_d, per_e)


# ------------------------------------------------------------------ rdp, zcdp, dp (exact)

A = Fraction(1, 3)  # the two-sided geometric's α


def geo_law(c: int, lo: int, hi: int) -> dict[int, Fraction]:
    """``clamp(c + Z, lo, hi)`` with ``P[Z = k] = (1−α)/(1+α)·α^|k|`` and, summing the
    geometric series, ``P[Z ≥ m] = α^m/(1+α)`` for ``m ≥ 0``."""
    def at_least(m: int) -> Fraction:  # P[Z ≥ m]
        return A ** m / (1 + A) if m >= 0 else 1 - A ** (1 - m) / (1 + A)

    out = {j: (1 - A) / (1 + A) * A ** abs(j - c) for j in range(lo + 1, hi)}
    out[hi] = at_least(hi - c)
    out[lo] = 1 - at_least(lo - c + 1)
    return out


def add_remove_pairs(values, n):
    big = list(product(values, repeat=n))
    out = []
    for db in big:
        for i in range(n):
            small = db[:i] + db[i + 1:]
            out += [(db, small), (small, db)]
    return sorted(set(out))


def test_exact_dp_over_a_relation_against_every_pair():
    noisy = mechanism(lambda db: geometric(sum(db), "1/3", lo=0, hi=3))
    rel = add_remove_one([0, 1, 2], 2)
    laws = {}
    for pair in add_remove_pairs([0, 1, 2], 2):
        for db in pair:
            laws[db] = geo_law(sum(db), 0, 3)

    def delta(p, q, e):
        return sum(max(Fraction(0), p[o] - e * q.get(o, 0)) for o in p)

    per_d = {pair: delta(laws[pair[0]], laws[pair[1]], 2)
             for pair in add_remove_pairs([0, 1, 2], 2)}
    r = check_relation(noisy, rel, "ln(2)", "0")
    worst = max(per_d.values())
    assert r.holds is False and mpq(r.delta.a) - 2 * mpq(r.delta.c) == mpq(worst)
    named = tuple(tuple(x) for x in r.witness["databases"])
    assert per_d[named] == worst


def test_rdp_and_zcdp_over_a_relation_against_every_pair():
    noisy = mechanism(lambda db: geometric(sum(db), "1/3", lo=0, hi=3))
    rel = add_remove_one([0, 1, 2], 2)
    pairs = add_remove_pairs([0, 1, 2], 2)
    laws = {db: geo_law(sum(db), 0, 3) for pair in pairs for db in pair}

    def moment(p, q, a):
        return sum(p[o] ** a * q[o] ** (1 - a) for o in p)

    r = check_renyi(noisy, rel, ["rdp", "zcdp"], orders=[2, 3], rho="1")
    for row in r.results["rdp"].orders:
        per = {pair: moment(laws[pair[0]], laws[pair[1]], row.order) for pair in pairs}
        worst = max(per.values())
        assert row.value.moment == mpq(worst)
        named = tuple(tuple(x) for x in row.witness["databases"])
        assert per[named] == worst

    def d_alpha(p, q, a):
        s = mpmath.fsum(mp(p[o]) ** a * mp(q[o]) ** (1 - a) for o in p)
        return mpmath.log(s) / (a - 1)

    def kl(p, q):
        return mpmath.fsum(mp(p[o]) * mpmath.log(mp(p[o]) / mp(q[o])) for o in p)

    grid = [1 + mpmath.mpf(j) / 200 for j in range(1, 4000)]
    by_sums: dict = {}  # a pair's laws are those of its two sums: each sup computed once
    for x, y in pairs:
        if (sum(x), sum(y)) not in by_sums:
            by_sums[sum(x), sum(y)] = max([kl(laws[x], laws[y])] +
                                          [d_alpha(laws[x], laws[y], a) / a for a in grid])
    sup = {(x, y): by_sums[sum(x), sum(y)] for x, y in pairs}
    worst = max(sup.values())
    z = r.results["zcdp"]
    assert mp(z.lo) - mpmath.mpf(10) ** -12 <= worst <= mp(z.hi) + mpmath.mpf(10) ** -12
    named = tuple(tuple(x) for x in z.witness["databases"])
    assert abs(sup[named] - worst) < mpmath.mpf(10) ** -12
