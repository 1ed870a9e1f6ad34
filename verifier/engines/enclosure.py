"""Certified enclosures of APK and PPK δ beyond exact reach, in ball arithmetic (Arb).

When the exact numbers would have millions of digits (Example 7 at ``n = 10⁶``), the linear
route of :mod:`verifier.engines.shift_table` is run with python-flint's ``arb`` balls instead
of integers: every probability is a ball ``[m ± r]`` that contains the exact value, and every
operation returns a ball containing the exact result, so the δ obtained is an interval
``[lo, hi]`` (exact rationals) guaranteed to contain the exact δ. It is never called exact.

Same mathematics (seed 003, Definitions 5–7; REFERENCE.md §2–4), for i.i.d. records on two
values and a deterministic function ``f`` of the number of ones, an attacker knowing ``m``
records:

* ``w(x) = C(u, x)·p^x·(1 − p)^(u − x)`` by the recurrence
  ``w(x+1) = w(x)·(u − x)/(x + 1)·p/(1 − p)``; prefix and suffix sums of ``w`` give every
  interval sum (the one with the smaller operands is used, so tails keep their relative
  accuracy);
* singleton outputs contribute where their exact ratio ``(u − x + 1)·p / (x·(1 − p))``
  (a rational, decided exactly against ``e^ε``) exceeds ``e^ε``: ``P − E·Q`` over one interval
  per class; every other output contributes ``max(0, p_O − E·q_O)``, enclosed as the
  non-negative part of the ball (no decision is needed);
* APK δ is the largest class's, over both ordered pairs; PPK δ is
  ``Σ_k P[k]·APK_{a,b,k}`` (Theorem 1 / Lemma 4), the larger over the pairs.

A claim ``δ ≤ δ₀`` holds when ``hi ≤ δ₀``, fails when ``lo > δ₀``, and is unknown otherwise.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from itertools import accumulate

import flint
from gmpy2 import mpq

from verifier.core.certified import compare_exp, decimal_string
from verifier.core.epsilon import Epsilon, parse_epsilon
from verifier.core.errors import InvalidArgument
from verifier.core.numbers import format_rational, probability
from verifier.core.vocabulary import enclosure, pair, stamped, verdict
from verifier.engines.shift_table import Preimages, preimages
from verifier.model.data import IndependentData
from verifier.model.knowledge import Knowledge
from verifier.model.mechanisms import Mechanism

__all__ = ["Enclosure", "CertifiedReport", "certified_partial"]

NOTIONS = ("apkdp", "ppkdp")


@dataclass(frozen=True, slots=True)
class Enclosure:
    """A certified interval ``[lo, hi]`` (exact rationals) containing an exact δ."""

    lo: mpq
    hi: mpq

    def __contains__(self, x: object) -> bool:
        return bool(self.lo <= mpq(x) <= self.hi)

    @property
    def relative_width(self) -> mpq:
        return (self.hi - self.lo) / self.hi if self.hi else mpq(0)

    def verdict(self, delta: mpq) -> bool | None:
        """True when every value in the interval is ``≤ delta``, False when none is, else
        None (unknown)."""
        if self.hi <= delta:
            return True
        if self.lo > delta:
            return False
        return None

    def __str__(self) -> str:
        return f"[{format_rational(self.lo)}, {format_rational(self.hi)}]"


@dataclass(frozen=True)
class CertifiedReport:
    """Enclosures per notion, each claim's verdict (None: unknown) and the precision used."""

    results: dict[str, Enclosure]
    verdicts: dict[str, bool | None]
    precision: int

    @property
    def holds(self) -> bool | None:
        """True if every claim holds, False if one fails, None when undecided."""
        if any(v is False for v in self.verdicts.values()):
            return False
        if all(v is True for v in self.verdicts.values()):
            return True
        return None

    @property
    def exit_code(self) -> int:
        return {True: 0, False: 1, None: 3}[self.holds]

    def to_dict(self, epsilon: object = None, delta: object = None) -> dict:
        """``plrv check --mode certified --json`` for the claim (``epsilon``, ``delta``): per
        notion the certified interval (exact rational ends), its relative width and the
        verdict (``holds`` ``null`` when the interval does not decide); ``tight.delta`` is
        the interval as an enclosure, ``tight.epsilon`` ``null`` (not computed)."""
        claim = pair(epsilon, delta)
        out = {name: {"verdict": verdict(self.verdicts[name]), "claim": claim,
                      "tight": pair(None, enclosure(r.lo, r.hi)),
                      "delta_interval": [str(r.lo), str(r.hi)],
                      "relative_width_approx": decimal_string(r.relative_width, 3),
                      "holds": self.verdicts[name], "exact": False,
                      "precision_bits": self.precision}
               for name, r in self.results.items()}
        return stamped("check", out, self.holds, claim)


def _exact(x: flint.arb) -> mpq:
    man, exp = x.man_exp()
    m = mpq(int(man))
    return m * 2 ** int(exp) if exp >= 0 else m / 2 ** int(-exp)


def _enclose(x: flint.arb) -> Enclosure:
    return Enclosure(_exact(x.lower()), _exact(x.upper()))


class _Law:
    """The binomial law of ``u`` i.i.d. records as balls, with prefix and suffix sums.

    With ``need`` (every interval sum starts at or below it), the masses stop at the first
    ``X ≥ need`` past the mode whose tail is negligible: the ratios ``w(y+1)/w(y)`` fall with
    ``y``, so once ``ρ = w(X+2)/w(X+1) ≤ 1/2`` the tail ``Σ_{y>X} w(y) ≤ 2·w(X+1)``, kept as
    the ball ``[0, 2·w(X+1)]`` once that is below ``2^−(prec+20)·w(need)``. Every sum is then
    still a ball containing the exact one: a sum reaching past ``X`` is the suffix from its
    start (which holds the tail ball), and the one mass at ``u`` is ``p^u``."""

    def __init__(self, u: int, p: mpq, need: int | None = None):
        one_p = flint.arb(flint.fmpq(int(p.numerator), int(p.denominator)))
        one_q = 1 - one_p
        self.u = u
        self.p = p
        self.top = one_p ** u
        need = u if need is None else min(max(need, 0), u)
        mass = [one_q ** u]
        step = one_p / one_q
        limit = flint.arb(2) ** -(flint.ctx.prec + 20)
        half = mpq(1, 2)
        tail = flint.arb(0)
        for x in range(u):
            w = mass[x] * step * (u - x) / (x + 1)  # w(x + 1)
            if x >= need and mpq(u - x - 1, x + 2) * p / (1 - p) <= half \
                    and 2 * w < limit * mass[need]:
                tail = flint.arb(0).union(2 * w)
                break
            mass.append(w)
        self.mass = mass
        self.prefix = list(accumulate(mass, initial=flint.arb(0)))
        suffix = list(accumulate(reversed(mass), initial=tail))
        suffix.reverse()
        self.suffix = suffix

    def between(self, lo: int, hi: int) -> flint.arb:
        """``Σ_{lo ≤ x ≤ hi} w(x)`` (a ball containing it)."""
        a, b = max(lo, 0), min(hi, self.u)
        if a > b:
            return flint.arb(0)
        last = len(self.mass) - 1
        if b > last:  # past the masses kept: the suffix from a holds the tail's ball
            if a == b == self.u:
                return self.top
            return self.suffix[min(a, last + 1)]
        head, tail = self.prefix[b + 1], self.suffix[a]
        if head.mid() <= tail.mid():
            return head - self.prefix[a]
        return tail - self.suffix[b + 1]


def _ratio_above(u: int, p: mpq, x: int, alpha: int, eps: Epsilon) -> bool:
    """Whether the singleton at ``x`` of the pair ``(α, 1 − α)`` has ratio ``> e^ε``
    (exact: ``w(x)/w(x−1) = (u − x + 1)·p/(x·(1 − p))``)."""
    r = mpq(u - x + 1, x) * p / (1 - p)
    return compare_exp(r if alpha == 0 else 1 / r, eps) > 0


def _cut(u: int, p: mpq, alpha: int, eps: Epsilon) -> tuple[int, int]:
    """The finite ``x`` (``1..u``) whose singleton ratio exceeds ``e^ε``: an interval."""
    lo, hi = 1, u
    if lo > hi:
        return 1, 0
    if alpha == 0:  # ratio falls with x: contributing x form a prefix of 1..u
        a, b = lo, hi + 1
        while a < b:
            mid = (a + b) // 2
            if _ratio_above(u, p, mid, 0, eps):
                a = mid + 1
            else:
                b = mid
        return lo, a - 1
    a, b = lo, hi + 1  # ratio rises with x: a suffix
    while a < b:
        mid = (a + b) // 2
        if _ratio_above(u, p, mid, 1, eps):
            b = mid
        else:
            a = mid + 1
    return a, hi


def _need(pre: Preimages, u: int, cuts: Sequence[tuple[int, int]]) -> int:
    """An index at or above the start of every interval sum a class asks for (below ``u``):
    ``s − k − α ≤ s`` for each end ``s`` of a preimage interval, and the cuts' ends."""
    ends = {e for s1, s2 in pre.runs for e in (s1, s2 + 1)}
    ends |= {e for _, spans in pre.groups for s1, s2 in spans for e in (s1, s2 + 1)}
    ends |= {c for cut in cuts for c in cut}
    return min(u, max((e + 1 for e in ends if e < u), default=0))


def _class_delta(law: _Law, pre: Preimages, k: int, alpha: int, cut: tuple[int, int],
                 e: flint.arb) -> flint.arb:
    beta = 1 - alpha
    inf_x = 0 if alpha == 0 else law.u + 1
    between = law.between
    total = flint.arb(0)
    for s1, s2 in pre.runs:
        lo, hi = s1 - k, s2 - k
        if lo <= inf_x <= hi:
            total += between(inf_x - alpha, inf_x - alpha)
        a, b = max(lo, cut[0]), min(hi, cut[1])
        if a <= b:
            total += between(a - alpha, b - alpha) - e * between(a - beta, b - beta)
    for _, spans in pre.groups:
        if len(spans) == 1:
            (s1, s2), = spans
            p = between(s1 - k - alpha, s2 - k - alpha)
            q = between(s1 - k - beta, s2 - k - beta)
        else:
            p = sum((between(s1 - k - alpha, s2 - k - alpha) for s1, s2 in spans),
                    flint.arb(0))
            q = sum((between(s1 - k - beta, s2 - k - beta) for s1, s2 in spans), flint.arb(0))
        total += (p - e * q).nonnegative_part()
    return total


def _run(data: IndependentData, pre: Preimages, m: int, eps: Epsilon
         ) -> tuple[flint.arb, flint.arb]:
    prior = data.priors[0]
    p = prior[data.values[1]]
    u = data.n - 1 - m
    cuts = [_cut(u, p, alpha, eps) for alpha in (0, 1)]
    law = _Law(u, p, _need(pre, u, cuts))
    known = _Law(m, p)
    if eps.rate is not None:
        e = flint.arb(flint.fmpq(int(eps.rate.numerator), int(eps.rate.denominator)))
    else:
        assert eps.nats is not None
        e = flint.arb(flint.fmpq(int(eps.nats.numerator), int(eps.nats.denominator))).exp()
    apk: list[flint.arb] = []
    ppk: list[flint.arb] = []
    for alpha in (0, 1):
        cut = cuts[alpha]
        mixed = flint.arb(0)
        for k in range(m + 1):
            d = _class_delta(law, pre, k, alpha, cut, e)
            apk = [d if not apk else apk[0].max(d)]
            mixed += known.mass[k] * d
        ppk = [mixed if not ppk else ppk[0].max(mixed)]
    return apk[0], ppk[0]


def _identical(model: IndependentData) -> bool:
    """``model.identical``, answered at once when every record shares one prior object."""
    first = model.priors[0] if model.priors else None
    return all(p is first for p in model.priors) or model.identical


def certified_partial(mech: Mechanism, model: IndependentData, knowledge: Knowledge,
                      target: int, epsilon: object, delta: object = "0",
                      notions: Sequence[str] = NOTIONS, *, relative_width: object = "1e-10",
                      precision: int = 128) -> CertifiedReport:
    """Enclosures of APK and PPK δ at ε for target ``target`` (records i.i.d. on two values,
    ``mech`` a deterministic symmetric mechanism, ``knowledge`` a set of known indices), at
    rising precision until each enclosure's relative width is at most ``relative_width``."""
    eps = parse_epsilon(epsilon)
    d = probability(delta, "delta")
    width = probability(relative_width, "relative_width")
    for name in notions:
        if name not in NOTIONS:
            raise InvalidArgument(f"notion {name!r} has no certified mode; use "
                                  f"{' or '.join(NOTIONS)}")
    if not isinstance(model, IndependentData) or not _identical(model) or len(model.values) != 2:
        raise InvalidArgument("certified mode needs i.i.d. records on two values")
    known = tuple(knowledge.known or ()) if knowledge.known is not None else None
    if known is None:
        raise InvalidArgument("certified mode needs the knowledge to be a set of known indices")
    if target in known or not 0 <= target < model.n:
        raise InvalidArgument(f"target {target} must be an unknown record index of "
                              f"0..{model.n - 1}")
    if mech.on_counts is None:
        raise InvalidArgument(f"the mechanism {mech.name} is not declared symmetric")
    pre = preimages(mech, model.values, model.n)
    if pre is None:
        raise InvalidArgument(f"certified mode needs a deterministic mechanism; {mech.name} "
                              f"is randomized")
    p = model.priors[0][model.values[1]]
    if p in (0, 1):
        raise InvalidArgument(f"certified mode needs 0 < P[{model.values[1]!r}] < 1, not "
                              f"{format_rational(p)}")
    if eps.infinite:
        raise InvalidArgument("certified mode needs a finite epsilon")
    prec = precision
    while True:
        old = flint.ctx.prec
        flint.ctx.prec = prec
        try:
            apk, ppk = _run(model, pre, len(known), eps)
            results = {name: _enclose(value) for name, value in (("apkdp", apk), ("ppkdp", ppk))
                       if name in notions}
        finally:
            flint.ctx.prec = old
        if all(r.relative_width <= width for r in results.values()) or prec >= 1 << 14:
            break
        prec *= 4
    verdicts: dict[str, bool | None] = {k: r.verdict(d) for k, r in results.items()}
    return CertifiedReport(results, verdicts, prec)


def describe(report: CertifiedReport) -> dict[str, Hashable]:
    """Plain strings for display: the interval, its relative width and the verdict."""
    out: dict[str, Hashable] = {}
    for name, r in report.results.items():
        v = report.verdicts[name]
        lo, hi = decimal_string(r.lo, 12), decimal_string(r.hi, 12)
        out[name] = (f"δ ∈ [{lo}, {hi}]  (certified enclosure, not exact; relative width "
                     f"≈ {decimal_string(r.relative_width, 2)}); claim "
                     f"{'holds' if v else 'fails' if v is False else 'unknown'}")
    return out
