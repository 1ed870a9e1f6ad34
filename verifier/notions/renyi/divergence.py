"""Rényi divergences of finite rational laws: exact at integer orders, certified between them.

For laws ``P``, ``Q`` on a finite set and an order ``α > 1`` (Rényi 1961; Mironov 2017,
"Rényi Differential Privacy", Definition 3)::

    D_α(P‖Q) = ln(S_α) / (α − 1),      S_α = Σ_{O: P(O) > 0} P(O)^α · Q(O)^{1−α}

with ``D_α = +∞`` when ``P(O) > 0 = Q(O)`` for some ``O``. At an integer ``α ≥ 2`` the moment
``S_α`` is a rational, so ``D_α`` is the log of a rational over an integer: :class:`Renyi`
keeps it exactly, as ``ln(S_α)`` over ``α − 1`` (a :class:`ScaledLog`) beside the
order. At a rational non-integer order ``S_α`` is algebraic and enclosed
(:func:`divergence_bounds`).

Facts used downstream (van Erven and Harremoës 2014, "Rényi Divergence and Kullback–Leibler
Divergence", Theorems 3, 5 and 9): ``D_α`` is nondecreasing in ``α``, tends to
``KL(P‖Q) = Σ P ln(P/Q)`` as ``α → 1`` and to ``D_∞ = ln max P/Q`` as ``α → ∞``, and does
not increase under post-processing.

>>> from verifier.core.distribution import Dist
>>> p, q = Dist({0: "3/4", 1: "1/4"}), Dist({0: "1/4", 1: "3/4"})
>>> str(renyi(p, q, 2)), str(renyi(p, q, 3))
('ln(7/3)', 'ln(61/9)/2')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gmpy2 import mpq

from verifier.core.certified import certified_decimal, exp_bounds, log_bounds
from verifier.core.distribution import Dist
from verifier.core.epsilon import Epsilon
from verifier.core.errors import InvalidArgument
from verifier.core.numbers import format_rational

__all__ = ["Renyi", "ScaledLog", "Terms", "MAX_ORDER", "check_order", "renyi", "moment", "terms_of",
           "canonical", "parts_key", "divergence_bounds", "kl_bounds", "max_log_ratio"]

MAX_ORDER = 1024  # integer orders above this are refused (S_α has α times the digits)

Terms = tuple[tuple[mpq, mpq], ...]  # (Q(O), P(O)/Q(O)) over the outputs with P(O) > 0


def check_order(alpha: object, name: str = "order") -> int:
    """An integer order ``2 ≤ α ≤`` :data:`MAX_ORDER` (exact Rényi values need one)."""
    if isinstance(alpha, bool) or not isinstance(alpha, int):
        raise InvalidArgument(f"{name} = {alpha!r} is not an integer; exact Rényi values are "
                              f"taken at integer orders α ≥ 2", argument=name, value=alpha)
    if not 2 <= alpha <= MAX_ORDER:
        raise InvalidArgument(f"{name} = {alpha} is outside 2 … {MAX_ORDER}", argument=name,
                              value=alpha)
    return alpha


@dataclass(frozen=True, slots=True)
class ScaledLog:
    """The real ``scaled / divisor`` for an exact :class:`~verifier.core.epsilon.Epsilon`
    ``scaled`` (``ln x`` for a rational ``x ≥ 1``, rational nats, or ``inf``) and an integer
    ``divisor ≥ 1``: a Rényi divergence ``ln(S_α)/(α − 1)``, or an ε converted from one."""

    scaled: Epsilon
    divisor: int = 1

    @property
    def infinite(self) -> bool:
        return self.scaled.infinite

    def at_most(self, bound: Epsilon) -> bool:
        """Whether ``self ≤ bound``: ``scaled ≤ divisor·bound``, decided exactly
        (:meth:`Epsilon.compare` is exact or certified and always terminates)."""
        return self.scaled.compare(_times(bound, self.divisor)) <= 0

    def compare(self, other: ScaledLog) -> int:
        """Sign of ``self − other``: ``divisor'·scaled`` against ``divisor·scaled'`` (the
        scaled values alone for one divisor: no power of a moment is taken)."""
        if self.divisor == other.divisor:
            return self.scaled.compare(other.scaled)
        return _times(self.scaled, other.divisor).compare(_times(other.scaled, self.divisor))

    def enclose(self, prec: int) -> tuple[mpq, mpq]:
        """Rationals ``lo ≤ self ≤ hi`` (not for ``inf``)."""
        e = self.scaled
        assert not e.infinite, "an infinite value has no enclosure"
        if e.nats is not None:
            v = e.nats / self.divisor
            return v, v
        assert e.base is not None
        lo, hi = log_bounds(e.base, prec) if e.base != 1 else (mpq(0), mpq(0))
        return lo / self.divisor, hi / self.divisor

    @property
    def exact(self) -> mpq | None:
        """The value when it is rational (``0``, or rational nats)."""
        e = self.scaled
        if e.nats is not None:
            return e.nats / self.divisor
        return mpq(0) if e.is_zero else None

    def approx(self, digits: int = 6) -> str:
        """A certified decimal truncation."""
        return "inf" if self.infinite else certified_decimal(self.enclose, digits)

    def __str__(self) -> str:
        e, k = self.scaled, self.divisor
        if e.infinite or k == 1 or e.is_zero:
            return str(e)
        if e.nats is not None:
            return format_rational(e.nats / k)
        return f"{e}/{k}"


@dataclass(frozen=True, slots=True)
class Renyi:
    """``D_α`` at an integer order ``α``, exact: ``value`` is ``ln(S_α)/(α − 1)`` for a
    rational ``S_α``, a rational number of nats (the discrete Gaussian's closed form), or
    ``inf``."""

    order: int
    value: ScaledLog

    @staticmethod
    def of_moment(order: int, s: mpq | None) -> Renyi:
        """From ``S_α`` (``None``: ``+∞``)."""
        scaled = Epsilon.INF if s is None else Epsilon.log(s, "Rényi moment")
        return Renyi(order, ScaledLog(scaled, order - 1))

    @staticmethod
    def of_nats(order: int, value: object) -> Renyi:
        """``D_α = value`` nats exactly."""
        nats = mpq(value) * (order - 1)
        return Renyi(order, ScaledLog(Epsilon.of_nats(nats, "Rényi divergence"), order - 1))

    @property
    def infinite(self) -> bool:
        return self.value.infinite

    @property
    def moment(self) -> mpq | None:
        """``S_α`` when it is rational."""
        return self.value.scaled.base

    def at_most(self, bound: Epsilon) -> bool:
        """Whether ``D_α ≤ bound``, exactly."""
        return self.value.at_most(bound)

    def compare(self, other: Renyi) -> int:
        """Sign of ``self − other`` at the same order."""
        if self.order != other.order:
            raise InvalidArgument("Rényi values of different orders are not compared")
        return self.value.compare(other.value)

    def enclose(self, prec: int) -> tuple[mpq, mpq]:
        return self.value.enclose(prec)

    def approx(self, digits: int = 6) -> str:
        return self.value.approx(digits)

    def __str__(self) -> str:
        return str(self.value)


def _times(bound: Epsilon, k: int) -> Epsilon:
    """``k·bound`` for an integer ``k ≥ 1``, exactly."""
    if bound.infinite:
        return bound
    if bound.base is not None:
        return Epsilon.log(bound.base ** k)
    assert bound.nats is not None
    return Epsilon.of_nats(bound.nats * k)


def terms_of(p: Dist, q: Dist) -> Terms | None:
    """``(Q(O), P(O)/Q(O))`` over the outputs with ``P(O) > 0``; ``None`` when some such
    output has ``Q(O) = 0`` (then ``D_α = +∞`` for every ``α > 1``)."""
    out = []
    for o, po in p.items():
        if po == 0:
            continue
        qo = q[o]
        if qo == 0:
            return None
        out.append((qo, po / qo))
    return tuple(out)


def canonical(t: Terms | None) -> Terms | None:
    """``t`` with the terms of one ratio merged (``Σ Q`` per ``r``), sorted by ratio: every
    quantity here is ``Σ_r (Σ Q)·f(r)``, so pairs of laws with equal canonical terms (a
    permutation of outputs, a repeated pair) have equal divergences at every order."""
    if t is None:
        return None
    merged: dict[mpq, mpq] = {}
    for qo, r in t:
        merged[r] = merged.get(r, mpq(0)) + qo
    return tuple((qo, r) for r, qo in sorted(merged.items()))


def parts_key(parts: Sequence[tuple[int, Terms | None]]) -> tuple:
    """The parts ``(m, terms)`` of a composed pair, canonical and sorted (parts with ``m = 0``
    left out): pairs with equal keys have equal summed divergences at every order."""
    kept = [(m, canonical(t)) for m, t in parts if m]
    return tuple(sorted(kept, key=lambda x: (x[0], x[1] is None, x[1] or ())))


def moment(t: Terms | None, alpha: int) -> mpq | None:
    """``S_α = Σ Q·r^α`` exactly at an integer order (``None``: ``+∞``)."""
    if t is None:
        return None
    return sum((qo * r ** alpha for qo, r in t), mpq(0))


def renyi(p: Dist, q: Dist, alpha: int) -> Renyi:
    """``D_α(P‖Q)`` exactly, at an integer order ``α ≥ 2``."""
    return Renyi.of_moment(check_order(alpha), moment(terms_of(p, q), alpha))


# ------------------------------------------------------------------ certified values


def _log_table(t: Terms, prec: int) -> list[tuple[mpq, mpq, mpq]]:
    return [(qo, *log_bounds(r, prec)) if r != 1 else (qo, mpq(0), mpq(0)) for qo, r in t]


def divergence_bounds(t: Terms, alpha: mpq, prec: int = 128,
                      logs: Sequence[tuple[mpq, mpq, mpq]] | None = None) -> tuple[mpq, mpq]:
    """Rationals ``lo ≤ D_α ≤ hi`` at a rational order ``α > 1``.

    Each term ``Q·e^{α ln r}`` is bounded by rounding ``ln r`` and ``exp`` outwards (MPFR's
    functions are correctly rounded, and ``α > 0``), the sum exactly, its log outwards. ``lo``
    is raised to 0 where rounding would leave it below (``D_α ≥ 0``)."""
    logs = _log_table(t, prec) if logs is None else logs
    s_lo, s_hi = mpq(0), mpq(0)
    for qo, l_lo, l_hi in logs:
        s_lo += qo * exp_bounds(alpha * l_lo, prec)[0]
        s_hi += qo * exp_bounds(alpha * l_hi, prec)[1]
    lo = log_bounds(s_lo, prec)[0] / (alpha - 1) if s_lo > 1 else mpq(0)
    hi = log_bounds(s_hi, prec)[1] / (alpha - 1) if s_hi > 1 else mpq(0)
    return lo, hi


def kl_bounds(t: Terms, prec: int = 128) -> tuple[mpq, mpq]:
    """Rationals enclosing ``KL(P‖Q) = Σ Q·r·ln r``, the limit of ``D_α`` as ``α → 1``."""
    lo = sum((qo * r * log_bounds(r, prec)[0] for qo, r in t if r != 1), mpq(0))
    hi = sum((qo * r * log_bounds(r, prec)[1] for qo, r in t if r != 1), mpq(0))
    return max(lo, mpq(0)), max(hi, mpq(0))


def max_log_ratio(t: Terms, prec: int = 128) -> tuple[mpq, mpq]:
    """Rationals enclosing ``D_∞ = ln max r``."""
    top = max(r for _, r in t)
    return (mpq(0), mpq(0)) if top <= 1 else log_bounds(top, prec)
