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

from dataclasses import dataclass
from math import gcd

from gmpy2 import mpq, mpz

from verifier.core.errors import BudgetExceeded, InvalidArgument
from verifier.core.numbers import format_rational, integer, positive
from verifier.core.ratfunc import RatFunc
from verifier.model.noise import Coef, Noisy, base_coefficient, noisy_sum

__all__ = ["NoisyChoice", "noisy_max", "above_threshold", "noisy_max_law",
           "first_above_law", "ZOO_KINDS", "MAX_POWER"]

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


def _rate_gcd(a: mpq, b: mpq) -> mpq:
    """The largest rational ``t`` with ``a/t`` and ``b/t`` integers."""
    num = gcd(int(a.numerator) * int(b.denominator), int(b.numerator) * int(a.denominator))
    return mpq(mpz(num), mpz(int(a.denominator) * int(b.denominator)))


@dataclass(frozen=True, slots=True)
class NoisyChoice:
    """Report noisy max (``kind = "noisy_max"``) or above threshold (``"above_threshold"``)
    with discrete Laplace noise: ``scale`` on every query, ``threshold_scale`` on the threshold
    ``threshold`` (above threshold only; for above threshold either may be None: no noise
    there, the broken variants of the literature), ``strict`` comparison ``>`` instead of
    ``≥``."""

    kind: str
    scale: mpq | None
    threshold_scale: mpq | None = None
    threshold: int = 0
    strict: bool = False

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

    def law(self, q: tuple, base: object | None = None) -> dict[int, Coef]:
        """The law of the released index at input ``q``: rational functions of ``β`` (default),
        or rationals at a rational ``base`` standing for ``β``."""
        b = RatFunc.beta() if base is None else base
        qp, tp = self.powers
        if self.kind == "noisy_max":
            assert qp is not None
            return noisy_max_law(q, b, qp)
        return first_above_law(q, self.threshold, b, tp, qp, self.strict)

    def describe(self) -> str:
        def shown(s: mpq | None) -> str:
            return "none" if s is None else format_rational(s)

        if self.kind == "noisy_max":
            return f"noisy_max(discrete_laplace, scale={shown(self.scale)})"
        rel = ">" if self.strict else "≥"
        return (f"above_threshold(discrete_laplace, scale={shown(self.scale)}, "
                f"threshold={self.threshold}, threshold_scale={shown(self.threshold_scale)}, "
                f"first q + noise {rel} threshold + noise)")


def _checked(m: NoisyChoice) -> NoisyChoice:
    qp, tp = m.powers
    if max(qp or 0, tp or 0) > MAX_POWER:
        raise BudgetExceeded(f"the scales {m.scale} and {m.threshold_scale} share the base "
                             f"e^(-{format_rational(m.rate)}) only as its powers {qp} and {tp}, "
                             f"beyond {MAX_POWER}: choose scales with a simpler ratio",
                             argument="threshold_scale", value=m.threshold_scale)
    return m


def noisy_max(scale: object) -> NoisyChoice:
    """Report noisy max with discrete Laplace noise of ``scale > 0`` (rational, or a double
    via :func:`verifier.f64`) on every query; released: the index of the largest."""
    return NoisyChoice("noisy_max", positive(scale, "scale"))


def above_threshold(scale: object, threshold_scale: object, threshold: object,
                    strict: bool = False) -> NoisyChoice:
    """Above threshold with query noise of ``scale`` and threshold noise of
    ``threshold_scale`` (each > 0, rational or a double; None: no noise there, not both)
    around the integer ``threshold``."""
    if not isinstance(strict, bool):
        raise InvalidArgument(f"strict = {strict!r:.40} is not a boolean", argument="strict",
                              value=strict)
    if scale is None and threshold_scale is None:
        raise InvalidArgument("above threshold needs noise on the queries or the threshold",
                              argument="scale", value=None)
    s = None if scale is None else positive(scale, "scale")
    ts = None if threshold_scale is None else positive(threshold_scale, "threshold_scale")
    return _checked(NoisyChoice("above_threshold", s, ts, integer(threshold, "threshold"),
                                strict))
