"""Privacy against attackers with partial knowledge: APK-DP, PPK-DP and noiseless privacy.

For a joint table of θ, ζ, target ``i`` and an ordered pair ``a ≠ b`` (seed 003 §4;
REFERENCE.md §2–3), with ``m(O, B) = max(0, 1 − e^ε / r(O, B))`` and ``r`` the PLRV ratio of
Definition 5:

* ``APK_{i,a,b,B̂}(ε) = E_{D ~ θ | D(i)=a, ζ(D)=B̂, O ~ M(D)}[m(O, B̂)]`` (Definition 6): the
  active attacker chooses the background value; the notion's δ is the worst over ``B̂``;
* ``PPK_{i,a,b}(ε) = E_{D ~ θ | D(i)=a, O ~ M(D), B ~ ζ(D)}[m(O, B)]`` (Definition 7, with
  ``e^{ε − L}``): the passive attacker's background value is drawn with the data;
* noiseless privacy (Definition 3) conditions on ``D(i)`` alone: APK and PPK with ζ summed out.

Definition 5's conventions: if ``P[D(i)=a, ζ=B] = 0`` or ``P[D(i)=b, ζ=B] = 0`` the loss is 0
(an impossible background value for ``a`` carries no mass; one impossible for ``b`` makes every
output's loss 0); else ``−∞`` where ``P[O | a, B] = 0`` and ``+∞`` where ``P[O | b, B] = 0``.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cmp_to_key, partial
from itertools import permutations
from typing import cast

from gmpy2 import mpq, mpz

from verifier.core.budget import Budget
from verifier.core.delta import Delta
from verifier.core.epsilon import Epsilon
from verifier.core.errors import InvalidArgument
from verifier.engines.joint import JointTable
from verifier.engines.shift_table import ShiftTable
from verifier.model.data import DataModel
from verifier.model.knowledge import NOTHING, Knowledge
from verifier.notions.loss import Loss, LossKind, PrivacyLoss
from verifier.notions.partial.shift_loss import (
    ShiftLoss,
    WorstClass,
    apk_shift_losses,
    ppk_shift_loss,
)
from verifier.notions.result import Case

__all__ = ["ordered_pairs", "apk_loss", "ppk_loss", "apk_cases", "ppk_case", "ppk_cases",
           "Table", "background_rows", "tables_for"]


def ordered_pairs(values: Sequence[Hashable], pairs: Sequence | None = None
                  ) -> tuple[tuple[Hashable, Hashable], ...]:
    """All ordered pairs of distinct values, or the given pairs checked against the domain.

    A given pair ``(a, b)`` is taken in both directions: both count (REFERENCE.md §3).
    """
    if pairs is None:
        return tuple(permutations(values, 2))
    out = []
    for pair in pairs:
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise InvalidArgument(f"pair {pair!r} is not a pair of values [a, b]")
        a, b = pair
        for v in (a, b):
            if v not in values:
                raise InvalidArgument(f"pair value {v!r} is not in values = {list(values)!r}")
        if a == b:
            raise InvalidArgument(f"pair [{a!r}, {b!r}] compares a value with itself")
        out += [(a, b), (b, a)]
    return tuple(dict.fromkeys(out))


@dataclass(frozen=True)
class Table:
    """A joint table with the model, knowledge and engine it came from (for labels).

    The APK losses of each ordered pair are computed once and shared by the APK cases, the
    per-background rows and the PPK mixture.
    """

    model: int
    knowledge: int
    table: JointTable
    engine: str
    _losses: dict = field(default_factory=dict, repr=False, compare=False)
    _mixtures: dict = field(default_factory=dict, repr=False, compare=False)
    _outputs: dict = field(default_factory=dict, repr=False, compare=False)
    _ratios: dict = field(default_factory=dict, repr=False, compare=False)

    def label(self, **extra) -> dict:
        out = {"model": self.model, "knowledge": self.knowledge, "target": self.table.target}
        out.update(extra)
        return out

    def apk_losses(self, a: Hashable, b: Hashable) -> dict[Hashable, PrivacyLoss | ShiftLoss]:
        """``B̂ ↦`` the APK loss of ``(a, b)``, for every ``B̂`` with ``P[D(i)=a, ζ=B̂] > 0``."""
        key = (a, b)
        if key not in self._losses:
            jt = self.table
            if _shifted(jt, a, b):
                assert isinstance(jt, ShiftTable)
                self._losses[key] = apk_shift_losses(jt, a, b)
            else:
                self._losses[key] = {
                    bg: loss for bg in jt.backgrounds()
                    if (loss := apk_loss(jt, a, b, bg, self._ratios)) is not None}
        return self._losses[key]

    def row_losses(self, a: Hashable, b: Hashable, bg: Hashable) -> list[tuple[Hashable, Loss]]:
        """``(O, L(O, B̂))`` for every output (for witnesses), computed once."""
        key = (a, b, bg)
        if key not in self._outputs:
            self._outputs[key] = _row_losses(self.table, a, b, bg)
        return self._outputs[key]


def _shifted(jt: JointTable, a: Hashable, b: Hashable) -> bool:
    """Whether the losses of ``(a, b)`` are read off a shift table in prefix-sum form: both
    values possible (else Definition 5's conventions apply, on the general path)."""
    return isinstance(jt, ShiftTable) and jt.p_value(a) != 0 and jt.p_value(b) != 0


def _row_losses(jt: JointTable, a: Hashable, b: Hashable, bg: Hashable
                ) -> list[tuple[Hashable, Loss]]:
    """``(O, L(O, B))`` for every output possible under ``a`` or ``b`` (Definition 5)."""
    pa, pb = jt.row(a, bg), jt.row(b, bg)
    if not pb:  # condition 1: b impossible with this background, L = 0
        return [(o, Loss(LossKind.UNDEFINED)) for o in pa]
    scale = mpq(sum(pb.values(), mpz(0)), sum(pa.values(), mpz(0)))
    out = []
    for o in list(pa) + [o for o in pb if o not in pa]:
        p, q = pa.get(o, 0), pb.get(o, 0)
        if p == 0:
            out.append((o, Loss(LossKind.MINUS_INF)))
        elif q == 0:
            out.append((o, Loss(LossKind.PLUS_INF)))
        else:
            out.append((o, Loss(LossKind.FINITE, mpq(p, q) * scale)))
    return out


def apk_loss(jt: JointTable, a: Hashable, b: Hashable, bg: Hashable,
             ratios: dict | None = None) -> PrivacyLoss | None:
    """The loss whose δ(ε) is ``APK_{i,a,b,B̂}(ε)``, or None if ``P[D(i)=a, ζ(D)=B̂] = 0``.

    If ``P[D(i)=b, ζ(D)=B̂] = 0`` every loss is 0 by convention (Definition 5, condition 1).
    """
    pa = jt.row(a, bg)
    if not pa:
        return None
    pb = jt.row(b, bg)
    return PrivacyLoss.from_rows(pa, pb, ratios) if pb else PrivacyLoss.none()


def ppk_loss(jt: JointTable, a: Hashable, b: Hashable) -> PrivacyLoss | None:
    """The loss whose δ(ε) is ``PPK_{i,a,b}(ε)``, or None if ``P[D(i)=a] = 0``."""
    return _ppk(Table(0, 0, jt, ""), a, b)


def _ppk(t: Table, a: Hashable, b: Hashable) -> PrivacyLoss | None:
    """PPK as the mixture of APK losses over ``B ~ ζ(D) | D(i)=a`` (Theorem 1 / Lemma 4):
    ``PPK_{i,a,b} = Σ_B P[ζ(D)=B | D(i)=a] · APK_{i,a,b,B}``; the mixture keeps every
    ``(B, O)`` with its own ratio, so it is Definition 7's expectation term by term."""
    if (a, b) not in t._mixtures and _shifted(t.table, a, b):
        assert isinstance(t.table, ShiftTable)
        t._mixtures[(a, b)] = ppk_shift_loss(t.table, a, b)
    if (a, b) not in t._mixtures:
        jt = t.table
        # weights P[D(i)=a, ζ(D)=B]: the mixture normalises them to P[ζ(D)=B | D(i)=a]
        # (not a shift table: every APK loss is a PrivacyLoss)
        losses = cast(dict[Hashable, PrivacyLoss], t.apk_losses(a, b))
        t._mixtures[(a, b)] = None if jt.p_value(a) == 0 else PrivacyLoss.mixture(
            (jt.p_background(a, bg), loss) for bg, loss in losses.items())
    return t._mixtures[(a, b)]


def apk_cases(t: Table, pairs: Sequence[tuple], eps: Epsilon | None = None) -> Iterator[Case]:
    """One case per ordered pair and possible background value ``B̂`` (Definition 6).

    With ``eps``, a case read off a shift table names only the outputs whose loss exceeds ε
    (all a witness lists), without building its row."""
    for a, b in pairs:
        losses = t.apk_losses(a, b)
        if eps is not None and losses and all(isinstance(x, ShiftLoss) for x in
                                               losses.values()):
            # one case for the worst class: the classes share a scale (see WorstClass)
            family = WorstClass(tuple(x for x in losses.values() if isinstance(x, ShiftLoss)))
            worst = family.worst(eps)
            yield Case(t.label(values=[a, b], background=worst.table.key(worst.classes[0])),
                       family, partial(worst.exceeding, eps, False), len(losses))
            continue
        for bg, loss in losses.items():
            yield Case(t.label(values=[a, b], background=bg), loss,
                       partial(t.row_losses, a, b, bg))


def ppk_case(t: Table, a: Hashable, b: Hashable, eps: Epsilon | None = None) -> Case | None:
    """The PPK case of the pair ``(a, b)`` (Definition 7), or None if ``P[D(i)=a] = 0``."""
    loss = _ppk(t, a, b)
    if loss is None:
        return None
    if eps is not None and isinstance(loss, ShiftLoss):
        shift = loss
        return Case(t.label(values=[a, b]), loss, lambda: shift.exceeding(eps, True))

    def outputs():
        return ((o if bg == NOTHING else (bg, o), l_) for bg in t.apk_losses(a, b)
                for o, l_ in t.row_losses(a, b, bg))
    return Case(t.label(values=[a, b]), loss, outputs)


def ppk_cases(t: Table, pairs: Sequence[tuple], eps: Epsilon | None = None) -> Iterator[Case]:
    for a, b in pairs:
        case = ppk_case(t, a, b, eps)
        if case is not None:
            yield case


class LazyRows(Sequence):
    """Rows computed when first read: their number is known at once, the rows (one exact δ
    per background class, each a rational with as many digits as the count law) only when
    someone looks at them; :meth:`top` builds only the largest few."""

    def __init__(self, length: int, build: Callable[[], tuple[dict, ...]],
                 top: Callable[[int], list[dict]] | None = None):
        self._length, self._build, self._top = length, build, top
        self._rows: tuple[dict, ...] | None = None

    def _get(self) -> tuple[dict, ...]:
        if self._rows is None:
            self._rows = self._build()
        return self._rows

    def top(self, k: int) -> list[dict]:
        """The ``k`` rows of largest δ, largest first (ties in row order), building only
        them when the classes compare by integers."""
        if self._rows is None and self._top is not None:
            return self._top(k)
        return largest_rows(self._get(), k)

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, i):
        return self._get()[i]

    def __iter__(self) -> Iterator[dict]:
        return iter(self._get())


def largest_rows(rows: Sequence[dict], k: int) -> list[dict]:
    """The ``k`` rows of largest ``"delta"``, largest first, ties in row order (exact
    comparisons; ``heapq.nlargest`` is ``sorted(…, reverse=True)[:k]``, which is stable)."""
    if isinstance(rows, LazyRows):
        return rows.top(k)
    def order(x: dict, y: dict) -> int:
        return x["delta"].compare(y["delta"])

    return heapq.nlargest(k, rows, key=cmp_to_key(order))


def background_rows(tables: Sequence[Table], pairs: Sequence[tuple], eps: Epsilon,
                    delta: mpq) -> Sequence[dict]:
    """APK δ at ε for each background value: worst over the pairs, with ``P[ζ(D) = B̂]``.

    Built when first read (:class:`LazyRows`) once there are many rows."""
    count = sum(len(t.table.backgrounds()) for t in tables)
    lazy = all(isinstance(t.table, ShiftTable) and any(t.table.p_value(a) for a, _ in pairs)
               for t in tables)  # then every class has a row
    if count <= 64 or not lazy:
        return _background_rows(tables, pairs, eps, delta)
    return LazyRows(count, lambda: _background_rows(tables, pairs, eps, delta),
                    partial(_top_rows, tables, pairs, eps, delta))


def _worst_of_class(t: Table, bg: Hashable, pairs: Sequence[tuple], eps: Epsilon, delta: mpq
                    ) -> tuple[PrivacyLoss | ShiftLoss, tuple, bool, mpz | None] | None:
    """The worst pair's loss of one background class, whether its δ is at most ``delta``,
    and — when every loss is a :class:`ShiftLoss` and ε = ln q — its integer numerator
    (``δ = numerator/(scale·den)``), which orders classes without forming the fraction."""
    found = [(loss, (a, b)) for a, b in pairs
             if (loss := t.apk_losses(a, b).get(bg)) is not None]
    if not found:
        return None
    if eps.rate is not None and all(isinstance(x, ShiftLoss) for x, _ in found):
        # one scale: compare the integer numerators, form the worst δ only
        values = [x.numerator(eps) for x, _ in found if isinstance(x, ShiftLoss)]
        i = values.index(max(values))
        loss, pair = found[i]
        assert isinstance(loss, ShiftLoss)
        return loss, pair, loss.at_most(eps, values[i], delta), values[i]
    worst: tuple[Delta, PrivacyLoss | ShiftLoss, tuple] | None = None
    for loss, pair in found:
        d = loss.delta(eps)
        if worst is None or d.compare(worst[0]) > 0:
            worst = (d, loss, pair)
    assert worst is not None
    return worst[1], worst[2], worst[0].compare(delta) <= 0, None


def _row(t: Table, bg: Hashable, loss, pair: tuple, holds: bool, eps: Epsilon) -> dict:
    jt = t.table
    p_bg = sum((jt.p_background(v, bg) for v in jt.values), mpq(0))
    return t.label(background=bg, probability=p_bg, delta=loss.delta(eps), values=list(pair),
                   holds=holds)


def _background_rows(tables: Sequence[Table], pairs: Sequence[tuple], eps: Epsilon,
                     delta: mpq) -> tuple[dict, ...]:
    rows = []
    for t in tables:
        for bg in t.table.backgrounds():
            if (w := _worst_of_class(t, bg, pairs, eps, delta)) is not None:
                rows.append(_row(t, bg, w[0], w[1], w[2], eps))
    return tuple(rows)


def _top_rows(tables: Sequence[Table], pairs: Sequence[tuple], eps: Epsilon, delta: mpq,
              k: int) -> list[dict]:
    """:meth:`LazyRows.top`: classes ordered by ``numerator/(scale·den)`` with integer
    cross-multiplication, and only the ``k`` largest turned into rows."""
    found = []
    for t in tables:
        for bg in t.table.backgrounds():
            if (w := _worst_of_class(t, bg, pairs, eps, delta)) is not None:
                if w[3] is None:  # not comparable by integers: the full rows, compared exactly
                    return largest_rows(_background_rows(tables, pairs, eps, delta), k)
                found.append((t, bg, w))

    def order(x: tuple, y: tuple) -> int:
        (nx, sx), (ny, sy) = (x[2][3], x[2][0].scale), (y[2][3], y[2][0].scale)
        return (nx * sy > ny * sx) - (nx * sy < ny * sx)  # the common den cancels

    top = heapq.nlargest(k, found, key=cmp_to_key(order))
    return [_row(t, bg, w[0], w[1], w[2], eps) for t, bg, w in top]


def tables_for(models: Sequence[DataModel], knowledges: Sequence[Knowledge], mech,
               targets: Sequence[int], budget: Budget | None, build) -> list[Table]:
    """Joint tables for every θ ∈ Θ, ζ ∈ Z and target, via ``build`` (an engine)."""
    if not models:
        raise InvalidArgument("the family Θ of data models is empty")
    if not knowledges:
        raise InvalidArgument("the family Z of background knowledge is empty")
    out = []
    for k, data in enumerate(models):
        for z, know in enumerate(knowledges):
            know.check_against(data.n, targets)
            tables, engine = build(data, mech, know, targets, budget)
            out += [Table(k, z, tables[i], engine) for i in targets]
    return out

