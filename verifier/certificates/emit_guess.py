"""Certificates of ``plrv guess``: advantages, bounds and the verdict, with evidence.

The evidence (seed 004, "Defining guessing advantage", "Main theorem", "Simplification") is
written so that the independent checker (:mod:`verifier.kernel.guess`) can redo
it with ``Fraction``:

* the domain, the prior ``π``, the precisions and the goal's mode (AND / OR), the ε used per
  attribute (``ln(base)/scale``, or a number of nats);
* the mechanism's kind and exact parameters (the kernel recomputes the table of a built-in
  kind), and the kernel table ``M(z | x)`` for every value of the domain;
* per target: ``P[X ∈ g(x)]``, the best posterior ``max_z P[X ∈ g(x) | M(X) = z]`` with an
  output attaining it, the advantage, and the precise and simplified bounds — exact rationals
  when every ``e^{ε·d}`` involved is rational, else the decimal shown by ``plrv guess``;
* the best Bayesian guess before and after the output, whether ``M`` is ε·d-private at the ε
  used, and the verdict ``posterior ≤ precise ≤ simplified`` for every target.
"""

from __future__ import annotations

from pathlib import Path

from verifier.certificates.encode import (
    FORMAT,
    VERSION,
    encode,
    number,
    provenance,
    source_of,
)
from verifier.core.errors import BudgetExceeded
from verifier.guessing.bounds import Certified
from verifier.guessing.metric import ScaledLog
from verifier.guessing.report import GuessReport, guess_report

__all__ = ["certify_guess", "write_guess_certificate", "MAX_CELLS"]

MAX_CELLS = 200_000  # kernel probabilities written


def _epsilon(e: object) -> dict:
    if isinstance(e, ScaledLog):
        return {"infinite": True} if e.infinite else {"base": number(e.base), "scale": e.scale}
    return {"nats": number(e.nats)}  # type: ignore[attr-defined]


def _bound(c: Certified) -> object:
    v = c.value
    return number(v) if v is not None else {"approx": c.approx()}


def certify_guess(spec, max_cells: int = MAX_CELLS, source: object = None
                  ) -> tuple[GuessReport, dict]:
    """Run ``spec`` (a :class:`~verifier.specs.guess.GuessSpec`) and build its certificate
    (``source``: the spec file it was read from, named in the certificate)."""
    named = source_of(source)
    rep = guess_report(spec)
    m = spec.model
    kernel, cells = [], 0
    for x in m.domain:
        law = m.kernel(x)
        cells += len(law)
        if cells > max_cells:
            raise BudgetExceeded(f"certificate: the kernel table has more than {max_cells} "
                                 f"cells; certify a smaller spec")
        kernel.append([encode(x), [[encode(z), number(p)] for z, p in law.items()]])
    cert = {
        "format": FORMAT, "version": VERSION, "kind": "guess",
        "spec": {
            "domain": [encode(x) for x in m.domain],
            "prior": [number(m.prior[x]) for x in m.domain],
            "precisions": [number(r) for r in m.precisions],
            "mode": m.mode,
            "mechanism": {"kind": spec.mechanism,
                          "params": {k: number(v) for k, v in spec.mechanism_params}},
            "epsilon": [_epsilon(e) for e in rep.epsilon],
            "targets": [encode(x) for x in spec.targets],
        },
        "results": {
            "targets": [{"target": encode(r.target), "prior": number(r.prior),
                         "posterior": number(r.posterior), "output": encode(r.output),
                         "advantage": number(r.advantage), "precise": _bound(r.precise),
                         "simplified": _bound(r.simplified)} for r in rep.rows],
            "vulnerability": [number(v) for v in rep.vulnerability],
            "private_at_epsilon": rep.private_at_epsilon,
            "holds": rep.holds,
        },
        "evidence": {"kernel": kernel},
    }
    return rep, provenance(cert, named)


def write_guess_certificate(spec, path, source: object = None) -> GuessReport:
    """Run ``spec`` (read from the file ``source``), write its certificate to ``path`` (JSON)
    and return the report."""
    from verifier.reports.writers import write_certificate

    rep, cert = certify_guess(spec, source=source)
    write_certificate(cert, Path(path))
    return rep
