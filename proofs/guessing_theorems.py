"""Seed 004's statements (Pankova & Laud) as theorem records, against independent checks.

The exact posterior is compared with :func:`proofs.reference.posterior` (the largest
``P[X ∈ g | M(X) = z]``), the worst-case prior and the inversion with their closed forms, and
the cafeteria with the posterior written out from the truncated geometric's definition.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from gmpy2 import mpq

from verifier import Dist
from verifier.guessing.bounds import (
    max_advantage,
    precise_bound,
    ring_bound,
    simplified_bound,
    simplified_epsilon,
    worst_case_epsilon,
    worst_prior_for_epsilon,
)
from verifier.guessing.metric import (
    ScaledLog,
    exponential_mechanism,
    tight_epsilon,
    truncated_geometric,
)
from verifier.guessing.model import GuessModel, advantage

from . import reference as ref
from .record import Theorem

__all__ = ["GUESSING_RECORDS"]


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


def and_family():
    """Two attributes on {0..3}², goals combining them with AND (both within precision)."""
    domain = tuple((a, b) for a in range(4) for b in range(4))
    geo = truncated_geometric("1/2", 0, 3)

    def kernel(x):  # each attribute through the truncated geometric, independently
        return Dist.product([geo(x[0]), geo(x[1])])
    skew = Dist({x: mpq(1 + x[0] + 2 * x[1], 88) for x in domain})
    for prior in (Dist.uniform(domain), skew):
        for precisions in ((mpq(1), mpq(1)), (mpq(1), mpq(2)), (mpq(2), mpq(1, 2))):
            yield GuessModel(domain, prior, kernel, precisions, "and"), "geometric²"


def _goal(model: GuessModel, x) -> frozenset:
    """AND (and one attribute): every attribute within its precision, written directly."""
    cx = x if isinstance(x, tuple) else (x,)
    return frozenset(y for y in model.domain
                     if all(abs(a - b) <= r for a, b, r in
                            zip(cx, y if isinstance(y, tuple) else (y,), model.precisions,
                                strict=True)))


def bounds_in_order(item) -> bool | None:
    """exact posterior ≤ precise bound ≤ simplified bound for every target; the posterior
    equals the reference's, the goal the direct AND, and the precise bound's certified
    enclosure holds the reference's (integer roots, 256 bits). Vacuous where no target
    gains."""
    model, _ = item
    eps, _ = tight_epsilon(model.kernel, model.domain, model.distance)
    prior = {x: ref.F(w) for x, w in model.prior.items()}
    gained = False
    for row in advantage(model):
        goal = _goal(model, row.target)
        if model.goal(row.target) != goal or \
                ref.F(row.posterior) != ref.posterior(prior, model.kernel, goal):
            return False
        precise = precise_bound(model, row.target, eps)
        if precise.compare(row.posterior) not in (0, 1):
            return False
        lo, hi = precise.enclose(64)  # certified: must hold the reference's narrower interval
        r_lo, r_hi = (ref.F(lo), ref.F(hi)) if eps.infinite else \
            ref.precise_enclosure(goal, prior, model.distance, ref.F(eps.base), eps.scale, 256)
        if not ref.F(lo) <= r_lo <= r_hi <= ref.F(hi):
            return False
        if simplified_bound(model, row.target, eps).compare(precise) not in (0, 1):
            return False
        gained |= row.posterior > row.prior
    return True if gained else None


def ring_form_bounds(item) -> bool:
    """REFERENCE.md §7's ring form bounds the posterior (expected to FAIL: it does not)."""
    model, _ = item
    eps, _ = tight_epsilon(model.kernel, model.domain, model.distance)
    return all(ring_bound(model, row.target, eps).compare(row.posterior) in (0, 1)
               for row in advantage(model))


def worst_prior_family():
    """(ε = ln q, R, e^{Rε/2}) with e^{Rε/2} = q^{R/2} rational."""
    for q, R, half in ((4, 1, 2), (9, 1, 3), (2, 2, 2), (16, Fraction(1, 2), 2),
                       (Fraction(9, 4), 2, Fraction(9, 4))):
        yield ScaledLog.make(mpq(q), 1), Fraction(R), Fraction(half)


def worst_prior_maximises(item) -> bool:
    """The code's worst prior and largest advantage equal p* = 1/(1 + e^{Rε/2}) and
    tanh(Rε/4) = (e^{Rε/2} − 1)/(e^{Rε/2} + 1), and p* maximises η(p) = 1/(1 + e^{−εR}·
    (1−p)/p) − p over a grid of 199 priors (closed forms, e^{Rε/2} rational here)."""
    eps, R, half = item
    if half ** (2 * R.denominator) != ref.F(eps.base) ** R.numerator:
        return False
    p_star, top = 1 / (1 + half), (half - 1) / (half + 1)
    if worst_prior_for_epsilon(eps, mpq(R)).compare(mpq(p_star)) != 0 or \
            max_advantage(eps, mpq(R)).compare(mpq(top)) != 0:
        return False

    def eta(p):
        return 1 / (1 + (1 - p) / (p * half ** 2)) - p
    return eta(p_star) == top and all(eta(Fraction(k, 200)) <= top for k in range(1, 200))


def inversion_family():
    for p in ("1/10", "1/4", "1/2"):
        for eta in ("1/20", "1/5", "2/5"):
            for R in ("1", "3", "5/2"):
                yield Fraction(p), Fraction(eta), Fraction(R)


def _is_rate(eps: ScaledLog, R: Fraction, x: Fraction) -> bool:
    """Whether e^{ε·R} = x for ε = ln(base)/scale: base^R = x^scale, in integers powers."""
    return ref.F(eps.base) ** R.numerator == x ** (eps.scale * R.denominator)


def inversion(item) -> bool | None:
    """Inverting the simplified bound: ε with e^{εR} = (1−p)(p+η)/(p(1−p−η)) (the code's,
    checked exactly), at which the bound gives exactly p + η; at p = (1−η)/2 it is the
    worst-case ε with e^{εR} = ((1+η)/(1−η))²."""
    p, eta, R = item
    if p + eta >= 1:
        return None
    rate = (1 - p) * (p + eta) / (p * (1 - p - eta))
    if not _is_rate(simplified_epsilon(mpq(p), mpq(eta), mpq(R)), R, rate):
        return False
    if 1 / (1 + (1 - p) / (p * rate)) != p + eta:
        return False
    worst = ((1 + eta) / (1 - eta)) ** 2
    return _is_rate(worst_case_epsilon(mpq(eta), mpq(R)), R, worst) and \
        _is_rate(simplified_epsilon(mpq((1 - eta) / 2), mpq(eta), mpq(R)), R, worst)


CAFETERIA = Path(__file__).resolve().parent.parent / "examples" / "cafeteria.toml"


def cafeteria_family():
    yield "with noise"
    yield "without noise"


def cafeteria(which: str) -> bool:
    """Seed 004's cafeteria (examples/cafeteria.toml): Alice's time within 5 minutes on the
    grid 5..40. The posterior for targets 10, 20, 30 is written out from the truncated
    geometric's definition (α = 9/10, mass beyond an end at that end) and the prior; without
    noise the average pins her time down: posterior 1."""
    from dataclasses import replace

    from verifier.guessing.report import guess_report
    from verifier.specs.guess import load_guess_spec
    spec = load_guess_spec(CAFETERIA)
    if which == "without noise":
        spec = replace(spec, model=replace(spec.model, kernel=Dist.point), mechanism="identity")
    rows = {row.target: row for row in guess_report(spec).rows}
    weights = [0] + [1] * 4 + [5] * 5 + [6] * 5 + [4] * 5 + [2] * 5 + [1] * 11
    prior = {5 + i: Fraction(w, 100) for i, w in enumerate(weights)}
    a = Fraction(9, 10)

    def geometric(x):
        out = {z: (1 - a) / (1 + a) * a ** abs(z - x) for z in range(6, 40)}
        out[5], out[40] = a ** (x - 5) / (1 + a), a ** (40 - x) / (1 + a)
        return out
    for target in (10, 20, 30):
        goal = frozenset(range(target - 5, target + 6))
        expected = Fraction(1) if which == "without noise" else \
            ref.posterior(prior, geometric, goal)
        if ref.F(rows[target].posterior) != expected or \
                ref.F(rows[target].prior) != sum((prior[x] for x in goal), Fraction(0)):
            return False
    return True


GUESSING_RECORDS = [
    Theorem("guess-bounds-order", "seed 004, main theorem and simplification",
            "exact posterior ≤ precise bound ≤ simplified bound for every target",
            guessing_family, bounds_in_order, compared_with="reference posterior"),
    Theorem("guess-and-goals", "seed 004, goals combining attributes (AND)",
            "with two attributes and an AND goal: exact posterior ≤ precise ≤ simplified bound",
            and_family, bounds_in_order, compared_with="reference posterior, direct goal"),
    Theorem("guess-ring-form", "REFERENCE.md §7 (ring form of the precise bound)",
            "the ring form bounds the posterior — false: the family holds a counterexample",
            guessing_family, ring_form_bounds, expected=False),
    Theorem("guess-worst-prior", "seed 004, worst-case prior distribution",
            "p = 1/(1 + e^{Rε/2}) maximises the simplified advantage, which is tanh(Rε/4)",
            worst_prior_family, worst_prior_maximises, method="closed form"),
    Theorem("guess-inversion", "seed 004, from η to ε",
            "the ε obtained by inverting the simplified bound gives back exactly p + η; the "
            "worst prior (1−η)/2 gives the worst-case formula", inversion_family, inversion,
            method="closed form"),
    Theorem("guess-cafeteria", "seed 004, cafeteria example",
            "the exact prior and posterior of the cafeteria example, with and without noise",
            cafeteria_family, cafeteria, method="worked example",
            compared_with="posterior written out"),
]
