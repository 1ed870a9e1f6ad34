"""Spec files (TOML): what to check, read into the objects of the public API.

Tables and keys (every key checked by name; an unknown key is an error)::

    [data]        records, values, and for the partial-knowledge notions a data model:
                  prior (i.i.d.), priors (one per record) or support + weights (explicit);
                  or a family Θ: models = [{prior = …}, {priors = …}, …]
    [mechanism]   kind and its parameters (see verifier.model.mechanisms.MECHANISM_KINDS)
    [attacker]    target (index, list or "all"), known (indices, or a list of index lists
                  for a family Z) or knowledge ("module:function"), pairs (list of [a, b])
    [query]       epsilon, delta, notions; for rdp and zcdp: orders, rho, rdp_epsilon
                  (verifier.specs.renyi)
    [input]       for dp: input vectors instead of [data] (verifier.specs.neighbours)
    [neighbours]  for dp: the neighbouring relation (default replace-one)
    [limits]      the budgets of verifier.core.budget.CHECK_LIMITS, engine

Every key is read by the typed readers of :mod:`verifier.specs.keys`; every problem is a
:class:`SpecError` naming the file and the key. ``plrv family`` reads the same spec and
refuses what it does not support (notions other than dp, an attacker, a data model).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from pathlib import Path

from gmpy2 import mpq

from verifier.core.budget import CHECK_LIMITS, budget_from_limits
from verifier.core.distribution import Dist
from verifier.core.epsilon import parse_epsilon
from verifier.core.errors import InvalidArgument, SpecError, VerifierError
from verifier.core.numbers import probability
from verifier.engines.choice import ENGINES
from verifier.engines.joint import check_targets
from verifier.model.data import DataModel, check_domain, explicit, iid, independent
from verifier.model.knowledge import Knowledge, knowledge, known_indices, no_knowledge
from verifier.model.mechanisms import build_mechanism
from verifier.model.sandbox import Sandbox, sandbox_for
from verifier.model.user_code import load_from
from verifier.notions.check import NOTIONS, Report, check_notions
from verifier.notions.partial.cases import ordered_pairs
from verifier.notions.problem import CheckProblem
from verifier.specs.features import refuse_unsupported
from verifier.specs.files import check_kind, check_tables, read_toml
from verifier.specs.keys import Table, anything, doubles, list_of, record_value
from verifier.specs.neighbours import INPUT_KEYS, NEIGHBOURS_KEYS, read_input, read_relation
from verifier.specs.noise import is_noise_spec, read_noise_spec
from verifier.specs.renyi import RENYI_KEYS, read_notions, read_renyi

__all__ = ["Spec", "load_spec", "parse_spec", "run_spec", "COMMANDS"]

_MODEL_KEYS = ("prior", "priors", "support", "weights", "models")
_TABLES = {
    "data": {"records", "values", *_MODEL_KEYS},
    "mechanism": None,  # checked by the mechanism builder
    "attacker": {"target", "known", "knowledge", "pairs"},
    "query": {"epsilon", "delta", "notions", *RENYI_KEYS},
    "limits": {*CHECK_LIMITS, "engine"},
    "input": INPUT_KEYS,
    "neighbours": NEIGHBOURS_KEYS,
}
COMMANDS = ("check", "sweep", "family", "curve")  # the commands that read this kind of spec


Spec = CheckProblem  # the public name of a parsed check spec (verifier.Spec)


def load_spec(path: str | Path, command: str = "check", at: Mapping | None = None,
              query: Mapping[str, object] | None = None) -> Spec:
    """Read and check a spec file for ``command`` (``check``, ``sweep`` or ``family``: a
    command refuses what it does not support). A spec with ``[parameters]`` is read at the
    point ``at`` (default: a sample point) by :mod:`verifier.symbolic.instance`. ``query``
    replaces keys of the ``[query]`` table (the command line's ``--epsilon``/``--delta``)."""
    raw = read_toml(path)
    if query:
        table = raw.get("query", {})
        if not isinstance(table, Mapping):
            raise SpecError("[query] is not a table", file=str(path), key="query",
                            value=table)
        raw = {**raw, "query": {**table, **query}}
    if is_noise_spec(raw):
        return read_noise_spec(raw, str(path), command)  # type: ignore[return-value]
    if "parameters" in raw and command in ("check", "curve"):
        return spec_at(raw, file=str(path), search_dir=Path(path).resolve().parent, at=at)
    return parse_spec(raw, file=str(path), search_dir=Path(path).resolve().parent,
                      command=command)


def spec_at(raw: Mapping, *, file: str | None = None, search_dir: Path | None = None,
            at: Mapping[str, object] | None = None) -> CheckProblem:
    """The concrete spec of a spec with ``[parameters]`` at the point ``at`` (default: the
    sample point, see :meth:`verifier.symbolic.parameters.Parameter.sample`)."""
    from verifier.symbolic.instance import build_symbolic

    sym = build_symbolic(raw, partial(parse_spec, file=file, search_dir=search_dir), file=file)
    return sym.at(at) if at is not None else sym.base


def parse_spec(raw: Mapping, *, file: str | None = None, search_dir: Path | None = None,
               command: str = "check") -> Spec:
    """Check a spec already read into a mapping (as from ``tomllib``)."""
    if command not in COMMANDS:
        raise InvalidArgument(f"command = {command!r} is not one of {', '.join(COMMANDS)}",
                              argument="command", value=command)
    check_kind(raw, command, file)
    if command == "family":
        _family_only(Table.of(raw, "query", file, required=True))
    refuse_unsupported(raw, command, file)
    check_tables(raw, _TABLES, file)
    given_input = Table.of(raw, "input", file)
    data = Table.of(raw, "data", file, required=not given_input.raw)
    if given_input.raw and data.raw:
        raise SpecError("give either [input] (the inputs themselves) or [data], not both",
                        file=file, key="input", value=given_input.raw)
    neighbours = Table.of(raw, "neighbours", file)
    mech_t = Table.of(raw, "mechanism", file, required=True)
    attacker = Table.of(raw, "attacker", file)
    query = Table.of(raw, "query", file, required=True)
    limits = Table.of(raw, "limits", file)

    budget = budget_from_limits(limits.raw, CHECK_LIMITS, file)
    where = sandbox_for(search_dir, budget)  # user code: its own process, under the limits
    inputs = None
    if given_input.raw:
        values, n, inputs = read_input(given_input)
        data = Table({"values": list(values), "records": n}, "input", file)
    values = data.read("values", lambda v, k: check_domain(list_of(v, k, record_value), k),
                       missing="missing: list the values a record can take")
    data.check("values", budget.check_values, values)
    n = data.integer("records", lo=1, missing="missing: the number of records n")
    data.check("records", budget.check_records, n)  # before anything of size n exists
    model = _read_model(data, values, n)

    if "kind" not in mech_t:
        raise mech_t.fail("kind", "missing: name the mechanism kind")
    params = {k: v for k, v in mech_t.raw.items() if k != "kind"}
    try:
        mech = build_mechanism(mech_t.raw["kind"], params, values, where)
    except VerifierError as exc:
        raise mech_t.fail(exc.argument or "", str(exc), exc.value) from None

    know = _read_knowledge(attacker, where)
    targets = attacker.raw.get("target", "all")
    pairs = None
    if "pairs" in attacker:
        pair = lambda v, k: tuple(list_of(v, k, record_value, length=2))  # noqa: E731
        read = attacker.list_of("pairs", pair)
        attacker.check("pairs", ordered_pairs, values, read)
        pairs = tuple(read)

    target_idx = attacker.check("target", check_targets, targets, n)
    for k in know if isinstance(know, tuple) else (know,):
        attacker.check("known", k.check_against, n, ())
        attacker.check("target", k.check_against, n, target_idx)

    notions = read_notions(query)
    renyi = read_renyi(query, notions)
    if renyi is None:
        eps = query.read("epsilon", parse_epsilon,
                         missing='missing: the claimed ε, e.g. "ln(2)"')
        delta = query.rational("delta", "0", probability)
    else:  # the conversion points are in the Rényi claim
        eps, delta = parse_epsilon(0), mpq(0)
    partial_notions = [x for x in notions if NOTIONS[x].needs_model]
    if (inputs is not None or neighbours.raw) and partial_notions:
        raise query.fail("notions", "[input] and [neighbours] define the inputs of dp, rdp "
                                    f"and zcdp; {partial_notions[0]} needs a data model: "
                                    'write notions = ["dp"] (or rdp, zcdp)', list(notions))
    for notion in partial_notions:
        if model is None:
            raise data.fail("prior", f"notion {notion!r} needs a data model: give prior, "
                                     f"priors, or support and weights")
    engine = limits.string("engine", ENGINES, "auto")
    relation = None
    if inputs is not None or neighbours.raw:
        relation = read_relation(neighbours, values, n, inputs, where)
        if relation.name == "add-remove-one" and n == 1 and mech.kind == "mean":
            raise neighbours.fail("relation", "add-remove-one on 1 record compares it with "
                                              "the empty database, whose mean is undefined: "
                                              "give records ≥ 2 or another relation",
                                  "add-remove-one")
    if pairs is not None and "dp" in notions:
        raise attacker.fail("pairs", "pairs restricts the compared values of apkdp, ppkdp and "
                                     "noiseless; dp ranges over its neighbouring relation: "
                                     'give it in [neighbours] (relation = "pairs") or ask '
                                     "for the other notions", attacker.raw["pairs"])
    if not partial_notions and attacker.raw:
        key = next(iter(attacker.raw))
        raise attacker.fail(key, "[attacker] describes the attacker of apkdp, ppkdp and "
                                 f"noiseless; notions = {list(notions)} would ignore it: "
                                 "remove the table or ask for those notions",
                            attacker.raw[key])
    return Spec(file, values, n, model, mech, know, targets, pairs, eps, delta, notions, budget,
                engine, relation, doubles(raw), renyi)


def _family_only(query: Table) -> None:
    """``plrv family`` decides (ε, δ)-DP over every database: it refuses other notions (the
    spec's other features are refused by :mod:`verifier.specs.features`)."""
    notions = query.raw.get("notions", ["dp"])
    if notions != ["dp"]:
        raise query.fail("notions", f"notions = {notions!r:.60}: plrv family checks dp only; "
                                    f'write notions = ["dp"] or leave the key out', notions)


def _weights(value: object, name: str) -> list:
    return list_of(value, name, anything)


def _read_model(data: Table, values: tuple, n: int) -> DataModel | tuple[DataModel, ...] | None:
    if "models" in data:
        others = data.given("prior", "priors", "support", "weights")
        if others:
            raise data.fail("models", f"give either models or one model ({others[0]}), not both")
        models = data.list_of("models", anything)
        out = []
        for j, m in enumerate(models):
            if not isinstance(m, dict):
                raise data.fail(f"models[{j}]", 'must be a table such as {prior = ["1/2", '
                                                '"1/2"]}', m)
            t = Table(m, f"{data.name}.models[{j}]", data.file)
            t.only(("prior", "priors", "support", "weights"), "a model")
            model = _read_model(t, values, n)
            if model is None or isinstance(model, tuple):  # (a model has no models key)
                raise data.fail(f"models[{j}]", "give prior, priors, or support and weights", m)
            out.append(model)
        return tuple(out)
    given = data.given("prior", "priors", "support")
    if len(given) > 1:
        raise data.fail(given[1], f"give only one of prior, priors, support (got "
                                  f"{', '.join(given)})")
    if "weights" in data and "support" not in data:
        raise data.fail("weights", "weights go with support (an explicit distribution)")
    if "prior" in data:
        return data.read("prior", lambda w, k: iid(_weights(w, k), values, n))
    if "priors" in data:
        model = data.read("priors", lambda p, k: independent(list_of(p, k, _weights), values))
        if model.n != n:
            raise data.fail("priors", f"has {model.n} priors for records = {n}")
        return model
    if "support" in data:
        database = lambda v, k: tuple(list_of(v, k, record_value))  # noqa: E731
        dbs = data.list_of("support", database)
        weights = data.read("weights", _weights,
                            missing="missing: give one weight per database of support")
        if len(dbs) != len(weights):
            raise data.fail("support", f"has {len(dbs)} databases for {len(weights)} weights")
        dist = data.check("weights", lambda: Dist(zip(dbs, weights, strict=True),
                                                  name="weights"))
        model = data.check("support", explicit, dist, values)
        if model.n != n:
            raise data.fail("support", f"databases have {model.n} records, not records = {n}")
        return model
    return None


def _read_knowledge(attacker: Table, where: Sandbox | None
                    ) -> Knowledge | tuple[Knowledge, ...]:
    if "known" in attacker and "knowledge" in attacker:
        raise attacker.fail("knowledge", "give either known or knowledge, not both")
    if "known" in attacker:
        known = attacker.raw["known"]
        if isinstance(known, list) and known and all(isinstance(k, list) for k in known):
            return tuple(attacker.check("known", known_indices, k) for k in known)
        return attacker.check("known", known_indices, known)
    if "knowledge" in attacker:
        f = attacker.read("knowledge", lambda ref, k: load_from(ref, where, k))
        return knowledge(f)
    return no_knowledge()


def run_spec(spec: Spec, progress=None) -> Report:
    """Run every notion the spec asks for."""
    return check_notions(spec.mechanism, values=spec.values, records=spec.records,
                         models=spec.model, knowledge=spec.knowledge, targets=spec.targets,
                         pairs=spec.pairs, epsilon=spec.epsilon, delta=spec.delta,
                         notions=spec.notions, budget=spec.budget, engine=spec.engine,
                         progress=progress, relation=spec.relation)


def run_spec_certified(spec: Spec):
    """``plrv check --mode certified``: certified enclosures (ball arithmetic) of the APK and
    PPK δ of a spec whose single data model has i.i.d. records on two values, whose single
    attacker knows a set of records, and which names one target
    (:func:`verifier.engines.enclosure.certified_partial`). The result is never exact."""
    from verifier.engines.enclosure import certified_partial

    if spec.model is None:
        raise SpecError("--mode certified needs a data model (prior) of the records",
                        file=spec.path, key="data.prior")
    if not isinstance(spec.model, DataModel) or isinstance(spec.knowledge, tuple):
        raise SpecError("--mode certified needs one data model and one attacker, not families",
                        file=spec.path, key="data")
    targets = spec.targets if isinstance(spec.targets, list) else [spec.targets]
    if len(targets) != 1 or not isinstance(targets[0], int) or isinstance(targets[0], bool):
        raise SpecError("--mode certified needs one target index", file=spec.path,
                        key="attacker.target", value=spec.targets)
    return certified_partial(spec.mechanism, spec.model, spec.knowledge,  # type: ignore[arg-type]
                             targets[0], spec.epsilon, spec.delta, spec.notions)
