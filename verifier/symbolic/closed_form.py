"""Tight δ as an exact piecewise-linear function of ``E = e^ε``, and its sympy form.

For one case (a pair of hypotheses ``P``, ``Q``) the tight δ is (seed 003, Lemma 1;
REFERENCE.md §3)::

    δ(E) = P[r = ∞] + Σ_{r_j > E} (P_j − E·Q_j),        E = e^ε ≥ 1,

where ``r_1 < … < r_k`` are the distinct finite likelihood ratios ``> 1`` and ``P_j``, ``Q_j``
their masses. Between consecutive breakpoints the set ``{r_j > E}`` is fixed, so δ is
``A − C·E`` there; after ``r_k`` it is the constant ``P[r = ∞]``. A :class:`Curve` stores the
pieces ``[start, next start)`` with their ``(A, C)``, built from the exact δ the engine
computes at ``E = 1`` and at every breakpoint (δ is linear between them, so these values fix
each piece).

A notion's δ is the maximum over its cases (:mod:`verifier.notions.result`), so its closed
form is the *upper envelope* of the cases' curves, built exactly: on each interval between
the union of all breakpoints every curve is one line, and the envelope of lines switches at
their crossings ``E = (A_i − A_j)/(C_i − C_j)``, all rational.

sympy is used only to print: :func:`to_sympy` gives a ``Piecewise`` in the symbol ``exp_eps``
(:data:`VARIABLE`; not ``E``, which ``sympy.sympify`` reads as Euler's number). To evaluate a
closed form exactly, read its pieces' rationals ``a``, ``c`` and take ``δ = a − c·e^ε`` on the
piece that holds ``e^ε``: :meth:`Curve.delta` (and :func:`delta_at` for the JSON of ``plrv check
--closed-form`` or ``plrv curve``) does so for any ε, an exact :class:`~verifier.core.delta.Delta`
(rational when ``e^ε`` is). With sympy, ``expr.subs(EXP_EPS, q)`` for a rational ``q`` is exact
too; never substitute a float.
"""

from __future__ import annotations

import sys
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise

import sympy  # type: ignore[import-untyped]
from gmpy2 import mpq

from verifier.core.delta import Delta
from verifier.core.epsilon import Epsilon, parse_epsilon
from verifier.core.errors import InvalidArgument
from verifier.core.numbers import rational
from verifier.notions.loss import LossKind, PrivacyLoss
from verifier.notions.partial.shift_loss import ShiftLoss, WorstClass
from verifier.symbolic.envelope import LazyCurve, upper_envelope

__all__ = ["VARIABLE", "EXP_EPS", "Curve", "curve_of", "envelope", "notion_curves",
           "spec_curves", "to_sympy", "describe", "piece_rows", "delta_at"]

VARIABLE = "exp_eps"  # the closed form's variable, e^ε ≥ 1 (not "E": sympy reads E as e)
EXP_EPS = sympy.Symbol(VARIABLE, positive=True)

_ONE = mpq(1)


@dataclass(frozen=True, slots=True)
class Curve:
    """δ(E) for ``E ≥ 1``: ``pieces[j] = (start, A, C)`` means ``δ(E) = A − C·E`` on
    ``[start, pieces[j+1].start)`` (the last piece to ``∞``, with ``C = 0``). Canonical:
    the first start is 1, starts ascend, adjacent pieces differ."""

    pieces: tuple[tuple[mpq, mpq, mpq], ...]
    _starts: tuple[mpq, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_starts", tuple(s for s, _, _ in self.pieces))

    @staticmethod
    def make(pieces: Iterable[tuple[mpq, mpq, mpq]]) -> Curve:
        merged: list[tuple[mpq, mpq, mpq]] = []
        for start, a, c in pieces:
            if merged and (merged[-1][1], merged[-1][2]) == (a, c):
                continue  # the same line goes on: no breakpoint here
            merged.append((mpq(start), mpq(a), mpq(c)))
        if not merged or merged[0][0] != 1 or merged[-1][2] != 0:
            raise InvalidArgument(f"a δ curve starts at E = 1 and ends constant; got {merged}")
        return Curve(tuple(merged))

    @property
    def breakpoints(self) -> tuple[mpq, ...]:
        return tuple(s for s, _, _ in self.pieces[1:])

    def line_at(self, x: mpq) -> tuple[mpq, mpq]:
        """``(A, C)`` of the piece holding ``E = x`` (``x ≥ 1``; bisection over the starts)."""
        _, a, c = self.pieces[max(bisect_right(self._starts, x) - 1, 0)]
        return a, c

    def __call__(self, x: object) -> mpq:
        """δ at a rational ``E = x ≥ 1``, exactly."""
        q = rational(x, "E")
        if q < 1:
            raise InvalidArgument(f"E = {q} is below 1; E = e^ε ≥ 1")
        a, c = self.line_at(q)
        return a - c * q

    def delta(self, epsilon: object) -> Delta:
        """The exact δ at any ε ≥ 0 (``"ln(3)"``, ``"1/2"`` nats, ``"inf"``, an
        :class:`~verifier.core.epsilon.Epsilon`): ``a − c·e^ε`` on the piece holding ``e^ε``,
        rational when ``e^ε`` is; the piece is found by certified comparison of ε with each
        ``ln(start)`` (never equal for a rational ε ≠ 0 in nats: Lindemann)."""
        eps = parse_epsilon(epsilon)
        if eps.rate is not None:
            a, c = self.line_at(eps.rate)
        else:
            a, c = self.pieces[0][1:]
            for start, a_j, c_j in self.pieces[1:]:
                if eps.compare(Epsilon.log(start)) < 0:
                    break
                a, c = a_j, c_j
        return Delta.make(a, c, eps)


def _from_points(points: Sequence[tuple[mpq, mpq]]) -> Curve:
    """The curve through ``(E_j, δ_j)`` (``E_0 = 1``), linear between them, constant after."""
    pieces = []
    for (x0, y0), (x1, y1) in pairwise(points):
        c = (y0 - y1) / (x1 - x0)
        pieces.append((x0, y0 + c * x0, c))
    pieces.append((points[-1][0], points[-1][1], mpq(0)))
    return Curve.make(pieces)


def _ratios(loss: object) -> list[mpq]:
    if isinstance(loss, PrivacyLoss):
        return [r for r, _, _ in loss.atoms]
    if isinstance(loss, ShiftLoss):
        return sorted({x.ratio for _, x in loss.exceeding(Epsilon.ZERO, True)
                       if x.kind is LossKind.FINITE and x.ratio is not None})
    raise InvalidArgument(f"no closed form for a loss of type {type(loss).__name__}")


def curve_of(loss: object) -> Curve:
    """The exact δ(E) of one case's loss (a :class:`PrivacyLoss`, a count-engine
    :class:`ShiftLoss`, or a :class:`WorstClass` — the envelope of its classes)."""
    if isinstance(loss, WorstClass):
        return envelope(curve_of(x) for x in loss.losses)
    xs = [_ONE] + [r for r in _ratios(loss) if r > 1]
    return _from_points([(x, loss.delta(Epsilon.log(x)).value) for x in xs])  # type: ignore[attr-defined]


def _upper_lines(lines: list[tuple[mpq, mpq]], lo: mpq, hi: mpq | None
                 ) -> list[tuple[mpq, mpq, mpq]]:
    """The upper envelope of the lines ``A − C·E`` on ``[lo, hi)`` as pieces."""
    def at(line: tuple[mpq, mpq], x: mpq) -> mpq:
        return line[0] - line[1] * x
    start = lo
    current = max(lines, key=lambda ln: (at(ln, lo), -ln[1]))
    out = [(start, current[0], current[1])]
    while True:
        # a line with a smaller C overtakes the current one where (C0 − C)·E > A0 − A
        best: tuple[mpq, tuple[mpq, mpq]] | None = None
        for line in lines:
            if line[1] < current[1]:
                x = (current[0] - line[0]) / (current[1] - line[1])
                inside = x > start and (hi is None or x < hi)
                if inside and (best is None or (x, -line[1]) < (best[0], -best[1][1])):
                    best = (x, line)
        if best is None:
            return out
        start, current = best
        out.append((start, current[0], current[1]))


def envelope(curves: Iterable[Curve]) -> Curve:
    """``max_k δ_k(E)``, exact: the worst δ of a notion over its cases at every ``E``.

    With no curves δ = 0 (no comparison can occur)."""
    cs = list(curves)
    if not cs:
        return Curve.make([(_ONE, mpq(0), mpq(0))])
    if len(cs) == 1:
        return cs[0]
    xs = sorted({_ONE}.union(*(c.breakpoints for c in cs)))
    pieces: list[tuple[mpq, mpq, mpq]] = []
    for j, lo in enumerate(xs):
        hi = xs[j + 1] if j + 1 < len(xs) else None
        lines = sorted({c.line_at(lo) for c in cs})
        pieces.extend(_upper_lines(lines, lo, hi))
    return Curve.make(pieces)


def notion_curves(analysis, notions: Sequence[str]) -> dict[str, Curve]:
    """The exact δ(E) of every notion in ``notions`` for a built
    :class:`~verifier.notions.check.Analysis`: the upper envelope over its cases, found by
    querying them where the envelope's pieces meet (:mod:`verifier.symbolic.envelope`; the
    same curve :func:`envelope` of every case's :func:`curve_of` gives, at a fraction of the
    cost when many cases lie below the worst)."""
    from verifier.notions.partial.cases import Table, apk_cases, ppk_cases
    from verifier.notions.registry import APKDP, DP, PPKDP, notion

    out: dict[str, Curve] = {}
    pairs = analysis.pairs or ()
    for name in notions:
        n = notion(name)
        if n is DP:
            cases = analysis._dp()
        else:
            tables = analysis._need_tables(n.key)
            if n is APKDP:
                cases = [c for t in tables for c in apk_cases(t, pairs)]
            elif n is PPKDP:
                cases = [c for t in tables for c in ppk_cases(t, pairs)]
            else:  # noiseless: conditioned on D(i) alone (seed 003, Definition 3)
                plain = [Table(t.model, 0, t.table.without_background(), t.engine)
                         for t in tables if t.knowledge == 0]
                cases = [c for t in plain for c in ppk_cases(t, pairs)]
        out[n.key] = Curve.make(upper_envelope([x for c in cases for x in _lazy(c.loss)]))
    return out


def _lazy(loss: object) -> list[LazyCurve]:
    """A case's δ(E) for :func:`~verifier.symbolic.envelope.upper_envelope`, queried at the
    points it needs (a :class:`WorstClass` stands for its classes)."""
    if isinstance(loss, WorstClass):
        return [x for part in loss.losses for x in _lazy(part)]
    return [LazyCurve([r for r in _ratios(loss) if r > 1],
                      lambda x: loss.delta(Epsilon.log(x)).value)]  # type: ignore[attr-defined]


def spec_curves(spec) -> dict[str, Curve]:
    """:func:`notion_curves` for every notion a loaded spec names (its tables built anew);
    dp's cases are the ordered pairs of the spec's neighbouring relation (``[input]``,
    ``[neighbours]``; replace-one without them)."""
    from verifier.notions.check import analyse
    from verifier.notions.registry import notion

    partial = any(notion(n).needs_model for n in spec.notions)
    analysis = analyse(spec.mechanism, values=spec.values, records=spec.records,
                       models=spec.model if partial else None,
                       knowledge=spec.knowledge, targets=spec.targets, pairs=spec.pairs,
                       budget=spec.budget, engine=spec.engine, relation=spec.relation)
    return notion_curves(analysis, spec.notions)


def _rational(q: mpq) -> sympy.Rational:
    """``q`` for sympy; its text may have more than the 4300 digits Python converts by
    default (the thresholded count's δ does), so the limit is lifted as for JSON."""
    sys.set_int_max_str_digits(0)
    return sympy.Rational(int(q.numerator), int(q.denominator))


def _line(a: mpq, c: mpq) -> sympy.Expr:
    return _rational(a) - _rational(c) * EXP_EPS


def to_sympy(curve: Curve) -> sympy.Expr:
    """``Piecewise((A_0 − C_0·exp_eps, exp_eps < s_1), …, (A_last, True))`` for
    ``exp_eps = e^ε ≥ 1``."""
    ps = curve.pieces
    if len(ps) == 1:
        return _line(ps[0][1], ps[0][2])
    args = [(_line(a, c), sympy.StrictLessThan(EXP_EPS, _rational(ps[j + 1][0])))
            for j, (_, a, c) in enumerate(ps[:-1])]
    args.append((_line(ps[-1][1], ps[-1][2]), True))
    return sympy.Piecewise(*args)


def describe(curve: Curve) -> list[tuple[str, str]]:
    """Readable pieces: ``("1 ≤ exp_eps < 2", "3/4 - exp_eps/4")``, …,
    ``("exp_eps ≥ 2", "1/4")``."""
    ps = curve.pieces
    out = []
    for j, (start, a, c) in enumerate(ps):
        lo = f"{_rational(start)} ≤ {VARIABLE}"
        where = f"{lo} < {_rational(ps[j + 1][0])}" if j + 1 < len(ps) else (
            f"{VARIABLE} ≥ 1" if len(ps) == 1 else f"{VARIABLE} ≥ {_rational(start)}")
        out.append((where, str(_line(a, c))))
    return out


def piece_rows(curve: Curve) -> list[dict[str, str | None]]:
    """The pieces as ``{"from", "to", "a", "c", "delta"}`` strings (``to`` is None on the
    last piece): ``δ = a − c·exp_eps`` (the expression ``delta``) for ``from ≤ exp_eps < to``,
    every number an exact rational."""
    ps = curve.pieces
    return [{"from": str(_rational(start)),
             "to": str(_rational(ps[j + 1][0])) if j + 1 < len(ps) else None,
             "a": str(a), "c": str(c), "delta": str(_line(a, c))}
            for j, (start, a, c) in enumerate(ps)]


def delta_at(form: Mapping, epsilon: object) -> Delta:
    """The exact δ at ε of a curve given as JSON: one notion's entry of ``plrv check
    --closed-form --json`` (``variable`` ``exp_eps``, pieces over ``e^ε``) or of ``plrv curve
    --json`` (``variable`` ``epsilon``, pieces over ε), read back into a :class:`Curve`.

    >>> form = {"variable": "exp_eps", "pieces": [
    ...     {"from": "1", "to": "3", "a": "3/4", "c": "1/4"},
    ...     {"from": "3", "to": None, "a": "0", "c": "0"}]}
    >>> str(delta_at(form, "ln(2)")), str(delta_at(form, "1/2"))
    ('1/4', '3/4 - 1/4*exp(1/2)')
    """
    variable = form.get("variable")
    if variable not in (VARIABLE, "epsilon"):
        raise InvalidArgument(f"variable = {variable!r}: a closed form is over {VARIABLE} "
                              f"(plrv check --closed-form) or epsilon (plrv curve)",
                              argument="variable", value=variable)
    def end(text: object, key: str) -> mpq:
        if variable == VARIABLE:
            return rational(text, key)
        eps = parse_epsilon(text, key)
        if eps.rate is None:
            raise InvalidArgument(f"{key} = {text!r} is not ln of a rational", argument=key,
                                  value=text)
        return eps.rate

    rows = list(form.get("pieces", ()))
    for row, after in zip(rows, rows[1:] + [None], strict=True):
        to = row.get("to")
        if (to in (None, "inf")) != (after is None) or (
                after is not None and end(to, "to") != end(after.get("from"), "from")):
            raise InvalidArgument(f"piece {row}: its end 'to' is not the next piece's start",
                                  argument="to", value=to)
    return Curve.make((end(r.get("from"), "from"), rational(r.get("a"), "a"),
                       rational(r.get("c"), "c")) for r in rows).delta(epsilon)
