"""Seed 004's bounds on the posterior of a correct guess, their inversion, the worst prior.

For a mechanism that is ε·d-private and a target ``x`` with goal ``g = g(x)``, Bayes gives
``P[g | z] = 1 / (1 + Σ_{x''∉g} M(z|x'')π(x'') / Σ_{x'∈g} M(z|x')π(x'))``, and
``M(z|x') ≤ e^{ε·d(x'',x')}·M(z|x'')`` bounds it for every output ``z``:

* **precise** (seed 004, "Main theorem", the step marked "This is precise")::

      P_post ≤ 1 / (1 + Σ_{x''∉g} π(x'') / Σ_{x'∈g} e^{ε·d(x'',x')}·π(x'))

* **simplified** (``d ≤ R``, the diameter)::

      P_post ≤ 1 / (1 + e^{−ε·R}·π(X∖g)/π(g))

  so ``precise ≤ simplified`` always.

REFERENCE.md §7 also states a *ring* form, ``1/(1 + Σ_{a≥1} e^{−εa} π(ring_a)/π(B(x,1)))``.
It is not a valid bound in general: it weights a point at distance ``a`` from ``g`` by
``e^{−εa}`` although points of ``g`` may be ``a + diam(g)`` away. The truncated geometric
mechanism on ``{0..20}`` with ``α = 1/2`` and a uniform prior violates it (posterior 0.667 at
target 10, ring form 0.600); :func:`ring_bound` is kept so that ``proofs/`` records this
counterexample, and the tool reports the two valid bounds.

Values that involve ``e^{ε·d}`` are :class:`Certified`: rational enclosures at any precision,
exact (equal ends) when every power is rational — as for ``ε = ln(q)`` and integer distances.

Inverting the simplified bound for a target advantage η with prior ``p = π(g)``::

    ε = ln( (1−p)(p+η) / (p(1−p−η)) ) / R

and the worst prior is ``p = (1−η)/2`` for fixed η (then ``ε = 2·ln((1+η)/(1−η))/R``) and
``p = 1/(1 + e^{Rε/2})`` for fixed ε (then the advantage is ``tanh(Rε/4)``).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from math import lcm

from gmpy2 import mpq

from verifier.core.certified import Certified, exp_bounds
from verifier.core.epsilon import Epsilon, parse_epsilon
from verifier.core.errors import InvalidArgument, InvalidNumber, OutOfRange
from verifier.core.numbers import open_unit, positive
from verifier.guessing.metric import ScaledLog
from verifier.guessing.model import GuessModel

__all__ = ["Certified", "precise_bound", "simplified_bound", "ring_bound", "simplified_epsilon",
           "worst_prior_for_eta", "worst_case_epsilon", "worst_prior_for_epsilon",
           "max_advantage", "precise_epsilon",
           "as_scaled_log", "check_eta"]

MAX_PREC = 1 << 14


def as_scaled_log(eps: object) -> ScaledLog | Epsilon:
    """ε as a :class:`ScaledLog` when it is ``ln(q)``, else the :class:`Epsilon` itself."""
    if isinstance(eps, ScaledLog):
        return eps
    e = eps if isinstance(eps, Epsilon) else parse_epsilon(eps)
    if e.infinite:
        return ScaledLog.inf()
    if e.rate is not None:
        return ScaledLog.make(e.rate, 1)
    return e


def _exp_eps(eps, d: mpq, prec: int) -> tuple[mpq, mpq]:
    """Enclosure of ``e^{ε·d}``."""
    if d == 0:
        return mpq(1), mpq(1)
    if isinstance(eps, ScaledLog):
        return eps.exp_times(d, prec)
    return exp_bounds(eps.nats * d, prec)


def _recip(s_lo: mpq, s_hi: mpq) -> tuple[mpq, mpq]:
    """Enclosure of ``1/(1 + s)`` for ``s ∈ [s_lo, s_hi]``, ``s ≥ 0``."""
    return 1 / (1 + s_hi), 1 / (1 + s_lo)


def precise_bound(model: GuessModel, x: Hashable, eps, k: int | None = None) -> Certified:
    """``1/(1 + Σ_{x''∉g} π(x'') / Σ_{x'∈g} e^{ε·d(x'',x')}·π(x'))`` (seed 004)."""
    eps = as_scaled_log(eps)
    g = model.goal(x, k)
    inside = [(y, model.prior[y]) for y in g if model.prior[y] != 0]
    outside = [(y, model.prior[y]) for y in model.domain if y not in g and model.prior[y] != 0]
    if not inside:
        return Certified.exact(mpq(0))
    if isinstance(eps, ScaledLog) and eps.infinite:
        return Certified.exact(mpq(1))
    dists = {(y2, y1): model.distance(y2, y1, k) for y2, _ in outside for y1, _ in inside}

    def enclose(prec: int) -> tuple[mpq, mpq]:
        powers: dict[mpq, tuple[mpq, mpq]] = {}  # few distinct distances: one e^{ε·d} each
        s_lo = s_hi = mpq(0)
        for y2, w2 in outside:
            den_lo = den_hi = mpq(0)
            for y1, w1 in inside:
                d = dists[(y2, y1)]
                if d not in powers:
                    powers[d] = _exp_eps(eps, d, prec)
                lo, hi = powers[d]
                den_lo += lo * w1
                den_hi += hi * w1
            s_lo += w2 / den_hi
            s_hi += w2 / den_lo
        return _recip(s_lo, s_hi)
    return Certified(enclose)


def simplified_bound(model: GuessModel, x: Hashable, eps, k: int | None = None) -> Certified:
    """``1/(1 + e^{−ε·R}·π(X∖g)/π(g))`` with ``R`` the diameter (seed 004, "Simplification")."""
    eps = as_scaled_log(eps)
    p = sum((model.prior[y] for y in model.goal(x, k)), mpq(0))
    if p == 0 or p == 1:
        return Certified.exact(p)
    if isinstance(eps, ScaledLog) and eps.infinite:
        return Certified.exact(mpq(1))
    ratio, R = (1 - p) / p, model.diameter(k)

    def enclose(prec: int) -> tuple[mpq, mpq]:
        lo, hi = _exp_eps(eps, -R, prec)
        return _recip(lo * ratio, hi * ratio)
    return Certified(enclose)


def ring_bound(model: GuessModel, x: Hashable, eps) -> Certified:
    """REFERENCE.md §7's ring form ``1/(1 + Σ_{a≥1} e^{−εa}·π(ring_a)/π(B(x,1)))`` with
    ``ring_a = B(g(x), a+1) ∖ B(g(x), a)`` — *not* a valid bound in general (see the module
    docstring); kept for the counterexample in ``proofs/``."""
    eps = as_scaled_log(eps)
    g = model.goal(x)
    p = sum((model.prior[y] for y in g), mpq(0))
    if p == 0:
        return Certified.exact(mpq(0))
    rings: dict[int, mpq] = {}
    for y in model.domain:
        if y in g:
            continue
        dist = min(model.distance(y, z) for z in g)
        a = int(-(-dist // 1)) - 1  # a < dist ≤ a + 1
        if a >= 1:
            rings[a] = rings.get(a, mpq(0)) + model.prior[y]

    def enclose(prec: int) -> tuple[mpq, mpq]:
        s_lo = s_hi = mpq(0)
        for a, w in rings.items():
            lo, hi = _exp_eps(eps, mpq(-a), prec)
            s_lo += lo * w / p
            s_hi += hi * w / p
        return _recip(s_lo, s_hi)
    return Certified(enclose)


def check_eta(eta: object) -> mpq:
    return open_unit(eta, "eta")


def _check_prior(p: object) -> mpq:
    return open_unit(p, "prior")


def _check_diameter(R: object) -> mpq:
    return positive(R, "diameter")


def simplified_epsilon(p: object, eta: object, R: object) -> ScaledLog:
    """The largest ε whose simplified bound keeps the advantage at most η:
    ``ln((1−p)(p+η) / (p(1−p−η))) / R``; ``inf`` when ``p + η ≥ 1`` (any ε will do)."""
    p, eta, R = _check_prior(p), check_eta(eta), _check_diameter(R)
    if p + eta >= 1:
        return ScaledLog.inf()
    return ScaledLog.make((1 - p) * (p + eta) / (p * (1 - p - eta)), R)


def worst_case_epsilon(eta: object, R: object) -> ScaledLog:
    """The worst-case formula: at ``p = (1−η)/2`` the simplified inversion is
    ``ε = 2·ln((1+η)/(1−η))/R = ln(((1+η)/(1−η))²)/R``."""
    eta, R = check_eta(eta), _check_diameter(R)
    return ScaledLog.make(((1 + eta) / (1 - eta)) ** 2, R)


def worst_prior_for_eta(eta: object) -> mpq:
    """``p = (1 − η)/2``: the prior that needs the smallest ε for advantage η."""
    return (1 - check_eta(eta)) / 2


def _half_exp(eps, R: mpq) -> Callable[[int], tuple[mpq, mpq]]:
    eps = as_scaled_log(eps)
    if isinstance(eps, ScaledLog) and eps.infinite:
        raise InvalidNumber("epsilon = inf: the worst prior is 0 and the advantage 1")
    return lambda prec: _exp_eps(eps, R / 2, prec)


def worst_prior_for_epsilon(eps, R: object) -> Certified:
    """``p = 1/(1 + e^{Rε/2})``: the prior with the largest advantage at ε."""
    f = _half_exp(eps, _check_diameter(R))

    def enclose(prec):
        lo, hi = f(prec)
        return 1 / (1 + hi), 1 / (1 + lo)
    return Certified(enclose)


def max_advantage(eps, R: object) -> Certified:
    """``tanh(Rε/4) = (e^{Rε/2} − 1)/(e^{Rε/2} + 1)``: the advantage at the worst prior."""
    f = _half_exp(eps, _check_diameter(R))

    def enclose(prec):
        lo, hi = f(prec)
        return (lo - 1) / (lo + 1), (hi - 1) / (hi + 1)
    return Certified(enclose)


MIN_TOLERANCE = mpq(1, 10**60)  # bisection halves the interval: at most about 200 steps


def check_tolerance(value: object, name: str = "tolerance") -> mpq:
    """The relative width asked of the precise inversion: ``10^-60 ≤ tolerance``, exact."""
    tol = positive(value, name)
    if tol < MIN_TOLERANCE:
        raise OutOfRange(f"{name} = {value!r} is below 1e-60, the narrowest interval the "
                         f"precise inversion computes", argument=name, value=value)
    return tol


MAX_DIAMETER = 10**9  # in units of the goal's precision; ε·R is an exact power below it


def check_diameter(value: object, name: str = "diameter") -> mpq:
    """A domain diameter ``0 < R ≤ 10^9`` (in units of the goal's precision), exact."""
    r = positive(value, name)
    if r > MAX_DIAMETER or r.denominator > MAX_DIAMETER:
        raise OutOfRange(f"{name} = {value!r} is outside 0 < R ≤ 10^9 with a denominator of "
                         f"at most 10^9", argument=name, value=value)
    return r


def precise_epsilon(model: GuessModel, x: Hashable, eta: object,
                    tolerance: object = "1/1000000") -> tuple[ScaledLog, ScaledLog]:
    """An interval ``[ε_lo, ε_hi]`` holding the ε at which the precise bound for target ``x``
    reaches ``P[g] + η``, as narrow as ``tolerance`` (relative, on ``e^{ε/L}``).

    With ``L`` the lcm of the denominators of the distances, ``u = e^{ε/L}`` turns every
    ``e^{ε·d}`` into the integer power ``u^{dL}``: the bound is an increasing rational function
    of ``u``, evaluated exactly at rational points, so bisection isolates the root with
    certified ends (``ε = L·ln u``). Equal ends mean the root was hit exactly.
    """
    eta = check_eta(eta)
    tol = check_tolerance(tolerance)
    g = model.goal(x)
    inside = [(y, model.prior[y]) for y in g if model.prior[y] != 0]
    outside = [(y, model.prior[y]) for y in model.domain if y not in g and model.prior[y] != 0]
    p = sum((w for _, w in inside), mpq(0))
    if p == 0:
        raise InvalidArgument(f"target {x!r}: its goal has prior probability 0")
    target = p + eta
    if target >= 1 or not outside:
        return ScaledLog.inf(), ScaledLog.inf()
    dists = {(a, b): model.distance(a, b) for a, _ in outside for b, _ in inside}
    L = 1
    for d in dists.values():
        L = lcm(L, int(d.denominator))
    powers = {key: int(d * L) for key, d in dists.items()}

    def bound(u: mpq) -> mpq:
        s = sum((w2 / sum((u ** powers[(y2, y1)] * w1 for y1, w1 in inside), mpq(0))
                 for y2, w2 in outside), mpq(0))
        return 1 / (1 + s)

    lo, hi = mpq(1), mpq(2)
    while bound(hi) < target:
        lo, hi = hi, hi * hi
    while (hi - lo) > tol * lo:
        mid = (lo + hi) / 2
        b = bound(mid)
        if b == target:
            lo = hi = mid
            break
        lo, hi = (mid, hi) if b < target else (lo, mid)
    return ScaledLog.make(lo ** L, 1), ScaledLog.make(hi ** L, 1)
