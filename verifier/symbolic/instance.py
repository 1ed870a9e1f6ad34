"""A spec with symbolic parameters: exact rational functions for θ and M, exact specs at points.

A spec file may declare ``[parameters]`` (see :mod:`verifier.symbolic.parameters`) and then
write priors (``data.prior``, ``data.priors``, ``data.weights``) and the mechanism parameters
``truth`` and ``alpha`` as expressions in them (``prior = ["1 - p", "p"]``, ``truth = "t"``).
Every other key is read by the ordinary spec reader (given as ``reader``:
:mod:`verifier.specs.symbolic` passes :func:`verifier.specs.check.parse_spec`) exactly as in a
concrete spec: the symbolic spec is checked by reading the concrete spec at a sample point,
and the spec at any admissible point is that table with the expressions evaluated exactly
(``at``), which is what the exact engine re-checks witnesses on.

Validity (each prior and each mechanism row a distribution for every admissible value) is
decided symbolically: sums are identities of rational functions, and a point where an entry
is negative or undefined is searched by z3; such a point is reported with the key.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from itertools import product
from typing import Any

from gmpy2 import mpq

from verifier.core.errors import SpecError, VerifierError
from verifier.core.numbers import format_rational, rational
from verifier.model.kernels import geometric_clamped_weights, randomized_response_weights
from verifier.notions.problem import CheckProblem
from verifier.symbolic.expressions import parse_expression
from verifier.symbolic.parameters import Parameters, read_parameters

__all__ = ["SymbolicSpec", "build_symbolic", "SYMBOLIC_KEYS"]

SYMBOLIC_KEYS = ("data.prior", "data.priors", "data.weights", "mechanism.truth",
                 "mechanism.alpha")

Element = Any  # an element of the parameters' field of rational functions
Kernel = Callable[[tuple], dict[Hashable, Element]]


@dataclass(frozen=True, eq=False)
class SymbolicSpec:
    """A spec whose probabilities are rational functions of the declared parameters.

    ``models[k]`` maps every database of θ_k with non-zero probability to it; ``kernel(D)``
    maps outputs to ``P[M(D) = O]``; ``base`` is the concrete spec at the sample point (its
    knowledge, targets, pairs, ε, δ and notions do not depend on the parameters).
    """

    path: str | None
    parameters: Parameters
    base: CheckProblem
    models: tuple[dict[tuple, Element], ...]
    kernel: Kernel
    symbolic_mechanism: bool
    expressions: Mapping[tuple, Element]
    raw: Mapping
    reader: Callable[[Mapping], CheckProblem]  # a raw check spec -> its problem

    @property
    def values(self) -> tuple:
        return self.base.values

    @property
    def records(self) -> int:
        return self.base.records

    def at(self, point: Mapping[str, object]) -> CheckProblem:
        """The concrete spec at an admissible point, read by the ordinary spec reader."""
        exact = self.parameters.check_point(point)
        return self.reader(_substitute(self.raw, self.expressions, self.parameters, exact))


def _locations(raw: Mapping):
    """``(path, value)`` of every entry that may be an expression."""
    data, mech = raw.get("data", {}), raw.get("mechanism", {})
    if not isinstance(data, Mapping) or not isinstance(mech, Mapping):
        return
    for key in ("prior", "weights"):
        if isinstance(data.get(key), list):
            for j, v in enumerate(data[key]):
                yield ("data", key, j), v
    if isinstance(data.get("priors"), list):
        for j, row in enumerate(data["priors"]):
            if isinstance(row, list):
                for k, v in enumerate(row):
                    yield ("data", "priors", j, k), v
    for key in ("truth", "alpha"):
        if key in mech:
            yield ("mechanism", key), mech[key]


def _key(path: tuple) -> str:
    return path[0] + "." + path[1] + "".join(f"[{i}]" for i in path[2:])


def build_symbolic(raw: Mapping, reader: Callable[[Mapping], CheckProblem], *,
                   file: str | None = None) -> SymbolicSpec:
    """Check a spec with parameters (a spec without ``[parameters]`` is one with none);
    ``reader`` reads a concrete check spec (the spec at a point)."""
    def fail(key: str, message: str) -> SpecError:
        return SpecError(message, file=file, key=key)

    params = read_parameters(raw.get("parameters", {}), fail)
    body = {k: v for k, v in raw.items() if k != "parameters"}
    if "models" in body.get("data", {}) and params.items:
        raise fail("data.models", "a family of data models cannot be combined with "
                                  "[parameters]; give one model")
    expressions: dict[tuple, Element] = {}
    for path, value in _locations(body):
        if isinstance(value, str) and params.items:
            try:
                expressions[path] = params.element(rational(value, _key(path)))
            except VerifierError:
                try:
                    expr = parse_expression(value, params.symbols, _key(path))
                    expressions[path] = params.field.from_sympy(expr)
                except VerifierError as exc:
                    raise fail(_key(path), str(exc)) from None
    symbolic = {p for p, e in expressions.items() if not e.numer.is_ground}
    sample = params.sample_point()
    for path in sorted(symbolic):
        if expressions[path].denom.is_ground:
            continue
        try:
            params.value(expressions[path], sample)
        except VerifierError as exc:
            raise fail(_key(path), str(exc)) from None
    if params.items:
        from verifier.symbolic.validity import check_sums
        check_sums(params, body, expressions, fail)
    base = reader(_substitute(body, expressions, params, sample))
    models = _models(base, body, expressions, params)
    kernel, symbolic_mech = _kernel(base, expressions, params)
    out = SymbolicSpec(file, params, base, models, kernel, symbolic_mech, expressions, body,
                       reader)
    if params.items:
        from verifier.symbolic.validity import check_validity
        check_validity(out, fail)
    return out


def _substitute(body: Mapping, expressions: Mapping[tuple, Element], params: Parameters,
                point: Mapping[str, mpq]) -> dict:
    """A copy of the spec's tables with every expression replaced by its exact value."""
    out = {k: (dict(v) if isinstance(v, Mapping) else v) for k, v in body.items()}
    for path, element in expressions.items():
        table = out[path[0]]
        if len(path) == 2:
            table[path[1]] = format_rational(params.value(element, point))
            continue
        items = list(table[path[1]])
        if len(path) == 3:
            items[path[2]] = format_rational(params.value(element, point))
        else:
            row = list(items[path[2]])
            row[path[3]] = format_rational(params.value(element, point))
            items[path[2]] = row
        table[path[1]] = items
    return out


def _entry(expressions: Mapping[tuple, Element], params: Parameters, path: tuple,
           concrete: object) -> Element:
    if path in expressions:
        return expressions[path]
    return params.element(concrete)


def _models(base: CheckProblem, body: Mapping, expressions: Mapping[tuple, Element],
            params: Parameters
            ) -> tuple[dict[tuple, Element], ...]:
    """θ database by database, with the symbolic entries where the spec has them."""
    from verifier.model.data import ExplicitData, IndependentData
    models = base.model if isinstance(base.model, tuple) else (base.model,)
    out = []
    for model in models:
        if model is None:
            continue
        if isinstance(model, ExplicitData):  # weights listed in the spec's support order
            support = body["data"]["support"]
            weights: dict[tuple, Element] = {}
            for j, db in enumerate(support):
                w = _entry(expressions, params, ("data", "weights", j), body["data"]["weights"][j])
                weights[tuple(db)] = weights.get(tuple(db), params.field.zero) + w
            out.append({db: w for db, w in weights.items() if w != 0})
            continue
        assert isinstance(model, IndependentData)  # the reader builds no other model
        base.budget.require_power("databases", len(model.values), model.n,
                                  "the databases of θ, enumerated with symbolic weights")
        rows = []
        for j, prior in enumerate(model.priors):
            row = {}
            for k, v in enumerate(model.values):
                path = ("data", "prior", k) if ("data", "prior", k) in expressions else \
                    ("data", "priors", j, k)
                row[v] = _entry(expressions, params, path, prior[v])
            rows.append({v: w for v, w in row.items() if w != 0})
        table: dict[tuple, Element] = {}
        for db in product(*(list(r) for r in rows)):
            w = params.field.one
            for x, r in zip(db, rows, strict=True):
                w = w * r[x]
            table[db] = w
        out.append(table)
    return tuple(out)


def _kernel(base: CheckProblem, expressions: Mapping[tuple, Element], params: Parameters
            ) -> tuple[Kernel, bool]:
    """``D ↦ {O: P[M(D) = O]}``: the built-in formulas over the field when ``truth`` or
    ``alpha`` is symbolic, else the concrete mechanism (which no parameter changes)."""
    mech = base.mechanism
    values = base.values
    truth = expressions.get(("mechanism", "truth"))
    alpha = expressions.get(("mechanism", "alpha"))
    if mech.name == "randomized_response" and truth is not None and not truth.numer.is_ground:
        same, other = randomized_response_weights(truth, len(values))

        def rr(db: tuple) -> dict[Hashable, Element]:
            out: dict[Hashable, Element] = {}
            for reports in product(values, repeat=len(db)):
                w = params.field.one
                for x, y in zip(db, reports, strict=True):
                    w = w * (same if x == y else other)
                if w != 0:
                    out[reports] = w
            return out
        return rr, True
    if mech.name == "geometric_count" and alpha is not None and not alpha.numer.is_ground:
        counted = set(mech.params.get("counts", [1]))  # type: ignore[call-overload]

        def geometric(db: tuple) -> dict[Hashable, Element]:
            c = sum(1 for x in db if x in counted)
            return {o: w for o, w in geometric_clamped_weights(c, len(db), alpha).items()
                    if w != 0}
        return geometric, True

    def concrete(db: tuple) -> dict[Hashable, Element]:
        return {o: params.element(w) for o, w in mech(db).items()}
    return concrete, False
