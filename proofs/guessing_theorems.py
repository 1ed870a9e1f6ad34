"""Seed 004's statements as theorem records (run by check_theorems.py with the others)."""

from __future__ import annotations

from gmpy2 import mpq

from verifier import Dist
from verifier.guessing.bounds import precise_bound, ring_bound, simplified_bound
from verifier.guessing.metric import (
    ScaledLog,
    exponential_mechanism,
    tight_epsilon,
    truncated_geometric,
)
from verifier.guessing.model import GuessModel, advantage


def _priors(domain):
    n = len(domain)
    yield Dist.uniform(domain)
    yield Dist({x: mpq(i + 1, n * (n + 1) // 2) for i, x in enumerate(domain)})  # rising
    yield Dist({x: mpq(1, 2) if i == 0 else mpq(1, 2 * (n - 1)) for i, x in enumerate(domain)})


def guessing_family():
    """Priors × mechanisms × precisions on small integer domains; ε = the tight ε·d."""
    for hi in (4, 8):
        domain = tuple(range(hi + 1))
        mechanisms = [("geometric α=" + a, truncated_geometric(a, 0, hi))
                      for a in ("1/2", "2/3", "9/10")]
        mechanisms.append(("exponential β=1/2",
                           exponential_mechanism("1/2", domain, lambda x, z: abs(x - z))))
        for prior in _priors(domain):
            for name, kernel in mechanisms:
                for precision in (mpq(1), mpq(2), mpq(3, 2)):
                    yield GuessModel(domain, prior, kernel, (precision,)), name


def bounds_in_order(item) -> bool:
    """exact posterior ≤ precise bound ≤ simplified bound, for every target (seed 004)."""
    model, _ = item
    eps, _ = tight_epsilon(model.kernel, model.domain, model.distance)
    for row in advantage(model):
        precise = precise_bound(model, row.target, eps)
        simple = simplified_bound(model, row.target, eps)
        if precise.compare(row.posterior) != 1 and precise.compare(row.posterior) != 0:
            return False
        if simple.compare(precise) not in (0, 1):
            return False
    return True


def ring_form_bounds(item) -> bool:
    """REFERENCE.md §7's ring form bounds the posterior (expected to FAIL: it does not)."""
    model, _ = item
    eps, _ = tight_epsilon(model.kernel, model.domain, model.distance)
    return all(ring_bound(model, row.target, eps).compare(row.posterior) in (0, 1)
               for row in advantage(model))


def worst_prior_family():
    """(ε = ln q, R) with e^{Rε/2} rational, and a grid of priors p."""
    for q, R in ((4, 1), (9, 1), (2, 2), (16, mpq(1, 2)), (mpq(9, 4), 2)):
        yield ScaledLog.make(q, 1), mpq(R)


def worst_prior_maximises(item) -> bool:
    """p* = 1/(1 + e^{Rε/2}) maximises η(p) = 1/(1 + e^{−εR}(1−p)/p) − p, at tanh(Rε/4)."""
    eps, R = item
    e_half = eps.base ** int((R / 2).numerator) if (R / 2).denominator == 1 else None
    if e_half is None:
        from verifier.guessing.metric import power_bounds
        lo, hi = power_bounds(eps.base, R / 2, 64)
        assert lo == hi
        e_half = lo
    e_r = e_half * e_half

    def eta(p):
        return 1 / (1 + (1 - p) / (p * e_r)) - p
    p_star = 1 / (1 + e_half)
    best = eta(p_star)
    if best != (e_half - 1) / (e_half + 1):
        return False
    return all(eta(mpq(k, 200)) <= best for k in range(1, 200))
