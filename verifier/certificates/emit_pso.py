"""Certificates of ``plrv pso``: the exact success, the baseline and the verdict, with evidence.

The evidence (seed 002, Definitions 3.3–3.5, Claim 3.1) is written so that the independent
checker (:mod:`verifier.kernel.pso`) can redo every sum with ``Fraction``:

* the universe ``X`` with the weights of ``D`` and the number of rows ``n``;
* every dataset — every sequence in ``supp(D)^n``, or every multiset for a symmetric mechanism —
  with its probability (``Π_j D(x_j)``, times ``n!/Π m_u!`` for a multiset; no lumping) and the
  mechanism's output law on it;
* the adversary's answer per output: predicates (or collections of predicates) with their
  probabilities;
* the success ``Σ_x P[x]·Σ_o P[M(x)=o]·Σ_p P[A(o)=p]·[p isolates a row of x, p admissible]``;
* the baseline ``B(n, w*) = n·w*·(1 − w*)^(n−1)`` with a predicate of the realizable weight
  ``w*``, and the claim ``success ≤ factor·baseline + slack`` with its verdict.
"""

from __future__ import annotations

from collections.abc import Hashable
from pathlib import Path

from gmpy2 import mpq

from verifier.certificates.encode import (
    FORMAT,
    VERSION,
    encode,
    number,
    provenance,
    source_of,
)
from verifier.core.errors import BudgetExceeded
from verifier.pso.datasets import class_count, lumping, weighted_datasets
from verifier.pso.predicates import Predicate
from verifier.pso.report import PSOReport, pso_report
from verifier.pso.success import _as_choices, as_budget

__all__ = ["certify_pso", "write_pso_certificate", "MAX_CELLS"]

MAX_CELLS = 200_000  # (dataset, output) probabilities written


def _members(universe, members) -> list:
    """A predicate's members in the universe's order."""
    return [encode(u) for u in universe.values if u in members]


def _params(universe, params) -> dict:
    """A built-in mechanism's parameters: predicates as their members, numbers exact."""
    out: dict = {}
    for name, v in params:
        if isinstance(v, Predicate):
            out[name] = _members(universe, v.members)
        elif isinstance(v, tuple):
            out[name] = [_members(universe, p.members) for p in v]
        else:
            out[name] = number(v) if isinstance(v, mpq) else v
    return out


def _choice_json(universe, choice: object) -> object:
    if isinstance(choice, tuple):
        return {"collection": [_members(universe, p.members) for p in choice]}
    assert isinstance(choice, Predicate)
    return _members(universe, choice.members)


def _answers(spec, rep: PSOReport, outputs: list[Hashable]) -> list:
    """``[output, [[predicate, probability], …]]`` for every output met."""
    out: list[list] = []
    for o in outputs:
        choices: list[list]
        if spec.adversary == "optimal":
            assert rep.strategy is not None
            choices = [[_members(spec.universe, rep.strategy.get(o, frozenset())), "1"]]
        else:
            choices = [[_choice_json(spec.universe, c), number(p)]
                       for c, p in _as_choices(spec.attack(o))]
        out.append([encode(o), choices])
    return out


def certify_pso(spec, progress=None, max_cells: int = MAX_CELLS, source: object = None
                ) -> tuple[PSOReport, dict]:
    """Run ``spec`` (a :class:`~verifier.specs.pso.PSOSpec`) and build its certificate
    (``source``: the spec file it was read from, named in the certificate)."""
    named = source_of(source)
    rep = pso_report(spec, progress)
    u, n, mech = spec.universe, spec.n, spec.mechanism
    lump = lumping(u)  # every value alone: the checker recomputes each probability
    class_count(lump, n, mech.symmetric, as_budget(spec.budget))
    scale = lump.denominator ** n
    datasets: list[dict] = []
    outputs: dict[Hashable, None] = {}  # in the order met
    cells = 0
    for rows, nx in weighted_datasets(lump, n, mech.symmetric):
        law = [[encode(o), number(p)] for o, p in mech.outputs(rows)]
        for o, _ in mech.outputs(rows):
            outputs.setdefault(o, None)
        cells += len(law)
        if cells > max_cells:
            raise BudgetExceeded(f"certificate: more than {max_cells} (dataset, output) "
                                 f"probabilities; certify a smaller spec")
        datasets.append({"rows": [encode(x) for x in rows], "probability": number(mpq(nx, scale)),
                         "law": law})
    adm = spec.admissible
    cert = {
        "format": FORMAT, "version": VERSION, "kind": "pso",
        "spec": {
            "universe": {"values": [encode(x) for x in u.values],
                         "weights": [number(u.dist[x]) for x in u.values]},
            "n": n,
            "mechanism": {"name": mech.name, "symmetric": mech.symmetric, "kind": mech.kind,
                          "params": _params(u, mech.params)},
            "adversary": spec.adversary,
            "admissible": {"at_most": None if adm.at_most is None else number(adm.at_most),
                           "at_least": None if adm.at_least is None else number(adm.at_least)},
            "factor": number(spec.factor), "slack": number(spec.slack),
        },
        "results": {
            "success": number(rep.success), "baseline": number(rep.baseline),
            "baseline_weight": None if rep.baseline_weight is None
            else number(rep.baseline_weight),
            "bound": number(rep.bound), "holds": rep.holds,
        },
        "evidence": {
            "datasets": datasets,
            "adversary": _answers(spec, rep, list(outputs)),
            "baseline_predicate": _members(u, rep.baseline_predicate),
        },
    }
    return rep, provenance(cert, named)


def write_pso_certificate(spec, path, progress=None, source: object = None) -> PSOReport:
    """Run ``spec`` (read from the file ``source``), write its certificate to ``path`` (JSON)
    and return the report."""
    from verifier.reports.writers import write_certificate

    rep, cert = certify_pso(spec, progress, source=source)
    write_certificate(cert, Path(path))
    return rep
