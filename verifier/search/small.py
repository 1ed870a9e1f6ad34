"""Small concrete instances given as tables, for conjectures and their counterexamples.

An :class:`Instance` holds everything as explicit exact tables, so that every shape the seed
lemmas cover fits: θ a joint distribution over databases (correlated records included), M a
table ``D ↦ law of outputs``, ζ a table ``D ↦ law of background values`` (randomized
background knowledge included), one target and ``E = e^ε`` rational. Its δs are computed by
the exact engine (:func:`verifier.notions.check.check_partial`).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from functools import cached_property

from gmpy2 import mpq

from verifier.core.distribution import Dist, sort_key
from verifier.core.epsilon import Epsilon
from verifier.core.numbers import counted, format_rational
from verifier.model.data import explicit
from verifier.model.knowledge import knowledge
from verifier.model.mechanisms import mechanism
from verifier.notions.check import check_partial

__all__ = ["Instance", "law", "NOTIONS"]

NOTIONS = ("apkdp", "ppkdp", "noiseless")
Law = tuple[tuple[Hashable, mpq], ...]  # a distribution as sorted (outcome, probability) pairs


def law(items: Mapping[Hashable, object] | Dist) -> Law:
    """A canonical, hashable distribution: positive probabilities, sorted outcomes."""
    pairs = items.items() if isinstance(items, Dist) else items.items()
    d = Dist({k: v for k, v in pairs})
    return tuple((o, d[o]) for o in sorted(d.support, key=sort_key))


@dataclass(frozen=True)
class Instance:
    """θ, M, ζ, a target and ``E``, as exact tables (see the module docstring)."""

    values: tuple
    n: int
    prior: Law                       # over database tuples
    mechanism: tuple[tuple[tuple, Law], ...]   # (database, law of outputs)
    knowledge: tuple[tuple[tuple, Law], ...]   # (database, law of background values)
    target: int
    rate: mpq = mpq(1)
    label: str = field(default="", compare=False)

    @cached_property
    def deltas(self) -> dict[str, mpq]:
        """The exact tight δs at ε = ln(rate): ``apk``, ``ppk``, ``noiseless``."""
        mech_t, know_t = dict(self.mechanism), dict(self.knowledge)
        mech = mechanism(lambda db: Dist(dict(mech_t[db])), "table")
        know = knowledge(lambda db: Dist(dict(know_t[db])), "table")
        model = explicit(Dist(dict(self.prior)), self.values)
        report = check_partial(mech, model, knowledge=know, targets=self.target,
                               epsilon=Epsilon.log(self.rate), notions=list(NOTIONS))
        r = report.results
        return {"apk": r["apkdp"].delta.value, "ppk": r["ppkdp"].delta.value,
                "noiseless": r["noiseless"].delta.value}

    def outputs(self) -> set:
        return {o for _, row in self.mechanism for o, _ in row}

    def backgrounds(self) -> set:
        return {b for _, row in self.knowledge for b, _ in row}

    def probabilities(self):
        yield from (p for _, p in self.prior)
        for table in (self.mechanism, self.knowledge):
            for _, row in table:
                yield from (p for _, p in row)

    def size(self) -> tuple:
        """What minimisation lowers, in order: records, values, outputs, background values,
        then the largest and the total denominator."""
        dens = [int(p.denominator) for p in self.probabilities()]
        return (self.n, len(self.values), len(self.outputs()), len(self.backgrounds()),
                max(dens), sum(dens))

    def describe(self) -> str:
        def show(row: Law) -> str:
            return "{" + ", ".join(f"{o!r}: {format_rational(p)}" for o, p in row) + "}"
        lines = [f"{counted(self.n, 'record')} over {list(self.values)}, target {self.target}, "
                 f"ε = ln({format_rational(self.rate)})" + (f" ({self.label})" if self.label
                                                            else "")]
        lines.append("θ: " + show(self.prior))
        lines += [f"M{list(db)} = {show(row)}" for db, row in self.mechanism
                  if any(d == db for d, _ in self.prior)]
        lines += [f"ζ{list(db)} = {show(row)}" for db, row in self.knowledge
                  if any(d == db for d, _ in self.prior)]
        return "\n".join(lines)

    def as_dict(self) -> dict:
        return {"values": list(self.values), "records": self.n, "target": self.target,
                "epsilon": f"ln({format_rational(self.rate)})", "label": self.label,
                "prior": [[db, p] for db, p in self.prior],
                "mechanism": [[list(db), [[o, p] for o, p in row]]
                              for db, row in self.mechanism],
                "knowledge": [[list(db), [[b, p] for b, p in row]]
                              for db, row in self.knowledge]}
