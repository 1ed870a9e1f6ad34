"""``plrv compose SPEC --k K``: the exact (ε, δ) of K independent runs of a spec's mechanism.

The spec is a check spec with ``notions = ["dp"]``; its neighbouring relation
(``[neighbours]``, default replace-one) and its claim (ε, δ) are those of the composition.
With ``--accounting`` each line also gives dp_accounting's pessimistic δ at ε and the
difference (:mod:`verifier.interop.accounting`).
"""

from __future__ import annotations

from pathlib import Path

from verifier.core.errors import InvalidArgument
from verifier.io.spec import load_spec
from verifier.notions.composition import compose_mechanisms
from verifier.notions.neighbours import Relation, replace_one

__all__ = ["compose_spec"]


def compose_spec(path: Path, k: int, accounting: bool = False,
                 interval: str = "1/10000") -> tuple[dict, bool]:
    """``(result, holds)``: the exact tight δ at the claimed ε and tight ε at the claimed δ of
    ``k`` runs of the spec's mechanism, as strings (with the accountant's δ when asked)."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InvalidArgument(f"--k {k!r} is not a positive integer", argument="k", value=k)
    s = load_spec(path)
    if s.notions != ("dp",):
        raise InvalidArgument(f"notions = {list(s.notions)!r}: plrv compose composes dp; "
                              f'write notions = ["dp"]', argument="notions",
                              value=list(s.notions))
    relation: Relation = s.relation or replace_one(s.values, s.records)
    r = compose_mechanisms([s.mechanism] * k, relation, s.epsilon, s.delta, s.budget)
    out: dict = {"k": k, "relation": relation.name, "epsilon": str(r.query_epsilon),
                 "delta": str(r.query_delta), "tight_delta": str(r.delta),
                 "tight_epsilon": str(r.epsilon), "holds": r.holds,
                 "approx": {"tight_delta": r.delta.approx(), "tight_epsilon": r.epsilon.approx()}}
    if accounting:
        from verifier.interop.accounting import compare_composition
        c = compare_composition(s.mechanism, relation, k, s.epsilon, interval, s.budget)
        out["accountant"] = {"delta": str(c.accountant), "interval": str(c.interval),
                             "difference": None if c.difference is None else str(c.difference)}
    return out, r.holds
