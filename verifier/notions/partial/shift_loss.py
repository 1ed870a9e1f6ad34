"""APK and PPK privacy losses read off a :class:`~verifier.engines.shift_table.ShiftTable`.

For the ordered pair ``(a, b)`` (positions ``α, β``) and background class ``k``, every output
``O`` has masses ``p_O = Σ_{x ∈ f⁻¹(O) − k} N[x − α]`` and ``q_O = …N[x − β]`` over the common
scale ``S_U`` (both conditional laws sum to ``S_U``), and (seed 003, Definition 6)

    APK_{a,b,k}(ε) = Σ_O max(0, p_O − E·q_O) / S_U,        E = e^ε.

Singletons (one-point preimages) have ``p = N[x − α]``, ``q = N[x − β]`` with a ratio monotone
in ``x`` (log-concavity, :mod:`verifier.engines.count_law`), so ``{O : p_O/q_O > E}`` meets
each run of singletons in one interval of ``x``, found once per ``(a, b, ε)`` by bisection and
shared by every class; its masses are prefix-sum differences. APK δ of a class is then
``O(1)`` (``O(#runs + #intervals of the other outputs)``).

PPK (seed 003, Definition 7; Theorem 1 / Lemma 4, REFERENCE.md §4): the background class is
drawn with the data, independently of the target, so ``P[k | D(i) = a] = N_K[k]/S_K`` and

    PPK_{a,b}(ε) = Σ_k (N_K[k]/S_K) · APK_{a,b,k}(ε)

term by term, with Definition 5's conventions (a class impossible under ``b`` has loss 0: here
that happens only when ``P[D(i) = b] = 0``, and then no loss is built). Its δ at one ε is this
weighted sum of the classes' integer numerators over the scale ``S_U·S_K``.

Tight ε at δ: ``δ(E)`` is convex, non-increasing, linear between the outputs' ratios. The
least breakpoint ``b`` with ``δ(b) ≤ δ`` is found by bisection over the singleton ratios
(sorted by position; extra candidates only subdivide pieces) and over the other outputs'; on
the piece ending at ``b``, ``δ(E) = A − C·E`` (``A``, ``C``: masses of ratio ``≥ b``), so
``E* = (A − δ)/C``.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass, field

from gmpy2 import mpq, mpz

from verifier.core.certified import compare_exp
from verifier.core.delta import Delta
from verifier.core.epsilon import Epsilon
from verifier.core.numbers import probability
from verifier.engines.shift_table import Geometry, ShiftTable
from verifier.model.knowledge import NOTHING
from verifier.notions.loss import Loss, LossKind
from verifier.notions.ratio_order import greater

__all__ = ["ShiftLoss", "WorstClass", "apk_shift_losses", "ppk_shift_loss"]

Above = Callable[[mpz, mpz], bool]  # does p/q (q > 0) lie in the contributing set?
_KEEP_BITS = 1 << 31  # parts of a loss above 256 MB of digits are not kept


def _above_eps(eps: Epsilon) -> Above:
    rate = eps.rate
    if rate is not None:
        num, den = rate.numerator, rate.denominator
        return lambda p, q: p * den > num * q
    return lambda p, q: compare_exp(mpq(p, q), eps) > 0


def _above_ratio(bn: mpz, bd: mpz, strict: bool) -> Above:
    if strict:
        return lambda p, q: p * bd > bn * q
    return lambda p, q: p * bd >= bn * q


def _as_epsilon(e: tuple[mpz, mpz] | None) -> Epsilon:
    if e is None:
        return Epsilon.INF
    return Epsilon.ZERO if e[0] == e[1] else Epsilon.log(mpq(e[0], e[1]))


def _first(length: int, ok: Callable[[int], bool]) -> int:
    """The least ``j`` in ``0..length`` with ``ok(j)`` (``ok`` monotone; ``length`` if none)."""
    return bisect_left(range(length), True, key=ok)


@dataclass(frozen=True, slots=True)
class _Part:
    """One class of a loss: its weight, ``r = ∞`` mass, singleton ranges of ``x`` and the
    masses ``(p, q)`` (both > 0) of its other outputs."""

    weight: mpz
    infinite: mpz
    ranges: tuple[tuple[int, int], ...]
    groups: tuple[tuple[mpz, mpz], ...]


@dataclass(frozen=True, eq=False)
class ShiftLoss:
    """The APK loss of one class (``weights = (1,)``) or the PPK mixture of classes
    (``weights = N_K[k]``) of the ordered pair ``(α, β)``; masses over ``scale``."""

    table: ShiftTable
    alpha: int
    beta: int
    classes: tuple[int, ...]
    weights: tuple[mpz, ...]
    scale: mpz
    memo: dict = field(default_factory=dict, repr=False)
    mixture: bool = False  # the weights are the known records' law N_K[k], k = 0..m

    @property
    def geo(self) -> Geometry:
        key = ("geometry", self.alpha, self.beta)
        cache = self.table._cache
        if key not in cache:
            cache[key] = self.table.geometry(self.alpha, self.beta)
        return cache[key]

    def _ratio(self, j: int) -> tuple[mpz, mpz]:
        return self.table.ratio(self.geo.x(j), self.alpha, self.beta)

    def _cut(self, above: Above) -> int:
        """The first position whose ratio is in the contributing set (ratios ascend)."""
        return _first(self.geo.length, lambda j: above(*self._ratio(j)))

    def _cut_at(self, eps: Epsilon) -> tuple[int, Above]:
        key = ("cut", self.alpha, self.beta, eps)
        cache = self.table._cache
        if key not in cache:
            above = _above_eps(eps)
            cache[key] = (self._cut(above), above)
        return cache[key]

    @property
    def parts(self) -> Iterable[_Part]:
        """The classes' parts, kept unless the table's would hold gigabytes of digits."""
        if "parts" in self.memo:
            return self.memo["parts"]
        made = (self._part(k, w) for k, w in zip(self.classes, self.weights, strict=True))
        known = self.table.known  # every loss of the table (a class each) may keep its own
        if (1 if known is None else known.size + 1) * self.table.law.scale.bit_length() \
                > _KEEP_BITS:
            return made
        return self.memo.setdefault("parts", tuple(made))

    def _part(self, k: int, w: mpz) -> _Part:
        geo, law, pre = self.geo, self.table.law, self.table.pre
        a, b = self.alpha, self.beta
        inf = mpz(0)
        ranges = []
        for s1, s2 in pre.runs:
            lo, hi = s1 - k, s2 - k
            if lo <= geo.infinite <= hi:
                inf += law.between(geo.infinite - a, geo.infinite - a)
            lo, hi = max(lo, geo.f1), min(hi, geo.f2)
            if lo <= hi:
                ranges.append((lo, hi))
        groups = []
        for _, spans in pre.groups:
            p = sum((law.between(s1 - k - a, s2 - k - a) for s1, s2 in spans), mpz(0))
            if not p:
                continue
            q = sum((law.between(s1 - k - b, s2 - k - b) for s1, s2 in spans), mpz(0))
            if q:
                groups.append((p, q))
            else:
                inf += p
        return _Part(w, inf, tuple(ranges), tuple(groups))

    def sums(self, cut: int, above: Above) -> tuple[mpz, mpz, mpz]:
        """``(P_∞, P, Q)``: the weighted masses with ratio ``∞``, and of the finite outputs
        in the contributing set (singletons at positions ``≥ cut``; others by ``above``)."""
        return self._sum_parts(self.parts, cut, above)

    def _sum_parts(self, parts: Iterable[_Part], cut: int, above: Above
                   ) -> tuple[mpz, mpz, mpz]:
        law = self.table.law
        a, b = self.alpha, self.beta
        c1, c2 = self.geo.xs_from(cut)
        p_inf, p_sum, q_sum = mpz(0), mpz(0), mpz(0)
        for part in parts:
            ps = qs = mpz(0)
            for lo, hi in part.ranges:
                lo, hi = max(lo, c1), min(hi, c2)
                if lo <= hi:
                    ps += law.between(lo - a, hi - a)
                    qs += law.between(lo - b, hi - b)
            for p, q in part.groups:
                if above(p, q):
                    ps += p
                    qs += q
            w = part.weight
            if w == 1:
                p_inf, p_sum, q_sum = p_inf + part.infinite, p_sum + ps, q_sum + qs
            else:
                p_inf, p_sum, q_sum = p_inf + w * part.infinite, p_sum + w * ps, q_sum + w * qs
        return p_inf, p_sum, q_sum

    def combined(self, cut: int, above: Above, num: mpz, den: mpz) -> mpz:
        """``(P_∞ + P)·den − num·Q`` of :meth:`sums`; a PPK mixture over every class of an
        i.i.d. known law weighs the classes' values at once (:meth:`OnesLaw.weighted`)."""
        known = self.table.known
        if not (self.mixture and known is not None
                and self.classes == tuple(range(known.size + 1))):
            pi, p, q = self.sums(cut, above)
            return (pi + p) * den - num * q

        def value(part: _Part) -> mpz:
            one = _Part(mpz(1), part.infinite, part.ranges, part.groups)
            pi, p, q = self._sum_parts((one,), cut, above)
            return (pi + p) * den - num * q
        return known.weighted(value(part) for part in self.parts)

    # -- δ at ε -------------------------------------------------------------
    def _infinite(self) -> mpz:
        return sum((p.weight * p.infinite for p in self.parts), mpz(0))

    def delta(self, eps: Epsilon) -> Delta:
        """``Σ_O max(0, p_O − E·q_O)/scale`` (with ``r = ∞`` outputs counted in full)."""
        key = ("delta", eps)
        if key not in self.memo:
            if eps.infinite:
                self.memo[key] = Delta.make(mpq(self._infinite(), self.scale), mpq(0), eps)
            else:
                cut, above = self._cut_at(eps)
                rate = eps.rate
                if rate is not None:  # one rational: (P·den − num·Q)/(scale·den)
                    num, den = rate.numerator, rate.denominator
                    value = mpq(self.combined(cut, above, num, den), self.scale * den)
                    self.memo[key] = Delta.make(value, mpq(0), eps)
                else:
                    p_inf, p, q = self.sums(cut, above)
                    self.memo[key] = Delta.make(mpq(p_inf + p, self.scale), mpq(q, self.scale),
                                                eps)
        return self.memo[key]

    def numerator(self, eps: Epsilon) -> mpz:
        """``δ(ε)·scale·den`` at ε = ln(num/den), an integer (losses of one scale compare by
        it)."""
        rate = eps.rate
        assert rate is not None
        cut, above = self._cut_at(eps)
        return self.combined(cut, above, rate.numerator, rate.denominator)

    def at_most(self, eps: Epsilon, numerator: mpz, d: mpq) -> bool:
        """Whether ``δ(ε) = numerator/(scale·den) ≤ d``, in integers."""
        rate = eps.rate
        assert rate is not None
        return numerator * d.denominator <= d.numerator * self.scale * rate.denominator

    # -- ε at δ -------------------------------------------------------------
    def epsilon(self, delta: object) -> Epsilon:
        """The least ε ≥ 0 with δ(ε) ≤ δ, as ``ln`` of a rational, 0 or ∞."""
        return _as_epsilon(self.tight(probability(delta, "delta")))

    def tight(self, d: mpq) -> tuple[mpz, mpz] | None:
        """``e^ε`` of the tight ε at ``d`` as an unreduced ``(numerator, denominator)``
        (``(1, 1)`` for ε = 0), or None for ε = ∞."""
        key = ("tight", d)
        if key not in self.memo:
            self.memo[key] = self._tight(d)
        return self.memo[key]

    def _tight(self, d: mpq) -> tuple[mpz, mpz] | None:
        dn, dd = d.numerator, d.denominator
        scale = self.scale
        length = self.geo.length
        one = mpz(1)
        if self._infinite() * dd > dn * scale:
            return None
        if d == 0:  # δ(E) = 0 exactly when E is at least every ratio
            largest = self._largest_ratio()
            if largest is None or largest[0] <= largest[1]:
                return one, one
            return largest

        def fits(bn: mpz, bd: mpz, cut: int) -> bool:
            # δ(bn/bd)·scale·bd = (P_∞ + P)·bd − bn·Q, compared with d·scale·bd
            return self.combined(cut, _above_ratio(bn, bd, True), bn, bd) * dd <= dn * scale * bd

        if fits(one, one, self._cut(_above_ratio(one, one, True))):
            return one, one
        # singleton breakpoints: at position j's ratio the positions > j contribute
        j = _first(length, lambda j: fits(*self._ratio(j), j + 1))
        best = self._ratio(j) if j < length else None
        below = self._ratio(j - 1) if 0 < j <= length else None
        # other outputs' ratios: only those between the two singleton neighbours can do better
        others = [(p, q) for part in self.parts for p, q in part.groups
                  if (best is None or p * best[1] < best[0] * q)
                  and (below is None or p * below[1] > below[0] * q)]
        if others:
            others.sort(key=lambda pq: mpq(pq[0], pq[1]))
            i = _first(len(others), lambda i: fits(
                others[i][0], others[i][1], self._cut(_above_ratio(*others[i], True))))
            if i < len(others):
                best = others[i]
        assert best is not None  # at the largest ratio δ = P_∞ ≤ d
        at_least = _above_ratio(best[0], best[1], False)
        cut = self._cut(at_least)  # P_∞ + P and Q, each weighed once
        num = self.combined(cut, at_least, mpz(0), one) * dd - dn * scale
        den = self.combined(cut, at_least, -one, mpz(0)) * dd
        return (one, one) if num <= den else (num, den)

    def _largest_ratio(self) -> tuple[mpz, mpz] | None:
        """The largest finite ratio of an output with positive mass."""
        best = None
        for part in self.parts:
            cands = list(part.groups)
            for lo, hi in part.ranges:  # the largest ratio of a range sits at its top position
                cands.append(self.table.ratio(lo if self.alpha < self.beta else hi,
                                              self.alpha, self.beta))
            for p, q in cands:
                if best is None or p * best[1] > best[0] * q:
                    best = (p, q)
        return best

    # -- witnesses ------------------------------------------------------------
    def exceeding(self, eps: Epsilon, labelled: bool) -> Iterator[tuple[Hashable, Loss]]:
        """The outputs whose loss exceeds ε, lazily (``(B, O)`` when ``labelled``)."""
        if eps.infinite:
            cut, above = self.geo.length, (lambda p, q: False)
        else:
            cut, above = self._cut_at(eps)
        t, geo, law, pre = self.table, self.geo, self.table.law, self.table.pre
        a, b = self.alpha, self.beta
        c1, c2 = geo.xs_from(cut)
        for k in self.classes:
            bg = t.key(k)

            def name(o: Hashable, bg: Hashable = bg) -> Hashable:
                return (bg, o) if labelled and bg != NOTHING else o
            for s1, s2 in pre.runs:
                lo, hi = s1 - k, s2 - k
                if lo <= geo.infinite <= hi:
                    yield name(pre.at[geo.infinite + k]), Loss(LossKind.PLUS_INF)
                for x in range(max(lo, c1), min(hi, c2) + 1):
                    yield name(pre.at[x + k]), Loss(LossKind.FINITE, mpq(*t.ratio(x, a, b)))
            for o, spans in pre.groups:
                p = sum((law.between(s1 - k - a, s2 - k - a) for s1, s2 in spans), mpz(0))
                q = sum((law.between(s1 - k - b, s2 - k - b) for s1, s2 in spans), mpz(0))
                if p and not q:
                    yield name(o), Loss(LossKind.PLUS_INF)
                elif p and above(p, q):
                    yield name(o), Loss(LossKind.FINITE, mpq(p, q))


def apk_shift_losses(table: ShiftTable, a: Hashable, b: Hashable) -> dict[Hashable, ShiftLoss]:
    """``B̂ ↦`` the APK loss of ``(a, b)`` for every class (``P[D(i)=b] > 0`` assumed)."""
    alpha, beta = table.values.index(a), table.values.index(b)
    one, out = mpz(1), {}
    for bg in table.backgrounds():  # the order of the general path: ties name the same class
        k = table.class_of(bg)
        assert k is not None
        out[bg] = ShiftLoss(table, alpha, beta, (k,), (one,), table.law.scale)
    return out


def ppk_shift_loss(table: ShiftTable, a: Hashable, b: Hashable) -> ShiftLoss:
    """The PPK loss of ``(a, b)``: the classes weighted by ``P[k] = N_K[k]/S_K``."""
    alpha, beta = table.values.index(a), table.values.index(b)
    ks = tuple(table.classes())
    weights = tuple(table.class_weight(k) for k in ks)
    return ShiftLoss(table, alpha, beta, ks, weights, table.law.scale * table.class_scale,
                     mixture=True)


@dataclass(frozen=True, eq=False)
class WorstClass:
    """The APK δ and tight ε of one ordered pair, worst over the background classes.

    Every class's δ has the scale ``S_U``, so at ε = ln(q) the classes are compared by their
    integer numerators and one rational is formed, for the worst; tight ε values are compared
    as unreduced fractions. This is the maximum over the APK cases of the classes (seed 003,
    Definition 6), which the case stands for (``count``)."""

    losses: tuple[ShiftLoss, ...]

    def worst(self, eps: Epsilon) -> ShiftLoss:
        """The class attaining the largest δ at ε (the first on a tie)."""
        rate = eps.rate
        if rate is None or eps.infinite:
            best = self.losses[0]
            for loss in self.losses[1:]:
                if loss.delta(eps).compare(best.delta(eps)) > 0:
                    best = loss
            return best
        num, den = rate.numerator, rate.denominator
        cut, above = self.losses[0]._cut_at(eps)

        def value(loss: ShiftLoss) -> mpz:
            pi, p, q = loss.sums(cut, above)
            return (pi + p) * den - num * q
        return max(self.losses, key=value)  # the first maximum; no list of long values

    def delta(self, eps: Epsilon) -> Delta:
        return self.worst(eps).delta(eps)

    def epsilon(self, delta: object) -> Epsilon:
        d = probability(delta, "delta")
        best: tuple[mpz, mpz] | None = (mpz(1), mpz(1))
        for loss in self.losses:
            e = loss.tight(d)
            if e is None:
                return Epsilon.INF
            if best is not None and greater(e, best):
                best = e
        return _as_epsilon(best)
