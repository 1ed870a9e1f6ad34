"""OpenDP's noisy max and top-k under zCDP: the exponential mechanism's law, and its tight ρ
enclosed by branch and bound over the Rényi order.

**What the library does** (OpenDP 0.16, ``measurements/noisy_top_k``): with
``ZeroConcentratedDivergence`` each round of ``permute_and_flip`` draws a candidate uniformly
*with replacement* and accepts it with probability ``e^{−(y* − y_j)/s}``
(``sample_bernoulli_exp``, exact), until one is accepted. A round thus releases ``i`` with
probability ``p_i/Σ_j p_j = e^{y_i/s}/Σ_j e^{y_j/s}``: the softmax, the law of the argmax
under Gumbel noise (McSherry and Talwar's exponential mechanism); ``k`` rounds peel the
released candidate off each time, so an ordered release ``(i_1, …, i_k)`` has probability
``Π_r e^{y_{i_r}/s}/Σ_{j left} e^{y_j/s}`` (Plackett–Luce). The map claims
``ρ = k·(d/s)²/8`` with ``d = d_in`` (``monotonic``) or ``2·d_in`` (Cesar and Rogers,
*Bounding, Concentrating, and Truncating: Unifying Privacy Loss Composition for Data
Analytics*, 2021: a bounded-range loss of width ``d/s`` is ``(d/s)²/8``-zCDP).

**The tight ρ** of a pair of score vectors is ``sup_{α>1} D_α(P‖Q)/α`` over that law. The
masses are transcendental, so each log-mass ``ln P(o)`` is enclosed (a rational minus log-sums
of exponentials, MPFR rounded outward), and for a rational ``α``
``D_α = ln Σ_o e^{α·ln P(o) + (1−α)·ln Q(o)}/(α − 1)`` with it. Branch and bound over ``α``
(as :mod:`~verifier.notions.renyi.zcdp` does for rational laws): ``D_α`` is nondecreasing in
``α`` (van Erven and Harremoës 2014, Theorem 3), so ``D_α/α ≤ D_b/a`` on ``[a, b]`` and
``≤ D_∞/B`` beyond ``B``; the values at evaluated orders and ``KL(P‖Q)`` (the limit at
``α → 1``) bound it below. The claim is sound when every pair's upper bound is at most it,
unsound when one pair's lower bound exceeds it, unknown when the evaluations run out.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, replace
from itertools import permutations
from math import factorial

from gmpy2 import mpq

from verifier.audit.adapters.opendp_args import (
    NegativeClaim,
    verdict,
)
from verifier.audit.adapters.opendp_noisy_max import (
    MAX_CANDIDATES,
    MAX_OUTPUTS,
    given_input,
    linf_related,
    noisy_max_case,
)
from verifier.audit.case import AuditCase, AuditRow, Enclosure
from verifier.audit.judge import ratio, read_double
from verifier.core.binary64 import F64
from verifier.core.certified import exp_bounds, log_bounds, sqrt_bounds
from verifier.core.epsilon import Epsilon
from verifier.core.errors import BudgetExceeded, InvalidArgument
from verifier.core.numbers import format_rational

__all__ = ["measure_or", "log_law", "sup_rho", "RhoBound", "MEASURES", "PREC",
           "MAX_EVALUATIONS"]

MEASURES = ("max_divergence", "zero_concentrated_divergence")
PREC = 128
MAX_EVALUATIONS = 400  # orders evaluated per pair before the pair is left undecided
_WORK = 100_000  # releases × orders per pair: fewer orders for laws of many releases
TOLERANCE = mpq(1, 10 ** 6)  # relative width at which a decided enclosure is narrow enough
_FAR = mpq(2) ** 40  # the last order bisected; beyond it D_α/α ≤ D_∞/2^40

_CUT = 200  # nats: e^-200 < 2^-288
_CUT_UP = mpq(1, 2 ** 288)

Interval = tuple[mpq, mpq]
LogLaw = dict[tuple[int, ...], Interval]


def measure_or(pure_row: Callable[[AuditCase], AuditRow]) -> Callable[[AuditCase], AuditRow]:
    """``pure_row`` under ``MaxDivergence`` (the default); this module's row when
    ``args.output_measure = "zero_concentrated_divergence"``."""
    def run(case: AuditCase) -> AuditRow:
        measure = case.args.get("output_measure", "max_divergence")
        if measure not in MEASURES:
            raise InvalidArgument(f"args.output_measure = {measure!r:.40}: one of "
                                  f"{', '.join(MEASURES)}", argument="args.output_measure",
                                  value=measure)
        if measure == "zero_concentrated_divergence":
            return zcdp_row(case)
        args = {k: v for k, v in case.args.items() if k != "output_measure"}
        return replace(pure_row(replace(case, args=args)), case=case)
    return run


def _logsumexp(xs: Sequence[mpq], prec: int) -> Interval:
    """``ln Σ e^x`` enclosed (shifted by the largest, whose term is 1 exactly; a term below
    ``e^−200`` counts as 0 below and ``2^−288`` above, so that no rational grows huge)."""
    m = max(xs)
    lo = hi = mpq(0)
    for x in xs:
        if x - m < -_CUT:
            hi += _CUT_UP
            continue
        a, b = (mpq(1), mpq(1)) if x == m else exp_bounds(x - m, prec)
        lo, hi = lo + a, hi + b
    return m + log_bounds(lo, prec)[0], m + log_bounds(hi, prec)[1]


def log_law(scores: Sequence[mpq], rate: mpq, k: int, prec: int = PREC) -> LogLaw:
    """``ln P(o)`` enclosed for every ordered release ``o`` of ``k`` rounds (see the module)."""
    a = [y * rate for y in scores]
    sums: dict[tuple[int, ...], Interval] = {}
    law: LogLaw = {}
    for order in permutations(range(len(a)), k):
        left = list(range(len(a)))
        lo = hi = mpq(0)
        for idx in order:
            key = tuple(left)
            if key not in sums:
                sums[key] = _logsumexp([a[j] for j in left], prec)
            z_lo, z_hi = sums[key]
            lo, hi = lo + a[idx] - z_hi, hi + a[idx] - z_lo
            left.remove(idx)
        law[order] = (lo, hi)
    return law


@dataclass(frozen=True)
class RhoBound:
    """``lo ≤ sup_α D_α(P‖Q)/α ≤ hi`` (certified), the order that gave ``lo`` (``None``:
    the KL limit) and the evaluations spent."""

    lo: mpq
    hi: mpq
    at: mpq | None
    evaluations: int


def _mass(x: Interval, prec: int) -> Interval:
    """``e^x`` enclosed for a log-mass ``x ≤ 0`` (below ``e^−200``: ``[0, 2^−288]``)."""
    if x[1] < -_CUT:
        return mpq(0), _CUT_UP
    return (exp_bounds(x[0], prec)[0] if x[0] >= -_CUT else mpq(0)), exp_bounds(x[1], prec)[1]


def _kl(p: LogLaw, q: LogLaw, prec: int) -> Interval:
    lo = hi = mpq(0)
    for o, (p_lo, p_hi) in p.items():
        q_lo, q_hi = q[o]
        m_lo, m_hi = _mass((p_lo, p_hi), prec)
        d_lo, d_hi = p_lo - q_hi, p_hi - q_lo
        corners = (m_lo * d_lo, m_lo * d_hi, m_hi * d_lo, m_hi * d_hi)
        lo, hi = lo + min(corners), hi + max(corners)
    return max(lo, mpq(0)), max(hi, mpq(0))


def _divergence(p: LogLaw, q: LogLaw, alpha: mpq, prec: int) -> Interval:
    """``D_α(P‖Q)`` enclosed at a rational ``α > 1`` (``M(α) ≥ 1``: ``D_α ≥ 0``), the sum
    ``M(α)`` taken in the log domain (its terms reach ``e^{α·D_∞}``)."""
    los, his = [], []
    for o, (p_lo, p_hi) in p.items():
        q_lo, q_hi = q[o]
        los.append(alpha * p_lo + (1 - alpha) * q_hi)
        his.append(alpha * p_hi + (1 - alpha) * q_lo)
    m_lo, m_hi = _logsumexp(los, prec)[0], _logsumexp(his, prec)[1]
    return max(m_lo, mpq(0)) / (alpha - 1), m_hi / (alpha - 1)


def sup_rho(p: LogLaw, q: LogLaw, claim: mpq | None, prec: int = PREC,
            max_evaluations: int = MAX_EVALUATIONS) -> RhoBound:
    """Enclose ``sup_{α>1} D_α(P‖Q)/α`` (see the module); stop once ``claim`` is decided
    and the enclosure is narrow, or the evaluations run out."""
    lower, at = _kl(p, q, prec)[0], None
    d_inf = max(max(p_hi - q[o][0] for o, (_, p_hi) in p.items()), mpq(0))
    tail = d_inf / _FAR
    cache: dict[mpq, Interval] = {}

    def value(alpha: mpq) -> Interval:
        nonlocal lower, at
        if alpha not in cache:
            cache[alpha] = _divergence(p, q, alpha, prec)
            if cache[alpha][0] / alpha > lower:
                lower, at = cache[alpha][0] / alpha, alpha
        return cache[alpha]

    def upper(a: mpq, b: mpq) -> mpq:
        top_a = mpq(0) if a == 1 else value(a)[1] * (a - 1)  # ln M(a), M(1) = 1
        return _chord_max(a, b, top_a, value(b)[1] * (b - 1), prec)

    heap: list[tuple[mpq, mpq, mpq]] = []  # (−upper, a, b)
    a = mpq(1)
    while a < _FAR:
        heapq.heappush(heap, (-upper(a, 2 * a), a, 2 * a))
        a = 2 * a
    while True:
        hi = max(-heap[0][0], tail)
        decided = claim is None or lower > claim or hi <= claim
        if (decided and hi - lower <= TOLERANCE * hi) or len(cache) >= max_evaluations \
                or (claim is not None and lower > claim):
            return RhoBound(lower, hi, at, len(cache))
        _, a, b = heapq.heappop(heap)
        mid = (a + b) / 2
        heapq.heappush(heap, (-upper(a, mid), a, mid))
        heapq.heappush(heap, (-upper(mid, b), mid, b))


def _chord_max(a: mpq, b: mpq, top_a: mpq, top_b: mpq, prec: int) -> mpq:
    """An upper bound of ``D_α/α = ln M(α)/(α(α − 1))`` on ``[a, b]`` from upper bounds of
    ``ln M`` at the ends: ``ln M`` is convex in ``α`` (a log-sum of exponentials of affine
    functions of α), so it lies below the chord ``c0 + c1·α``, and the chord over
    ``α(α − 1)`` is largest at an end or where ``c1·α² + 2·c0·α − c0 = 0``."""
    c1 = (top_b - top_a) / (b - a)
    c0 = top_a - c1 * a
    if a == 1:  # the chord vanishes at 1: (c0 + c1·α)/(α(α − 1)) = c1/α
        return max(c1, mpq(0))

    def f(x: mpq) -> mpq:
        return (c0 + c1 * x) / (x * (x - 1))
    best = max(f(a), f(b))
    disc = c0 * (c0 + c1)
    if c1 != 0 and disc >= 0:
        r_lo, r_hi = sqrt_bounds(disc, prec)
        for sign in (1, -1):
            ends = sorted(((-c0 + sign * r_lo) / c1, (-c0 + sign * r_hi) / c1))
            lo, hi = max(ends[0], a), min(ends[1], b)
            if lo <= hi:  # the numerator at its larger end over the denominator at lo
                best = max(best, max(c0 + c1 * lo, c0 + c1 * hi) / (lo * (lo - 1)))
    return best


def zcdp_row(case: AuditCase) -> AuditRow:
    """``make_noisy_max`` / ``make_noisy_top_k`` with ``ZeroConcentratedDivergence``."""
    c = noisy_max_case(case, "zero_concentrated_divergence", ("output_measure",))
    scale, k, negate, monotonic, signed, d_in = c.scale, c.k, c.negate, c.monotonic, \
        c.signed, c.d_in
    value = c.meas.map(c.d_arg)
    claimed = read_double(float(value))  # float ok: the library's ρ, read exactly
    if claimed == float("inf"):  # float ok: ρ = ∞ bounds every divergence: vacuous
        return AuditRow(case, Epsilon.INF, None, None, None, "sound", None, "exact", {},
                        ("the library claims ρ = ∞: vacuous, hence sound",))
    if not isinstance(claimed, F64):
        raise InvalidArgument(f"the library returned ρ = {claimed!r}", argument="d_in")
    if claimed.exact < 0:
        raise NegativeClaim(claimed)
    n = len(signed[0])
    if n > MAX_CANDIDATES or k > n:
        raise BudgetExceeded(f"{n} candidates and k = {k}: plrv enumerates at most "
                             f"{MAX_CANDIDATES} candidates and k ≤ their number",
                             argument="inputs", value=n)
    pairs = [(x, y) for x in signed for y in signed if x != y
             and linf_related(x, y, d_in, monotonic)]
    if not pairs:
        raise InvalidArgument(f"no two inputs are neighbours at d_in = {d_in}",
                              argument="inputs")
    if len(pairs) * factorial(n) // factorial(n - k) > MAX_OUTPUTS:
        raise BudgetExceeded(f"{len(pairs)} pairs × {factorial(n) // factorial(n - k)} "
                             f"releases, more than {MAX_OUTPUTS}", argument="inputs",
                             value=len(pairs))
    rate = 1 / scale.exact
    laws = {x: log_law(x, rate, k) for x in signed}
    budget = max(40, min(MAX_EVALUATIONS, _WORK // (factorial(n) // factorial(n - k))))
    bounds = [(sup_rho(laws[x], laws[y], claimed.exact, max_evaluations=budget), x, y)
              for x, y in pairs]
    lo = max(b.lo for b, _, _ in bounds)
    hi = max(b.hi for b, _, _ in bounds)
    holds = True if hi <= claimed.exact else False if lo > claimed.exact else None
    best, x, y = max(bounds, key=lambda t: t[0].lo)
    back = (lambda v: -v) if negate else (lambda v: v)
    shown = tuple(given_input(case, tuple(back(v) for v in z)) for z in (x, y))
    order = "α → 1 (KL)" if best.at is None else f"α = {format_rational(best.at)}"
    return AuditRow(case, claimed, None, None, Enclosure(lo, hi), verdict(holds),
                    ratio(claimed, Epsilon.of_nats(hi)), "enclosure",
                    {"inputs": shown, "orders": order},
                    ("zCDP: the ε columns hold ρ (the library's ZeroConcentratedDivergence)",
                     f"scale = {scale} = {format_rational(scale.exact)} exactly; the law is "
                     f"the softmax e^(y_i/scale)/Σ_j e^(y_j/scale) per round",
                     f"{len(pairs)} ordered pairs at L∞ distance ≤ {format_rational(d_in)}"
                     f"{' (monotonic)' if monotonic else ''}; "
                     f"{sum(b.evaluations for b, _, _ in bounds)} orders evaluated"))


def softmax_cells(scores: Sequence[mpq], rate: mpq, k: int, top_k: bool) -> dict[Hashable, mpq]:
    """The law's masses (midpoints of their enclosures, for ``--conformance`` only)."""
    out: dict[Hashable, mpq] = {}
    for o, x in log_law(scores, rate, k).items():
        lo, hi = _mass(x, PREC)
        out[o if top_k else o[0]] = (lo + hi) / 2
    return out
