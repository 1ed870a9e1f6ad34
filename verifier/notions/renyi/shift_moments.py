"""APK and PPK Rényi moments read off a :class:`~verifier.engines.shift_table.ShiftTable`,
without building its rows.

For the ordered pair ``(a, b)`` at positions ``α, β`` and background class ``k`` (the number of
ones among the known records), every output ``O`` has integer masses ``p_O``, ``q_O`` over the
common scale ``S_U`` (:mod:`verifier.engines.shift_table`), so at an integer order ``r``

    S^APK_r(k) = Σ_O p_O^r·q_O^{1−r} / S_U                                  (REFERENCE.md §8)

and ``+∞`` when some output has ``p_O > 0 = q_O``. A singleton output at total ``s`` has
``p = N[x − α]``, ``q = N[x − β]`` with ``x = s − k``: its term ``T(x) = q·(p/q)^r`` depends on
``x`` alone, so the singletons of a class are a prefix-sum difference of ``T`` over the
positions ``x`` its runs cover — one table of prefix sums per pair and order, shared by every
class. The one ``x`` with ``p > 0 = q`` (:attr:`Geometry.infinite`) makes a class infinite when
a run covers it. Every other output (``⊥``) is a union of intervals of totals, its masses
prefix-sum differences of ``N``. The background class is independent of the target, so
``P[k | D(i) = a] = N_K[k]/S_K`` and ``S^PPK_r = Σ_k N_K[k]·S^APK_r(k)/S_K``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gmpy2 import mpq, mpz

from verifier.engines.shift_table import Geometry, ShiftTable

__all__ = ["ShiftMoments"]


@dataclass(eq=False)
class ShiftMoments:
    """The APK moments of one ordered pair of a shift table, per class and order (both
    values possible: ``P[D(i) = a] > 0`` and ``P[D(i) = b] > 0``)."""

    table: ShiftTable
    a: object
    b: object
    _prefix: dict[int, list[mpq]] = field(default_factory=dict, repr=False)
    _memo: dict[tuple[int, int], mpq | None] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        alpha, beta = self.table.alpha(self.a), self.table.alpha(self.b)
        assert alpha is not None and beta is not None
        self.alpha, self.beta = alpha, beta
        self.geo: Geometry = self.table.geometry(alpha, beta)

    def _sums(self, order: int) -> list[mpq]:
        """``[Σ_{f1 ≤ x < f1 + j} T(x)]`` for ``j = 0 … f2 − f1 + 1``."""
        if order not in self._prefix:
            geo, t = self.geo, self.table
            acc, out = mpq(0), [mpq(0)]
            for x in range(geo.f1, geo.f2 + 1):
                n, d = t.ratio(x, self.alpha, self.beta)
                q = t.masses(x, self.alpha, self.beta)[1]
                acc += mpq(q * n ** order, d ** order)
                out.append(acc)
            self._prefix[order] = out
        return self._prefix[order]

    def apk(self, k: int, order: int) -> mpq | None:
        """``S^APK_order(k)`` (``None``: ``+∞``)."""
        key = (k, order)
        if key not in self._memo:
            self._memo[key] = self._apk(k, order)
        return self._memo[key]

    def infinite(self, k: int) -> bool:
        """Whether some output has ``p > 0 = q`` in class ``k`` (``S_α = +∞`` at every
        order), in ``O(#runs + #other outputs)``."""
        geo, law, pre = self.geo, self.table.law, self.table.pre
        if any(s1 - k <= geo.infinite <= s2 - k for s1, s2 in pre.runs):
            return True
        for _, spans in pre.groups:
            if any(law.between(s1 - k - self.alpha, s2 - k - self.alpha) for s1, s2 in spans) \
                    and not any(law.between(s1 - k - self.beta, s2 - k - self.beta)
                                for s1, s2 in spans):
                return True
        return False

    def ppk_infinite(self) -> bool:
        return any(self.infinite(k) for k in self.table.classes())

    def _apk(self, k: int, order: int) -> mpq | None:
        geo, law, pre = self.geo, self.table.law, self.table.pre
        if self.infinite(k):
            return None
        total = mpq(0)
        sums: list[mpq] | None = None
        for s1, s2 in pre.runs:
            lo, hi = max(s1 - k, geo.f1), min(s2 - k, geo.f2)
            if lo <= hi:
                sums = sums if sums is not None else self._sums(order)
                total += sums[hi - geo.f1 + 1] - sums[lo - geo.f1]
        for _, spans in pre.groups:
            p = sum((law.between(s1 - k - self.alpha, s2 - k - self.alpha)
                     for s1, s2 in spans), mpz(0))
            if not p:
                continue
            q = sum((law.between(s1 - k - self.beta, s2 - k - self.beta)
                     for s1, s2 in spans), mpz(0))
            total += mpq(p ** order, q ** (order - 1))  # q > 0: not infinite
        return total / law.scale

    def ppk(self, order: int) -> mpq | None:
        """``S^PPK_order = Σ_k P[k]·S^APK_order(k)`` (``None``: ``+∞``)."""
        t = self.table
        if self.ppk_infinite():  # decided before the finite classes' moments are formed
            return None
        total = mpq(0)
        for k in t.classes():
            s = self.apk(k, order)
            if s is None:
                return None
            total += t.class_weight(k) * s
        return total / t.class_scale
