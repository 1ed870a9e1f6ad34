"""Seed 004 (Pankova & Laud), more statements: the other side of the advantage, the precise
bound with an unknown prior, a less knowledgeable attacker's larger advantage, and the worst
prior found by a search. Expected values are written with ``Fraction`` from the slides'
formulas (or :mod:`proofs.reference`), never taken from the code.
"""

from __future__ import annotations

from fractions import Fraction

from gmpy2 import mpq

from verifier import Dist
from verifier.guessing.bounds import precise_bound, simplified_bound, simplified_epsilon
from verifier.guessing.converse import converse_epsilon, least_posterior, simplified_lower_bound
from verifier.guessing.metric import ScaledLog, tight_epsilon, truncated_geometric
from verifier.guessing.model import GuessModel, advantage

from . import reference as ref
from .guessing_theorems import guessing_family
from .record import Theorem

__all__ = ["GUESSING_MORE_RECORDS"]

ZERO = Fraction(0)


class Disagreement(AssertionError):
    """The code and the reference disagree (an error, never a counterexample)."""


def _least(prior: dict, kernel, goal: frozenset) -> Fraction:
    """``min_z P[X ∈ goal | M(X) = z]`` over outputs of positive probability, with Fractions."""
    joint: dict = {}
    for x, px in prior.items():
        for z, w in ref.law(kernel, x).items():
            joint.setdefault(z, {})[x] = px * w
    return min(sum((w for x, w in row.items() if x in goal), ZERO) / sum(row.values(), ZERO)
               for row in joint.values() if sum(row.values(), ZERO))


def _power_le(eps: ScaledLog, d: Fraction, bits: int) -> tuple[Fraction, Fraction]:
    """The reference's enclosure of ``e^{ε·d} = base^{d/scale}``."""
    return ref.power_enclosure(ref.F(eps.base), Fraction(d) / eps.scale, bits)


# ------------------------------------------------------------ Pr_pre − Pr_post ≤ η


def converse_family():
    for model, name in guessing_family():
        yield "model", model, name
    for p in ("1/10", "1/4", "1/2", "3/4"):
        for eta in ("1/20", "1/5", "2/5"):
            for R in ("1", "3", "5/2"):
                yield "inversion", Fraction(p), Fraction(eta), Fraction(R)


def converse(item) -> bool | None:
    """"Analogously for Pr_pre − Pr_post ≤ η" (reconstructed as the mirror of the simplified
    bound): an ε·d-private mechanism never brings P[g | z] below 1/(1 + e^{εR}·(1−p)/p). The
    code's least posterior equals the Fraction one for every target and is at least the
    bound; the bound's certified enclosure holds the reference's (integer roots, 256 bits).
    Inverting: at e^{εR} = p(1−p+η)/((1−p)(p−η)) (the code's ε, checked exactly) the bound
    is exactly p − η. Vacuous where no target loses (its least posterior is its prior)."""
    if item[0] == "inversion":
        _, p, eta, R = item
        if eta >= p:
            return None if converse_epsilon(mpq(p), mpq(eta), mpq(R)).infinite else False
        rate = p * (1 - p + eta) / ((1 - p) * (p - eta))
        eps = converse_epsilon(mpq(p), mpq(eta), mpq(R))
        if ref.F(eps.base) ** R.numerator != rate ** (eps.scale * R.denominator):
            return False
        return 1 / (1 + rate * (1 - p) / p) == p - eta
    _, model, _ = item
    eps, _ = tight_epsilon(model.kernel, model.domain, model.distance)
    prior = {x: ref.F(w) for x, w in model.prior.items()}
    R = ref.F(model.diameter())
    lost = False
    for row in least_posterior(model):
        goal = model.goal(row.target)
        if ref.F(row.posterior) != _least(prior, model.kernel, goal):
            return False
        bound = simplified_lower_bound(model, row.target, eps)
        if bound.compare(row.posterior) not in (-1, 0):
            return False
        p = ref.F(row.prior)
        if 0 < p < 1 and not eps.infinite:
            lo, hi = _power_le(eps, R, 256)
            r_lo, r_hi = 1 / (1 + hi * (1 - p) / p), 1 / (1 + lo * (1 - p) / p)
            c_lo, c_hi = bound.enclose(64)
            if not ref.F(c_lo) <= r_lo <= r_hi <= ref.F(c_hi):
                return False
        lost |= row.posterior < row.prior
    return True if lost else None


# ------------------------------------------------------------ unknown prior


def unknown_prior_family():
    for hi in (4, 6):
        domain = tuple(range(hi + 1))
        for r, qs in ((1, (2, Fraction(3, 2))), (2, (4, Fraction(9, 4)))):  # q^{d} rational
            for q in qs:
                for target in domain:
                    for p in (Fraction(1, 10), Fraction(1, 3), Fraction(1, 2)):
                        yield domain, Fraction(q), Fraction(r), target, p


def _priors_with_mass(domain, goal, p: Fraction):
    """Priors with π(goal) = p: spread evenly, rising, and every two-point prior."""
    inside = [x for x in domain if x in goal]
    outside = [x for x in domain if x not in goal]
    yield {**{x: p / len(inside) for x in inside}, **{x: (1 - p) / len(outside) for x in outside}}
    s_in, s_out = sum(range(1, len(inside) + 1)), sum(range(1, len(outside) + 1))
    yield {**{x: p * (j + 1) / s_in for j, x in enumerate(inside)},
           **{x: (1 - p) * (j + 1) / s_out for j, x in enumerate(outside)}}
    for a in inside:
        for b in outside:
            yield {a: p, b: 1 - p}


def unknown_prior(item) -> bool | None:
    """"The precise bound does not provide a better bound if the prior is unknown": over the
    priors with π(g) = p the precise bound is at most 1/(1 + e^{−ε·D}·(1−p)/p), D the largest
    distance from g to a point outside it (each term π(x'')/Σ e^{ε·d}π(x') is at least
    π(x'')/(e^{ε·D}·p)), and a two-point prior on a farthest pair attains it; when D is the
    diameter R this is the simplified bound. The code's precise bound (exact here: e^ε and
    e^{ε·d} rational) equals 1/(1 + (1−p)/(q^D·p)) at the farthest pair and is at most
    it for every other prior tried; where D = R the code's simplified bound equals it too.
    Vacuous where the goal is the whole domain."""
    domain, q, r, target, p = item
    kernel = truncated_geometric(str(1 / q), domain[0], domain[-1])
    base = GuessModel(domain, Dist.uniform(domain), kernel, (mpq(r),))
    goal = base.goal(target)
    if len(goal) == len(domain):
        return None
    eps = ScaledLog.make(mpq(q), 1)
    far = max(ref.F(base.distance(b, a)) for a in goal for b in domain if b not in goal)
    power, check = ref.power_enclosure(q, far, 64)
    if power != check:
        raise Disagreement(f"{q}^{far} is not rational")
    top = 1 / (1 + (1 - p) / (power * p))
    if ref.F(base.diameter()) != max(ref.F(base.distance(a, b)) for a in domain for b in domain):
        return False  # R, written directly as the largest distance
    attained = False
    for prior in _priors_with_mass(domain, goal, p):
        model = GuessModel(domain, Dist({x: mpq(w) for x, w in prior.items()}), kernel,
                           (mpq(r),))
        value = precise_bound(model, target, eps).value
        if value is None or ref.F(value) > top:
            return False
        attained |= ref.F(value) == top
        if far == ref.F(model.diameter()):
            simple = simplified_bound(model, target, eps).value
            if simple is None or ref.F(simple) != top:
                return False
    return attained


# ------------------------------------------------------------ a less knowledgeable attacker


def knowledge_family():
    """Domain {0..7}, truncated geometric noise, precision 1; the attacker's knowledge is a
    partition of the domain (he learns the class of x): nothing, halves, pairs, everything."""
    domain = tuple(range(8))
    partitions = {"nothing": [domain], "halves": [domain[:4], domain[4:]],
                  "pairs": [domain[j:j + 2] for j in range(0, 8, 2)],
                  "everything": [(x,) for x in domain]}
    skew = {x: Fraction(x + 1, 36) for x in domain}
    order = list(partitions)
    for alpha in ("1/2", "3/4"):
        for prior in ({x: Fraction(1, 8) for x in domain}, skew):
            for i, coarse in enumerate(order):
                for fine in order[i + 1:]:
                    for target in domain:
                        yield (domain, alpha, prior, partitions[coarse], partitions[fine],
                               target, fine == "everything")


def _conditioned(domain, alpha, prior, partition, x) -> tuple[GuessModel, Fraction]:
    """The attacker who knows the class of x: the model restricted to it (the code's), and
    the advantage the reference finds for it."""
    cls = next(c for c in partition if x in c)
    z = sum((prior[y] for y in cls), ZERO)
    cond = {y: prior[y] / z for y in cls}
    kernel = truncated_geometric(alpha, domain[0], domain[-1])
    model = GuessModel(tuple(cls), Dist({y: mpq(w) for y, w in cond.items()}), kernel,
                       (mpq(1),))
    goal = frozenset(y for y in cls if abs(y - x) <= 1)
    return model, ref.posterior(cond, kernel, goal) - sum((cond[y] for y in goal), ZERO)


def more_knowledge(item) -> bool:
    """A more knowledgeable attacker never has a smaller advantage — false (seed 004: "the
    advantage can be larger for a less knowledgeable attacker"): some target has a larger
    advantage under coarser knowledge. The code's advantage (the model conditioned on the
    attacker's class) equals the reference's; an attacker who knows everything gains 0
    ("the knowledge gain is 0 for someone who already knows everything"). A disagreement
    with the reference is an error, never a counterexample."""
    domain, alpha, prior, coarse, fine, x, everything = item
    gains = []
    for partition in (coarse, fine):
        model, expected = _conditioned(domain, alpha, prior, partition, x)
        row = advantage(model, [x])[0]
        if ref.F(row.advantage) != expected:
            raise Disagreement(f"advantage of target {x}: code {row.advantage}, "
                               f"reference {expected}")
        gains.append(expected)
    if everything and gains[1] != 0:
        raise Disagreement(f"an attacker who knows everything gains {gains[1]}")
    return gains[1] >= gains[0]


# ------------------------------------------------------------ the worst prior, searched


def worst_prior_search_family():
    for eta in ("1/20", "1/5", "2/5", "3/5"):
        for R in ("1", "2", "5/2"):
            yield Fraction(eta), Fraction(R)


def _epsilon_key(eps: ScaledLog) -> tuple[Fraction, int]:
    return ref.F(eps.base), eps.scale


def _less(a: tuple[Fraction, int], b: tuple[Fraction, int]) -> bool:
    """ln(a0)/a1 < ln(b0)/b1, decided exactly: a0^b1 < b0^a1."""
    return a[0] ** b[1] < b[0] ** a[1]


def worst_prior_search(item) -> bool:
    """For a fixed η the prior needing the smallest ε is p = (1 − η)/2 (seed 004, "worst-case
    prior distribution"), found by a search: the code's inverted ε (each checked exactly
    against e^{εR} = (1−p)(p+η)/(p(1−p−η))) at 400 priors p ∈ (0, 1 − η) and at (1 − η)/2,
    compared exactly; (1 − η)/2 gives the least and every other prior a strictly larger ε."""
    eta, R = item
    star = (1 - eta) / 2
    grid = sorted({Fraction(j, 401) * (1 - eta) for j in range(1, 401)} | {star})
    best, best_p = None, None
    for p in grid:
        eps = simplified_epsilon(mpq(p), mpq(eta), mpq(R))
        rate = (1 - p) * (p + eta) / (p * (1 - p - eta))
        if ref.F(eps.base) ** R.numerator != rate ** (eps.scale * R.denominator):
            return False
        key = _epsilon_key(eps)
        if best is None or _less(key, best):
            best, best_p = key, p
        elif p != best_p and not _less(best, key):
            return False  # a tie: the minimum would not be unique
    return best_p == star


FIGURE_PRIORS = (Fraction(1, 20), Fraction(1, 10), Fraction(1, 4), Fraction(1, 2), Fraction(3, 4))
FIGURE_ETAS = (Fraction(1, 100), Fraction(1, 20), Fraction(1, 10), Fraction(1, 5),
               Fraction(3, 10), Fraction(2, 5))


def figure_family():
    yield from FIGURE_PRIORS


def figure(p: Fraction) -> bool:
    """The slides' figure "advantage vs epsilon for different prior distributions" as numbers
    (R = 1): for the prior p, the code's largest ε for each η of the grid equals the closed
    form ln((1−p)(p+η)/(p(1−p−η))) exactly, is ∞ exactly when p + η ≥ 1, grows strictly with
    η, and never falls below the worst-case curve ln(((1+η)/(1−η))²) — reaching it only where
    p = (1 − η)/2. (The values are tabulated in docs/mathematics.md §7.)"""
    previous = None
    for eta in FIGURE_ETAS:
        eps = simplified_epsilon(mpq(p), mpq(eta), 1)
        if p + eta >= 1:
            if not eps.infinite:
                return False
            previous = None
            continue
        rate = (1 - p) * (p + eta) / (p * (1 - p - eta))
        if eps.infinite or ref.F(eps.base) != rate ** eps.scale:
            return False
        if previous is not None and not previous < rate:
            return False
        worst = ((1 + eta) / (1 - eta)) ** 2
        if rate < worst or (rate == worst) != (p == (1 - eta) / 2):
            return False
        previous = rate
    return True


GUESSING_MORE_RECORDS = [
    Theorem("guess-converse", "seed 004, \"analogously for Pr_pre − Pr_post ≤ η\" "
            "(reconstructed)",
            "no output brings the probability of a correct guess below 1/(1 + e^{εR}(1−p)/p); "
            "inverted, ε = ln(p(1−p+η)/((1−p)(p−η)))/R keeps Pr_pre − Pr_post ≤ η",
            converse_family, converse, compared_with="Fraction posterior and bound"),
    Theorem("guess-unknown-prior", "seed 004, worst-case prior: \"the precise bound does not "
            "provide a better bound if the prior is unknown\"",
            "over priors with π(g) = p the precise bound reaches 1/(1 + e^{−εD}(1−p)/p) at a "
            "farthest pair and no more; the simplified bound when D = R",
            unknown_prior_family, unknown_prior, compared_with="closed form at the pair"),
    Theorem("guess-less-knowledge", "seed 004, attacker's prior knowledge",
            "a more knowledgeable attacker never has a smaller advantage — false: the advantage "
            "can be larger for a less knowledgeable attacker (who knows everything gains 0)",
            knowledge_family, more_knowledge, expected=False,
            compared_with="reference posterior of the conditioned prior"),
    Theorem("guess-worst-prior-search", "seed 004, worst-case prior distribution (fixed η)",
            "searched over 400 priors, p = (1 − η)/2 is the unique prior needing the least ε",
            worst_prior_search_family, worst_prior_search, method="closed form"),
    Theorem("guess-figure", "seed 004, \"guessing advantage vs epsilon for different prior "
            "distributions\"", "the largest ε for each advantage η and prior p (R = 1): the "
            "closed form exactly, increasing in η, above the worst-case curve",
            figure_family, figure, method="closed form"),
]
