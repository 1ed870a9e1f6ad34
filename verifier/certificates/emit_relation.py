"""Certificates of classical DP under a neighbouring relation (``[input]``, ``[neighbours]``).

The normalised spec gains ``neighbours``: the relation's name and what defines it — the
``distance`` and the ``inputs`` of ``linf`` / ``l1``, the listed ``pairs`` (both
directions), the ``inputs`` of a predicate ``"module:function"``; ``replace-one`` and
``add-remove-one`` range over the databases of ``values`` and ``records``. The evidence
``dp_relation`` lists every ordered pair ``x ~ y`` compared and the output law of every
input in a pair; δ at ε is (seed 003, Lemma 1)::

    δ(ε) = max_{x ~ y} Σ_O max(0, P[M(x)=O] − e^ε·P[M(y)=O])

The independent checker re-derives the pairs wherever the relation is not user code
(:mod:`verifier.kernel.relation`).
"""

from __future__ import annotations

from gmpy2 import mpq

from verifier.certificates.encode import delta_json, encode, number
from verifier.core.budget import Budget
from verifier.core.delta import Delta
from verifier.core.epsilon import Epsilon
from verifier.core.errors import BudgetExceeded
from verifier.model.mechanisms import Mechanism
from verifier.notions.dp.neighbours import Relation, relation_pairs
from verifier.notions.loss import output_losses

__all__ = ["relation_json", "relation_evidence", "relation_witness"]

DATABASE_RELATIONS = ("replace-one", "add-remove-one")


def relation_json(relation: Relation) -> dict:
    """What defines the relation, written out (the spec's ``neighbours``)."""
    out: dict = {"relation": relation.name}
    if relation.name in DATABASE_RELATIONS:
        return out
    if relation.distance is not None:
        out["distance"] = relation.distance
    if relation.name == "pairs":
        out["pairs"] = [[encode(x), encode(y)] for x, y in relation.pairs]
    else:
        out["inputs"] = [encode(x) for x in relation.inputs]
    return out


def relation_evidence(mech: Mechanism, relation: Relation, max_cells: int,
                      budget: Budget | None = None) -> dict:
    """Every ordered pair ``x ~ y`` and the output law of every input in a pair; beyond
    ``max_cells`` pairs and law cells together, :class:`BudgetExceeded`."""
    cells = 0
    pairs: list[list] = []
    laws: dict[tuple, list] = {}

    def spend(k: int) -> None:
        nonlocal cells
        cells += k
        if cells > max_cells:
            raise BudgetExceeded(f"certificate: the pairs and output laws of relation "
                                 f"{relation.name} have more than {max_cells} cells; certify "
                                 f"a smaller spec")

    for x, y in relation_pairs(relation, budget):
        spend(1)
        pairs.append([encode(x), encode(y)])
        for z in (x, y):
            if z not in laws:
                law = mech(z)
                spend(len(law))
                laws[z] = [[encode(o), number(w)] for o, w in law.items()]
    return {"pairs": pairs,
            "laws": [{"input": encode(z), "law": law} for z, law in laws.items()]}


def relation_witness(mech: Mechanism, label, eps: Epsilon) -> dict:
    """The pair attaining δ: the outputs whose loss exceeds ε and their two masses."""
    key = "databases" if "databases" in label else "inputs"
    x, y = (tuple(z) for z in label[key])
    p, q = mech(x), mech(y)
    s = [o for o, _, _, loss in output_losses(p, q) if loss.exceeds(eps)]
    p_a = sum((p[o] for o in s if o in p), mpq(0))
    p_b = sum((q[o] for o in s if o in q), mpq(0))
    return {"inputs": [encode(x), encode(y)], "outputs": [encode(o) for o in s],
            "p_a": number(p_a), "p_b": number(p_b),
            "delta": delta_json(Delta.make(p_a, p_b, eps))}
