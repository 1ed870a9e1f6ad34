"""Exact composition of privacy losses: the tight δ(ε) and ε(δ) of composed mechanisms.

Running mechanisms ``M_1, …, M_k`` on the same input with independent randomness releases
``(O_1, …, O_k)`` with ``P[M(x) = (O_1, …, O_k)] = Π_j P[M_j(x) = O_j]``, so for a pair of
neighbours ``x ~ y`` the likelihood ratios multiply and the masses multiply: the privacy loss
of the composition is the product of the component laws (its values add). The composed
mechanism's tight δ at ε is (seed 003, Lemma 1; REFERENCE.md §3)::

    δ(ε) = max_{x ~ y} Σ_{(r, P, Q)} max(0, P − e^ε·Q)   over the atoms of the product law

Unlike :class:`~verifier.notions.loss.PrivacyLoss`, which keeps only the ratios ``> 1`` (the
only ones that count for δ at ε ≥ 0), a :class:`LossDistribution` keeps every ratio: a ratio
below 1 times one above 1 can exceed ``e^ε``. Masses are integers over two common scales
(``P = p/p_scale``), so the product is a product of integers and of scales. ``max_values``
(``limits.loss_values``) bounds the number of distinct ratios (they can grow as
``(atoms)^k``); beyond it :mod:`verifier.notions.composition.enclosure` gives certified
bounds instead, and :mod:`verifier.notions.composition.adaptive` composes mechanisms that see the
earlier outputs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import reduce
from math import comb
from operator import mul

from gmpy2 import mpq, mpz

from verifier.core.budget import Budget, exceeded, format_size
from verifier.core.distribution import Dist
from verifier.core.epsilon import parse_epsilon
from verifier.core.errors import InvalidArgument
from verifier.core.numbers import probability
from verifier.model.mechanisms import Mechanism
from verifier.model.program_mechanism import as_mechanism
from verifier.notions.composition.polynomial import MAX_VARIABLES, plan_polynomial
from verifier.notions.composition.stream import Progress
from verifier.notions.dp.neighbours import Relation, relation_pairs
from verifier.notions.loss import LossLaw, PrivacyLoss, _denominator_lcm, _integer_row
from verifier.notions.result import Case, NotionResult, summarize

__all__ = ["LossDistribution", "compose", "compose_law", "compose_mechanisms", "pair_laws",
           "composition_work", "composition_memory", "repetition", "pair_progress",
           "DEFAULT_MAX_VALUES", "ROUTES"]

DEFAULT_MAX_VALUES = 1_000_000  # distinct loss values kept by a composition
_MPZ_BYTES = 32    # an integer's header and allocation rounding, beside its digits
_ATOM_BYTES = 200  # a dictionary entry, its list and the ratio's object


@dataclass(frozen=True, slots=True)
class LossDistribution:
    """The whole law of the likelihood ratio of ``P`` against ``Q``.

    ``atoms`` are ``(ratio, p, q)`` for every finite ratio ``> 0``, sorted and merged by ratio
    (``P``-mass ``p/p_scale``, ``Q``-mass ``q/q_scale``); ``infinite/p_scale`` is ``P``'s mass
    where ``Q`` has none (``L = +∞``), ``vanishing/q_scale`` is ``Q``'s mass where ``P`` has
    none (``L = −∞``).
    """

    atoms: tuple[tuple[mpq, mpz, mpz], ...]
    infinite: mpz
    vanishing: mpz
    p_scale: mpz
    q_scale: mpz

    @staticmethod
    def of(p: Dist, q: Dist) -> LossDistribution:
        """The privacy loss of ``P`` against ``Q`` (seed 003, Definition 4), every value."""
        lp = _denominator_lcm(w for _, w in p.items())
        lq = _denominator_lcm(w for _, w in q.items())
        prow, qrow = _integer_row(p, lp), _integer_row(q, lq)
        scale = mpq(lq, lp)
        merged: dict[mpq, list[mpz]] = {}
        infinite = vanishing = mpz(0)
        for o in {**prow, **qrow}:
            a, b = mpz(prow.get(o, 0)), mpz(qrow.get(o, 0))
            if a == 0 and b == 0:
                continue
            if b == 0:
                infinite += a
            elif a == 0:
                vanishing += b
            else:
                acc = merged.setdefault(mpq(a, b) * scale, [mpz(0), mpz(0)])
                acc[0] += a
                acc[1] += b
        atoms = tuple((r, pq[0], pq[1]) for r, pq in sorted(merged.items()))
        return LossDistribution(atoms, infinite, vanishing, mpz(lp), mpz(lq))

    @property
    def values(self) -> int:
        """The number of distinct finite loss values."""
        return len(self.atoms)

    def privacy_loss(self) -> PrivacyLoss:
        """The :class:`PrivacyLoss` (ratios ``> 1``) that answers δ(ε) and ε(δ)."""
        return PrivacyLoss(tuple(a for a in self.atoms if a[0] > 1), self.infinite,
                           self.p_scale, self.q_scale)


class _Overflow(Exception):
    """More distinct values than ``max_values`` (turned into a BudgetExceeded by compose)."""


def _product(a: LossDistribution, b: LossDistribution, max_values: int) -> LossDistribution:
    merged: dict[mpq, list[mpz]] = {}
    for ra, pa, qa in a.atoms:
        for rb, pb, qb in b.atoms:
            acc = merged.get(ra * rb)
            if acc is None:
                if len(merged) >= max_values:
                    raise _Overflow
                merged[ra * rb] = [pa * pb, qa * qb]
            else:
                acc[0] += pa * pb
                acc[1] += qa * qb
    # P-mass where the product Q vanishes: where either factor's Q does (and P does not)
    infinite = a.infinite * b.p_scale + (a.p_scale - a.infinite) * b.infinite
    vanishing = a.vanishing * b.q_scale + (a.q_scale - a.vanishing) * b.vanishing
    atoms = tuple((r, pq[0], pq[1]) for r, pq in sorted(merged.items()))
    return LossDistribution(atoms, infinite, vanishing, a.p_scale * b.p_scale,
                            a.q_scale * b.q_scale)


def _bits(p: LossDistribution) -> int:
    """Bits of one part's integers: its scales and its widest ratio."""
    top = max((r.numerator.bit_length() + r.denominator.bit_length()
               for r, _, _ in p.atoms), default=0)
    return int(p.p_scale.bit_length() + p.q_scale.bit_length() + top)


def _sizes(parts: Sequence[LossDistribution], max_values: int) -> list[tuple[int, int, int]]:
    """``(S_j, v_{j+1}, b_j)`` for each product step: atoms so far (at most ``max_values``,
    at most the product of the parts' value counts, and — when every part is the same loss
    with ``v`` values — at most ``C(j + v − 1, v − 1)``: a product of ``j`` atoms depends only
    on how many of each were taken), atoms of the next part, bits of the integers so far."""
    first = parts[0]
    same = all(p is first or p == first for p in parts)
    size, width, out = max(first.values, 1), _bits(first), []
    v = max(first.values, 1)
    for j, nxt in enumerate(parts[1:], 2):
        out.append((size, max(nxt.values, 1), width))
        size = min(max_values, comb(j + v - 1, v - 1) if same else size * max(nxt.values, 1))
        width += _bits(nxt)
    out.append((size, 0, width))
    return out


def composition_work(parts: Sequence[LossDistribution], max_values: int) -> int:
    """An estimate, made before any product, of the work of composing ``parts`` in order:
    step ``j`` multiplies each of the ``S_j`` atoms so far by each atom of the next part,
    with integers of ``b_j`` bits (the masses' scales and the ratios grow by each part's
    bits): ``Σ_j S_j·v_{j+1}·(1 + b_j/1024)`` (a product of small integers costs about as
    much as one of a thousand bits: the interpreter dominates; ``S_j`` as in ``_sizes``)."""
    return sum(s * v * (1 + b // 1024) for s, v, b in _sizes(parts, max_values))


def composition_memory(parts: Sequence[LossDistribution], max_values: int) -> int:
    """Bytes the convolution holds at once, estimated before any product: the atoms of two
    consecutive steps, each a ratio and two masses of up to ``b_j`` bits (and a dictionary
    entry)."""
    sizes = _sizes(parts, max_values)
    per = [3 * (b // 8 + _MPZ_BYTES) + _ATOM_BYTES for _, _, b in sizes]
    return max((s * c + t * d for (s, _, _), (t, _, _), c, d
                in zip(sizes, sizes[1:], per, per[1:], strict=False)),
               default=sizes[0][0] * per[0])


def compose(losses: Iterable[LossDistribution],
            max_values: int = DEFAULT_MAX_VALUES,
            budget: Budget | None = None) -> LossDistribution:
    """The privacy loss of independent releases: ratios multiply, masses multiply. With a
    ``budget``, :func:`composition_work` is checked against ``limits.work`` and
    :func:`composition_memory` against ``limits.memory`` first.

    >>> from verifier.core.distribution import Dist
    >>> rr = LossDistribution.of(Dist({0: "3/4", 1: "1/4"}), Dist({0: "1/4", 1: "3/4"}))
    >>> three = compose([rr] * 3)
    >>> [(str(r), str(mpq(p, three.p_scale))) for r, p, _ in three.atoms]
    [('1/27', '1/64'), ('1/3', '9/64'), ('3', '27/64'), ('27', '27/64')]
    """
    parts = list(losses)
    if not parts:
        raise InvalidArgument("compose needs at least one privacy loss", argument="losses",
                              value=[])
    if budget is not None:
        budget.require("work", composition_work(parts, max_values),
                       f"exact composition of {len(parts)} privacy losses: atom products "
                       f"(× kilobits of their integers)", ", compose fewer runs, or ask for a "
                       "certified enclosure (--enclosure always)")
        budget.require("memory", composition_memory(parts, max_values),
                       f"exact composition of {len(parts)} privacy losses: bytes of the "
                       f"atoms held at once (estimated)", ", compose fewer runs, or ask for a "
                       "certified enclosure (--enclosure always)")
    out = parts[0]
    for j, nxt in enumerate(parts[1:], 2):
        try:
            out = _product(out, nxt, max_values)
        except _Overflow:
            bound = reduce(mul, (max(p.values, 1) for p in parts), 1)
            raise exceeded(
                "loss_values", f"composition of {len(parts)} privacy losses: distinct "
                               f"values after the first {j}", f"more than "
                f"{format_size(max_values)} (at most {format_size(bound)}, the product of "
                f"the losses' {', '.join(str(p.values) for p in parts[:4])}"
                f"{', …' if len(parts) > 4 else ''} values)", max_values,
                ", compose fewer mechanisms, or ask for a certified enclosure "
                "(verifier.notions.composition.enclosure)") from None
    return out


ROUTES = ("polynomial", "convolution")


def compose_law(losses: Sequence[LossDistribution], max_values: int = DEFAULT_MAX_VALUES,
                budget: Budget | None = None, route: str | None = None, *,
                streams: dict | None = None, stream: bool = True,
                progress: Progress | None = None) -> tuple[LossLaw, str]:
    """``(law, route)``: the composed privacy loss, answering δ(ε) and ε(δ) exactly, and the
    route that computed it. ``"polynomial"`` (:mod:`verifier.notions.composition.polynomial`)
    whenever the ratios have at most ``MAX_VARIABLES`` multiplicative generators, else
    ``"convolution"`` (:func:`compose`: every product of atoms, merged by ratio). Both
    estimate their work (and the polynomial route its memory) before starting; ``route``
    forces one (the other engine, for tests). k runs of one mechanism are streamed
    (:mod:`verifier.notions.composition.stream`; ``stream=False`` keeps every coefficient,
    for tests), their powers shared through ``streams`` and followed by ``progress``.
    """
    if route not in (None, *ROUTES):
        raise InvalidArgument(f"route {route!r} is not one of {', '.join(ROUTES)}",
                              argument="route", value=route)
    if route != "convolution":
        plan = plan_polynomial(losses, budget, max_values, stream, streams)
        if plan is not None:
            return plan.run(streams, progress), "polynomial"
        if route == "polynomial":
            raise InvalidArgument(f"the ratios need more than {MAX_VARIABLES} generators: "
                                  f"no polynomial route", argument="route", value=route)
    return compose(losses, max_values, budget).privacy_loss(), "convolution"


def pair_laws(mechs: Sequence[Mechanism], x: tuple, y: tuple) -> list[LossDistribution]:
    """The privacy loss of each mechanism on ``x`` against ``y``, computed once per distinct
    mechanism object (a k-fold list repeats one object, and so does the answer)."""
    laws: dict[int, LossDistribution] = {}
    for m in mechs:
        if id(m) not in laws:
            laws[id(m)] = LossDistribution.of(m(x), m(y))
    return [laws[id(m)] for m in mechs]


def repetition(names: Sequence[str], key: str = "mechanisms") -> dict[str, object]:
    """The composed mechanisms' names as ``{key: round, "k": k}``: the shortest
    ``round`` that ``names`` repeats ``k`` times (``[M] * k`` is ``([M.name], k)``), so that
    a witness of ``k`` runs is as long as one run's, not ``k`` times it.

    >>> repetition(["rr"] * 100_000)
    {'mechanisms': ['rr'], 'k': 100000}
    >>> repetition(["a", "b", "a", "b"]), repetition(["a", "b", "a"])
    ({'mechanisms': ['a', 'b'], 'k': 2}, {'mechanisms': ['a', 'b', 'a'], 'k': 1})
    """
    n = len(names)
    for period in range(1, n + 1):
        if n % period == 0 and all(names[i] == names[i % period] for i in range(period, n)):
            return {key: list(names[:period]), "k": n // period}
    return {key: list(names), "k": 1}  # (no names)


def pair_progress(pairs: Iterable[tuple[tuple, tuple]], progress: Callable[[int, int], None] | None
            ) -> Iterator[tuple[tuple, tuple]]:
    """``pairs``, reporting ``progress(done, total)`` as each is taken (listed first when
    there is a ``progress``, to know the total)."""
    if progress is None:
        yield from pairs
        return
    listed = list(pairs)
    progress(0, len(listed))
    for j, pair in enumerate(listed, 1):
        yield pair
        progress(j, len(listed))


# composed laws a relation's pairs share (oldest first out): only small ones (at most
# _SHARED_BYTES by the convolution's estimate, of at most _SHARED_PARTS parts; k runs of one
# mechanism share their streams instead), so that the sharing adds at most 16 MB
_SHARED_LAWS, _SHARED_BYTES, _SHARED_PARTS = 16, 1 << 20, 64


def _pair_case(mechs: Sequence[Mechanism], x: tuple, y: tuple, relation: Relation,
               max_values: int, budget: Budget | None = None,
               route: str | None = None, streams: dict | None = None,
               progress: Progress | None = None, laws: dict | None = None) -> Case:
    losses = tuple(pair_laws(mechs, x, y))
    shared = laws if len(losses) <= _SHARED_PARTS else None
    if shared is not None and losses in shared:  # another pair's losses: the same law
        law, used = shared[losses]
    else:
        law, used = compose_law(losses, max_values, budget, route,
                                streams=streams, progress=progress)
        if shared is not None and composition_memory(losses, max_values) <= _SHARED_BYTES:
            if len(shared) >= _SHARED_LAWS:
                del shared[next(iter(shared))]
            shared[losses] = law, used
    key = "inputs" if relation.inputs else "databases"
    return Case({"relation": relation.name, key: [list(x), list(y)],
                 **repetition([m.name for m in mechs]), "route": used}, law)


def compose_mechanisms(mechs: Sequence[Mechanism], relation: Relation, epsilon: object = "0",
                       delta: object = "0", budget: Budget | None = None,
                       max_values: int = DEFAULT_MAX_VALUES, route: str | None = None,
                       progress: Progress | None = None) -> NotionResult:
    """Decide (ε, δ)-DP of ``M_1 × … × M_k`` (run on the same input, independently) under
    ``relation``, exactly: the worst pair's product loss (a k-fold composition is
    ``[M] * k``), by :func:`compose_law` (each pair's label names the route). The pairs
    share their streamed powers: the reverse of a pair reads its coefficients again, in
    the other order, without computing them again, and pairs whose losses are equal (a
    mechanism that reads a count of its input) share the composed law. ``progress(done,
    total)`` counts the pairs.

    >>> from verifier.model.mechanisms import randomized_response
    >>> from verifier.notions.dp.neighbours import replace_one
    >>> rr = randomized_response("3/4", [0, 1])
    >>> r = compose_mechanisms([rr] * 3, replace_one([0, 1], 1), "ln(2)", "17/32")
    >>> str(r.delta), str(r.epsilon), r.holds
    ('17/32', 'ln(2)', True)
    """
    eps = parse_epsilon(epsilon)
    d = probability(delta, "delta")
    if not mechs:
        raise InvalidArgument("compose_mechanisms needs at least one mechanism",
                              argument="mechs", value=[])
    budget = budget or Budget()
    mechs = [as_mechanism(m, f"mechs[{j}]") for j, m in enumerate(mechs)]
    streams: dict = {}
    laws: dict = {}
    cases = (_pair_case(mechs, x, y, relation, max_values, budget, route, streams, None, laws)
             for x, y in pair_progress(relation_pairs(relation, budget), progress))
    return summarize("dp", cases, eps, d)
