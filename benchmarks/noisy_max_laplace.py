"""Report noisy max, above threshold and noise on each coordinate at a transcendental base
β = e^{−1/scale}, timed against the routes to the same kind of answer.

    python benchmarks/noisy_max_laplace.py

Rows (best of three; Python peak memory of a fourth run under tracemalloc):
* ``symbolic``: plrv's laws as exact rational functions of β, signs by arb balls
  (``verifier.notions.dp.noise_zoo.check_choice_dp``) — the exact δ at ε and tight ε at δ = 0;
* ``rational``: the testing zoo's specs (examples/zoo) decided by plrv's exact rational engine
  at β = 1/2 — the same patterns and inputs, at a rational stand-in for β (the proxy this
  route replaces);
* ``mpmath``: the tight ε at δ = 0 of report noisy max by direct summation of the noise at
  30 digits over a window with γ^W < 10⁻³⁰ — an approximation with no certificate, the only
  other route to a transcendental β here;
* ``enclosed``: discrete Gaussian noise on each coordinate (no exact form: certified
  enclosures of δ at ε and of ε at δ).
"""

from __future__ import annotations

import sys
import time
import tracemalloc
from itertools import product
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import mpmath  # noqa: E402
from gmpy2 import mpq  # noqa: E402

from verifier import (  # noqa: E402
    above_threshold,
    check_choice_dp,
    f64,
    noisy_max,
    parse_epsilon,
    vector_relation,
    vectors,
)
from verifier.model.expnoise_vector import coordinate_laplace  # noqa: E402
from verifier.notions.dp.noise_gauss_vector import check_gaussian_vector_dp  # noqa: E402
from verifier.specs.check import load_spec, run_spec  # noqa: E402


def timed(f, repeats: int = 3) -> tuple[float, float, object]:
    """(best seconds, peak MiB of one more run under tracemalloc, result)."""
    best, out = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - start)
    tracemalloc.start()
    f()
    peak = tracemalloc.get_traced_memory()[1] / 2 ** 20
    tracemalloc.stop()
    return best, peak, out


def mp_noisy_max_epsilon(scale: mpmath.mpf, coordinates: int, hi: int) -> mpmath.mpf:
    beta = mpmath.exp(-1 / scale)
    w = int(70 / -mpmath.log(beta)) + 1
    mass = {k: (1 - beta) / (1 + beta) * beta ** abs(k) for k in range(-w, w + 1)}
    cum, total = {}, mpmath.mpf(0)
    for k in range(-w, w + 1):
        total += mass[k]
        cum[k] = total

    def le(c, v):
        k = v - c
        return mpmath.mpf(0) if k < -w else mpmath.mpf(1) if k > w else cum[k]

    def law(q):
        out = []
        for i, qi in enumerate(q):
            s = mpmath.mpf(0)
            for v in range(min(q) - w, max(q) + w + 1):
                x = mass.get(v - qi, mpmath.mpf(0))
                for j, qj in enumerate(q):
                    if j != i:
                        x *= le(qj, v - 1) if j < i else le(qj, v)
                s += x
            out.append(s)
        return out

    xs = list(product(range(hi + 1), repeat=coordinates))
    laws = {x: law(x) for x in xs}
    return mpmath.log(max(laws[x][i] / laws[y][i] for x in xs for y in xs
                          if x != y and max(abs(a - b) for a, b in zip(x, y, strict=True)) <= 1
                          for i in range(coordinates)))


def main() -> None:
    scale = f64(2 / 0.6931471805599453)
    cases = [
        ("noisy max, 3 coordinates in 0..2", noisy_max(scale), 3, 2, "report_noisy_max"),
        ("above threshold, 5 in 0..1", above_threshold(4, 2, 1), 5, 1, "sparse_vector"),
        ("wrong-scale threshold, 5 in 0..1", above_threshold(mpq(4, 3), 4, 1, strict=True), 5,
         1, "svt_wrong_scale"),
        ("noisy max with its value, 3 in 0..2", noisy_max(2, value=(-1, 3)), 3, 2,
         "noisy_max_with_value"),
        ("threshold with its value, 5 in 0..1", above_threshold(4, 2, 1, value=(-1, 3)), 5, 1,
         "svt_returns_noisy_value"),
        ("noise on each coordinate, 3 in 0..2", coordinate_laplace(scale), 3, 2, None),
    ]
    print(f"{'case':<38} {'route':<9} {'seconds':>8} {'peak MiB':>9}  result")
    for name, mech, c, hi, zoo in cases:
        rel = vector_relation("linf", 1, vectors(c, 0, hi))
        s, mem, r = timed(lambda m=mech, rel=rel: check_choice_dp(m, rel, parse_epsilon("1"),
                                                                   mpq(0)))
        eps = r.epsilon_enclosure.approx() if r.epsilon_enclosure else r.epsilon
        print(f"{name:<38} {'symbolic':<9} {s:8.3f} {mem:9.1f}  holds={r.holds}, ε≈{eps}")
        if zoo is not None:
            spec = load_spec(ROOT / "examples" / "zoo" / f"{zoo}.toml")
            s, mem, res = timed(lambda spec=spec: run_spec(spec).results["dp"])
            print(f"{'':<38} {'rational':<9} {s:8.3f} {mem:9.1f}  holds={res.holds} "
                  f"(at β = 1/2)")
    rel = vector_relation("linf", 1, vectors(3, 0, 2))
    s, mem, r = timed(lambda: check_gaussian_vector_dp(mpq(2), rel, parse_epsilon("1"),
                                                       mpq(1, 10)))
    print(f"{'Gaussian σ=2 on each coordinate, 3':<38} {'enclosed':<9} {s:8.3f} {mem:9.1f}  "
          f"holds={r.holds}, δ≈{r.delta_enclosure.approx()}, ε(1/10)≈"
          f"{r.epsilon_enclosure.approx() if r.epsilon_enclosure else r.epsilon}")
    with mpmath.workdps(30):
        s, mem, value = timed(lambda: mp_noisy_max_epsilon(mpmath.mpf(2) / mpmath.log(2), 3, 2),
                              repeats=1)
    print(f"{'noisy max, 3 coordinates in 0..2':<38} {'mpmath':<9} {s:8.3f} {mem:9.1f}  "
          f"ε≈{mpmath.nstr(value, 8)} (uncertified)")


if __name__ == "__main__":
    main()
