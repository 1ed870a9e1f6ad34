"""A spec with symbolic parameters: exact rational functions for θ and M, exact specs at points.

A spec file may declare ``[parameters]`` (see :mod:`verifier.symbolic.parameters`) and then
write priors (``data.prior``, ``data.priors``, ``data.weights``) and the mechanism parameters
``truth`` and ``alpha`` as expressions in them (``prior = ["1 - p", "p"]``, ``truth = "t"``).
Every other key is read by :func:`verifier.io.spec.parse_spec` exactly as in a concrete spec:
the symbolic spec is checked by reading the concrete spec at a sample point, and the spec at
any admissible point is that file with the expressions evaluated exactly (``at``), which is
what the exact engine re-checks witnesses on.

Validity (each prior and each mechanism row a distribution for every admissible value) is
decided symbolically: sums are identities of rational functions, and a point where an entry
is negative or undefined is searched by z3; such a point is reported with the key.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from itertools import product
from pathlib import Path
from typing import Any

from gmpy2 import mpq

from verifier.core.errors import SpecError, VerifierError
from verifier.core.numbers import format_rational, rational
from verifier.io.features import refuse_unsupported
from verifier.io.files import check_kind, read_toml
from verifier.io.spec import Spec, parse_spec
from verifier.model.kernels import geometric_clamped_weights, randomized_response_weights
from verifier.symbolic.expressions import parse_expression
from verifier.symbolic.parameters import Parameters, read_parameters

__all__ = ["SymbolicSpec", "load_symbolic", "parse_symbolic", "SYMBOLIC_KEYS"]

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
    base: Spec
    models: tuple[dict[tuple, Element], ...]
    kernel: Kernel
    symbolic_mechanism: bool
    expressions: Mapping[tuple, Element]
    raw: Mapping
    search_dir: Path | None

    @property
    def values(self) -> tuple:
        return self.base.values

    @property
    def records(self) -> int:
        return self.base.records

    def at(self, point: Mapping[str, object]) -> Spec:
        """The concrete spec at an admissible point, read by the ordinary spec reader."""
        exact = self.parameters.check_point(point)
        raw = _substitute(self.raw, self.expressions, self.parameters, exact)
        return parse_spec(raw, file=self.path, search_dir=self.search_dir)


def load_symbolic(path: str | Path, command: str = "prove") -> SymbolicSpec:
    """Read a spec file that may declare ``[parameters]``, for ``command`` (a spec meant for
    another command is named as such)."""
    raw = read_toml(path)
    check_kind(raw, command, str(path))
    refuse_unsupported(raw, command, str(path))
    return parse_symbolic(raw, file=str(path), search_dir=Path(path).resolve().parent)


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


def parse_symbolic(raw: Mapping, *, file: str | None = None,
                   search_dir: Path | None = None) -> SymbolicSpec:
    """Check a spec with parameters (a spec without ``[parameters]`` is one with none)."""
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
    base = parse_spec(_substitute(body, expressions, params, sample), file=file,
                      search_dir=search_dir)
    models = _models(base, body, expressions, params)
    kernel, symbolic_mech = _kernel(base, expressions, params)
    out = SymbolicSpec(file, params, base, models, kernel, symbolic_mech, expressions, body,
                       search_dir)
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


def _models(base: Spec, body: Mapping, expressions: Mapping[tuple, Element], params: Parameters
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
        assert isinstance(model, IndependentData)
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


def _kernel(base: Spec, expressions: Mapping[tuple, Element], params: Parameters
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


def spec_at(raw: Mapping, *, file: str | None = None, search_dir: Path | None = None,
            at: Mapping[str, object] | None = None) -> Spec:
    """The concrete spec of a spec with ``[parameters]`` at the point ``at`` (default: the
    sample point, see :meth:`verifier.symbolic.parameters.Parameter.sample`)."""
    sym = parse_symbolic(raw, file=file, search_dir=search_dir)
    return sym.at(at) if at is not None else sym.base


def point_note(path: str | Path, at: Mapping[str, object] | None) -> str | None:
    """What ``plrv check`` says about the point it checked a spec with parameters at (None
    for a spec without parameters)."""
    raw = read_toml(path)
    if "parameters" not in raw:
        if at:
            raise SpecError("--at is given but the spec declares no [parameters]",
                            file=str(path))
        return None
    params = read_parameters(raw["parameters"],
                             lambda key, msg: SpecError(msg, file=str(path), key=key))
    if at is not None:
        point = params.check_point(at)
        return "checked at " + ", ".join(f"{k} = {format_rational(v)}" for k, v in point.items())
    point = params.sample_point()
    return ("checked at the sample point " + ", ".join(f"{k} = {format_rational(v)}"
                                                       for k, v in point.items())
            + " (choose another with --at; plrv prove decides claims for every value)")


__all__ += ["spec_at", "point_note"]
