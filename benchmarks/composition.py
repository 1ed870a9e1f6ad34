"""Exact composition: the polynomial route against an independent binomial reference and
dp_accounting's PLD, timed in the same run (best of three), exact results asserted equal.

    python benchmarks/composition.py            # k = 1000 and 10,000, bivariate, heterogeneous
    python benchmarks/composition.py --large    # also k = 100,000 (streamed: well under 1 GB)

Reference: k-fold randomized response (truth 3/4, replace-one) by its binomial sum, in plain
Python integers (it imports nothing from plrv): j truthful answers out of k have
``P = C(k, j)·3^j/4^k``, ``Q = C(k, j)·3^(k−j)/4^k`` and ratio ``3^(2j−k)``, so
``δ(ln E) = Σ_{3^(2j−k) > E} (P − E·Q)``; the coefficients are produced by the recurrence
``C(k, j+1)·3^(j+1) = C(k, j)·3^j·3·(k − j)/(j + 1)``. ε(10⁻⁶) is found by bisection over
the same atoms. The heterogeneous composition (1000 randomized responses over 10 truths) has
its own reference, :func:`heterogeneous_reference`. dp_accounting's PLD (pessimistic,
default discretisation 10⁻⁴) is timed on the same mechanism where it is installed
(``pip install -e '.[accounting]'``).

Bivariate reference: the 5-output mechanism ``P = (2, 3, 1, 1, 3)/10``, ``Q = (1, 1, 2, 3, 3)/10``
has ratios ``2, 3, 1/2, 1/3, 1``; an atom ``2^a·3^b`` of its k-fold composition is a count of
outputs, and ``10^k·P`` is the coefficient of ``x^a·y^b`` in ``(A(x) + B(y))^k`` with
``A = 2x + 3 + 1/x``, ``B = 3y + 1/y`` (``Q``: ``x + 3 + 2/x`` and ``y + 3/y``). By the
binomial theorem ``(A + B)^k = Σ_m C(k, m)·A^m·B^(k−m)``, so
``δ(ln E)·10^k = Σ_m C(k, m) Σ_a [x^a]A^m · S_(k−m)(β(a))`` (P minus E times the same for Q),
where ``S_l(β)`` sums the coefficients of ``B^l`` (binomials) at ``y^b``, ``b ≥ β(a)``, the
least ``b`` with ``2^a·3^b > E``: k² products, no sort. ε(10⁻⁶) is checked by the
reference's δ at plrv's ε being exactly 10⁻⁶ (δ is continuous and strictly decreasing
while some mass lies above ``e^ε``, so that ε is the least with δ ≤ 10⁻⁶).
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import sys
import time
from fractions import Fraction


def reference(k: int, e_rate: Fraction, delta: Fraction) -> tuple[Fraction, Fraction]:
    """``(δ(ln e_rate), E)`` of k-fold randomized response, ``E = e^ε`` the tight ε at
    ``delta``, with integers only (over the common scale 4^k)."""
    p = [0] * (k + 1)  # P-masses × 4^k, j = number of truthful answers
    c = 1
    for j in range(k + 1):
        p[j] = c
        c = c * 3 * (k - j) // (j + 1)
    q = p[::-1]  # Q-masses: the mirror image
    # ratio 3^(2j−k) > E ⇔ j > j0; suffix sums from the top
    sp, sq = [0] * (k + 2), [0] * (k + 2)
    for j in range(k, -1, -1):
        sp[j], sq[j] = sp[j + 1] + p[j], sq[j + 1] + q[j]
    scale = 4 ** k

    def first_above(rate: Fraction) -> int:
        lo, hi = 0, k + 1  # least j with 3^(2j−k) > rate
        while lo < hi:
            mid = (lo + hi) // 2
            if Fraction(3) ** (2 * mid - k) > rate:
                hi = mid
            else:
                lo = mid + 1
        return lo

    j = first_above(e_rate)
    d = Fraction(sp[j] - e_rate * sq[j], scale)

    def at_most(j: int) -> bool:  # δ at E = 3^(2j−k), atoms above j, ≤ delta
        r = Fraction(3) ** (2 * j - k)
        return Fraction(sp[j + 1], scale) - r * Fraction(sq[j + 1], scale) <= delta

    lo, hi = first_above(Fraction(1)), k
    while lo < hi:
        mid = (lo + hi) // 2
        if at_most(mid):
            hi = mid
        else:
            lo = mid + 1
    a, cq = Fraction(sp[lo], scale), Fraction(sq[lo], scale)
    return d, (a - delta) / cq


def bivariate_reference(k: int, rate: Fraction) -> Fraction:
    """δ(ln rate) of the k-fold 5-output mechanism (see the module), integers only."""
    def at_least(a: int) -> int:  # the least b with 2^a·3^b > rate (in [−k, k + 1])
        lo, hi = -k, k + 1
        while lo < hi:
            mid = (lo + hi) // 2
            if Fraction(2) ** a * Fraction(3) ** mid > rate:
                hi = mid
            else:
                lo = mid + 1
        return lo

    beta = {a: at_least(a) for a in range(-k, k + 1)}

    def side(a_coeffs: tuple[int, int, int], b_up: int, b_down: int) -> int:
        # suffix[n][j]: the coefficients of B^n at y^(2i − n), i ≥ j (B = b_up·y + b_down/y)
        suffix = []
        for n in range(k + 1):
            acc, column, c = 0, [0] * (n + 2), b_down ** n  # c: C(n, i)·b_up^i·b_down^(n−i)
            coeffs = []
            for i in range(n + 1):
                coeffs.append(c)
                c = c * b_up * (n - i) // ((i + 1) * b_down) if i < n else c
            for i in range(n, -1, -1):
                acc += coeffs[i]
                column[i] = acc
            suffix.append(column)
        total, power, binom = 0, [1], 1  # power: A^m at x^(a), a = −m..m
        low, mid, high = a_coeffs  # A = high·x + mid + low/x
        for m in range(k + 1):
            n = k - m
            inner = 0
            for a in range(-m, m + 1):
                j = max(0, -((-beta[a] - n) // 2))  # ceil((β + n)/2): y^(2j − n), 2j − n ≥ β
                if j <= n:
                    inner += power[a + m] * suffix[n][j]
            total += binom * inner
            binom = binom * (k - m) // (m + 1)
            nxt = [0] * (len(power) + 2)
            for i, c in enumerate(power):
                nxt[i] += c * low
                nxt[i + 1] += c * mid
                nxt[i + 2] += c * high
            power = nxt
        return total

    p = side((1, 3, 2), 3, 1)
    q = side((2, 3, 1), 1, 3)
    return Fraction(p, 10 ** k) - rate * Fraction(q, 10 ** k)


def heterogeneous_reference(rate: Fraction, truths: int = 10, copies: int = 100) -> Fraction:
    """δ(ln rate) of ``copies`` randomized responses of each truth ``3^j/(3^j + 1)``,
    ``j = 1..truths``, integers only. Run ``j`` has ``P = (3^j, 1)/(3^j + 1)``, ratio
    ``3^{±j}``; with ``c_j`` truthful answers of run ``j`` the ratio is ``3^(2i − N)``,
    ``i = Σ_j j·c_j``, ``N = copies·Σ_j j``, so over ``S = Π_j (3^j + 1)^copies`` the
    masses are ``P_i = 3^i·A_i`` and ``Q_i = 3^(N − i)·A_i`` with
    ``A_i = [y^i] Π_j (1 + y^j)^copies`` (each factor multiplied in by additions)."""
    top = copies * truths * (truths + 1) // 2
    a = [1] + [0] * top
    for j in range(1, truths + 1):
        for _ in range(copies):
            for i in range(top, j - 1, -1):
                a[i] += a[i - j]
    scale = 1
    for j in range(1, truths + 1):
        scale *= (3 ** j + 1) ** copies
    p = q = 0
    for i in range(top + 1):
        if Fraction(3) ** (2 * i - top) > rate:
            p += 3 ** i * a[i]
            q += 3 ** (top - i) * a[i]
    return Fraction(p, scale) - rate * Fraction(q, scale)


def _fraction(x) -> Fraction:
    return Fraction(int(x.numerator), int(x.denominator))


class Best(float):
    """The least of several timings, remembering them all (``runs``)."""

    runs: list[float]

    def __str__(self) -> str:
        return f"{float(self):.3f} s (runs {', '.join(f'{t:.3f}' for t in self.runs)})"


def best(f, runs: int = 3) -> tuple[Best, object]:
    times, out = [], None
    for _ in range(runs):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    least = Best(min(times))
    least.runs = times
    return least, out


def plrv_rr(k: int):
    from verifier.core.distribution import Dist
    from verifier.core.epsilon import parse_epsilon
    from verifier.notions.composition.exact import LossDistribution, compose_law

    rr = LossDistribution.of(Dist({0: "3/4", 1: "1/4"}), Dist({0: "1/4", 1: "3/4"}))
    law, route = compose_law([rr] * k, max_values=10**7)
    assert route == "polynomial"
    return law.delta(parse_epsilon("ln(2)")), law.epsilon("1/1000000")


def accounting_rr(k: int) -> float | None:
    try:
        from dp_accounting.pld import privacy_loss_distribution as pld
    except ImportError:
        return None
    one = pld.from_randomized_response(0.5, 2)  # a uniform answer w.p. 1/2: truth 3/4
    return one.self_compose(k).get_delta_for_epsilon(0.6931471805599453)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--large", action="store_true", help="also k = 100,000")
    args = ap.parse_args()
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
          f"{sys.version.split()[0]}, load average {os.getloadavg()[0]:.2f} at the start")
    ks = [100, 1000, 10_000] + ([100_000] if args.large else [])
    for k in ks:
        runs = 3
        t_ref, (d_ref, e_ref) = best(lambda k=k: reference(k, Fraction(2),
                                                           Fraction(1, 10**6)), runs)
        t_plrv, (d, e) = best(lambda k=k: plrv_rr(k), runs)
        assert Fraction(int((d.a - 2 * d.c).numerator), int((d.a - 2 * d.c).denominator)) \
            == d_ref, k
        assert e.rate is not None and Fraction(int(e.rate.numerator),
                                               int(e.rate.denominator)) == e_ref, k
        t_acc = None
        if k <= 10_000:
            t_acc, _ = best(lambda k=k: accounting_rr(k), 1 if k >= 10_000 else 3)
        acc = "n/a" if t_acc is None else f"{t_acc:.3f} s"
        print(f"randomized response k={k}: plrv {t_plrv}, reference {t_ref} "
              f"(ratio {t_plrv / t_ref:.2f}), dp_accounting {acc}; exact δ(ln 2) and "
              f"ε(1e-6) equal")
    from verifier.core.distribution import Dist
    from verifier.core.epsilon import parse_epsilon
    from verifier.notions.composition.exact import LossDistribution, compose_law

    bi = LossDistribution.of(Dist({0: "2/10", 1: "3/10", 2: "1/10", 3: "1/10", 4: "3/10"}),
                             Dist({0: "1/10", 1: "1/10", 2: "2/10", 3: "3/10", 4: "3/10"}))

    def bivariate(k: int):
        law, route = compose_law([bi] * k, max_values=10**7)
        return law, route, law.delta(parse_epsilon("ln(2)")), law.epsilon("1/1000000")

    k = 1000
    t, (law, route, d, e) = best(lambda: bivariate(k))
    t_ref, d_ref = best(lambda: bivariate_reference(k, Fraction(2)))
    assert _fraction(d.a - 2 * d.c) == d_ref
    assert e.rate is not None
    rate = _fraction(e.rate)
    assert bivariate_reference(k, rate) == Fraction(1, 10**6)
    print(f"bivariate (ratios 2, 3, 1/2, 1/3, 1) k={k}: plrv {t}, reference δ(ln 2) "
          f"{t_ref}, route {route}, {law.terms} values; exact δ(ln 2) equal, reference "
          f"δ at plrv's ε(1e-6) ≈ {e.approx()} is exactly 1e-6")
    mixed = [LossDistribution.of(Dist({0: f"{3 ** j}/{3 ** j + 1}", 1: f"1/{3 ** j + 1}"}),
                                 Dist({0: f"1/{3 ** j + 1}", 1: f"{3 ** j}/{3 ** j + 1}"}))
             for j in range(1, 11) for _ in range(100)]

    def heterogeneous():
        law, route = compose_law(mixed, max_values=10**7)
        return law, route, law.delta(parse_epsilon("ln(2)")), law.epsilon("1/1000000")

    t, (law, route, d, e) = best(heterogeneous)
    t_ref, d_ref = best(lambda: heterogeneous_reference(Fraction(2)))
    assert _fraction(d.a - 2 * d.c) == d_ref
    assert e.rate is not None
    assert heterogeneous_reference(_fraction(e.rate)) == Fraction(1, 10**6)
    print(f"heterogeneous: 1000 randomized responses of 10 truths 3^j/(3^j + 1): plrv "
          f"{t}, reference δ(ln 2) {t_ref}, route {route}, {law.terms} values; "
          f"exact δ(ln 2) ≈ {d.approx()} equal, reference δ at plrv's ε(1e-6) ≈ {e.approx()} "
          f"is exactly 1e-6")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory {peak:.0f} MB, load average {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
