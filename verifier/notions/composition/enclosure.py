"""Certified enclosures of a composition's tight δ(ε) and ε(δ) beyond the distinct-loss budget.

The exact composition (:mod:`verifier.notions.composition.exact`,
:mod:`verifier.notions.composition.adaptive`) keeps every distinct likelihood ratio, and their
number can grow as ``(atoms)^k``. When it would exceed ``limits.loss_values`` (or when asked),
each privacy loss is rounded onto a geometric grid ``{j·ln γ}`` instead
(:mod:`verifier.notions.composition.grid`): up for an upper bound on δ(ε), down for a lower
bound. The argument, with its references, is in :mod:`verifier.notions.composition.grid`:
δ(ε) = E_P[(1 − e^{ε−L})_+] + P[L = ∞] is non-decreasing
in ``L``, and rounding every term of ``L = Σ_j L_j`` in one direction moves the composed
loss pointwise in that direction. Independent mechanisms are rounded one by one and composed
on the grid (the exponents add: a product of Laurent polynomials, whose distinct values —
not the grid's span — are counted against the budget); an
adaptive composition's output tree is enumerated exactly and its leaves are rounded.

The result is an interval ``[δ_lo, δ_hi]`` at the claimed ε (each end exact: a rational, or
``A − C·e^ε`` for ε in nats) and ``[ε_lo, ε_hi]`` at the claimed δ, the worst over the pairs
of the relation (a maximum of intervals is the interval of the maxima). The claim holds
when ``δ_hi ≤ δ``, fails when ``δ_lo > δ``, and is *unknown* otherwise — never guessed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gmpy2 import mpq, mpz

from verifier.core.budget import Budget, exceeded, format_size
from verifier.core.certified import log_bounds
from verifier.core.delta import Delta
from verifier.core.epsilon import Epsilon, parse_epsilon
from verifier.core.errors import BudgetExceeded, InvalidArgument
from verifier.core.numbers import probability
from verifier.model.mechanisms import Mechanism
from verifier.notions.composition.adaptive import (
    Leaves,
    Step,
    adaptive_leaves,
    compose_adaptive,
    leaves_loss,
    step_of,
)
from verifier.notions.composition.exact import (
    LossDistribution,
    compose_law,
    compose_mechanisms,
    pair_laws,
    pair_progress,
    repetition,
)
from verifier.notions.composition.grid import Grid, GridLoss, parse_grid
from verifier.notions.composition.polynomial import univariate_terms
from verifier.notions.display import enclosure_described, result_html, result_repr
from verifier.notions.dp.neighbours import Relation, relation_pairs
from verifier.notions.loss import LossLaw, _denominator_lcm
from verifier.notions.result import NotionResult
from verifier.notions.serial import composition_json

__all__ = ["CompositionEnclosure", "enclose_composition", "choose_grid", "ENCLOSURE_MODES",
           "DEFAULT_GRID_POINTS"]

ENCLOSURE_MODES = ("auto", "never", "always")
MAX_POWER_BITS = 1 << 26  # bits of the largest power γ^j an enclosure's exact bounds may hold
DEFAULT_GRID_POINTS = 4096  # grid values an automatic grid aims at (at most limits.loss_values)
_GRID_CANDIDATES = tuple([mpq(2 ** e + 1, 2 ** e) for e in range(24, -1, -1)]
                         + [mpq(2 ** (2 ** i)) for i in range(1, 12)])  # γ, finest first


@dataclass(frozen=True)
class CompositionEnclosure:
    """Certified bounds on a composition's tight δ at the claimed ε and tight ε at the claimed
    δ: ``delta_lo ≤ δ ≤ delta_hi``, ``epsilon_lo ≤ ε ≤ epsilon_hi`` (never exact).

    ``holds`` is True or False only where the interval decides the claim, else None
    (unknown). ``grids`` are the grids used, ``reason`` why the values are enclosures,
    ``enclosed`` how many of the ``cases`` pairs were rounded (the others are exact)."""

    query_epsilon: Epsilon
    query_delta: mpq
    delta_lo: Delta
    delta_hi: Delta
    epsilon_lo: Epsilon
    epsilon_hi: Epsilon
    holds: bool | None
    grids: tuple[Grid, ...]
    reason: str
    witness: Mapping[str, object]
    cases: int
    enclosed: int
    notion: str = "dp"

    def to_dict(self, k: int, relation: str, mechanism: str | None = None,
                steps: Sequence[str] = ()) -> dict:
        """These bounds as ``plrv compose --json`` prints them for ``k`` runs of
        ``mechanism`` (described) or of ``steps`` (their names) under ``relation`` (its
        name)."""
        return composition_json(self, k, relation, mechanism, steps)

    def __repr__(self) -> str:
        return result_repr("CompositionEnclosure", enclosure_described(self))

    def _repr_html_(self) -> str:
        return result_html(enclosure_described(self))


def _span(ratios: Sequence[mpq]) -> mpq:
    """An upper bound on ``ln(max/min)`` of positive rationals."""
    if not ratios:
        return mpq(0)
    return log_bounds(max(ratios) / min(ratios), 64)[1]


def choose_grid(spans: Sequence[mpq], target: int) -> Grid:
    """The finest ``γ`` of ``1 + 2^-e`` (e = 24..0), then ``2^(2^i)``, for which losses
    spanning ``spans`` nats (upper bounds) compose to a span of at most ``target`` grid
    points: each loss rounded onto the grid spans at most ``⌊span/ln γ⌋ + 2`` consecutive
    points, and the composition at most ``Σ_j (⌊span_j/ln γ⌋ + 1) + 1``. (The span, not the
    count of values, sets the cost here: the bounds are exact rationals in ``γ^j``, whose
    integers grow with the largest exponent ``j``.)"""
    floor_count = len(spans) + 1
    for base in _GRID_CANDIDATES:
        g_lo = log_bounds(base, 64)[0]
        count = sum((int(s / g_lo) + 1 for s in spans), 1)
        if count <= target:
            return Grid(base)
    raise exceeded("loss_values", f"enclosure of {len(spans)} composed losses: grid values "
                                  f"even on the coarsest grid ln({_GRID_CANDIDATES[-1]})",
                   format_size(max(floor_count, target + 1)), target,
                   ", or compose fewer mechanisms")


Component = tuple[list[tuple[mpq, mpz]], mpz, mpz]  # (ratio, P-mass) atoms, +∞ mass, scale


def _rounded(parts: Sequence[tuple[Component, int]], grid: Grid | None,
             max_values: int) -> tuple[GridLoss, GridLoss, Grid]:
    """``(lower, upper, grid)``: the losses ``(atoms, infinite, p_scale)``, each run
    ``copies`` times, rounded down and up onto ``grid`` (chosen when None) and composed on
    it; the composed grid values are counted (not the grid's span) against ``max_values``."""
    if grid is None:
        grid = choose_grid([_span([r for r, _ in atoms]) for (atoms, _, _), c in parts
                            for _ in range(c)], min(max_values, DEFAULT_GRID_POINTS))
    out = []
    for up in (False, True):
        losses = [(GridLoss.of(atoms, inf, scale, grid, up), c)
                  for (atoms, inf, scale), c in parts]
        finite = [(g.masses, c) for g, c in losses if g.masses]
        size = univariate_terms(finite) if len(finite) == len(losses) else 1
        if size > max_values:
            raise exceeded("loss_values", f"enclosure on the grid {grid}: distinct grid values",
                           format_size(size), max_values, ", or give a coarser grid")
        reach = sum(c * max((abs(j) for j in g.masses), default=0) for g, c in losses)
        bits = reach * (grid.base.numerator.bit_length() + grid.base.denominator.bit_length())
        if bits > MAX_POWER_BITS:
            raise exceeded("loss_values", f"enclosure on the grid {grid}: the bounds' powers "
                           f"γ^j reach j = {format_size(reach)}, integers of "
                           f"{format_size(bits)} bits (limit {format_size(MAX_POWER_BITS)})",
                           format_size(size), max_values, "; give a coarser grid")
        out.append(GridLoss.product(losses))
    return out[0], out[1], grid


def _component(loss: LossDistribution) -> Component:
    return [(r, p) for r, p, _ in loss.atoms], loss.infinite, loss.p_scale


def _leaves_component(leaves: Leaves) -> Component:
    scale = _denominator_lcm([*(pq[0] for pq in leaves.ratios.values()), leaves.infinite])
    atoms = [(r, mpz((pq[0] * scale).numerator)) for r, pq in leaves.ratios.items()]
    return atoms, mpz((leaves.infinite * scale).numerator), mpz(scale)


PairBounds = tuple[LossLaw, LossLaw, Grid | None]


def _independent(mechs: Sequence[Mechanism], always: bool, grid: Grid | None,
                 max_values: int) -> Callable[[tuple, tuple], PairBounds]:
    def bounds(x: tuple, y: tuple) -> PairBounds:
        parts = pair_laws(mechs, x, y)
        if not always:
            try:
                exact, _ = compose_law(parts, max_values)
                return exact, exact, None
            except BudgetExceeded as exc:
                if getattr(exc, "key", None) != "limits.loss_values":
                    raise
        copies: dict[int, list] = {}  # each distinct law with the number of its runs
        for part in parts:
            copies.setdefault(id(part), [part, 0])[1] += 1
        return _rounded([(_component(p), c) for p, c in copies.values()], grid, max_values)
    return bounds


def _adaptive(steps: Sequence[Step], always: bool, grid: Grid | None, max_values: int,
              budget: Budget) -> Callable[[tuple, tuple], PairBounds]:
    def bounds(x: tuple, y: tuple) -> PairBounds:
        leaves = adaptive_leaves(steps, x, y, budget)
        if not always and len(leaves.ratios) <= max_values:
            exact = leaves_loss(leaves, max_values).privacy_loss()
            return exact, exact, None
        return _rounded([(_leaves_component(leaves), 1)], grid, max_values)
    return bounds


def enclose_composition(parts: Sequence[Mechanism | Step], relation: Relation,
                        epsilon: object = "0", delta: object = "0",
                        budget: Budget | None = None, *, mode: str = "auto",
                        grid: object = None, max_values: int | None = None,
                        progress: Callable[[int, int], None] | None = None
                        ) -> NotionResult | CompositionEnclosure:
    """The composition of ``parts`` under ``relation``: exact where it fits, else enclosed.

    Mechanisms alone compose independently (each loss rounded, then composed on the grid);
    with any :class:`~verifier.notions.composition.adaptive.Step` the composition is adaptive
    (the tree is enumerated exactly, its leaves rounded). ``mode``: ``"auto"`` (exact, or an
    enclosure when the distinct losses exceed ``max_values``, default
    ``limits.loss_values``), ``"never"`` (exact or :class:`BudgetExceeded`), ``"always"``
    (an enclosure). ``grid``: a spacing ``"ln(γ)"`` (rational ``γ > 1``), or None for the
    finest automatic grid with at most ``min(max_values, 4096)`` values. ``progress(done,
    total)`` follows the coefficients of an exact streamed composition.

    >>> from verifier.model.mechanisms import randomized_response
    >>> from verifier.notions.dp.neighbours import replace_one
    >>> rr = randomized_response("3/4", [0, 1])
    >>> r = enclose_composition([rr] * 3, replace_one([0, 1], 1), "ln(2)", "1/2",
    ...                         mode="always", grid="ln(3)")
    >>> str(r.delta_lo), str(r.delta_hi), r.holds
    ('17/32', '17/32', False)
    """
    if mode not in ENCLOSURE_MODES:
        raise InvalidArgument(f"enclosure = {mode!r} is not one of {', '.join(ENCLOSURE_MODES)}",
                              argument="enclosure", value=mode)
    eps = parse_epsilon(epsilon)
    d = probability(delta, "delta")
    fixed = None if grid is None else grid if isinstance(grid, Grid) else parse_grid(grid)
    if not parts:
        raise InvalidArgument("a composition needs at least one mechanism", argument="parts",
                              value=[])
    budget = budget or Budget()
    limit = budget.max_loss_values if max_values is None else max_values
    adaptive = any(isinstance(p, Step) for p in parts)
    if mode != "always":
        try:
            if adaptive:
                return compose_adaptive(parts, relation, eps, d, budget, limit, progress)
            return compose_mechanisms(parts, relation, eps, d, budget,  # type: ignore[arg-type]
                                      limit, progress=progress)
        except BudgetExceeded as exc:
            if mode == "never" or getattr(exc, "key", None) != "limits.loss_values":
                raise
        reason = (f"the exact composition has more than {format_size(limit)} distinct "
                  f"privacy-loss values (limits.loss_values)")
    else:
        reason = "an enclosure was asked for"
    if adaptive:
        steps = [p if isinstance(p, Step) else step_of(p) for p in parts]
        bounds = _adaptive(steps, mode == "always", fixed, limit, budget)
    else:
        bounds = _independent(parts, mode == "always", fixed, limit)  # type: ignore[arg-type]
    return _summarize(bounds, relation, budget, eps, d, reason,
                      [p.name for p in parts], progress)


def _summarize(bounds: Callable[[tuple, tuple], PairBounds], relation: Relation,
               budget: Budget, eps: Epsilon, d: mpq, reason: str,
               names: list[str], progress: Callable[[int, int], None] | None = None
               ) -> CompositionEnclosure:
    """The worst lower and upper bounds over the pairs (each maximum taken separately)."""
    best: list[Any] = [None, None, None, None]  # δ_lo, δ_hi, ε_lo, ε_hi
    witness: dict = {}
    grids: dict[Grid, None] = {}
    cases = enclosed = 0
    key = "inputs" if relation.inputs else "databases"
    for x, y in pair_progress(relation_pairs(relation, budget), progress):
        lo, hi, grid = bounds(x, y)
        cases += 1
        if grid is not None:
            enclosed += 1
            grids[grid] = None
        values: tuple[Any, ...] = (lo.delta(eps), hi.delta(eps), lo.epsilon(d), hi.epsilon(d))
        for i, v in enumerate(values):
            if best[i] is None or v.compare(best[i]) > 0:
                best[i] = v
                if i == 1:
                    witness = {"relation": relation.name, key: [list(x), list(y)],
                               **repetition(names),
                               "grid": "exact" if grid is None else str(grid)}
    if best[0] is None:
        zero = Delta.make(mpq(0), mpq(0), eps)
        best = [zero, zero, Epsilon.ZERO, Epsilon.ZERO]
    holds = True if best[1].compare(d) <= 0 else False if best[0].compare(d) > 0 else None
    return CompositionEnclosure(eps, d, best[0], best[1], best[2], best[3], holds,
                                tuple(grids), reason, witness, cases, enclosed)
