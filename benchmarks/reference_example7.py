"""Reference implementation of Example 7's exact APK and PPK δ, in O(n) integer operations.

Independent of ``verifier`` (nothing is imported from it): plain Python ints, one common
denominator, prefix sums of the binomial law. It is the yardstick the count engine is
compared against (exact equality of the δ as rationals) and timed against.

The instance (seed 003 Example 1; thesis Example 7; REFERENCE.md §5): ``n`` independent
binary records, ``P[D_j = 1] = p``; the mechanism releases the count when it reaches the
threshold, ``M_T(D) = c`` if ``c = Σ_j D_j ≥ T`` else ``⊥`` (``release="count"``, what
plrv's ``threshold_count`` is; ``release="indicator"`` releases only ``1[c ≥ T]``); the
attacker knows ``m`` records and targets another one. ε = ln(q) with rational ``q``, so
``E = e^ε = q`` and every δ is rational.

Mathematics (REFERENCE.md §2–§3, seed 003 Definitions 5–7):

* The unknown records are the ``N = n − m − 1`` records that are neither known nor the
  target; their count ``U ~ Binomial(N, p)``. Write ``p = s/d`` and use the integer weights
  ``w(j) = C(N, j)·s^j·(d−s)^(N−j)`` (so ``P[U = j] = w(j)/d^N``, ``Σ_j w(j) = d^N``), the
  prefix sums ``F(x) = Σ_{j≤x} w(j)`` (``F(x) = 0`` for ``x < 0``, ``d^N`` for ``x ≥ N``)
  and the suffix sums ``G(x) = Σ_{j≥x} w(j) = d^N − F(x−1)``.
* The background value is the vector of known records; the conditional output law depends
  on it only through ``k`` = its number of ones, so one APK δ per ``k ∈ {0..m}`` stands for
  the ``C(m, k)`` vectors with that count. Given target value ``a`` and ``k``: ``c = k+a+U``,
  ``P[⊥ | a, k] = F(T−1−k−a)`` and ``P[c | a, k] = w(c−k−a)`` for ``c ≥ T`` (over ``d^N``).
* APK (Def. 6): ``APK_{a,b,k} = Σ_O max(0, P[O|a,k] − E·P[O|b,k])``; the worst APK δ is the
  maximum over both ordered pairs ``(0,1), (1,0)`` and over every (possible) ``k``.
* PPK (Def. 7 with the e^{ε−L} reading, = Theorem 1): the expectation of ``m(O, B)`` under
  the joint law of ``(O, B)`` given ``D(i) = a``, which is ``Σ_k P[k | a]·APK_{a,b,k}``;
  the target is independent of the known records, so ``P[k | a] = P[k] =
  C(m,k)·s^k·(d−s)^(m−k)/d^m``. The worst PPK δ is the maximum over the two ordered pairs.

O(n) evaluation (count release; see ``apk_numerators``): the likelihood ratio
``w(j)/w(j−1) = (N−j+1)·s / (j·(d−s))`` is strictly decreasing in ``j``, so the released
outputs with a positive term form one interval of ``j`` for each ordered pair:

* ``(a,b) = (0,1)``, ``j = c − k``: ``w(j) > E·w(j−1)`` iff ``j ≤ J0`` with
  ``J0 = min(N, ⌈X⌉ − 1)``, ``X = (N+1)·s·e_den / (e_num·(d−s) + s·e_den)``; the released
  part is ``Σ_{j=lo}^{hi} (w(j) − E·w(j−1))`` with ``lo = max(T−k, 0)``, ``hi = J0``:
  ``(F(hi) − F(lo−1)) − E·(F(hi−1) − F(lo−2))`` — prefix sums.
* ``(a,b) = (1,0)``, ``j = c − k − 1``: ``w(j) > E·w(j+1)`` iff ``j ≥ J1`` with
  ``J1 = clip(⌊Y⌋ + 1, 0, N)``, ``Y = (e_num·N·s − (d−s)·e_den) / ((d−s)·e_den + e_num·s)``;
  the released part is ``Σ_{j=lo}^{N} (w(j) − E·w(j+1)) = G(lo) − E·G(lo+1)`` with
  ``lo = max(T−k−1, J1, 0)`` — suffix sums (each ``d^N − F(·)``).
* ``⊥``: ``max(0, F(T−1−k−a) − E·F(T−1−k−b))`` — prefix sums.

Only ``F`` at the indices ``T−m−2 … T`` and next to ``J0``, ``J1`` is needed, so ``w`` is
streamed ``w(j+1) = w(j)·(N−j)·s // ((j+1)·(d−s))`` (an exact division) up to the largest
needed index and only those prefix sums are kept. Everything is an integer over the common
denominator ``d^N·e_den`` (APK) or ``d^m·d^N·e_den`` (PPK); a ``Fraction`` is made only
for the values asked for (reducing a 10^4-digit fraction is the most expensive single step).

Run: ``python benchmarks/reference_example7.py 1000 2000 5000 10000`` (each n in a fresh
subprocess: seconds and peak memory), or ``--print N`` for the δ at one n.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

_gmp_int: Callable[[int], Any] | None
try:                                 # GMP integers when available (same results, faster)
    from gmpy2 import mpz as _gmp_int
except ImportError:                  # pragma: no cover
    _gmp_int = None

PAIRS = ((0, 1), (1, 0))


def _prefix_sums(N: int, s: int, d: int, wanted: set[int], Z: Callable = int
                 ) -> dict[int, Any]:
    """``F(x) = Σ_{j≤x} C(N,j)·s^j·(d−s)^(N−j)`` for every ``x`` in ``wanted`` (any ints):
    one pass over ``j = 0 … max(wanted ∩ [0, N))``, keeping only the wanted prefix sums."""
    total = Z(d) ** N
    out = {x: Z(0) for x in wanted if x < 0}
    out.update({x: total for x in wanted if x >= N})
    inside = sorted(x for x in wanted if 0 <= x < N)
    if not inside:
        return out
    top, want = inside[-1], set(inside)
    r = d - s
    w = Z(r) ** N                   # w(0)
    acc = Z(0)
    for j in range(top + 1):
        acc += w
        if j in want:
            out[j] = acc
        if j < top:                 # w(j+1) = w(j)·(N−j)·s / ((j+1)·(d−s)), exactly
            w = w * ((N - j) * s) // ((j + 1) * r)
    return out


def _weights(m: int, s: int, d: int, Z: Callable = int) -> list[Any]:
    """``C(m,k)·s^k·(d−s)^(m−k)`` for ``k = 0 … m`` (``P[k]`` over ``d^m``)."""
    r = d - s
    v = Z(r) ** m
    out = [v]
    for k in range(m):
        v = v * ((m - k) * s) // ((k + 1) * r)
        out.append(v)
    return out


def _mix(apk_num: list[dict], ab: tuple[int, int], m: int, s: int, r: int,
         Z: Callable = int) -> Any:
    """``Σ_k C(m,k)·s^k·r^(m−k)·apk_num[k][ab]`` by Horner's rule in ``r``:
    ``H_k = r·H_{k−1} + C(m,k)·s^k·A_k``, so each step multiplies the big accumulator only
    by the small ``r`` and the big ``A_k`` by ``C(m,k)·s^k`` (``m`` bits when ``s = 1``)
    instead of by the full weight ``C(m,k)·s^k·r^(m−k)`` (``m·log2(d)`` bits)."""
    acc, c = Z(0), Z(1)              # c = C(m,k)·s^k
    for k in range(m + 1):
        acc = acc * r + c * apk_num[k][ab]
        c = c * ((m - k) * s) // (k + 1)
    return acc


@dataclass
class Example7Reference:
    """Exact δ of Example 7 at ε = ln(q), as integers over common denominators.

    ``apk_num[k][(a, b)] / apk_den = APK_{a,b,k}`` and ``ppk_num[(a, b)] / ppk_den =
    PPK_{a,b}``; the methods return reduced ``Fraction``s."""

    n: int
    p: Fraction
    threshold: int
    known: int
    q: Fraction
    release: str
    apk_den: Any
    apk_num: list[dict[tuple[int, int], Any]]
    ppk_den: Any
    ppk_num: dict[tuple[int, int], Any]
    background_weight: list[Any] = field(repr=False)   # P[k] = weight[k] / d^m

    def apk(self, k: int, a: int, b: int) -> Fraction:
        """``APK_{a,b,k}``: the APK δ for one background vector with ``k`` known ones."""
        return Fraction(int(self.apk_num[k][(a, b)]), int(self.apk_den))

    def apk_by_k(self, k: int) -> tuple[Fraction, tuple[int, int]]:
        """The APK δ of background class ``k`` (worst ordered pair, first one on a tie)."""
        a, b = max(PAIRS, key=lambda ab: (self.apk_num[k][ab], -PAIRS.index(ab)))
        return self.apk(k, a, b), (a, b)

    def apk_worst(self) -> tuple[Fraction, int, tuple[int, int]]:
        """The worst APK δ over every ``k`` and ordered pair, with the first ``(k, (a, b))``
        attaining it (k ascending, pairs in the order (0,1), (1,0))."""
        best = max(((self.apk_num[k][ab], -k, -i) for k in range(self.known + 1)
                    for i, ab in enumerate(PAIRS)))
        k, ab = -best[1], PAIRS[-best[2]]
        return Fraction(int(best[0]), int(self.apk_den)), k, ab

    def apk_attaining(self) -> list[tuple[int, tuple[int, int]]]:
        """Every ``(k, (a, b))`` whose APK δ is the worst one (plrv names one of them as its
        witness; in Example 7 both ``k = T − 1`` and ``k = T`` attain it with (0, 1))."""
        top = max(row[ab] for row in self.apk_num for ab in PAIRS)
        return [(k, ab) for k, row in enumerate(self.apk_num) for ab in PAIRS if row[ab] == top]

    def ppk(self, a: int, b: int) -> Fraction:
        return Fraction(int(self.ppk_num[(a, b)]), int(self.ppk_den))

    def ppk_worst(self) -> tuple[Fraction, tuple[int, int]]:
        ab = max(PAIRS, key=lambda x: (self.ppk_num[x], -PAIRS.index(x)))
        return self.ppk(*ab), ab

    def background_probability(self, k: int) -> Fraction:
        """``P[k known ones]`` (the whole class, ``C(m, k)`` background vectors)."""
        return Fraction(int(self.background_weight[k]), self.p.denominator ** self.known)


def example7_reference(n: int, p: Fraction | str = Fraction(1, 10 ** 6),
                       threshold: int | None = None, known: int | None = None,
                       q: Fraction | str | int = 2, release: str = "count",
                       gmpy2: bool | None = None) -> Example7Reference:
    """Exact APK δ per background class, worst APK δ and PPK δ at ε = ln(q) of the
    thresholded count on ``n`` i.i.d. binary records with ``P[1] = p``, threshold ``T``
    (default ``n // 10``), an attacker knowing ``m`` records (default ``n // 10``) and
    targeting another one. O(n) big-integer operations. ``gmpy2``: compute with GMP
    integers (default: when gmpy2 is installed) or with Python ints; the results are equal."""
    p, q = Fraction(p), Fraction(q)
    T = n // 10 if threshold is None else threshold
    m = n // 10 if known is None else known
    if not 0 < p < 1:
        raise ValueError(f"p = {p} must lie strictly between 0 and 1")
    if q <= 0:
        raise ValueError(f"q = {q} must be positive (ε = ln q)")
    if not 0 <= m <= n - 1:
        raise ValueError(f"known = {m} must leave the target unknown (n = {n})")
    if release not in ("count", "indicator"):
        raise ValueError(f"release = {release!r}: 'count' or 'indicator'")
    if gmpy2 and _gmp_int is None:
        raise ValueError("gmpy2 is not installed")
    use_gmp = _gmp_int is not None if gmpy2 is None else gmpy2
    Z: Callable[[int], Any] = _gmp_int if use_gmp and _gmp_int is not None else int
    s, d = p.numerator, p.denominator
    en, ed = q.numerator, q.denominator
    N = n - m - 1
    total = Z(d) ** N

    # cut-offs of the monotone likelihood ratio (count release only)
    J0 = min(N, ((N + 1) * s * ed - 1) // (en * (d - s) + s * ed))
    J1 = min(N, max(0, (en * N * s - (d - s) * ed) // ((d - s) * ed + en * s) + 1))

    wanted = {T - 1 - k - a for k in range(m + 1) for a in (0, 1)}
    if release == "count":
        for k in range(m + 1):
            lo = max(T - k, 0)
            if lo <= J0:
                wanted |= {J0, J0 - 1, lo - 1, lo - 2}
            lo = max(T - k - 1, J1, 0)
            if lo <= N:
                wanted |= {lo - 1, lo}
    F = _prefix_sums(N, s, d, wanted, Z)

    def G(x: int) -> Any:                       # suffix sum Σ_{j≥x} w(j)
        return total - F[x - 1]

    apk_num: list[dict[tuple[int, int], Any]] = []
    for k in range(m + 1):
        row = {}
        below = {a: F[T - 1 - k - a] for a in (0, 1)}          # P[⊥ | a, k]·d^N
        for a, b in PAIRS:
            if release == "indicator":
                x = max(0, below[a] * ed - en * below[b])
                x += max(0, (total - below[a]) * ed - en * (total - below[b]))
            else:
                x = max(0, below[a] * ed - en * below[b])
                if (a, b) == (0, 1):
                    lo = max(T - k, 0)
                    if lo <= J0:
                        x += (F[J0] - F[lo - 1]) * ed - en * (F[J0 - 1] - F[lo - 2])
                else:
                    lo = max(T - k - 1, J1, 0)
                    if lo <= N:
                        x += G(lo) * ed - en * G(lo + 1)
            row[(a, b)] = x
        apk_num.append(row)

    weight = _weights(m, s, d, Z)
    ppk_num = {ab: _mix(apk_num, ab, m, s, d - s, Z) for ab in PAIRS}
    apk_den = total * ed
    return Example7Reference(n=n, p=p, threshold=T, known=m, q=q, release=release,
                             apk_den=apk_den, apk_num=apk_num, ppk_den=d ** m * apk_den,
                             ppk_num=ppk_num, background_weight=weight)


def apk_ppk(n: int, p: Fraction = Fraction(1, 10 ** 6), threshold: int | None = None,
            known: int | None = None, q: Fraction | int = 2) -> tuple[Fraction, Fraction]:
    """Worst APK δ and worst PPK δ (the pair ``fraction_baseline.apk_ppk`` returns)."""
    r = example7_reference(n, p, threshold, known, q)
    return r.apk_worst()[0], r.ppk_worst()[0]


def _measure(n: int, gmpy2: bool) -> dict:
    """Time and peak memory of one full computation (worst APK and PPK as reduced
    Fractions), meant to run alone in a fresh process: ``seconds`` in all,
    ``integer_part_s`` before the two Fractions are reduced, the tracemalloc peak (Python
    allocations; GMP's own may not be traced) and the process's peak RSS, with its value
    before the computation (the interpreter and imports)."""
    import resource
    import tracemalloc
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    r = example7_reference(n, gmpy2=gmpy2)
    ints = time.perf_counter() - start
    apk, k, ab = r.apk_worst()
    ppk, ab2 = r.ppk_worst()
    elapsed = time.perf_counter() - start
    tracemalloc.start()
    r = example7_reference(n, gmpy2=gmpy2)
    r.apk_worst(), r.ppk_worst()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {"n": n, "ints": "gmpy2.mpz" if gmpy2 else "int", "seconds": round(elapsed, 4),
            "integer_part_s": round(ints, 4),
            "tracemalloc_peak_mb": round(peak / 2 ** 20, 2),
            "maxrss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "maxrss_before_mb": round(base / 1024, 1),
            "apk_worst_k": k, "apk_pair": list(ab), "ppk_pair": list(ab2),
            "apk_den_bits": apk.denominator.bit_length(),
            "ppk_den_bits": ppk.denominator.bit_length()}


def main(argv: list[str]) -> None:
    if argv[:1] == ["--one"]:
        print(json.dumps(_measure(int(argv[1]), argv[2] == "gmpy2")))
        return
    if argv[:1] == ["--print"]:
        sys.set_int_max_str_digits(0)
        r = example7_reference(int(argv[1]))
        apk, k, ab = r.apk_worst()
        ppk, ab2 = r.ppk_worst()
        print(json.dumps({"apk": str(apk), "apk_k": k, "apk_pair": ab, "ppk": str(ppk),
                          "ppk_pair": ab2}))
        return
    backends = ["int"] + (["gmpy2"] if _gmp_int is not None else [])
    for n in map(int, argv or ["1000", "2000", "5000", "10000"]):
        for backend in backends:
            out = subprocess.run([sys.executable, __file__, "--one", str(n), backend],
                                 check=True, capture_output=True, text=True).stdout
            print(out.strip(), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
