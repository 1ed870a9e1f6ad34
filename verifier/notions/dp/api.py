"""``check_dp``: (ε, δ)-DP of any mechanism plrv reads, under a neighbouring relation — the
one entry point the Python API and the pytest plugin's ``assert_dp`` share, so both take the
same arguments ``(mech, relation, epsilon, delta="0", budget=…, engine=…)``.

The tight δ at ε is (seed 003, Lemma 1; REFERENCE.md §3)::

    δ(ε) = max_{x ~ y} Σ_O max(0, P[M(x)=O] − e^ε·P[M(y)=O])

over the ordered pairs of the relation; the tight ε at δ is the largest tight ε over them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from verifier.core.budget import Budget
from verifier.core.epsilon import parse_epsilon
from verifier.core.errors import InvalidArgument
from verifier.core.numbers import probability
from verifier.model.expnoise import ExpNoise
from verifier.model.expnoise_zoo import NoisyChoice
from verifier.model.program_mechanism import as_mechanism
from verifier.notions.composition.exact import compose_mechanisms
from verifier.notions.dp.brute import dp_summary
from verifier.notions.dp.neighbours import Relation, check_relation
from verifier.notions.dp.noise_check import check_noise_dp
from verifier.notions.dp.noise_zoo import check_choice_dp

__all__ = ["check_dp"]


def check_dp(mech: Any, relation: Relation, epsilon: object = None, delta: object = "0",
             budget: Budget | None = None, engine: str = "auto", *,
             records: object = None) -> Any:
    """Decide (ε, δ)-DP of ``mech`` under ``relation``, exactly (seed 003, Lemma 1).

    ``mech`` is a :class:`~verifier.model.mechanisms.Mechanism` or a function of the database
    (read as a program, :func:`~verifier.model.program_mechanism.as_mechanism`), a list of
    them (their independent composition), an exact noise law
    (:func:`~verifier.model.expnoise.discrete_laplace`, …: ``sum(records) + noise`` under
    replace-one) or a noisy choice over query vectors
    (:func:`~verifier.model.expnoise_zoo.noisy_max`, …). ``relation`` is a
    :class:`~verifier.notions.dp.neighbours.Relation` (``replace_one(values, records)``,
    ``add_remove_one``, ``vector_relation``, …).

    The claim is required: ``epsilon`` always (a check of no ε would be a check of ε = 0),
    ``delta`` defaults to 0 — ε-DP, as the notation means. Whatever the claim, the result
    carries the tight values: ``result.delta`` is the least δ at the claimed ε and
    ``result.epsilon`` the least ε at the claimed δ. ``engine`` (``"auto"``, ``"brute"``,
    ``"counts"``) applies to a single mechanism; given for another it is refused.

    The form ``check_dp(mech, values, records, …)`` of earlier releases is refused with the
    call to write instead: ``check_dp(mech, replace_one(values, records), …)``.

    >>> from verifier.model.mechanisms import randomized_response
    >>> from verifier.notions.dp.neighbours import replace_one
    >>> r = check_dp(randomized_response("3/4", [0, 1]), replace_one([0, 1], 2), "ln(2)", "1/4")
    >>> str(r.delta), str(r.epsilon), r.holds
    ('1/4', 'ln(2)', True)
    """
    if not isinstance(relation, Relation) or records is not None:
        raise InvalidArgument(_old_form(relation, records, epsilon), argument="relation",
                              value=relation)
    if epsilon is None:
        raise InvalidArgument(
            "check_dp: epsilon is required — the claim checked is (ε, δ)-DP, δ = 0 unless "
            "given; the result's .epsilon is the tight ε at that δ and .delta the tight δ at "
            "ε, whatever the claim", argument="epsilon", value=None)
    eps, d = parse_epsilon(epsilon), probability(delta, "delta")
    if isinstance(mech, (list, tuple, ExpNoise, NoisyChoice)) and engine != "auto":
        raise InvalidArgument(f"engine = {engine!r} applies to a single mechanism, not to "
                              f"{_kind(mech)}: leave it out", argument="engine", value=engine)
    if isinstance(mech, NoisyChoice):
        return check_choice_dp(mech, relation, eps, d, budget)
    if isinstance(mech, ExpNoise):
        if relation.name != "replace-one":
            raise InvalidArgument(f"a noise law is checked as sum + noise under replace-one, "
                                  f"not {relation.name!r}", argument="relation",
                                  value=relation.name)
        return check_noise_dp(mech, list(relation.values), relation.records, eps, d)
    if isinstance(mech, (list, tuple)):
        return compose_mechanisms(list(mech), relation, eps, d, budget)
    if relation.name == "replace-one":  # sharded over a parallel executor, when there is one
        return dp_summary(as_mechanism(mech), relation.values, relation.records, eps, d,
                          budget, engine).result("dp")
    return check_relation(mech, relation, eps, d, budget, engine)


def _kind(mech: object) -> str:
    if isinstance(mech, (list, tuple)):
        return "a composition (a list of mechanisms)"
    return "a noise law" if isinstance(mech, ExpNoise) else "a noisy choice"


def _old_form(relation: object, records: object, epsilon: object) -> str:
    if isinstance(relation, Relation):  # records= beside a relation
        return (f"check_dp: records = {records!r} is not an argument beside a relation; the "
                f"relation carries the records: replace_one(values, records)")
    if isinstance(relation, Sequence) and not isinstance(relation, str):
        if records is None:  # check_dp(mech, values, n, …): the records came in as epsilon
            records = epsilon if isinstance(epsilon, int) else "records"
        return (f"check_dp(mech, values, records, …) is the form of earlier releases; write "
                f"check_dp(mech, replace_one({_short(list(relation))}, {records}), epsilon, "
                f"delta)")
    return (f"check_dp(mech, relation, epsilon, delta): relation = {_short(relation)} is not "
            f"a Relation; make one with replace_one(values, records), add_remove_one(values, "
            f"records) or vector_relation(…)")


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
