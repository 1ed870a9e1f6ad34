"""(ε, δ)-DP of an integer query released with discrete Laplace or Gaussian noise: the worst
δ at ε over every neighbouring pair of centres, the tight ε at δ, each exact where the law
allows and a certified enclosure where it does not, and a three-valued verdict.

The query is the sum of the records (``[data]``: ``records`` over integer ``values``, replace-
one neighbours), so a pair of neighbours has centres ``(s + v, s + v′)`` with ``s`` a sum of
the other ``n − 1`` records and ``v ≠ v′``. Without a clamp the loss depends on ``c − c′``
only (the law is shift-invariant), so one pair per difference is evaluated.

Tight ε at δ = 0 is the largest loss ``ln(p(o)/q(o))``: exact when the worst ratio is a ratio of
monomials ``c·e^a`` (then ``ε = ln(c/c′) + a − a′``; a rational number of nats when ``c = c′``,
as for the unclamped discrete Laplace, whose tight ε is ``Δ/scale``), and ∞ for an unbounded
discrete Gaussian. Tight ε at δ > 0 is enclosed by certified bisection on ε (δ(ε) is
non-increasing).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from gmpy2 import mpq

from verifier.core.certified import Certified, log_bounds
from verifier.core.epsilon import Epsilon
from verifier.core.errors import BudgetExceeded, InvalidArgument, Undecided
from verifier.core.theta import Series
from verifier.model.expnoise import ExpNoise
from verifier.notions.display import noise_described, result_html, result_repr
from verifier.notions.dp.noise_loss import DeltaForm, PairLoss, pair_loss
from verifier.notions.result import VACUOUS_RELATION_NOTE
from verifier.notions.serial import noise_json

__all__ = ["NoiseResult", "centre_pairs", "check_noise_dp", "bisect_epsilon", "vacuous",
           "MAX_PAIRS"]

MAX_PAIRS = 100_000
_BISECTION_STEPS = 64


@dataclass(frozen=True)
class NoiseResult:
    """The answer for one claim. ``holds`` is None when a comparison was undecided (exit 3).
    ``delta`` is exact text when the worst pair was decided and its δ is an exponential sum
    (``delta_exact``), else the enclosure only; ``epsilon`` likewise."""

    holds: bool | None
    delta: str
    delta_enclosure: Certified
    delta_exact: bool
    epsilon: str
    epsilon_enclosure: Certified | None  # None: ε = ∞ (or "unknown": not decided)
    epsilon_exact: bool
    epsilon_value: Epsilon | None  # the exact ε when it is ln(q) or a number of nats
    witness: tuple  # the centres (noise on a sum) or the inputs (noisy max, threshold)
    pairs: int
    notes: tuple[str, ...] = field(default=())

    def to_dict(self, epsilon: object, delta: object, mechanism: str,
                relation: str | None = None) -> dict:
        """This answer for the claim (``epsilon``, ``delta``) as ``plrv check --json`` prints
        it (:func:`verifier.notions.serial.noise_json`): ``mechanism`` described,
        ``relation`` the name of the relation whose two inputs the witness names (noisy max,
        above threshold; ``None`` for noise on a sum: two centres)."""
        return noise_json(self, epsilon, delta, mechanism, relation)

    def __repr__(self) -> str:
        return result_repr("NoiseResult", noise_described(self))

    def _repr_html_(self) -> str:
        return result_html(noise_described(self))


def vacuous() -> NoiseResult:
    """The answer when the relation has no pair: the claim holds vacuously, δ = 0 and the
    tight ε is 0, no pair is named."""
    zero = Certified.exact(mpq(0))
    return NoiseResult(True, "0", zero, True, "0", zero, True, Epsilon.ZERO, (), 0,
                       (VACUOUS_RELATION_NOTE,))


def centre_pairs(values: Sequence[int], records: int, noise: ExpNoise) -> list[tuple[int, int]]:
    """Ordered pairs of sums of neighbouring databases (replace-one); one per difference
    when the noise is not clamped."""
    for j, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, int):
            raise InvalidArgument(f"values[{j}] = {v!r}: noise is added to the sum of the "
                                  f"records, so every value must be an integer",
                                  argument="values", value=v)
    sums = {0}
    for _ in range(records - 1):
        sums = {s + v for s in sums for v in values}
        if len(sums) * len(values) ** 2 > MAX_PAIRS:
            raise BudgetExceeded(f"more than {MAX_PAIRS} pairs of neighbouring sums; use "
                                 f"fewer records or values", argument="records", value=records)
    if noise.lo is None and noise.hi is None:
        diffs = sorted({v - w for v in values for w in values if v != w})
        return [(d, 0) for d in diffs]
    return sorted({(s + v, s + w) for s in sums for v in values for w in values if v != w})


def _sign(x: Series) -> int | None:
    try:
        return x.sign()
    except Undecided:
        return None


def _certified(form: DeltaForm) -> Certified:
    return Certified(form.enclose)


def _tight_zero(pl: PairLoss) -> tuple[str, Certified | None, bool, Epsilon | None]:
    """The largest loss of a pair: text, enclosure (None: ∞), exactness, exact ε."""
    if pl.rising_side:
        return "inf", None, True, Epsilon.INF
    best: tuple[Series, Series] | None = None
    for _, p, q in pl.atoms():
        if q.is_exact and q.exact.is_zero:
            if not (p.is_exact and p.exact.is_zero):
                return "inf", None, True, Epsilon.INF
            continue
        if best is None or _ratio_above(p, q, *best):
            best = (p, q)
    assert best is not None
    p, q = best
    ratio = _monomial_ratio(p, q)
    if ratio is not None:
        nats, factor = ratio
        if factor == 1 and nats >= 0:
            eps = Epsilon.of_nats(nats)
            return str(eps), Certified.exact(nats), True, eps
        if nats == 0 and factor >= 1:
            eps = Epsilon.log(factor)
            return str(eps), Certified(lambda prec: log_bounds(factor, prec)), True, eps
        text = f"ln({factor}) + {nats}"
        return text, Certified(lambda prec: _shifted_log(factor, nats, prec)), True, None
    return (f"ln(({p})/({q}))", Certified(lambda prec: _log_ratio(p, q, prec)), False, None)


def _monomial_ratio(p: Series, q: Series) -> tuple[mpq, mpq] | None:
    """``(a, c)`` when ``p/q = c·e^a`` exactly (both exponential sums): the leading terms give
    the candidate, and ``p = c·e^a·q`` is an exact identity test."""
    if not (p.is_exact and q.is_exact) or p.exact.is_zero or q.exact.is_zero:
        return None
    (ap, cp), (aq, cq) = p.exact.terms[-1], q.exact.terms[-1]
    a, c = ap - aq, cp / cq
    return (a, c) if p.exact == (q.exact * c).shift(a) else None


def _shifted_log(factor: mpq, nats: mpq, prec: int) -> tuple[mpq, mpq]:
    lo, hi = log_bounds(factor, prec)
    return lo + nats, hi + nats


def _log_ratio(p: Series, q: Series, prec: int) -> tuple[mpq, mpq]:
    p_lo, p_hi = p.enclose(prec)
    q_lo, q_hi = q.enclose(prec)
    lo, _ = log_bounds(max(p_lo, mpq(1, 2 ** prec)) / q_hi, prec)
    _, hi = log_bounds(p_hi / max(q_lo, mpq(1, 2 ** (2 * prec))), prec)
    return lo, hi


def _ratio_above(p: Series, q: Series, bp: Series, bq: Series) -> bool:
    """Whether ``p/q > bp/bq`` (certified; exact when all four are exponential sums)."""
    if all(x.is_exact for x in (p, q, bp, bq)):
        return (p.exact * bq.exact - bp.exact * q.exact).sign() > 0
    prec = 64
    while prec <= 1 << 12:
        p_lo, p_hi = p.enclose(prec)
        q_lo, q_hi = q.enclose(prec)
        b_lo, b_hi = bp.enclose(prec)
        c_lo, c_hi = bq.enclose(prec)
        if q_lo > 0 and c_lo > 0:
            if p_lo / q_hi > b_hi / c_lo:
                return True
            if p_hi / q_lo < b_lo / c_hi:
                return False
        prec *= 2
    raise Undecided("two likelihood ratios of the clamped discrete Gaussian were not "
                    "separated at 4096 bits")


def _tight_epsilon(pl: PairLoss, delta: mpq, zero: Certified | None) -> Certified | None:
    """The tight ε of one pair at ``delta > 0``: certified bisection on rational ε (nats)."""
    def at_most(eps: mpq) -> bool | None:
        return _le(pl.delta(Epsilon.of_nats(eps)), delta)

    bounds = bisect_epsilon(at_most, None if zero is None else zero.enclose(64)[1])
    return None if bounds is None else Certified(lambda prec: bounds)


def bisect_epsilon(at_most: Callable[[mpq], bool | None], start: mpq | None = None
                   ) -> tuple[mpq, mpq] | None:
    """``[lo, hi]`` holding the least ε ≥ 0 (nats) with ``at_most(ε)`` (δ(ε) ≤ δ, certified;
    None: undecided), by bisection: δ(ε) is non-increasing. ``start``: an ε known to satisfy
    it, else found by doubling from 1. None when that search is undecided or runs out."""
    if at_most(mpq(0)):
        return mpq(0), mpq(0)
    lo = mpq(0)
    if start is not None:
        hi = start
    else:
        hi = mpq(1)
        for _ in range(_BISECTION_STEPS):  # δ(ε) → 0 as ε → ∞ for every law here
            ok = at_most(hi)
            if ok:
                break
            if ok is None:
                return None
            lo, hi = hi, hi * 2
        else:
            return None
    for _ in range(_BISECTION_STEPS):
        mid = (lo + hi) / 2
        ok = at_most(mid)
        if ok is None:
            break
        lo, hi = (lo, mid) if ok else (mid, hi)
    return lo, hi


def _le(form: DeltaForm, delta: mpq) -> bool | None:
    s = _sign(form.minus(delta))
    return None if s is None else s <= 0


def check_noise_dp(noise: ExpNoise, values: Sequence[int], records: int, eps: Epsilon,
                   delta: mpq) -> NoiseResult:
    """Decide (ε, δ)-DP of ``sum(records) + noise`` under replace-one neighbours. The δ shown
    is the largest over every pair (exact when the comparisons decide which pair has it, else
    the hull of the pairs' enclosures), the tight ε likewise; the pair named is the one with
    the largest tight ε when the claim holds, the one with the largest δ otherwise."""
    pairs = centre_pairs(values, records, noise)
    losses = [pair_loss(noise, p, q) for p, q in pairs]
    forms = [pl.delta(eps) for pl in losses]
    verdicts = [_le(f, delta) for f in forms]
    holds = False if False in verdicts else None if None in verdicts else True
    worst, decided = 0, True
    for j in range(1, len(forms)):  # one denominator for every pair: compare the numerators
        s = _sign(forms[j].scaled - forms[worst].scaled)
        if s is None:
            decided = False
        elif s > 0:
            worst = j
    if not decided and holds is False:  # the largest δ is not known: name a refuting pair
        worst = verdicts.index(False)
    form = forms[worst]
    enclosures = [_certified(f) for f in forms]
    delta_enc = enclosures[worst] if decided else Certified(
        lambda prec: (max(e.enclose(prec)[0] for e in enclosures),
                      max(e.enclose(prec)[1] for e in enclosures)))
    tights = [_tight_zero(pl) for pl in losses]
    if delta == 0:
        tightest, (text, enc, exact, value) = _pick(tights)
    else:
        encs = [_tight_epsilon(pl, delta, t[1]) for pl, t in zip(losses, tights, strict=True)]
        known = [e for e in encs if e is not None]
        enc = None if len(known) < len(encs) else Certified(
            lambda prec: (max(e.enclose(prec)[0] for e in known),
                          max(e.enclose(prec)[1] for e in known)))
        text, exact, value = ("", False, None) if enc is not None else \
            ("unknown", False, None)
        tightest = _largest(encs)
    exact_delta = decided and form.scaled.is_exact
    shown = worst if holds is not True or tightest is None else tightest
    return NoiseResult(holds, str(form) if decided else "", delta_enc, exact_delta,
                       text, enc, exact, value, pairs[shown], len(pairs))


def _largest(encs: Sequence[Certified | None]) -> int | None:
    """The first pair whose bracket's lower end is the largest (its tight ε is the largest
    when that end is above every other upper end; else the brackets overlap and it is the
    likeliest); None when a bracket is missing."""
    if any(e is None for e in encs):
        return None
    ends = [e.enclose(64) for e in encs]  # type: ignore[union-attr]
    return max(range(len(ends)), key=lambda j: (ends[j][0], -j))


def _pick(tights: list) -> tuple[int | None, tuple[str, Certified | None, bool,
                                                   Epsilon | None]]:
    """The index and value of the largest of the pairs' tight ε at δ = 0 (∞ first; else by
    enclosures); the index None when the enclosures do not decide which is largest."""
    for j, t in enumerate(tights):
        if t[1] is None:
            return j, t
    best = 0
    for j in range(1, len(tights)):
        t = tights[j]
        if t[0] == tights[best][0]:
            continue
        c = t[1].compare(tights[best][1])
        if c is None:
            def widest(prec: int) -> tuple[mpq, mpq]:
                return (max(x[1].enclose(prec)[0] for x in tights),
                        max(x[1].enclose(prec)[1] for x in tights))
            return None, ("", Certified(widest), False, None)
        if c > 0:
            best = j
    return best, tights[best]
