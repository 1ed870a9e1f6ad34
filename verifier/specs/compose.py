"""The spec of ``plrv compose``: a check spec's mechanism, or an adaptive ``[composition]``.

Two forms. A check spec (``[data]`` or ``[input]``, ``[mechanism]``, ``[neighbours]``,
``[query]`` with ``notions = ["dp"]``) composes ``--k`` independent runs of its mechanism;
it may add a ``[composition]`` table with ``enclosure`` and ``grid`` only. Its ``[limits]``
are those of ``plrv check`` but ``combinations`` and ``engine`` (no count engine runs), with
``loss_values`` and ``memory``: the bytes of exact integers the composition holds at once,
estimated before the first product (:func:`~verifier.notions.composition.polynomial.
plan_polynomial`). An adaptive spec names the steps instead of a mechanism::

    [data]
    records = 1
    values = [0, 1]
    [composition]
    steps = ["adaptive_rr:first", "adaptive_rr:again"]  # f(x, earlier_outputs) -> Dist | value
    enclosure = "auto"       # "auto" (default), "never", "always"
    grid = "ln(1001/1000)"   # optional: the enclosure's grid spacing ln(γ), rational γ > 1
    [query]
    epsilon = "ln(2)"
    delta = "1/4"
    [limits]
    loss_values = 1000000    # distinct privacy-loss values kept exactly
    sequences = 1048576      # output sequences enumerated (adaptive)

Each step is a user function ``"module:function"`` of the spec's folder
(:mod:`verifier.model.user_code`), called as ``f(x, (o_1, …, o_{j−1}))`` with the input
(a tuple) and the tuple of earlier outputs; its answer is read strictly (a ``verifier.Dist``
or an exact output label). ``--k`` repeats the list of steps.

A check spec whose ``notions`` are among apkdp, ppkdp and noiseless composes ``--k`` runs of
its mechanism on the same database under partial knowledge: it is read by
:func:`~verifier.specs.check.parse_spec` as for ``plrv check`` (data model, attacker and every
check limit; no ``[composition]``, ``limits.loss_values`` or ``limits.sequences``) and carried
whole as ``ComposeSpec.problem``. Every problem is a
:class:`~verifier.core.errors.SpecError` naming the file and the key.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from verifier.core.budget import CHECK_LIMITS, Budget, budget_from_limits
from verifier.core.epsilon import Epsilon, parse_epsilon
from verifier.core.errors import SpecError
from verifier.core.numbers import probability
from verifier.model.data import check_domain
from verifier.model.mechanisms import Mechanism
from verifier.model.sandbox import sandbox_for
from verifier.model.user_code import load_program
from verifier.notions.composition.adaptive import Step, adaptive_step
from verifier.notions.composition.enclosure import ENCLOSURE_MODES
from verifier.notions.composition.grid import Grid, parse_grid
from verifier.notions.composition.partial_check import PARTIAL_NOTIONS
from verifier.notions.dp.neighbours import Relation, replace_one
from verifier.notions.problem import CheckProblem
from verifier.notions.registry import PARTIAL_RENYI
from verifier.notions.renyi.check import RenyiClaim
from verifier.specs.check import parse_spec
from verifier.specs.files import check_kind, check_tables, read_toml
from verifier.specs.keys import Document, Table, list_of, record_value, string
from verifier.specs.neighbours import INPUT_KEYS, NEIGHBOURS_KEYS, read_input, read_relation
from verifier.specs.noise import is_noise_spec

__all__ = ["ComposeSpec", "load_compose_spec", "parse_compose", "COMPOSITION_KEYS",
           "COMPOSE_LIMITS"]

COMPOSITION_KEYS = {"steps", "enclosure", "grid"}
# the limits plrv compose reads over composition.steps: the check limits its inputs and
# pairs use, and its own (combinations and memory bound the count engine and the exact
# polynomials of --k runs of a [mechanism], which an adaptive composition never builds)
COMPOSE_LIMITS = (*(k for k in CHECK_LIMITS if k not in ("combinations", "memory")),
                  "loss_values", "sequences")
_OWN_LIMITS = ("loss_values", "sequences")
_UNUSED_BY_MECHANISM = {
    "sequences": "bounds the output sequences of composition.steps",
    "engine": "chooses an engine of plrv check; plrv compose runs none",
    "combinations": "bounds the count engine of plrv check; plrv compose runs none",
}


@dataclass(frozen=True)
class ComposeSpec:
    """What ``plrv compose`` runs: one mechanism (``steps`` empty) or adaptive steps."""

    path: str | None  # None: given on the command line (--mechanism), not a file
    mechanism: Mechanism | None
    steps: tuple[Step, ...]
    relation: Relation
    epsilon: Epsilon
    delta: object
    budget: Budget
    enclosure: str
    grid: Grid | None
    notions: tuple[str, ...] = ("dp",)
    renyi: RenyiClaim | None = None  # the claim of rdp and zcdp (then ε, δ are unused)
    # apkdp, ppkdp, noiseless: the check spec's data models, attackers, targets and pairs
    problem: CheckProblem | None = None


def _options(table: Table) -> tuple[str, Grid | None]:
    mode = table.string("enclosure", ENCLOSURE_MODES, "auto")
    grid = table.read("grid", parse_grid, None)
    return mode, grid


def load_compose_spec(path: str | Path, query: Mapping[str, str] | None = None
                      ) -> ComposeSpec:
    """Read and check a compose spec (either form). ``query`` replaces keys of its
    ``[query]`` table (``--epsilon``, ``--delta``) before it is read."""
    raw = read_toml(path)
    if query:
        table = raw.get("query", {})
        if not isinstance(table, Mapping):
            raise SpecError("[query] is not a table", file=str(path), key="query", value=table)
        raw = {**raw, "query": {**table, **query}}
    return parse_compose(raw, str(path), Path(path).resolve().parent)


def parse_compose(raw: Mapping, file: str | None, search_dir: Path | None) -> ComposeSpec:
    """Check a compose spec already read into a mapping (``file`` None: it is not a file)."""
    check_kind(raw, "compose", file)
    if is_noise_spec(raw):
        kind = raw["mechanism"]["kind"]
        raise SpecError(f"plrv compose does not compose kind {kind!r}: plrv check decides it",
                        file=file, key="mechanism.kind", value=kind)
    doc = Document(raw, file)
    comp = doc.table("composition")
    if "steps" in comp:
        spec = _adaptive(doc, comp, file, search_dir)
        doc.finish("plrv compose with composition.steps")
        return spec
    if _asks_partial(raw):
        return _partial(raw, file, search_dir)
    comp.only(COMPOSITION_KEYS - {"steps"}, "composition (with a [mechanism])")
    mode, grid = _options(comp)
    limits = Table.of(raw, "limits", file)  # the check limits are parse_spec's to read
    for unused, why in _UNUSED_BY_MECHANISM.items():
        if unused in limits.raw:
            raise limits.fail(unused, f"{why}: it does not apply to --k runs of [mechanism]")
    own = budget_from_limits({k: v for k, v in limits.raw.items() if k in _OWN_LIMITS},
                             _OWN_LIMITS, file)
    rest = {name: t for name, t in raw.items() if name != "composition"}
    if limits.raw:
        rest["limits"] = {k: v for k, v in limits.raw.items() if k not in _OWN_LIMITS}
        if not rest["limits"]:
            del rest["limits"]
    s = parse_spec(rest, file=file, search_dir=search_dir, command="compose")
    if s.notions != ("dp",) and s.renyi is None:
        raise SpecError(f"notions = {list(s.notions)!r}: plrv compose composes dp, or rdp "
                        f'and zcdp; write notions = ["dp"]', file=file, key="query.notions",
                        value=list(s.notions))
    if any(n in PARTIAL_RENYI for n in s.notions):  # composition under partial knowledge
        part = next(n for n in s.notions if n in PARTIAL_RENYI)
        raise SpecError(f"notions = {list(s.notions)!r}: plrv compose composes dp, rdp and "
                        f"zcdp over a neighbouring relation, and apkdp, ppkdp and noiseless; "
                        f"not {part} (a Rényi form under partial knowledge): check one run "
                        f"with plrv check", file=file,
                        key="query.notions", value=list(s.notions))
    if s.renyi is not None and "memory" in limits.raw:
        raise limits.fail("memory", "bounds the integers of dp's exact composition; rdp and "
                                    "zcdp of a composition are computed from the parts' "
                                    "divergences")
    if s.renyi is not None and "composition" in raw:
        raise SpecError("[composition] sets the enclosure of dp's composition; rdp and zcdp "
                        "of a composition are exact (or certified) without one: remove it",
                        file=file, key="composition", value=raw["composition"])
    budget = replace(s.budget, max_loss_values=own.max_loss_values,
                     max_sequences=own.max_sequences)
    relation = s.relation or replace_one(s.values, s.records)
    return ComposeSpec(file, s.mechanism, (), relation, s.epsilon, s.delta, budget, mode, grid,
                       s.notions, s.renyi)


def _asks_partial(raw: Mapping) -> bool:
    """Whether ``query.notions`` names a partial-knowledge notion (read properly by
    :func:`parse_spec`; this look decides only which limits and tables apply)."""
    query = raw.get("query")
    notions = query.get("notions") if isinstance(query, Mapping) else None
    return isinstance(notions, list) and any(n in PARTIAL_NOTIONS for n in notions)


def _partial(raw: Mapping, file: str | None, search_dir: Path | None) -> ComposeSpec:
    """``--k`` runs under partial knowledge: the check spec read as ``plrv check`` reads it
    (data model, attacker, targets, pairs and every check limit)."""
    if "composition" in raw:
        raise SpecError("[composition] sets the enclosure or the adaptive steps of dp's "
                        "composition; apkdp, ppkdp and noiseless of --k runs are exact "
                        "without one: remove it", file=file, key="composition",
                        value=raw["composition"])
    s = parse_spec(raw, file=file, search_dir=search_dir, command="compose")
    other = [n for n in s.notions if n not in PARTIAL_NOTIONS]
    if other:
        raise SpecError(f"notions = {list(s.notions)!r}: plrv compose composes apkdp, ppkdp "
                        f"and noiseless together and {other[0]} apart; give it its own spec",
                        file=file, key="query.notions", value=list(s.notions))
    return ComposeSpec(file, s.mechanism, (), replace_one(s.values, s.records), s.epsilon,
                       s.delta, s.budget, "never", None, s.notions, None, s)


_TABLES: Mapping[str, set | None] = {
    "data": {"records", "values"},
    "input": INPUT_KEYS,
    "neighbours": NEIGHBOURS_KEYS,
    "query": {"epsilon", "delta", "notions"},
    "limits": set(COMPOSE_LIMITS),
    "composition": COMPOSITION_KEYS,
}


def _adaptive(doc: Document, comp: Table, file: str | None, search_dir: Path | None
              ) -> ComposeSpec:
    raw = doc.raw
    if "mechanism" in raw:
        raise comp.fail("steps", "give either [mechanism] (composed --k times) or "
                                 "composition.steps (an adaptive composition), not both")
    check_tables(raw, _TABLES, file)
    budget = budget_from_limits(doc.table("limits").rest(), COMPOSE_LIMITS, file)
    where = sandbox_for(search_dir, budget)  # user code: its own process, under the limits
    given_input = doc.table("input")
    data = doc.table("data", required=not given_input)
    if given_input and data:
        raise SpecError("give either [input] (the inputs themselves) or [data], not both",
                        file=file, key="input", value=given_input.raw)
    inputs = None
    if given_input.raw:
        values, n, inputs = read_input(given_input)
    else:
        values = data.read("values", lambda v, k: check_domain(list_of(v, k, record_value), k),
                           missing="missing: list the values a record can take")
        data.check("values", budget.check_values, values)
        n = data.integer("records", lo=1, missing="missing: the number of records n")
        data.check("records", budget.check_records, n)
    neighbours = doc.table("neighbours")
    relation = (read_relation(neighbours, values, n, inputs, where, budget)
                if inputs is not None or neighbours else replace_one(values, n))
    query = doc.table("query", required=True)
    eps = query.read("epsilon", parse_epsilon, missing='missing: the claimed ε, e.g. "ln(2)"')
    delta = query.rational("delta", "0", probability)
    notions = query.list_of("notions", string, ["dp"])
    if notions != ["dp"]:
        raise query.fail("notions", f"notions = {notions!r:.60}: plrv compose composes dp "
                                    f"over composition.steps (apkdp, ppkdp and noiseless: --k "
                                    f'runs of a [mechanism]); write notions = ["dp"] or leave '
                                    f"the key out", notions)
    refs = comp.list_of("steps", string)

    def load(j: int) -> Step:
        return adaptive_step(comp.check("steps", lambda: load_program(  # draws enumerated
            refs[j], where, f"composition.steps[{j}]", budget.max_paths)))

    steps = tuple(load(j) for j in range(len(refs)))
    mode, grid = _options(comp)
    return ComposeSpec(file, None, steps, relation, eps, delta, budget, mode, grid)
