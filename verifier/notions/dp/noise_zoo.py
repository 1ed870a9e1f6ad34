"""(ε, δ)-DP of report noisy max and above threshold with discrete Laplace noise at a
transcendental base, and of discrete Laplace noise on each coordinate of a vector: the worst δ
at ε and the tight ε at δ over every ordered pair of neighbouring inputs, each an exact
expression in ``β = e^{−t}`` with a certified enclosure, and a three-valued verdict.

For inputs ``x ~ y`` with laws ``P``, ``Q`` over the release (rational functions of ``β``,
:mod:`verifier.model.expnoise_zoo`; for noise on each coordinate the laws of the privacy loss,
:mod:`verifier.model.expnoise_vector`, which give the same δ) the tight δ at ε is (seed 003,
Lemma 1; REFERENCE.md §3) ``δ = Σ_o max(0, P(o) − e^ε·Q(o)) = A − e^ε·C`` with ``A = Σ_{o∈S} P(o)``,
``C = Σ_{o∈S} Q(o)``, ``S = {o : P(o) > e^ε·Q(o)}``: ``A`` and ``C`` are rational functions of
``β``, exact, and membership in ``S`` is the sign of one exponential sum (exact zero test by
Lindemann–Weierstrass, certified sign; :class:`~verifier.core.errors.Undecided` at the
precision cap, then the verdict is unknown and δ is enclosed without deciding membership:
``Σ_o max(0, ·)`` of enclosures).

**Tight ε at δ.** Order the outputs by ``r_o = P(o)/Q(o)`` decreasing (``r = ∞`` where
``Q(o) = 0``). On ``[ln r_{k+1}, ln r_k]`` the set ``S`` is the first ``k`` outputs, so
``δ(ε) = A_k − e^ε·C_k`` there and ``ε(δ) = ln((A_k − δ)/C_k)`` for the first ``k`` with
``A_k − δ ≥ r_{k+1}·C_k`` (``r_{K+1} = 0``); ∞ when the outputs with ``Q = 0`` carry more than
δ, 0 when the logarithm is negative. Every ``ε`` is the log of a rational function of ``β``:
exact, a rational number of nats (or ``ln q``) when that function is a monomial ``c·β^k``.

Each law is kept over one denominator ``D_x`` (positive at ``β``), so a pair's comparisons are
signs of polynomials (:func:`verifier.core.ratfunc.gap_sign`): ``P(o) > e^ε·Q(o)`` iff
``N_x(o)·D_y − e^ε·N_y(o)·D_x > 0``, and ratios compare by cross products of numerators.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cmp_to_key
from typing import Any

from flint import fmpq, fmpq_poly
from gmpy2 import mpq

from verifier.core.budget import Budget
from verifier.core.certified import Certified, exp_bounds, log_bounds
from verifier.core.epsilon import Epsilon
from verifier.core.errors import Undecided
from verifier.core.expsum import ExpSum
from verifier.core.ratfunc import RatFunc, beta_sign, gap_sign, poly_expsum
from verifier.core.theta import Series
from verifier.model.expnoise_vector import CoordinateNoise
from verifier.model.expnoise_zoo import NoisyChoice
from verifier.model.noise import Coef
from verifier.notions.dp.neighbours import Relation, relation_pairs
from verifier.notions.dp.noise_check import NoiseResult, vacuous
from verifier.notions.dp.noise_loss import DeltaForm

__all__ = ["check_choice_dp", "CommonLaw", "common_law", "pair_delta", "pair_epsilon"]

_ZERO, _ONE = fmpq_poly([0]), fmpq_poly([1])


def _q(x: mpq) -> fmpq:
    return fmpq(int(x.numerator), int(x.denominator))


@dataclass(frozen=True, eq=False)
class CommonLaw:
    """A law ``{o: num[o]/den}`` at ``β = e^{−t}`` with ``den(β) > 0``."""

    den: fmpq_poly
    num: Mapping[object, fmpq_poly]

    def at(self, o: object) -> fmpq_poly:
        return self.num.get(o, _ZERO)


def common_law(law: Mapping[object, RatFunc], t: mpq) -> CommonLaw:
    """The law over the least common denominator of its masses, made positive at ``β``."""
    den = _ONE
    for w in law.values():
        den = den * w.den // den.gcd(w.den)
    if beta_sign(den, t) < 0:
        den = -den
    return CommonLaw(den, {o: w.num * (den // w.den) for o, w in law.items()
                           if not w.is_zero})


@dataclass(frozen=True, eq=False)
class _Gap:
    """``δ = (u − e^ε·v)/w`` of one pair, ``w(β) > 0``."""

    u: fmpq_poly
    v: fmpq_poly
    w: fmpq_poly

    def minus(self, other: _Gap) -> tuple[fmpq_poly, fmpq_poly]:
        """``(u, v)`` with ``sign(δ_self − δ_other) = sign(u − e^ε·v)``."""
        return (self.u * other.w - other.u * self.w, self.v * other.w - other.v * self.w)

    def form(self, eps: Epsilon, t: mpq) -> DeltaForm:
        """The exact δ, its common polynomial factor cancelled (it is positive at β: the
        denominator is)."""
        g = self.w.gcd(self.u).gcd(self.v)
        if beta_sign(g, t) < 0:
            g = -g
        if not g.is_one():
            return _Gap(self.u // g, self.v // g, self.w // g).form(eps, t)
        u, v = poly_expsum(self.u, t), poly_expsum(self.v, t)
        ev = v * eps.base if eps.base is not None else \
            v.shift(eps.nats) if eps.nats is not None else ExpSum()
        return DeltaForm(Series.of(u), Series.of(v), Series.of(poly_expsum(self.w, t)),
                         Series.of(u - ev))


def _sign(u: fmpq_poly, v: fmpq_poly, eps: Epsilon, t: mpq) -> int:
    """The sign of ``u(β) − e^ε·v(β)`` (ε = ∞: of ``u`` where ``v = 0``, else −1)."""
    if eps.infinite:
        return beta_sign(u, t) if v.is_zero() else -1
    return gap_sign(u, v, eps, t)


def pair_delta(p: CommonLaw, q: CommonLaw, eps: Epsilon, t: mpq) -> _Gap:
    """``δ = A − e^ε·C`` of the pair, with ``A = a/D_p``, ``C = c/D_q`` (raises Undecided)."""
    a, c = _ZERO, _ZERO
    for o, po in p.num.items():
        qo = q.at(o)
        if eps.infinite:
            if qo.is_zero():
                a += po
        elif gap_sign(po * q.den, qo * p.den, eps, t) > 0:
            a, c = a + po, c + qo
    if eps.infinite:
        c = _ZERO
    return _Gap(a * q.den, c * p.den, p.den * q.den)


def _delta_enclosure(p: CommonLaw, q: CommonLaw, eps: Epsilon, t: mpq, prec: int
                     ) -> tuple[mpq, mpq]:
    """``Σ_o max(0, P(o) − e^ε Q(o))`` enclosed term by term (no membership decided)."""
    def mass(law: CommonLaw, o: object) -> tuple[mpq, mpq]:
        return RatFunc.reduced(law.at(o), law.den).enclose(t, prec)

    lo = hi = mpq(0)
    for o in p.num:
        p_lo, p_hi = mass(p, o)
        if eps.infinite:
            if q.at(o).is_zero():
                lo, hi = lo + p_lo, hi + p_hi
            continue
        e_lo, e_hi = (eps.base, eps.base) if eps.base is not None else \
            exp_bounds(eps.nats, prec)  # type: ignore[arg-type]
        q_lo, q_hi = mass(q, o)
        lo += max(mpq(0), p_lo - e_hi * q_hi)
        hi += max(mpq(0), p_hi - e_lo * q_lo)
    return lo, hi


def pair_epsilon(p: CommonLaw, q: CommonLaw, delta: mpq, t: mpq) -> RatFunc | None:
    """The tight ``e^ε`` of the pair at ``delta`` as a rational function of ``β`` (≥ 1), or
    None for ε = ∞ (raises Undecided)."""
    d = _q(delta)
    a = sum((po for o, po in p.num.items() if q.at(o).is_zero()), _ZERO)
    if beta_sign(a - d * p.den, t) > 0:
        return None
    ratios = [(po, q.at(o)) for o, po in p.num.items() if not q.at(o).is_zero()]

    def decreasing(x: tuple[fmpq_poly, fmpq_poly], y: tuple[fmpq_poly, fmpq_poly]) -> int:
        return beta_sign(y[0] * x[1] - x[0] * y[1], t)

    ratios.sort(key=cmp_to_key(decreasing))
    c = _ZERO
    for k, (pk, qk) in enumerate(ratios):
        a, c = a + pk, c + qk
        n_p, n_q = ratios[k + 1] if k + 1 < len(ratios) else (_ZERO, _ONE)
        if beta_sign(n_q * (a - d * p.den) - n_p * c, t) >= 0:
            top, bottom = (a - d * p.den) * q.den, p.den * c
            return RatFunc.reduced(top, bottom) if beta_sign(top - bottom, t) > 0 else \
                RatFunc.constant(1)
    return RatFunc.constant(1)


@dataclass(frozen=True)
class _Tight:
    """``ln(ratio)`` at ``β = e^{−t}`` (ratio None: ∞)."""

    ratio: RatFunc | None
    t: mpq

    def result(self) -> tuple[str, Certified | None, bool, Epsilon | None]:
        r, t = self.ratio, self.t
        if r is None:
            return "inf", None, True, Epsilon.INF
        mono = r.monomial
        if mono is not None:
            c, k = mono
            nats = -k * t
            if c == 1:
                eps = Epsilon.of_nats(nats)
                return str(eps), Certified.exact(nats), True, eps
            if k == 0:
                eps = Epsilon.log(c)
                return str(eps), Certified(lambda prec: log_bounds(c, prec)), True, eps
            return (f"ln({c}) + {nats}", Certified(lambda prec: _shifted(c, nats, prec)),
                    True, None)
        num, den = r.expsums(t)
        if beta_sign(r.den, t) < 0:
            num, den = -num, -den
        return (f"ln(({num})/({den}))", Certified(lambda prec: _log(r, t, prec)), True, None)


def _shifted(c: mpq, nats: mpq, prec: int) -> tuple[mpq, mpq]:
    lo, hi = log_bounds(c, prec)
    return lo + nats, hi + nats


def _log(r: RatFunc, t: mpq, prec: int) -> tuple[mpq, mpq]:
    lo, hi = r.enclose(t, prec)
    return log_bounds(max(lo, mpq(1)), prec)[0], log_bounds(max(hi, mpq(1)), prec)[1]


def _worst_ratio(ratios: list[RatFunc | None], t: mpq) -> int:
    """The index of the first largest ``e^ε`` (None: ∞)."""
    if None in ratios:
        return ratios.index(None)
    best = 0
    for j in range(1, len(ratios)):
        r, b = ratios[j], ratios[best]
        assert r is not None and b is not None
        if (r - b).sign(t) > 0:
            best = j
    return best


def _law(law: Mapping[Any, Coef], t: mpq) -> CommonLaw:
    out: dict[object, RatFunc] = {}
    for o, w in law.items():
        assert isinstance(w, RatFunc)  # the law at the indeterminate β
        out[o] = w
    return common_law(out, t)


def _pair_laws(mech: NoisyChoice | CoordinateNoise, pairs: list[tuple[tuple, tuple]],
               t: mpq, budget: Budget) -> list[tuple[CommonLaw, CommonLaw]]:
    """The two laws of each pair: of the released index (one law per input), or of the
    privacy loss of noise on each coordinate (one pair of laws per multiset of differences).
    The terms summed are estimated first and held to ``limits.work``."""
    if isinstance(mech, CoordinateNoise):
        firsts: dict[tuple, tuple[tuple, tuple]] = {}
        for x, y in pairs:
            firsts.setdefault(tuple(sorted(abs(a - b) for a, b in zip(x, y, strict=True))),
                              (x, y))
        budget.require("work", sum(mech.work(x, y) for x, y in firsts.values()),
                       "the loss laws of noise on each coordinate (terms)")
        memo: dict[tuple, tuple[CommonLaw, CommonLaw]] = {}
        for key, (x, y) in firsts.items():
            p, q = mech.pair_law(x, y)
            memo[key] = (_law(p, t), _law(q, t))
        return [memo[tuple(sorted(abs(a - b) for a, b in zip(x, y, strict=True)))]
                for x, y in pairs]
    inputs = sorted({x for pair in pairs for x in pair})
    budget.require("work", sum(mech.work(x) for x in inputs),
                   f"the {mech.kind} laws (terms summed over the noisy values)",
                   " (a threshold or inputs far apart widen every sum)")
    laws = {x: _law(mech.law(x), t) for x in inputs}
    return [(laws[x], laws[y]) for x, y in pairs]


def check_choice_dp(mech: NoisyChoice | CoordinateNoise, relation: Relation, eps: Epsilon,
                    delta: mpq, budget: Budget | None = None) -> NoiseResult:
    """Decide (ε, δ)-DP of ``mech`` over the ordered pairs of ``relation``."""
    t = mech.rate
    budget = budget or Budget()
    pairs = list(relation_pairs(relation, budget))
    if not pairs:
        return vacuous()
    try:
        laws = _pair_laws(mech, pairs, t, budget)
    except Undecided:  # a law's denominator not signed at the cap: nothing is decided
        return NoiseResult(None, "", Certified(lambda prec: (mpq(0), mpq(1))), False,
                           "unknown", None, False, None, pairs[0], len(pairs))
    gaps: list[_Gap | None] = []
    for p, q in laws:
        try:
            gaps.append(pair_delta(p, q, eps, t))
        except Undecided:
            gaps.append(None)
    d = _q(delta)
    verdicts = [None if g is None else _le(g.u - d * g.w, g.v, eps, t) for g in gaps]
    holds = False if False in verdicts else None if None in verdicts else True
    worst = _worst(gaps, eps, t)
    if holds is False and (worst is None or verdicts[worst] is not False):
        worst = verdicts.index(False)
    if worst is not None:
        g = gaps[worst]
        assert g is not None
        form = g.form(eps, t)
        delta_text, delta_enc, exact = str(form), Certified(form.enclose), True
    else:
        def hull(prec: int) -> tuple[mpq, mpq]:
            bounds = [_delta_enclosure(p, q, eps, t, prec) for p, q in laws]
            return max(b[0] for b in bounds), max(b[1] for b in bounds)
        delta_text, delta_enc, exact = "", Certified(hull), False
    tightest = None
    try:
        ratios = [pair_epsilon(p, q, delta, t) for p, q in laws]
        tightest = _worst_ratio(ratios, t)
        e_text, e_enc, e_exact, e_value = _Tight(ratios[tightest], t).result()
    except Undecided:
        e_text, e_enc, e_exact, e_value = "unknown", None, False, None
    # a refuted claim shows the pair with the largest δ; a kept one the largest tight ε
    shown = worst if holds is not True or tightest is None else tightest
    witness = pairs[shown if shown is not None else 0]
    return NoiseResult(holds, delta_text, delta_enc, exact, e_text, e_enc, e_exact, e_value,
                       witness, len(pairs))


def _le(u: fmpq_poly, v: fmpq_poly, eps: Epsilon, t: mpq) -> bool | None:
    try:
        return _sign(u, v, eps, t) <= 0
    except Undecided:
        return None


def _worst(gaps: list[_Gap | None], eps: Epsilon, t: mpq) -> int | None:
    """The index of the first pair with the largest δ; None when a comparison is undecided."""
    if not gaps or any(g is None for g in gaps):
        return None
    worst = 0
    for j in range(1, len(gaps)):
        g, w = gaps[j], gaps[worst]
        assert g is not None and w is not None
        try:
            if _sign(*g.minus(w), eps, t) > 0:
                worst = j
        except Undecided:
            return None
    return worst
