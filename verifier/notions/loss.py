"""The privacy loss random variable, kept as exact likelihood ratios, and its δ(ε) profile.

For two output distributions ``P`` (the record is ``a``) and ``Q`` (it is ``b``) the privacy
loss of an output is ``L(O) = ln(P(O)/Q(O))`` (seed 003, Definition 4), with ``L = +∞`` when
only ``Q(O) = 0`` and ``L = −∞`` when ``P(O) = 0``. We never take the log: the ratio
``r = P(O)/Q(O)`` is stored exactly, with the masses ``P(O)`` and ``Q(O)``.

Tight δ at ε (seed 003, Lemma 1; REFERENCE.md §3), with ``E = e^ε``::

    δ(ε) = E_{O~P}[max(0, 1 − E/r(O))] = P[r = ∞] + Σ_{r > E} (P(O) − E·Q(O))

On the piece of ``E`` where the set ``{r > E}`` is fixed this is ``A − C·E`` with
``A = P[r = ∞] + Σ P(O)`` and ``C = Σ Q(O)`` over that set: a decreasing, convex,
piecewise-linear function with breakpoints at the finite ratios, so the tight ε for a given δ
is ``ln((A − δ)/C)`` on the piece that holds the answer.

APK and PPK (seed 003, Definitions 6 and 7) are expectations of ``max(0, 1 − E/r)`` under
other weights, so they are :class:`PrivacyLoss` values too; PPK is a :meth:`mixture` of APK
losses (seed 003, Lemma 4).

Representation: masses are integers over two common scales (``P(O) = p/p_scale``,
``Q(O) = q/q_scale``). Adding integers is cheap where adding rationals with thousand-digit
denominators is not, and the scales cancel in every ratio. Outputs with ratio ``≤ 1`` (among
them ``L = −∞`` and the ``L = 0`` convention of Definition 5) never contribute for ``ε ≥ 0``
and are not stored.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from functools import reduce
from typing import Protocol

from gmpy2 import lcm, mpq, mpz

from verifier.core.certified import compare_exp
from verifier.core.delta import Delta
from verifier.core.distribution import Dist
from verifier.core.epsilon import Epsilon, parse_epsilon
from verifier.core.errors import InvalidArgument, InvalidNumber
from verifier.core.numbers import format_rational, probability

__all__ = ["LossKind", "Loss", "LossLaw", "SortedLaw", "PrivacyLoss", "output_losses",
           "privacy_loss"]

_SHOWN_ATOMS = 5  # a repr lists at most this many ratios


class LossKind(Enum):
    FINITE = "finite"
    PLUS_INF = "+inf"
    MINUS_INF = "-inf"
    UNDEFINED = "0 (convention)"  # seed 003 Definition 5, condition 1: L = 0


@dataclass(frozen=True, slots=True)
class Loss:
    """One value of the privacy loss: ``ln(ratio)`` for a finite ratio, or a tag."""

    kind: LossKind
    ratio: mpq | None = None

    @staticmethod
    def of(p, q) -> Loss:
        """The loss of an output with probability ``p`` under ``a`` and ``q`` under ``b``."""
        if p == 0:
            return Loss(LossKind.MINUS_INF)
        if q == 0:
            return Loss(LossKind.PLUS_INF)
        return Loss(LossKind.FINITE, mpq(p) / q)

    def exceeds(self, eps: Epsilon) -> bool:
        """Whether the loss is ``> ε``: the output contributes to δ(ε)."""
        if self.kind is LossKind.PLUS_INF:
            return True
        if self.kind is LossKind.FINITE:
            assert self.ratio is not None  # a finite loss carries its ratio
            return compare_exp(self.ratio, eps) > 0
        return False

    def __str__(self) -> str:
        if self.kind is LossKind.FINITE:
            assert self.ratio is not None
            return "0" if self.ratio == 1 else f"ln({format_rational(self.ratio)})"
        return self.kind.value


class LossLaw(Protocol):
    """What a check reads off a privacy loss: tight δ at ε and tight ε at δ, exact.

    :class:`PrivacyLoss` stores the law; the count engine's losses
    (:mod:`verifier.notions.partial.shift_loss`) answer from prefix sums without storing it."""

    def delta(self, eps: Epsilon) -> Delta: ...

    def epsilon(self, delta: object) -> Epsilon: ...


def _denominator_lcm(values: Iterable[mpq]) -> mpz:
    return reduce(lcm, (mpq(v).denominator for v in values), mpz(1))


class SortedLaw:
    """Tight δ(ε) and ε(δ) of a law of ratios ``> 1`` kept in increasing order.

    A subclass gives the number of atoms (``_size``), the ``j``-th ratio (``_ratio``, which
    may be computed on demand), the suffix sums of the masses (``_suffixes``: ``sp[j]``,
    ``sq[j]`` the ``P`` and ``Q`` mass of the atoms at index ``≥ j``, ``sp[n]`` the mass
    where ``r = +∞``) and the integers ``infinite``, ``p_scale``, ``q_scale``.
    """

    __slots__ = ()
    infinite: mpz
    p_scale: mpz
    q_scale: mpz

    def _size(self) -> int:
        raise NotImplementedError

    def _ratio(self, j: int) -> mpq:
        raise NotImplementedError

    def _suffixes(self) -> tuple[Sequence[mpz], Sequence[mpz]]:
        raise NotImplementedError

    def _first_above(self, eps: Epsilon) -> int:
        """Index of the first atom whose ratio exceeds ``e^ε`` (atoms are sorted)."""
        n = self._size()
        if eps.rate is not None:
            rate = eps.rate
            return bisect_right(range(n), rate, key=self._ratio)
        return bisect_left(range(n), True, key=lambda j: compare_exp(self._ratio(j), eps) > 0)

    def delta(self, eps: object) -> Delta:
        """Tight δ at ε: ``P[r = ∞] + Σ_{r > E} (P(O) − E·Q(O))``, exact.

        ``eps`` is an :class:`Epsilon` or anything :func:`parse_epsilon` reads (``"ln(3)"``,
        ``"1/2"`` nats, ``0``, a ``Fraction``, ``"inf"``)."""
        if not isinstance(eps, Epsilon):
            eps = parse_epsilon(eps)
        if eps.infinite:
            return Delta.make(mpq(self.infinite, self.p_scale), mpq(0), eps)
        sp, sq = self._suffixes()
        start = self._first_above(eps)
        return Delta.make(mpq(sp[start], self.p_scale), mpq(sq[start], self.q_scale), eps)

    def epsilon(self, delta: object) -> Epsilon:
        """Tight ε at δ: the least ε ≥ 0 with δ(ε) ≤ δ, as ``ln`` of a rational, 0 or ∞.

        ``delta`` is a rational δ (``"1e-6"``, ``"1/4"``, a ``Fraction``, an ``mpq``) or a
        rational :class:`Delta`; a δ involving an irrational ``e^ε`` is refused."""
        if isinstance(delta, Delta):
            if not delta.is_rational:
                raise InvalidNumber(f"delta = {delta} is irrational; give a rational δ",
                                    argument="delta", value=delta)
            delta = delta.a
        d = probability(delta, "delta")
        if mpq(self.infinite, self.p_scale) > d:
            return Epsilon.INF
        n = self._size()
        sp, sq = self._suffixes()

        # δ(r_j) = sp[j+1]/p_scale − r_j·sq[j+1]/q_scale ≤ d, compared in integers (cheaper
        # than rationals with thousand-digit denominators): multiply through by
        # p_scale·q_scale·den(r_j)·den(d) > 0
        dn, dd = d.numerator, d.denominator
        scales = self.p_scale * self.q_scale

        def at_most_d(j: int) -> bool:
            r = self._ratio(j)
            rn, rd = r.numerator, r.denominator
            lhs = (sp[j + 1] * self.q_scale * rd - rn * sq[j + 1] * self.p_scale) * dd
            return lhs <= dn * scales * rd

        # δ(r_j) is non-increasing in j; find the least j with δ(r_j) ≤ d
        # (δ(r_{n-1}) = P[r = ∞] ≤ d, so the answer is < n when n > 0)
        lo = bisect_left(range(n), True, key=at_most_d)
        a, c = mpq(sp[lo], self.p_scale), mpq(sq[lo], self.q_scale)
        if lo == 0 and a - c <= d:  # δ(E = 1) ≤ d
            return Epsilon.ZERO
        return Epsilon.log((a - d) / c)


@dataclass(frozen=True, slots=True)
class PrivacyLoss(SortedLaw):
    """The law of the likelihood ratio, restricted to ratios ``> 1``: the exact counterpart
    of a privacy loss distribution (PLD) in Google's dp_accounting, read both ways.

    Built by :func:`privacy_loss` (two output laws), by
    :meth:`~verifier.notions.composition.exact.LossDistribution.privacy_loss` (a composed
    law) or :meth:`mixture`. :meth:`delta` gives the tight δ at ε and :meth:`epsilon` the
    tight ε at δ; each takes the exact types (:class:`Epsilon`, a rational :class:`Delta`)
    or what a user writes (``"ln(3)"``, ``"1/2"`` nats, ``"1e-6"``, a ``Fraction``).
    :meth:`profile` is the whole curve δ(E), :meth:`masses` the atoms as rationals.

    Randomized response with truth 3/4 on one record (hand derivation: the output ``1`` has
    ratio ``(3/4)/(1/4) = 3``, so δ(ε) = 3/4 − e^ε/4 for e^ε < 3, and ε(δ) = ln(3 − 4δ)):

    >>> from verifier.core.distribution import Dist
    >>> loss = privacy_loss(Dist({1: "3/4", 0: "1/4"}), Dist({1: "1/4", 0: "3/4"}))
    >>> loss
    PrivacyLoss(ratio 3: P 3/4, Q 1/4; P[r = +inf] = 0)
    >>> loss.delta("ln(2)"), loss.delta("1/2"), loss.epsilon("1/4"), loss.epsilon(0)
    (Delta('1/4'), Delta('3/4 - 1/4*exp(1/2)'), Epsilon('ln(2)'), Epsilon('ln(3)'))

    ``atoms`` are ``(ratio, p, q)`` with finite ``ratio > 1``, sorted and merged by ratio,
    where ``p/p_scale`` is the mass of those outputs under the first hypothesis and
    ``q/q_scale`` under the second (so ``ratio = (p/p_scale)/(q/q_scale)``); ``infinite/p_scale``
    is the first hypothesis' mass where the second has none (``r = +∞``).
    """

    atoms: tuple[tuple[mpq, mpz, mpz], ...]
    infinite: mpz
    p_scale: mpz
    q_scale: mpz
    _suffix: tuple[list[mpz], list[mpz]] | None = field(default=None, compare=False,
                                                        repr=False)

    @staticmethod
    def from_rows(p_row: Mapping, q_row: Mapping, ratios: dict | None = None) -> PrivacyLoss:
        """The loss of ``P ∝ p_row`` against ``Q ∝ q_row``: two rows of non-negative integers.

        ``ratios`` memoises ``p/q`` across calls: the rows of one joint table repeat the same
        pairs of integers (a count engine's rows are shifted copies of one count law), and
        reducing a fraction of thousand-digit integers is the expensive step.
        """
        p_scale = sum(p_row.values(), mpz(0))
        q_scale = sum(q_row.values(), mpz(0))
        if p_scale == 0 or q_scale == 0:
            raise InvalidArgument("a privacy loss needs two distributions of positive mass")
        scale = mpq(q_scale, p_scale)
        unit = scale == 1
        merged: dict[mpq, list] = {}
        infinite = mpz(0)
        for o, p in p_row.items():
            if p == 0:
                continue
            q = q_row.get(o, 0)
            if q == 0:
                infinite += p
                continue
            known = None if ratios is None else ratios.get((p, q))
            if known is not None:
                r = known
            else:
                r = mpq(p, q)
                if ratios is not None:
                    ratios[(p, q)] = r
            if not unit:
                r *= scale
            if r > 1:
                acc = merged.get(r)
                if acc is None:
                    merged[r] = [mpz(p), mpz(q)]
                else:
                    acc[0] += p
                    acc[1] += q
        atoms = tuple((r, pq[0], pq[1]) for r, pq in sorted(merged.items()))
        return PrivacyLoss(atoms, infinite, p_scale, q_scale)

    def __repr__(self) -> str:
        shown = [f"ratio {format_rational(r)}: P {format_rational(p)}, Q {format_rational(q)}"
                 for r, p, q in self.masses()[:_SHOWN_ATOMS]]
        if len(self.atoms) > _SHOWN_ATOMS:
            shown.append(f"… {len(self.atoms) - _SHOWN_ATOMS} more ratios")
        shown.append(f"P[r = +inf] = {format_rational(self.infinite_mass)}")
        return f"PrivacyLoss({'; '.join(shown)})"

    @staticmethod
    def none() -> PrivacyLoss:
        """The loss that never exceeds 0 (both hypotheses give the same distribution)."""
        return PrivacyLoss((), mpz(0), mpz(1), mpz(1))

    @property
    def infinite_mass(self) -> mpq:
        """``P[r = +∞]``: the first hypothesis' mass where the second has none."""
        return mpq(self.infinite, self.p_scale)

    def masses(self) -> tuple[tuple[mpq, mpq, mpq], ...]:
        """``(ratio, P-mass, Q-mass)`` of every stored ratio ``> 1``, as rationals."""
        return tuple((r, mpq(p, self.p_scale), mpq(q, self.q_scale)) for r, p, q in self.atoms)

    def _size(self) -> int:
        return len(self.atoms)

    def _ratio(self, j: int) -> mpq:
        return self.atoms[j][0]

    def _suffixes(self) -> tuple[list[mpz], list[mpz]]:
        """``sp[j]``, ``sq[j]``: P and Q mass of the atoms at index ≥ j (P with ``+∞``)."""
        if self._suffix is None:
            n = len(self.atoms)
            sp, sq = [mpz(0)] * (n + 1), [mpz(0)] * (n + 1)
            sp[n] = self.infinite
            for j in range(n - 1, -1, -1):
                sp[j] = sp[j + 1] + self.atoms[j][1]
                sq[j] = sq[j + 1] + self.atoms[j][2]
            object.__setattr__(self, "_suffix", (sp, sq))
        assert self._suffix is not None
        return self._suffix

    # -- the whole curve ------------------------------------------------------
    def profile(self) -> tuple[tuple[mpq, mpq], ...]:
        """Breakpoints ``(E, δ)`` of δ as a function of ``E = e^ε ≥ 1``.

        δ is linear between consecutive points and constant ``P[r = ∞]`` after the last one.
        """
        points = []
        p, q = self.infinite, mpz(0)
        for r, pa, qa in reversed(self.atoms):
            points.append((r, mpq(p, self.p_scale) - r * mpq(q, self.q_scale)))
            p, q = p + pa, q + qa
        points.append((mpq(1), mpq(p, self.p_scale) - mpq(q, self.q_scale)))
        return tuple(reversed(points))

    @staticmethod
    def mixture(parts: Iterable[tuple[mpq, PrivacyLoss]]) -> PrivacyLoss:
        """``Σ_k (w_k/Σw) · loss_k``: the law of the ratio when part ``k`` is drawn with
        probability proportional to ``w_k``; ratios are unchanged.

        Masses are brought to common integer scales: with ``f_k = w_k/p_scale_k`` and ``L`` the
        lcm of their denominators, part ``k``'s masses are multiplied by ``f_k·L`` and the new
        scale is ``Σ_k f_k·L·p_scale_k = L·Σw``. Weights that share a denominator (as the rows
        of one joint table do) keep these multipliers small.
        """
        parts = [(mpq(w), loss) for w, loss in parts if w != 0]
        if not parts:
            return PrivacyLoss.none()

        def multipliers(scales: list[mpz]) -> tuple[list[mpz], mpz]:
            factors = [w / s for (w, _), s in zip(parts, scales, strict=True)]
            common = _denominator_lcm(factors)
            ks = [(f * common).numerator for f in factors]
            return ks, sum((k * s for k, s in zip(ks, scales, strict=True)), mpz(0))

        kps, p_scale = multipliers([loss.p_scale for _, loss in parts])
        kqs, q_scale = multipliers([loss.q_scale for _, loss in parts])
        # Σ_k kp_k·p over the atoms of one ratio: equal masses recur across parts (shifted
        # rows of one count law), so their multipliers are added first and multiplied once
        by_ratio: dict[mpq, tuple[dict, dict]] = {}
        infinite = mpz(0)
        for (_, loss), kp, kq in zip(parts, kps, kqs, strict=True):
            infinite += kp * loss.infinite
            for r, p, q in loss.atoms:
                ps, qs = by_ratio.setdefault(r, ({}, {}))
                ps[p] = ps.get(p, 0) + kp
                qs[q] = qs.get(q, 0) + kq
        atoms = tuple((r, sum((m * c for m, c in ps.items()), mpz(0)),
                       sum((m * c for m, c in qs.items()), mpz(0)))
                      for r, (ps, qs) in sorted(by_ratio.items()))
        return PrivacyLoss(atoms, infinite, p_scale, q_scale)


def _integer_row(dist: Dist, scale: mpz) -> dict:
    return {o: (w * scale).numerator for o, w in dist.items()}


def output_losses(p: Dist, q: Dist) -> list[tuple[Hashable, mpq, mpq, Loss]]:
    """For every output of ``P`` or ``Q``: ``(output, P(O), Q(O), L(O))``."""
    outputs = list(p.support) + [o for o in q.support if o not in p]
    return [(o, p[o], q[o], Loss.of(p[o], q[o])) for o in outputs]


def privacy_loss(p: Dist, q: Dist) -> PrivacyLoss:
    """The privacy loss of ``P`` against ``Q`` (seed 003, Definition 4)."""
    lp = _denominator_lcm(w for _, w in p.items())
    lq = _denominator_lcm(w for _, w in q.items())
    return PrivacyLoss.from_rows(_integer_row(p, lp), _integer_row(q, lq))
