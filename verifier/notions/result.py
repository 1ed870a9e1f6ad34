"""What a check reports: tight δ at the claimed ε, tight ε at the claimed δ, the verdict, a witness.

Every notion (DP, APK, PPK, noiseless) reduces to a family of *cases*, each with its own
privacy loss; the notion's δ(ε) is the largest δ over the cases and its tight ε the largest
tight ε (each δ is non-increasing in ε, so ``max_k δ_k(ε) ≤ δ`` iff ``ε ≥ max_k ε_k(δ)``).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import islice

from gmpy2 import mpq

from verifier.core.delta import Delta
from verifier.core.epsilon import Epsilon
from verifier.notions.loss import Loss, LossLaw

__all__ = ["Case", "NotionResult", "summarize", "MAX_WITNESS_OUTPUTS", "VACUOUS_NOTE"]

MAX_WITNESS_OUTPUTS = 100  # a witness lists at most this many outputs (and says how many)
VACUOUS_NOTE = ("vacuously: the compared values have probability 0 for every target, so no "
                "pair of them can occur and δ = 0")


@dataclass(frozen=True)
class Case:
    """One comparison: a label (which databases, index, values, background) and its loss.

    ``outputs`` yields ``(output, loss)`` on demand, to name the outputs of a witness.
    """

    label: Mapping[str, object]
    loss: LossLaw
    outputs: Callable[[], Iterable[tuple[Hashable, Loss]]] = lambda: ()
    count: int = 1  # the comparisons this case stands for (a worst over several)


@dataclass(frozen=True)
class NotionResult:
    """The exact answer for one notion.

    ``delta`` is the tight δ at the query's ε, ``epsilon`` the tight ε at the query's δ,
    ``holds`` whether (ε, δ) is satisfied, ``witness`` the case attaining ``delta`` and the
    outputs that contribute to it (those with loss > ε). ``details`` holds notion-specific
    rows (e.g. APK δ per background value).
    """

    notion: str
    query_epsilon: Epsilon
    query_delta: mpq
    delta: Delta
    epsilon: Epsilon
    holds: bool
    witness: Mapping[str, object]
    cases: int
    details: Sequence = field(default=())


def summarize(notion: str, cases: Iterable[Case], eps: Epsilon, delta: mpq,
              details: Sequence = ()) -> NotionResult:
    """Worst δ at ε and worst ε at δ over ``cases``, with the δ-attaining witness."""
    best_delta: Delta | None = None
    best_case: Case | None = None
    best_eps: Epsilon | None = None
    count = 0
    for case in cases:
        count += case.count
        d = case.loss.delta(eps)
        if best_delta is None or d.compare(best_delta) > 0:
            best_delta, best_case = d, case
        e = case.loss.epsilon(delta)
        if best_eps is None or e.compare(best_eps) > 0:
            best_eps = e
    if best_case is None or best_delta is None or best_eps is None:
        # nothing to compare (e.g. pairs naming only values the target never takes): the
        # claim holds vacuously, δ = 0 at every ε
        return NotionResult(notion, eps, delta, Delta.make(mpq(0), mpq(0), eps), Epsilon.ZERO,
                            True, {"note": VACUOUS_NOTE}, 0, details)
    contributing = islice(((o, loss) for o, loss in best_case.outputs() if loss.exceeds(eps)),
                          MAX_WITNESS_OUTPUTS + 1)
    listed = [(o, str(loss)) for o, loss in contributing]
    witness = dict(best_case.label)
    witness["outputs"] = listed[:MAX_WITNESS_OUTPUTS]
    if len(listed) > MAX_WITNESS_OUTPUTS:
        witness["outputs_truncated"] = True
    return NotionResult(notion, eps, delta, best_delta, best_eps,
                        best_delta.compare(delta) <= 0, witness, count, details)
