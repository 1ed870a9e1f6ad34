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

from verifier.core.certified import compare_exp
from verifier.core.delta import Delta
from verifier.core.epsilon import Epsilon
from verifier.notions.loss import Loss, LossKind, LossLaw

__all__ = ["Case", "NotionResult", "Summary", "summarize", "MAX_WITNESS_OUTPUTS", "VACUOUS_NOTE"]

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
    laws: tuple | None = None  # (P, Q): the two output laws, where a DP case has them


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


def _listed(case: Case, keep: Callable[[Loss], bool]) -> dict:
    """``case``'s label with the outputs whose loss ``keep`` selects (at most
    :data:`MAX_WITNESS_OUTPUTS`, and a flag when there are more)."""
    chosen = islice(((o, loss) for o, loss in case.outputs() if keep(loss)),
                    MAX_WITNESS_OUTPUTS + 1)
    listed = [(o, str(loss)) for o, loss in chosen]
    witness = dict(case.label)
    witness["outputs"] = listed[:MAX_WITNESS_OUTPUTS]
    if len(listed) > MAX_WITNESS_OUTPUTS:
        witness["outputs_truncated"] = True
    return witness


@dataclass(frozen=True)
class _Fixed:
    """The outputs of a witness, computed already (picklable, unlike a closure)."""

    outputs: tuple

    def __call__(self) -> Iterable[tuple[Hashable, Loss]]:
        return iter(self.outputs)


@dataclass
class Summary:
    """The running worst over an enumeration of cases, mergeable in enumeration order.

    ``worst_delta`` is the largest δ at ε seen and ``delta_case`` the first case attaining it;
    ``worst_epsilon`` the largest tight ε at δ and ``epsilon_case`` the first case attaining
    it. Ties keep the earlier case, so the summaries of consecutive runs of one enumeration,
    merged in order (:meth:`merge`), are the summary of the whole: a sharded enumeration
    reports the serial run's numbers and witness.
    """

    eps: Epsilon
    delta: mpq
    count: int = 0
    worst_delta: Delta | None = None
    delta_case: Case | None = None
    worst_epsilon: Epsilon | None = None
    epsilon_case: Case | None = None

    def add(self, case: Case) -> None:
        self.count += case.count
        d = case.loss.delta(self.eps)
        if self.worst_delta is None or d.compare(self.worst_delta) > 0:
            self.worst_delta, self.delta_case = d, case
        e = case.loss.epsilon(self.delta)
        if self.worst_epsilon is None or e.compare(self.worst_epsilon) > 0:
            self.worst_epsilon, self.epsilon_case = e, case

    def merge(self, later: Summary) -> None:
        """Fold in the summary of the cases enumerated after this one's."""
        self.count += later.count
        if later.worst_delta is not None and (
                self.worst_delta is None or later.worst_delta.compare(self.worst_delta) > 0):
            self.worst_delta, self.delta_case = later.worst_delta, later.delta_case
        if later.worst_epsilon is not None and (
                self.worst_epsilon is None
                or later.worst_epsilon.compare(self.worst_epsilon) > 0):
            self.worst_epsilon, self.epsilon_case = later.worst_epsilon, later.epsilon_case

    def portable(self) -> Summary:
        """The same summary with its witnesses' outputs computed (for a shard to return):
        the outputs above ε of the δ-attaining case, those reaching the tight ε of the
        ε-attaining one — the lists :meth:`result` shows, whichever way the claim goes."""
        def fixed(case: Case | None, keep: Callable[[Loss], bool]) -> Case | None:
            if case is None:
                return None
            outs = islice((x for x in case.outputs() if keep(x[1])), MAX_WITNESS_OUTPUTS + 1)
            return Case(case.label, case.loss, _Fixed(tuple(outs)), case.count)

        return Summary(self.eps, self.delta, self.count, self.worst_delta,
                       fixed(self.delta_case, lambda x: x.exceeds(self.eps)),
                       self.worst_epsilon, fixed(self.epsilon_case, self._reaches))

    def _reaches(self, loss: Loss) -> bool:
        """Whether ``loss`` is at least the tight ε (an output where the worst case is
        reached); none is when the tight ε is 0 (every ratio is at most 1 there)."""
        e = self.worst_epsilon
        if e is None or e.is_zero:
            return False
        if loss.kind is LossKind.PLUS_INF:
            return True
        if loss.kind is not LossKind.FINITE or e.infinite:
            return False
        assert loss.ratio is not None  # a finite loss carries its ratio
        return compare_exp(loss.ratio, e) >= 0

    def result(self, notion: str, details: Sequence = ()) -> NotionResult:
        """The notion's answer. A claim that fails has for witness the first case whose δ
        at ε is the worst, with its outputs of loss > ε; a claim that holds has for worst
        case the first case whose tight ε is the worst, with its outputs of loss ≥ that ε."""
        eps, delta = self.eps, self.delta
        if self.worst_delta is None or self.worst_epsilon is None:
            # nothing to compare (e.g. pairs naming only values the target never takes): the
            # claim holds vacuously, δ = 0 at every ε
            return NotionResult(notion, eps, delta, Delta.make(mpq(0), mpq(0), eps),
                                Epsilon.ZERO, True, {"note": VACUOUS_NOTE}, 0, details)
        holds = self.worst_delta.compare(delta) <= 0
        if holds:
            assert self.epsilon_case is not None
            witness = _listed(self.epsilon_case, self._reaches)
        else:
            assert self.delta_case is not None
            witness = _listed(self.delta_case, lambda loss: loss.exceeds(eps))
        return NotionResult(notion, eps, delta, self.worst_delta, self.worst_epsilon, holds,
                            witness, self.count, details)


def summarize(notion: str, cases: Iterable[Case], eps: Epsilon, delta: mpq,
              details: Sequence = ()) -> NotionResult:
    """Worst δ at ε and worst ε at δ over ``cases``, with the witness (a claim that fails)
    or the worst case (a claim that holds): see :meth:`Summary.result`."""
    summary = Summary(eps, delta)
    for case in cases:
        summary.add(case)
    return summary.result(notion, details)
