"""Deciding Θ-reducibility (thesis Definition 59) with certificates, also for every parameter.

Without parameters the exact joint tables decide it (:mod:`verifier.notions.partial.reducible`): a
bijection from a reference background to every other one, or a pair of backgrounds and the
output profiles with no partner.

With parameters, Θ is the family ``{θ_p : p admissible}`` and each output's profile
``(P[O | D(i)=t, ζ=B])_t`` is a vector of rational functions of ``p``:

* if the two backgrounds' multisets of profiles are equal **as rational functions** (every
  difference has numerator 0: sympy's canonical numerator/denominator form), the same
  bijection serves every ``p`` — provided no ``P[D(i)=t, ζ=B]`` vanishes at an admissible
  point, which z3 checks — and the mechanism is reducible for every ``p``;
* otherwise the distinct profile functions differ as functions, so they take distinct values
  at all but finitely many points: at a rational point where they are pairwise distinct the
  multisets evaluate to different multisets, and the spec at that point is **not** reducible.
  The exact engine re-checks that point and its witness is reported.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import sympy  # type: ignore[import-untyped]
from gmpy2 import mpq

from verifier.core.errors import SpecError, VerifierError
from verifier.core.numbers import format_rational
from verifier.engines.choice import joint_tables
from verifier.engines.joint import check_targets
from verifier.model.knowledge import Knowledge
from verifier.notions.partial.reducible import Bijection, certificate, match_profiles, profiles
from verifier.symbolic.instance import SymbolicSpec
from verifier.symbolic.parameters import Parameters
from verifier.symbolic.tables import SymTable, knowledges_of, symbolic_tables
from verifier.symbolic.validity import violation

__all__ = ["Certificate", "Reducibility", "decide_reducible"]

IDENTITY = ("identity of rational functions: for every t and O, P[O | t, B1] − P[φ(O) | t, B2] "
            "has numerator 0 (sympy)")


@dataclass(frozen=True)
class Certificate:
    """The bijections of one θ, ζ and target: from the first background to each other."""

    model: int
    knowledge: str
    target: int
    bijections: tuple[Bijection, ...]
    exceptional: tuple[mpq, ...] = ()  # points where a weight vanishes: decided exactly


@dataclass(frozen=True)
class Reducibility:
    """``reducible`` is True, False or None (unknown); ``certificates`` back True, ``witness``
    backs False (a pair of backgrounds at ``point`` with unmatched output profiles)."""

    reducible: bool | None
    method: str
    certificates: tuple[Certificate, ...] = ()
    witness: Mapping[str, Any] | None = None
    point: Mapping[str, mpq] = field(default_factory=dict)
    reason: str = ""

    def to_dict(self) -> dict:
        """This result as ``plrv reducible --json`` prints it."""
        from verifier.symbolic.serial import reducible_json

        return reducible_json(self)


def _targets(sym: SymbolicSpec, targets: Sequence[int] | None) -> tuple[int, ...]:
    return tuple(targets) if targets is not None else check_targets(sym.base.targets,
                                                                    sym.records)


def decide_reducible(sym: SymbolicSpec, knowledges: Sequence[Knowledge] | None = None,
                     targets: Sequence[int] | None = None) -> Reducibility:
    """Decide Definition 59 for the spec (for every admissible parameter value)."""
    if sym.base.model is None:  # no θ: nothing to compare, and nothing to call reducible
        raise SpecError("Θ-reducibility needs a data model: give prior, priors, or support "
                        "and weights", file=sym.path, key="data.prior")
    knows = tuple(knowledges) if knowledges is not None else knowledges_of(sym)
    idx = _targets(sym, targets)
    if not sym.parameters.items:
        return _exact(sym, sym.parameters.sample_point(), knows, idx, "exact joint tables")
    certs = []
    for table in symbolic_tables(sym, knows, idx):
        outcome = _symbolic_table(sym.parameters, table, knows[table.knowledge].name)
        if isinstance(outcome, Certificate):
            certs.append(outcome)
            continue
        if isinstance(outcome, str):
            return Reducibility(None, "symbolic profiles", reason=outcome)
        point = outcome
        found = _exact(sym, point, knows, idx, "exact joint tables")
        if found.reducible is False:
            return Reducibility(False, "the profile functions differ; at a point where they "
                                       "are pairwise distinct the exact engine finds no "
                                       "bijection", witness=found.witness, point=point)
        return Reducibility(None, "symbolic profiles",
                            reason="the profiles differ as functions, but the exact engine "
                                   "found bijections at the point tried")
    points = sorted({x for c in certs for x in c.exceptional})
    (name,) = sym.parameters.names if points else ("",)
    for x in points:
        found = _exact(sym, {name: x}, knows, idx, "exact joint tables")
        if found.reducible is not True:
            return Reducibility(found.reducible, f"at {name} = {format_rational(x)}, where a "
                                f"weight P[D(i)=t, ζ=B] vanishes: {found.method}",
                                witness=found.witness, point={name: x})
    method = IDENTITY if not points else \
        (f"{IDENTITY}, and at {', '.join(f'{name} = {format_rational(x)}' for x in points)}, "
         f"where a weight P[D(i)=t, ζ=B] vanishes, output profiles matched by the exact joint "
         f"tables")
    return Reducibility(True, method, tuple(certs))


def _exact(sym: SymbolicSpec, point: Mapping[str, mpq], knows: Sequence[Knowledge],
           idx: Sequence[int], method: str) -> Reducibility:
    spec = sym.at(point) if sym.parameters.items else sym.base
    models = spec.model if isinstance(spec.model, tuple) else (spec.model,)
    certs = []
    for k, model in enumerate(models):
        for know in knows:
            if model is None:
                raise SpecError("Θ-reducibility needs a data model: give prior, priors, or "
                                "support and weights", file=spec.path, key="data.prior")
            tables, _ = joint_tables(model, spec.mechanism, know, list(idx), spec.budget,
                                     spec.engine)
            for i in idx:
                jt = tables[i]
                bijections = certificate(jt)
                if bijections and bijections[-1].mapping is None:
                    b = bijections[-1]
                    first, second = profiles(jt, b.source), profiles(jt, b.target)
                    witness = {"model": k, "knowledge": know.name, "target": i,
                               "backgrounds": [b.source, b.target],
                               "unmatched": {"first": [(o, first[o]) for o in b.unmatched_source],
                                             "second": [(o, second[o])
                                                        for o in b.unmatched_target]}}
                    return Reducibility(False, f"{method}: the multisets of output profiles "
                                               f"differ", witness=witness, point=dict(point))
                certs.append(Certificate(k, know.name, i, tuple(bijections)))
    return Reducibility(True, f"{method}: output profiles matched", tuple(certs),
                        point=dict(point))


def _symbolic_profiles(table: SymTable, bg: Hashable) -> dict[Hashable, tuple]:
    ws = {t: table.w(t, bg) for t in table.values}
    outputs = table.outputs(bg)
    return {o: tuple(None if ws[t] == 0 else table.row(t, bg).get(o, table.zero) / ws[t]
                     for t in table.values) for o in outputs}


def _symbolic_table(params: Parameters, table: SymTable, know: str
                    ) -> Certificate | dict[str, mpq] | str:
    """A certificate valid for every parameter value, a point where the profiles separate
    (to be checked exactly), or why neither was found."""
    backgrounds = table.backgrounds()
    if not backgrounds:
        return Certificate(table.model, know, table.target, ())
    exceptional: set[mpq] = set()
    for t in table.values:
        for bg in backgrounds:
            w = table.w(t, bg)
            if w != 0 and not (w.numer.is_ground and w.denom.is_ground):
                found = violation(params, w, strict=True)
                if isinstance(found, dict):
                    roots = _rational_zeros(params, w)
                    if roots is None:
                        return (f"P[D(i)={t}, ζ={bg}] vanishes at an admissible point "
                                f"({', '.join(f'{k} = {v}' for k, v in found.items())}); "
                                f"the profiles are not defined there as rational functions")
                    exceptional |= roots
                if isinstance(found, str):
                    return f"cannot check that P[D(i)={t}, ζ={bg}] > 0: {found}"
    first = backgrounds[0]
    reference = _symbolic_profiles(table, first)
    bijections = []
    for bg in backgrounds[1:]:
        other = _symbolic_profiles(table, bg)
        b = match_profiles(first, bg, reference, other)
        if b.mapping is None:
            return _separating_point(params, list(reference.values()) + list(other.values()))
        bijections.append(b)
    return Certificate(table.model, know, table.target, tuple(bijections),
                       tuple(sorted(exceptional)))


def _rational_zeros(params: Parameters, w: Any) -> set[mpq] | None:
    """The admissible points where the weight ``w`` of one parameter vanishes or is undefined,
    when they are finitely many and all rational (then the exact engine decides each): the
    roots of the linear factors over Q of its numerator and denominator. None otherwise
    (several parameters, or a factor of higher degree with a real root, counted exactly by
    Sturm sequences)."""
    if len(params.items) != 1:
        return None
    (p,) = params.items
    x = params.symbols[p.name]
    out: set[mpq] = set()
    for poly in (w.numer, w.denom):
        f = sympy.Poly(poly.as_expr(), x)
        if f.is_zero:
            return None
        for factor, _ in f.factor_list()[1]:
            if factor.degree() == 1:
                a, b = factor.all_coeffs()
                root = sympy.Rational(-b, a)
                q = mpq(int(root.p), int(root.q))
                if p.admits(q):
                    out.add(q)
            elif factor.count_roots() > 0:
                return None
    return out


def _separating_point(params: Parameters, vectors: list[tuple]) -> dict[str, mpq] | str:
    """A rational admissible point where the distinct profile vectors stay distinct."""
    distinct = list(dict.fromkeys(vectors))
    base = params.sample_point()
    for k in range(1, 40):
        point = {n: v + mpq(k, 101) * (j + 1) * (-1) ** k for j, (n, v) in
                 enumerate(base.items())}
        if k == 1:
            point = base
        if not all(p.admits(point[p.name]) for p in params.items):
            continue
        try:
            values = [tuple(None if x is None else params.value(x, point) for x in v)
                      for v in distinct]
        except VerifierError:
            continue
        if len(set(values)) == len(values):
            return point
    return "no rational point tried separates the profile functions"
