"""What ``plrv sweep`` applies beyond the spec: ``--p``, the records' prior, only where a
prior enters the notions and does not replace a family of data models."""

from __future__ import annotations

from verifier.notions.problem import CheckProblem

__all__ = ["refuse_p"]


def refuse_p(s: CheckProblem) -> None:
    """``--p`` replaces the records' prior by i.i.d. priors; refused where that has no effect
    (dp ranges over every database, whatever the prior) or would drop the spec's data models
    (a family's answer is its worst case over the models; one prior per p is not that)."""
    from verifier.core.errors import InvalidArgument

    if s.relation is not None:  # refused by threshold_sweep, naming the relation
        return
    if set(s.notions) <= {"dp"}:
        raise InvalidArgument("--p: plrv sweep does not apply --p to notions = [\"dp\"] (dp "
                              "ranges over every database; no prior enters it); remove it",
                              argument="--p")
    if isinstance(s.model, tuple):
        raise InvalidArgument("--p: plrv sweep does not apply --p to a spec with a family of "
                              "data models (data.models): one "
                              "i.i.d. prior per p would replace the family and drop its worst "
                              "case; remove it (or give one data.prior)", argument="--p")
