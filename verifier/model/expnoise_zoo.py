"""Report noisy max and above threshold (the sparse vector technique with cutoff 1) with
discrete Laplace noise at any rational scale, or a double read exactly: the laws of the
testing literature's noisy-max and threshold patterns without a rational proxy.

Each noise has ``P[Z = k] = (1−γ)/(1+γ)·γ^|k|`` with ``γ = e^{−1/scale}`` (the discrete Laplace
law, OpenDP's ``make_geometric``/``make_laplace`` on integers). The noises of one mechanism share
a base ``β = e^{−t}``: ``t`` is the largest rational with every rate ``1/scale`` an integer
multiple ``power·t`` of it, so each noise is the two-sided geometric law with ``γ = β^power``.
Every output probability is then a sum over the noisy values of products of masses and tails,
summed exactly over the whole support by :func:`verifier.model.noise.noisy_sum`: at the
indeterminate ``β`` (:class:`~verifier.core.ratfunc.RatFunc`) it is a rational function of ``β``
with rational coefficients, at a rational ``α`` the rational ``P`` at ``β = α`` — one code path.

* **Report noisy max** (Dwork and Roth 2014, *The Algorithmic Foundations of Differential
  Privacy*, §3.3; StatDP's ``noisy_max_v1a``): ``X_j = q_j + Z_j``, release the index of the
  largest, the first on a tie::

      P[i] = Σ_v P[X_i = v]·Π_{j<i} P[X_j < v]·Π_{j>i} P[X_j ≤ v]

* **Above threshold** (Lyu, Su and Li 2017, "Understanding the Sparse Vector Technique for
  Differential Privacy", PVLDB, Algorithm 1 with cutoff ``c = 1``): a noisy threshold
  ``T + ρ``; release the index ``k`` of the first query with ``q_k + ν_k ≥ T + ρ`` (``>`` when
  ``strict``), or ``len(q)`` when none is::

      P[k] = Σ_u P[T + ρ = u]·Π_{j<k} P[X_j < u]·P[X_k ≥ u]

  With ``query_power = None`` the queries carry no noise (Lyu et al. 2017, Algorithm 5, a
  variant that is not private).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from math import gcd
from typing import Any

from gmpy2 import mpq, mpz

from verifier.core.errors import BudgetExceeded, InvalidArgument
from verifier.core.numbers import format_rational, integer, nonnegative, positive
from verifier.core.ratfunc import RatFunc
from verifier.model.noise import Coef, Noisy, base_coefficient, noisy_sum

__all__ = ["NoisyChoice", "noisy_max", "above_threshold", "noisy_max_law",
           "first_above_law", "noisy_max_value_law", "first_above_value_law", "ZOO_KINDS",
           "MAX_POWER"]

ZOO_KINDS = ("noisy_max", "above_threshold")
MAX_POWER = 64  # the largest rate of a noise, in units of the common rate t


def _vector(q: object) -> tuple[int, ...]:
    if not isinstance(q, tuple) or not q:
        raise InvalidArgument(f"q = {q!r:.40} is not a non-empty tuple of integers",
                              argument="q", value=q)
    return tuple(integer(v, f"q[{j}]") for j, v in enumerate(q))


def noisy_max_law(q: tuple, base: object, power: int = 1) -> dict[int, Coef]:
    """``{i: P[argmax = i]}`` with noise ``γ = base^power`` on every query (first index on a
    tie); ``base`` a rational in (0, 1) or :meth:`RatFunc.beta`."""
    q = _vector(q)
    out: dict[int, Coef] = {}
    for i, qi in enumerate(q):
        factors = [Noisy(qi, "=", power=power)] + [
            Noisy(qj, "<" if j < i else "<=", power=power) for j, qj in enumerate(q) if j != i]
        out[i] = noisy_sum(factors, base)
    return out


def first_above_law(q: tuple, threshold: int, base: object, threshold_power: int | None,
                    query_power: int | None, strict: bool = False) -> dict[int, Coef]:
    """``{k: P[the first query reaching the noisy threshold is k]}`` (``k = len(q)``: none),
    threshold noise ``β^threshold_power``, query noise ``β^query_power`` (None: no noise
    there — Lyu et al. 2017, Algorithm 5, or an exact threshold; not both)."""
    q = _vector(q)
    t = integer(threshold, "threshold")
    up, down = (">", "<=") if strict else (">=", "<")
    if threshold_power is None and query_power is None:
        raise InvalidArgument("above threshold without noise on the threshold or the queries "
                              "is deterministic", argument="threshold_power")
    out: dict[int, Coef] = {}
    for k in range(len(q) + 1):
        if threshold_power is None:  # every answer compared with the exact threshold t
            assert query_power is not None
            w: Coef = mpq(1)
            for j in range(min(k + 1, len(q))):
                w *= Noisy(q[j], down if j < k else up, power=query_power).at(
                    t, base_coefficient(base))
            out[k] = w
            continue
        factors = [Noisy(t, "=", power=threshold_power)]
        if query_power is None:  # q_j < u for j < k and q_k ≥ u
            below = max(q[:k], default=None)  # strict: q_j ≤ u for j < k, q_k > u
            lo = None if below is None else below if strict else below + 1
            top = None if k == len(q) else q[k] - 1 if strict else q[k]
            out[k] = noisy_sum(factors, base, lo=lo, hi=top)
            continue
        factors += [Noisy(qj, down, power=query_power) for qj in q[:k]]
        if k < len(q):
            factors.append(Noisy(q[k], up, power=query_power))
        out[k] = noisy_sum(factors, base)
    return {k: w for k, w in out.items() if w != 0}


def _window(factors: list[Noisy], base: object, lo: int, hi: int, shift: int = 0
            ) -> dict[int, Coef]:
    """``{v: Σ over the noisy value at v}`` for ``lo < v < hi`` and the clamped ends, the
    value being the first factor's (``X_i = v``)."""
    if lo == hi:
        return {lo: noisy_sum(factors, base)}
    out = {v: noisy_sum(factors, base, lo=v, hi=v) for v in range(lo + 1, hi)}
    out[lo] = noisy_sum(factors, base, hi=lo)
    out[hi] = noisy_sum(factors, base, lo=hi)
    return out


def noisy_max_value_law(q: tuple, base: object, power: int, lo: int, hi: int
                        ) -> dict[tuple[int, int], Coef]:
    """``{(i, v): P[argmax = i, clamp(X_i, lo, hi) = v]}``: report noisy max releasing the
    noisy maximum too (StatDP's ``noisy_max_v1b``; Ding et al. 2018: not ε-DP)."""
    q = _vector(q)
    out: dict[tuple[int, int], Coef] = {}
    for i, qi in enumerate(q):
        factors = [Noisy(qi, "=", power=power)] + [
            Noisy(qj, "<" if j < i else "<=", power=power) for j, qj in enumerate(q) if j != i]
        out.update({(i, v): w for v, w in _window(factors, base, lo, hi).items()})
    return {k: w for k, w in out.items() if w != 0}


def first_above_value_law(q: tuple, threshold: int, base: object, threshold_power: int,
                          query_power: int, strict: bool, lo: int, hi: int
                          ) -> dict[object, Coef]:
    """Above threshold releasing the noisy answer of the first query above it, clamped to
    ``[lo, hi]`` (Lyu et al. 2017, Algorithm 3; StatDP's ``iSVT4``: not ε-DP): ``(k, v)``, or
    ``len(q)`` when no query is. With ``f(u) = P[T + ρ = u]·Π_{j<k} P[X_j below u]`` and
    ``s = 1`` for ``>`` (else 0): ``P[(k, v)] = P[X_k = v]·Σ_{u ≤ v−s} f(u)`` inside, and at
    the ends ``Σ_{u ≤ lo−s} f(u)·(P[X_k ≥ u+s] − P[X_k > lo])`` and
    ``P[X_k ≥ hi]·Σ_{u ≤ hi−s} f(u) + Σ_{u > hi−s} f(u)·P[X_k ≥ u+s]``."""
    q = _vector(q)
    t = integer(threshold, "threshold")
    up, down = (">", "<=") if strict else (">=", "<")
    s = 1 if strict else 0
    b = base_coefficient(base)
    out: dict[object, Coef] = {}
    for k in range(len(q) + 1):
        before = [Noisy(t, "=", power=threshold_power)] + [
            Noisy(qj, down, power=query_power) for qj in q[:k]]
        if k == len(q):
            out[k] = noisy_sum(before, base)
            continue
        reach = Noisy(q[k], up, power=query_power)
        if lo == hi:
            out[(k, lo)] = noisy_sum([*before, reach], base)
            continue
        for v in range(lo + 1, hi):
            out[(k, v)] = Noisy(q[k], "=", power=query_power).at(v, b) * \
                noisy_sum(before, base, hi=v - s)
        out[(k, lo)] = noisy_sum([*before, reach], base, hi=lo - s) - \
            Noisy(q[k], ">", power=query_power).at(lo, b) * noisy_sum(before, base, hi=lo - s)
        out[(k, hi)] = Noisy(q[k], ">=", power=query_power).at(hi, b) * \
            noisy_sum(before, base, hi=hi - s) + noisy_sum([*before, reach], base, lo=hi - s + 1)
    return {key: w for key, w in out.items() if w != 0}


def _rate_gcd(a: mpq, b: mpq) -> mpq:
    """The largest rational ``t`` with ``a/t`` and ``b/t`` integers."""
    num = gcd(int(a.numerator) * int(b.denominator), int(b.numerator) * int(a.denominator))
    return mpq(mpz(num), mpz(int(a.denominator) * int(b.denominator)))


@dataclass(frozen=True, slots=True, repr=False)
class NoisyChoice:
    """Report noisy max (``kind = "noisy_max"``) or above threshold (``"above_threshold"``)
    with discrete Laplace noise: ``scale`` on every query, ``threshold_scale`` on the threshold
    ``threshold`` (above threshold only; for above threshold either may be None: no noise
    there, the broken variants of the literature), ``strict`` comparison ``>`` instead of
    ``≥``; ``value = (lo, hi)``: the noisy value of the chosen query is released too, clamped
    to ``[lo, hi]`` (the variants of the literature that are not private)."""

    kind: str
    scale: mpq | None
    threshold_scale: mpq | None = None
    threshold: int = 0
    strict: bool = False
    value: tuple[int, int] | None = None

    @property
    def rate(self) -> mpq:
        """``t`` with ``β = e^{−t}`` the common base of the noises."""
        rates = [1 / s for s in (self.scale, self.threshold_scale) if s is not None]
        return rates[0] if len(rates) == 1 else _rate_gcd(rates[0], rates[1])

    @property
    def powers(self) -> tuple[int | None, int | None]:
        """``(query power, threshold power)``: each noise is ``γ = β^power`` (None: none)."""
        t = self.rate
        return tuple(None if s is None else int(1 / s / t)  # type: ignore[return-value]
                     for s in (self.scale, self.threshold_scale))

    def law(self, q: tuple, base: object | None = None) -> Mapping[Any, Coef]:
        """The law of the release at input ``q``: rational functions of ``β`` (default), or
        rationals at a rational ``base`` standing for ``β``."""
        b = RatFunc.beta() if base is None else base
        qp, tp = self.powers
        if self.kind == "noisy_max":
            assert qp is not None
            return noisy_max_law(q, b, qp) if self.value is None else \
                noisy_max_value_law(q, b, qp, *self.value)
        if self.value is not None:
            assert qp is not None and tp is not None
            return first_above_value_law(q, self.threshold, b, tp, qp, self.strict,
                                         *self.value)
        return first_above_law(q, self.threshold, b, tp, qp, self.strict)

    def work(self, q: tuple) -> int:
        """An estimate of the terms summed for the law at ``q``: per output, a window over
        every centre (the queries and the threshold) times the factors of a term."""
        centres = [*q, self.threshold] if self.kind == "above_threshold" else list(q)
        values = 1 if self.value is None else self.value[1] - self.value[0] + 3
        return (len(q) + 1) ** 2 * (max(centres) - min(centres) + 3) * values

    def __repr__(self) -> str:
        return f"NoisyChoice({self.describe()})"

    def describe(self) -> str:
        def shown(s: mpq | None) -> str:
            return "none" if s is None else format_rational(s)

        value = "" if self.value is None else \
            f", releasing the noisy value clamped to [{self.value[0]}, {self.value[1]}]"
        if self.kind == "noisy_max":
            return f"noisy_max(discrete_laplace, scale={shown(self.scale)}{value})"
        rel = ">" if self.strict else "≥"
        return (f"above_threshold(discrete_laplace, scale={shown(self.scale)}, "
                f"threshold={self.threshold}, threshold_scale={shown(self.threshold_scale)}, "
                f"first q + noise {rel} threshold + noise{value})")


def _checked(m: NoisyChoice) -> NoisyChoice:
    qp, tp = m.powers
    if max(qp or 0, tp or 0) > MAX_POWER:
        raise BudgetExceeded(f"the scales {m.scale} and {m.threshold_scale} share the base "
                             f"e^(-{format_rational(m.rate)}) only as its powers {qp} and {tp}, "
                             f"beyond {MAX_POWER}: choose scales with a simpler ratio",
                             argument="threshold_scale", value=m.threshold_scale)
    return m


def _value(value: object) -> tuple[int, int] | None:
    if value is None:
        return None
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise InvalidArgument(f"value = {value!r:.40} is not a clamp (lo, hi)",
                              argument="value", value=value)
    lo, hi = integer(value[0], "lo"), integer(value[1], "hi")
    if lo > hi:
        raise InvalidArgument(f"clamp [lo, hi] = [{lo}, {hi}] is empty", argument="hi",
                              value=hi)
    return lo, hi


def noisy_max(scale: object, value: object = None) -> NoisyChoice:
    """Report noisy max with discrete Laplace noise of ``scale > 0`` (rational, or a double
    via :func:`verifier.f64`) on every query; released: the index of the largest, and with
    ``value = (lo, hi)`` its noisy value clamped to ``[lo, hi]``."""
    return NoisyChoice("noisy_max", positive(scale, "scale"), value=_value(value))


def _scale(value: object, name: str) -> mpq | None:
    """A scale ≥ 0; 0 (or None) is no noise there (OpenDP's scale = 0: the value itself)."""
    if value is None:
        return None
    x = nonnegative(value, name)
    return None if x == 0 else x


def above_threshold(scale: object, threshold_scale: object, threshold: object,
                    strict: bool = False, value: object = None) -> NoisyChoice:
    """Above threshold with query noise of ``scale`` and threshold noise of
    ``threshold_scale`` (each ≥ 0, rational or a double; 0 or None: no noise there — the
    literature's broken variants —, not both) around the integer ``threshold``;
    ``value = (lo, hi)``: the noisy answer is released too, clamped (both noises needed)."""
    if not isinstance(strict, bool):
        raise InvalidArgument(f"strict = {strict!r:.40} is not a boolean", argument="strict",
                              value=strict)
    s, ts = _scale(scale, "scale"), _scale(threshold_scale, "threshold_scale")
    if s is None and ts is None:
        raise InvalidArgument("above threshold needs noise on the queries or the threshold: "
                              "scale and threshold_scale are both 0", argument="scale",
                              value=scale)
    clamp = _value(value)
    if clamp is not None and (s is None or ts is None):
        raise InvalidArgument("releasing the noisy value needs noise on the queries and on "
                              "the threshold", argument="value", value=value)
    return _checked(NoisyChoice("above_threshold", s, ts, integer(threshold, "threshold"),
                                strict, clamp))
