"""Exact adaptive composition: each mechanism sees the input and the earlier outputs.

An adaptive composition of ``k`` steps is a list of kernels ``M_j(x, (o_1, …, o_{j−1}))``,
each a distribution over ``o_j``; run on ``x`` it releases ``o = (o_1, …, o_k)`` with
(Dwork & Roth, *The Algorithmic Foundations of Differential Privacy*, 2014, §3.5.2; Kairouz,
Oh, Viswanath, "The Composition Theorem for Differential Privacy", ICML 2015, §2)::

    P[o] = Π_j P[M_j(x; o_<j) = o_j],      Q[o] = Π_j P[M_j(y; o_<j) = o_j]

for a pair of neighbours ``x ~ y``, and the composed mechanism's tight δ at ε is (seed 003,
Lemma 1; REFERENCE.md §3)::

    δ(ε) = max_{x ~ y} Σ_o max(0, P[o] − e^ε·Q[o])

Unlike independent composition the loss of step ``j`` depends on ``o_<j``, so the law is not
a product: the tree of output sequences is enumerated breadth first, one step at a time,
and the leaves are grouped by their ratio ``P[o]/Q[o]`` into a
:class:`~verifier.notions.composition.exact.LossDistribution` (integers over common scales). A
branch is closed as soon as one hypothesis gives it probability 0: everything below it has
``L = +∞`` (only ``Q`` vanishes) or ``L = −∞`` (only ``P`` does), whatever comes after.
``limits.sequences`` bounds the partial sequences held at once (and so the leaves).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from gmpy2 import mpq, mpz

from verifier.core.budget import Budget, exceeded, format_size
from verifier.core.distribution import Dist
from verifier.core.epsilon import parse_epsilon
from verifier.core.errors import BudgetExceeded, InvalidArgument
from verifier.core.numbers import probability
from verifier.model.mechanisms import Mechanism
from verifier.model.program_enum import Enumerated
from verifier.model.user_code import UserFunction, as_output_dist
from verifier.notions.composition.exact import (
    DEFAULT_MAX_VALUES,
    LossDistribution,
    pair_progress,
    repetition,
)
from verifier.notions.dp.neighbours import Relation, relation_pairs
from verifier.notions.loss import _denominator_lcm
from verifier.notions.result import Case, NotionResult, summarize

__all__ = ["Step", "adaptive_step", "step_of", "adaptive_leaves", "adaptive_loss",
           "compose_adaptive"]

History = tuple


@dataclass(frozen=True, eq=False)
class Step:
    """One step of an adaptive composition: ``kernel(x, earlier_outputs)`` is a Dist."""

    name: str
    kernel: Callable[[tuple, History], Dist]
    prefetch: Callable[[Iterable[tuple[tuple, History]]], None] | None = None

    def __call__(self, x: tuple, history: History) -> Dist:
        return self.kernel(tuple(x), history)

    def warm(self, calls: Iterable[tuple[tuple, History]]) -> None:
        """The step evaluated on each ``(x, history)`` of ``calls`` ahead of the calls that
        follow (user code in its own process: a few round trips; anything else: nothing)."""
        if self.prefetch is not None:
            self.prefetch(calls)


def adaptive_step(f: Callable[[tuple, History], object], name: str | None = None) -> Step:
    """Wrap ``f(x, earlier_outputs)``: a returned :class:`Dist` is the law of this step's
    output, any other value a point mass, and random choices drawn with
    :mod:`verifier.program` are enumerated exactly (a step that draws is never sampled). A
    user function named in a spec (:class:`~verifier.model.user_code.UserFunction`, loaded
    as a program by the spec reader) has its answers read strictly."""
    if isinstance(f, UserFunction):
        user = f
        kernel = lambda x, h: as_output_dist(user(x, h), user)  # noqa: E731
        return Step(name or user.__name__, kernel,
                    lambda calls: user.prefetch((tuple(x), h) for x, h in calls))
    label = name or str(getattr(f, "__name__", "step"))
    law = f if isinstance(f, Enumerated) else Enumerated(f, label, memo=False)
    return Step(label, law)


def step_of(mech: Mechanism) -> Step:
    """A mechanism as a step that ignores the earlier outputs (independent composition)."""
    return Step(mech.name, lambda x, h: mech(x))


@dataclass(frozen=True, slots=True)
class Leaves:
    """The leaves of the output tree grouped by ratio: ``ratios[r] = [P, Q]`` (rationals),
    and the ``P``-mass with ``Q = 0`` and the ``Q``-mass with ``P = 0``."""

    ratios: dict[mpq, list[mpq]]
    infinite: mpq
    vanishing: mpq
    sequences: int  # output sequences with P > 0 and Q > 0, before grouping


def adaptive_leaves(steps: Sequence[Step], x: tuple, y: tuple,
                    budget: Budget | None = None) -> Leaves:
    """Enumerate the output tree of ``steps`` run on ``x`` and on ``y`` (breadth first),
    grouping the finished sequences by their likelihood ratio."""
    if not steps:
        raise InvalidArgument("an adaptive composition needs at least one step",
                              argument="steps", value=[])
    limit = (budget or Budget()).max_sequences
    level: list[tuple[History, mpq, mpq]] = [((), mpq(1), mpq(1))]
    infinite = vanishing = mpq(0)
    for j, step in enumerate(steps):
        nxt: list[tuple[History, mpq, mpq]] = []
        step.warm([(x, h) for h, _, _ in level] + [(y, h) for h, _, _ in level])
        for history, p, q in level:
            dp, dq = step(x, history), step(y, history)
            for o in dict.fromkeys((*dp.support, *dq.support)):
                a, b = dp[o], dq[o]
                if b == 0:
                    infinite += p * a
                elif a == 0:
                    vanishing += q * b
                else:
                    if len(nxt) >= limit:
                        raise _too_many(j, len(steps), len(level), limit, x, y)
                    nxt.append(((*history, o), p * a, q * b))
        level = nxt
    ratios: dict[mpq, list[mpq]] = {}
    for _, p, q in level:
        acc = ratios.setdefault(p / q, [mpq(0), mpq(0)])
        acc[0] += p
        acc[1] += q
    return Leaves(ratios, infinite, vanishing, len(level))


def _too_many(j: int, k: int, held: int, limit: int, x: tuple, y: tuple) -> BudgetExceeded:
    return exceeded("sequences", f"adaptive composition on inputs {list(x)!r:.40} and "
                                 f"{list(y)!r:.40}, step {j + 1} of {k}: output sequences",
                    f"more than {format_size(limit)} (extending {format_size(held)} partial "
                    f"sequences)", limit, ", or compose fewer steps (or steps with fewer "
                                          "outputs)")


def leaves_loss(leaves: Leaves, max_values: int = DEFAULT_MAX_VALUES) -> LossDistribution:
    """The exact :class:`LossDistribution` of the leaves (integers over common scales)."""
    if len(leaves.ratios) > max_values:
        raise too_many_values(len(leaves.ratios), max_values)
    ps = [pq[0] for pq in leaves.ratios.values()]
    qs = [pq[1] for pq in leaves.ratios.values()]
    # P's scale covers P[L = +∞] too, Q's the Q-mass where P vanishes
    lp = _denominator_lcm([*ps, leaves.infinite])
    lq = _denominator_lcm([*qs, leaves.vanishing])
    atoms = tuple((r, mpz((pq[0] * lp).numerator), mpz((pq[1] * lq).numerator))
                  for r, pq in sorted(leaves.ratios.items()))
    return LossDistribution(atoms, mpz((leaves.infinite * lp).numerator),
                            mpz((leaves.vanishing * lq).numerator), mpz(lp), mpz(lq))


def too_many_values(size: int, limit: int) -> BudgetExceeded:
    return exceeded("loss_values", "composition: distinct privacy-loss values",
                    format_size(size), limit,
                    ", or ask for a certified enclosure (enclosure = \"auto\")")


def adaptive_loss(steps: Sequence[Step], x: tuple, y: tuple, budget: Budget | None = None,
                  max_values: int | None = None) -> LossDistribution:
    """The exact privacy loss of the adaptive composition on ``x`` against ``y``."""
    budget = budget or Budget()
    return leaves_loss(adaptive_leaves(steps, x, y, budget),
                       budget.max_loss_values if max_values is None else max_values)


def _case(steps: Sequence[Step], x: tuple, y: tuple, relation: Relation, budget: Budget,
          max_values: int | None) -> Case:
    loss = adaptive_loss(steps, x, y, budget, max_values)
    key = "inputs" if relation.inputs else "databases"
    return Case({"relation": relation.name, key: [list(x), list(y)],
                 **repetition([s.name for s in steps], "steps")}, loss.privacy_loss())


def compose_adaptive(steps: Sequence[Step | Mechanism], relation: Relation,
                     epsilon: object = "0", delta: object = "0", budget: Budget | None = None,
                     max_values: int | None = None,
                     progress: Callable[[int, int], None] | None = None) -> NotionResult:
    """Decide (ε, δ)-DP of the adaptive composition of ``steps`` under ``relation``,
    exactly: the worst pair's loss over the output tree (a :class:`Mechanism` is a step
    that ignores the earlier outputs); ``progress(done, total)`` counts the pairs.

    >>> from verifier.model.mechanisms import randomized_response
    >>> from verifier.notions.dp.neighbours import replace_one
    >>> rr = randomized_response("3/4", [0, 1])
    >>> rr((0,))  # randomized response releases the tuple of reported records
    Dist({(0,): 3/4, (1,): 1/4})
    >>> again = adaptive_step(lambda x, h: rr(x) if h == ((1,),) else Dist.point("skip"))
    >>> r = compose_adaptive([rr, again], replace_one([0, 1], 1), "ln(2)", "1/4")
    >>> str(r.delta), str(r.epsilon), r.holds
    ('7/16', 'ln(5)', False)
    """
    eps = parse_epsilon(epsilon)
    d = probability(delta, "delta")
    parts = [s if isinstance(s, Step) else step_of(s) for s in steps]
    if not parts:
        raise InvalidArgument("compose_adaptive needs at least one step", argument="steps",
                              value=[])
    budget = budget or Budget()
    cases = (_case(parts, x, y, relation, budget, max_values)
             for x, y in pair_progress(relation_pairs(relation, budget), progress))
    return summarize("dp", cases, eps, d)

