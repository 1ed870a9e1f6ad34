"""Joint tables of deterministic count mechanisms over independent binary records, in O(n).

Records take two values ``v0, v1``; the mechanism is a deterministic function ``f`` of the
number ``s`` of records equal to ``v1`` (any symmetric mechanism on two values is one). With
``K`` the known records, ``U`` the others (target excluded), ``k`` the ones among ``K`` (the
background class) and ``α ∈ {0, 1}`` the target's value (``v0`` or ``v1``):

    P[M(D) = O | D(i) = α, k] = Σ_{x : f(α + k + x) = O} N_U[x] / S_U

with ``N_U/S_U`` the law of the ones among ``U`` (:mod:`verifier.engines.count_law`). Every
row of the table is the same integer array ``N_U`` shifted by ``α + k`` and cut by ``f``: the
table is never stored. An output whose preimage under ``f`` is a single total ``s`` (a
*singleton*, e.g. every released count of a thresholded count) has masses ``N_U[x − α]``
and ``N_U[x − β]`` under the two hypotheses, ``x = s − k``: its likelihood ratio depends on
``x`` only, and is monotone in ``x`` (log-concavity of ``N_U``). The preimage of any other
output (``⊥``) is a union of intervals of totals, whose masses are differences of prefix sums.

Only :meth:`ShiftTable.row` (one row, ``O(n)``) and the lazily materialised ``rows`` (the whole
table, for small instances and comparisons) build rows; the notions read the table through
:class:`verifier.notions.partial.shift_loss.ShiftLoss` in ``O(1)`` per background class.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from gmpy2 import mpq, mpz

from verifier.core.distribution import BOTTOM, Dist, sort_key
from verifier.engines.count_law import OnesLaw, integer_weights, ones_law
from verifier.engines.joint import JointTable
from verifier.model.data import IndependentData
from verifier.model.knowledge import NOTHING, Knowledge
from verifier.model.mechanisms import Mechanism

__all__ = ["Preimages", "ShiftTable", "preimages", "shift_tables", "Geometry"]


@dataclass(frozen=True, slots=True)
class Preimages:
    """A deterministic ``f`` on totals ``0..n``: ``at[s] = f(s)``; ``runs`` the maximal
    intervals of totals whose outputs have a one-point preimage; ``groups`` every other
    output with its preimage as intervals ``(s1, s2)``."""

    at: tuple
    runs: tuple[tuple[int, int], ...]
    groups: tuple[tuple[Hashable, tuple[tuple[int, int], ...]], ...]


class _Totals(Sequence):
    """``f(s) = c(s)`` if ``c(s) ≥ T`` else ``⊥`` for ``s = 0..n``, with the counted records
    ``c(s) = (n − s)·[v0 counted] + s·[v1 counted]``: the built-in count and thresholded
    count on two values, read without calling them."""

    def __init__(self, n: int, in0: bool, in1: bool, threshold: int | None) -> None:
        self.n, self.in0, self.in1, self.threshold = n, in0, in1, threshold

    def __len__(self) -> int:
        return self.n + 1

    def __getitem__(self, s):
        if isinstance(s, slice):
            return [self[i] for i in range(*s.indices(len(self)))]
        if not -len(self) <= s < len(self):
            raise IndexError(s)
        s %= len(self)
        c = (self.n - s) * self.in0 + s * self.in1
        return c if self.threshold is None or c >= self.threshold else BOTTOM


def _closed_form(mech: Mechanism, values: tuple, n: int) -> Preimages | None:
    """The preimages of the built-in ``count`` and ``threshold_count`` (``kind`` is set only
    by their builders), from their parameters in ``O(1)``: the totals split into at most two
    intervals, one where ``c(s)`` is released (distinct outputs when ``c`` varies with ``s``)
    and one mapped to ``⊥`` (or a constant count). Calling the mechanism on each of the
    ``n + 1`` totals is what :func:`preimages` does otherwise."""
    if mech.kind not in ("count", "threshold_count"):
        return None
    counted = mech.params.get("counts")
    if not isinstance(counted, list):
        return None
    threshold = mech.params.get("threshold") if mech.kind == "threshold_count" else None
    if threshold is not None and not isinstance(threshold, int):
        return None
    at = _Totals(n, values[0] in counted, values[1] in counted, threshold)
    cuts = set() if at.threshold is None else {at.threshold, n - at.threshold + 1}
    bounds = sorted({0, n + 1} | {s for s in cuts if 0 < s <= n})
    pieces: list[list] = []  # [s1, s2, injective], in increasing s, equal neighbours merged
    for s1, end in zip(bounds, bounds[1:], strict=False):
        injective = at.in0 != at.in1 and at[s1] is not BOTTOM  # c(s) strictly monotone
        if pieces and pieces[-1][2] == injective and (injective or at[pieces[-1][0]] == at[s1]):
            pieces[-1][1] = end - 1
        else:
            pieces.append([s1, end - 1, injective])
    spans: dict[Hashable, list[tuple[int, int]]] = {}
    runs: list[tuple[int, int]] = []
    for s1, s2, injective in pieces:  # a constant piece's output occurs in no other piece
        if injective or s1 == s2:
            if runs and runs[-1][1] == s1 - 1:
                runs[-1] = (runs[-1][0], s2)
            else:
                runs.append((s1, s2))
        else:
            spans.setdefault(at[s1], []).append((s1, s2))
    groups = tuple((o, tuple(iv)) for o, iv in spans.items())
    return Preimages(at, tuple(runs), groups)  # type: ignore[arg-type]


def preimages(mech: Mechanism, values: tuple, n: int) -> Preimages | None:
    """The preimage structure of ``mech`` on two values, or None when some output law is not
    a point mass (a randomized mechanism)."""
    assert mech.on_counts is not None
    known = _closed_form(mech, values, n)
    if known is not None:
        return known
    at = []
    for s in range(n + 1):
        dist: Dist = mech.on_counts({values[0]: n - s, values[1]: s}, n)
        if len(dist) != 1:
            return None
        at.append(dist.support[0])
    spans: dict[Hashable, list[list[int]]] = {}
    for s, o in enumerate(at):
        iv = spans.setdefault(o, [])
        if iv and iv[-1][1] == s - 1:
            iv[-1][1] = s
        else:
            iv.append([s, s])
    single = [len(iv) == 1 and iv[0][0] == iv[0][1] for iv in (spans[o] for o in at)]
    runs: list[tuple[int, int]] = []
    for s, one in enumerate(single):
        if one:
            if runs and runs[-1][1] == s - 1:
                runs[-1] = (runs[-1][0], s)
            else:
                runs.append((s, s))
    groups = tuple((o, tuple((a, b) for a, b in iv)) for o, iv in spans.items()
                   if not (len(iv) == 1 and iv[0][0] == iv[0][1]))
    return Preimages(tuple(at), tuple(runs), groups)


@dataclass(frozen=True, slots=True)
class Geometry:
    """Where the singleton outputs of the ordered pair ``(α, β)`` sit, in ``x = s − k``.

    ``p_x = N_U[x − α]``, ``q_x = N_U[x − β]``. ``finite = (f1, f2)``: both positive (empty
    when ``f1 > f2``); ``infinite``: the one ``x`` with ``p_x > 0 = q_x``. Position ``j``
    (``0 ≤ j ≤ f2 − f1``) lists the finite ``x`` by non-decreasing ratio ``p_x/q_x``:
    ``x = f2 − j`` when ``α < β`` (the ratio ``N[x]/N[x−1]`` falls with ``x``), else ``f1 + j``.
    """

    alpha: int
    beta: int
    f1: int
    f2: int
    infinite: int

    @property
    def length(self) -> int:
        return max(0, self.f2 - self.f1 + 1)

    def x(self, j: int) -> int:
        return self.f2 - j if self.alpha < self.beta else self.f1 + j

    def xs_from(self, j: int) -> tuple[int, int]:
        """The ``x`` at positions ``≥ j`` (ratio at least that of position ``j``)."""
        return (self.f1, self.f2 - j) if self.alpha < self.beta else (self.f1 + j, self.f2)


class _LazyRows(Mapping):
    """``rows`` of a :class:`ShiftTable`, built on first use (small instances only)."""

    def __init__(self, build: Callable[[], dict]):
        self._build = build
        self._rows: dict | None = None

    def _get(self) -> dict:
        if self._rows is None:
            self._rows = self._build()
        return self._rows

    def __getitem__(self, key):
        return self._get()[key]

    def __iter__(self) -> Iterator:
        return iter(self._get())

    def __len__(self) -> int:
        return len(self._get())


@dataclass(frozen=True, eq=False)
class ShiftTable(JointTable):
    """The joint table of a deterministic count mechanism on two values, kept as one law.

    ``target_w[α]/target_d = P[D(i) = values[α]]``; ``known`` the law of the ones among the
    known records (None: no background knowledge, one class ``NOTHING``); ``others`` the law
    of the ones among the other records; ``f`` the preimages of the mechanism's outputs.
    """

    target_w: tuple[mpz, mpz] = (mpz(0), mpz(0))
    target_d: mpz = mpz(1)
    known: OnesLaw | None = None
    others: OnesLaw | None = None
    f: Preimages | None = None
    rebuild: Callable[[], ShiftTable] | None = None
    _cache: dict = field(default_factory=dict, repr=False)

    # -- background classes ---------------------------------------------------
    @property
    def law(self) -> OnesLaw:
        assert self.others is not None
        return self.others

    @property
    def pre(self) -> Preimages:
        assert self.f is not None
        return self.f

    def classes(self) -> list[int]:
        """The possible numbers ``k`` of ones among the known records."""
        if self.known is None:
            return [0]
        return [k for k, w in enumerate(self.known.mass) if w]

    def key(self, k: int) -> Hashable:
        if self.known is None:
            return NOTHING
        from verifier.engines.known_counts import KnownCounts
        m = self.known.size
        return KnownCounts(self.values, (m - k, k))

    def class_of(self, bg: Hashable) -> int | None:
        if self.known is None:
            return 0 if bg == NOTHING else None
        counts = getattr(bg, "counts", None)
        if not isinstance(counts, tuple) or len(counts) != 2 or sum(counts) != self.known.size:
            return None
        k = counts[1]
        return k if self.known.mass[k] else None

    def class_weight(self, k: int) -> mpz:
        return mpz(1) if self.known is None else self.known.mass[k]

    @property
    def class_scale(self) -> mpz:
        return mpz(1) if self.known is None else self.known.scale

    def alpha(self, t: Hashable) -> int | None:
        return self.values.index(t) if t in self.values else None

    # -- the JointTable interface, without building the table -----------------
    def backgrounds(self) -> list[Hashable]:
        if not any(self.target_w):
            return []
        return sorted((self.key(k) for k in self.classes()), key=sort_key)

    def row(self, t: Hashable, b: Hashable) -> dict:
        a, k = self.alpha(t), self.class_of(b)
        if a is None or k is None or self.target_w[a] == 0:
            return {}
        out: dict = {}
        at, base = self.pre.at, a + k
        for x, w in enumerate(self.law.mass):
            if w:
                o = at[base + x]
                out[o] = out.get(o, mpz(0)) + w
        return out

    def p_background(self, t: Hashable, b: Hashable) -> mpq:
        a, k = self.alpha(t), self.class_of(b)
        if a is None or k is None:
            return mpq(0)
        return mpq(self.target_w[a] * self.class_weight(k), self.target_d * self.class_scale)

    def p_value(self, t: Hashable) -> mpq:
        a = self.alpha(t)
        return mpq(0) if a is None else mpq(self.target_w[a], self.target_d)

    def without_background(self) -> JointTable:
        if self.known is None or self.rebuild is None:
            return self
        return self.rebuild()

    def _all_rows(self) -> dict:
        rows: dict = {}
        scale = self.target_d * self.class_scale * self.law.scale
        for a, t in enumerate(self.values):
            if self.target_w[a] == 0:
                continue
            rows[t] = {self.key(k): (mpq(self.target_w[a] * self.class_weight(k), scale),
                                     self.row(t, self.key(k))) for k in self.classes()}
        return rows

    # -- what the losses read ---------------------------------------------------
    def geometry(self, alpha: int, beta: int) -> Geometry:
        lo, hi = self.law.support()
        if alpha < beta:
            return Geometry(alpha, beta, lo + 1, hi, lo)
        return Geometry(alpha, beta, lo + 1, hi, hi + 1)

    def ratio(self, x: int, alpha: int, beta: int) -> tuple[mpz, mpz]:
        """``p_x/q_x`` as a pair of integers, for ``x`` in the finite range."""
        n, d = self.law.ratio(x)
        return (n, d) if alpha < beta else (d, n)

    def masses(self, x: int, alpha: int, beta: int) -> tuple[mpz, mpz]:
        """``(p_x, q_x)``: masses of the singleton at ``x = s − k`` under the two values."""
        law = self.law
        top = law.size
        p = law.mass[x - alpha] if 0 <= x - alpha <= top else mpz(0)
        q = law.mass[x - beta] if 0 <= x - beta <= top else mpz(0)
        return p, q


def shift_tables(data: IndependentData, mech: Mechanism, know: Knowledge,
                 targets: Sequence[int], pre: Preimages) -> dict[int, JointTable]:
    """The tables of every target (``data`` on two values, ``mech`` deterministic: ``pre``)."""
    known = tuple(know.known or ())
    memo: dict = {}
    return {i: _table(data, known, i, pre, bool(known), memo) for i in targets}


def _table(data: IndependentData, known: tuple, i: int, pre: Preimages, with_known: bool,
           memo: dict) -> ShiftTable:
    values, n = data.values, data.n
    kset = set(known) if with_known else set()
    rest = [data.priors[j] for j in range(n) if j != i and j not in kset]
    w, d = integer_weights(data.priors[i], values)
    law_k = ones_law([data.priors[j] for j in known], values, memo) if with_known else None
    table: ShiftTable = ShiftTable(
        i, values, _LazyRows(lambda: table._all_rows()), (w[0], w[1]), d, law_k,
        ones_law(rest, values, memo), pre,
        (lambda: _table(data, (), i, pre, False, {})) if with_known else None)
    return table
