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
:class:`SpecError` naming the file and the key. Only what the requested notions need is read
(a data model and an attacker for apkdp, ppkdp and noiseless — known records for apkdp and
ppkdp only —, a relation for dp, rdp and zcdp), and a key present and never read is refused
naming the command: the same spec serves ``check``, ``sweep``, ``curve``, ``family``,
``prove``, ``reducible`` and ``compose``, each refusing what it does not apply.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path

from gmpy2 import mpq

from verifier.core.budget import CHECK_LIMITS, Budget, budget_from_limits
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
from verifier.model.user_code import load_program
from verifier.notions.check import NOTIONS, Report, check_notions
from verifier.notions.partial.cases import ordered_pairs
from verifier.notions.problem import CheckProblem
from verifier.notions.registry import RENYI, Conditioning
from verifier.specs.files import check_kind, check_tables, read_toml
from verifier.specs.keys import Document, Table, anything, doubles, list_of, record_value
from verifier.specs.neighbours import INPUT_KEYS, NEIGHBOURS_KEYS, read_input, read_relation
from verifier.specs.noise import is_noise_spec, read_noise_spec
from verifier.specs.renyi import RENYI_KEYS, read_notions, read_renyi

__all__ = ["Spec", "load_spec", "parse_spec", "run_spec", "COMMANDS", "TABLES"]

_MODEL_KEYS = ("prior", "priors", "support", "weights", "models")
TABLES = {
    "data": {"records", "values", *_MODEL_KEYS},
    "mechanism": None,  # checked by the mechanism builder
    "attacker": {"target", "known", "knowledge", "pairs"},
    "query": {"epsilon", "delta", "notions", *RENYI_KEYS},
    "limits": {*CHECK_LIMITS, "engine"},
    "input": INPUT_KEYS,
    "neighbours": NEIGHBOURS_KEYS,
    "parameters": None,  # read by verifier.symbolic.instance (prove, check --at, curve --at)
}
# the commands that read this kind of spec
COMMANDS = ("check", "sweep", "family", "curve", "prove", "reducible", "compose", "report")
# the limits a command applies, when not all of CHECK_LIMITS (plrv family reads none)
# (a threshold sweep's mechanism is a threshold count, but its ζ may be a program: paths)
LIMITS_OF = {"compose": tuple(k for k in CHECK_LIMITS if k != "combinations")}
# the notions whose attacker knows records (ζ): those conditioned on a background value
_KNOWING = tuple(n.key for n in NOTIONS.values() if n.conditioning in (
    Conditioning.VALUE_AND_CHOSEN_BACKGROUND, Conditioning.VALUE_AND_DRAWN_BACKGROUND))


Spec = CheckProblem  # the public name of a parsed check spec (verifier.Spec)


def load_spec(path: str | Path, command: str = "check", at: Mapping | None = None,
              query: Mapping[str, object] | None = None,
              limits: Mapping[str, object] | None = None) -> Spec:
    """Read and check a spec file for ``command`` (one of :data:`COMMANDS`: a key the command
    does not read is refused). A spec with ``[parameters]`` is read at the point ``at``
    (default: a sample point) by :mod:`verifier.symbolic.instance`. ``query`` replaces keys
    of the ``[query]`` table (the command line's ``--epsilon``/``--delta``), ``limits`` keys
    of ``[limits]`` (``--budget``: limits.databases), before the spec is read, so every
    reader applies them."""
    raw = read_toml(path)
    for name, given in (("query", query), ("limits", limits)):
        if given and (name == "query" or not is_noise_spec(raw)):  # (noise: no limits)
            table = raw.get(name, {})
            if not isinstance(table, Mapping):
                raise SpecError(f"[{name}] is not a table", file=str(path), key=name,
                                value=table)
            raw = {**raw, name: {**table, **given}}
    if is_noise_spec(raw):
        return read_noise_spec(raw, str(path), command)  # type: ignore[return-value]
    if "parameters" in raw and command in ("check", "curve"):
        return spec_at(raw, file=str(path), search_dir=Path(path).resolve().parent, at=at,
                       command=command)
    return parse_spec(raw, file=str(path), search_dir=Path(path).resolve().parent,
                      command=command)


def spec_at(raw: Mapping, *, file: str | None = None, search_dir: Path | None = None,
            at: Mapping[str, object] | None = None, command: str = "check") -> CheckProblem:
    """The concrete spec of a spec with ``[parameters]`` at the point ``at`` (default: the
    sample point, see :meth:`verifier.symbolic.parameters.Parameter.sample`)."""
    from verifier.symbolic.instance import build_symbolic

    sym = build_symbolic(raw, partial(parse_spec, file=file, search_dir=search_dir,
                                      command=command), file=file)
    return sym.at(at) if at is not None else sym.base


def parse_spec(raw: Mapping, *, file: str | None = None, search_dir: Path | None = None,
               command: str = "check", notions: Sequence[str] | None = None,
               asked_by: str | None = None) -> Spec:
    """Check a spec already read into a mapping (as from ``tomllib``) for ``command``.

    ``notions`` are the notions the command asks for besides the spec's ``query.notions``
    (``plrv prove``: those its claim names, ``asked_by`` saying so in messages). Only what
    they need is read — a data model and an attacker for apkdp, ppkdp and noiseless (known
    records for apkdp and ppkdp only), a relation for dp, rdp and zcdp — and a key present
    and never read is refused (:meth:`verifier.specs.keys.Document.finish`)."""
    if command not in COMMANDS:
        raise InvalidArgument(f"command = {command!r} is not one of {', '.join(COMMANDS)}",
                              argument="command", value=command)
    check_kind(raw, command, file)
    check_tables(raw, TABLES, file)
    doc = Document(raw, file)
    if "parameters" in raw:  # (verifier.symbolic.instance reads it, for the commands it serves)
        raise SpecError(f"plrv {command} does not read [parameters] (it decides a concrete "
                        "spec); remove it, or use plrv check --at, plrv curve --at or plrv "
                        "prove", file=file, key="parameters", value=raw["parameters"])
    spec = _read(doc, search_dir, command, notions)
    asked = f"notions = {json.dumps(list(spec.notions))}"
    doc.finish(f"plrv {command} with {f'{asked_by} ({asked})' if asked_by else asked}")
    return spec


def _plural(notions: Sequence[str], verb: str) -> str:
    return f"{', '.join(notions)} {verb}{'s' if len(notions) == 1 else ''}"


def _read(doc: Document, search_dir: Path | None, command: str,
          asked: Sequence[str] | None) -> Spec:
    file = doc.file
    for name in ("data", "mechanism", "query"):  # missing tables named in this order
        if name not in doc.raw and (name != "data" or "input" not in doc.raw):
            doc.table(name, required=True)
    query = doc.table("query", required=True)
    spec_notions = read_notions(query)
    # a command's own notions (prove: its claim's) join the spec's: a key read by one of them
    # is read (a prior of the spec's apkdp beside a claim over dp)
    notions = spec_notions if asked is None else \
        tuple(n for n in NOTIONS if n in {*asked, *spec_notions})
    if command == "family" and notions != ("dp",):
        raise query.fail("notions", f"notions = {list(notions)!r:.60}: plrv family checks dp "
                                    f'only; write notions = ["dp"] or leave the key out',
                         list(notions))
    if command not in ("check", "compose") and set(notions) & RENYI:
        raise query.fail("notions", f"notions = {list(notions)!r:.60}: plrv {command} decides "
                                    "the (ε, δ) notions; the Rényi notions rdp and zcdp are "
                                    "decided by plrv "
                                    "check", list(notions))
    partial_notions = [x for x in notions if NOTIONS[x].needs_model]
    relation_notions = [] if command == "reducible" else \
        [x for x in notions if not NOTIONS[x].needs_model]
    needs_model = bool(partial_notions) or command == "reducible"
    budget = _read_limits(doc, command, bool(partial_notions))
    where = sandbox_for(search_dir, budget)  # user code: its own process, under the limits

    given_input = doc.table("input") if relation_notions else Table({}, "input", file)
    if "input" in doc.raw and needs_model:
        first = partial_notions[0] if partial_notions else "reducibility"
        raise query.fail("notions", "[input] and [neighbours] define the inputs of dp, rdp "
                                    f"and zcdp; {first} needs a data model: "
                                    'write notions = ["dp"] (or rdp, zcdp)', list(notions))
    data = doc.table("data", required=not given_input)
    if given_input and data:
        raise SpecError("give either [input] (the inputs themselves) or [data], not both",
                        file=file, key="input", value=given_input.raw)
    inputs = None
    if given_input:
        values, n, inputs = read_input(given_input)
        data = Table({"values": list(values), "records": n}, "input", file)
    values = data.read("values", lambda v, k: check_domain(list_of(v, k, record_value), k),
                       missing="missing: list the values a record can take")
    data.check("values", budget.check_values, values)
    n = data.integer("records", lo=1, missing="missing: the number of records n")
    data.check("records", budget.check_records, n)  # before anything of size n exists
    model: DataModel | tuple[DataModel, ...] | None = None
    if needs_model:
        model = _read_model(data, values, n)
        if model is None:
            what = f"notion {partial_notions[0]!r}" if partial_notions else "plrv reducible"
            raise data.fail("prior", f"{what} needs a data model: give prior, priors, or "
                                     f"support and weights")
    else:
        doc.explain([f"data.{k}" for k in _MODEL_KEYS],
                    _plural(notions, "range") + " over the neighbouring relation, not a data "
                    "model", "remove it or ask for apkdp, ppkdp or noiseless")

    mech_t = doc.table("mechanism", required=True)
    if "kind" not in mech_t:
        raise mech_t.missing("kind", "missing: name the mechanism kind")
    try:
        mech = build_mechanism(mech_t.get("kind"), mech_t.rest("kind"), values, where,
                               paths=budget.max_paths)
    except VerifierError as exc:
        raise mech_t.fail(exc.argument or "", str(exc), exc.value) from None

    know, targets, pairs = _read_attacker(doc, command, notions, values, n, where,
                                          budget.max_paths)
    renyi = read_renyi(query, notions)
    if renyi is None:
        eps = query.read("epsilon", parse_epsilon,
                         missing='missing: the claimed ε, e.g. "ln(2)"')
        delta = query.rational("delta", mpq(0), probability)  # (an mpq, as read)
    else:  # the conversion points are in the Rényi claim
        eps, delta = parse_epsilon(0), mpq(0)
    engine = "auto" if command in ("family", "compose") else \
        doc.table("limits").string("engine", ENGINES, "auto")
    relation = None
    if relation_notions:
        neighbours = doc.table("neighbours")
        if inputs is not None or neighbours:
            relation = read_relation(neighbours, values, n, inputs, where, budget)
            if relation.name == "add-remove-one" and n == 1 and mech.kind == "mean":
                raise neighbours.fail("relation", "add-remove-one on 1 record compares it "
                                                  "with the empty database, whose mean is "
                                                  "undefined: give records ≥ 2 or another "
                                                  "relation", "add-remove-one")
    elif command == "reducible":
        doc.explain(["neighbours"], "Θ-reducibility (thesis Definition 59) compares the "
                                    "attackers' conditional laws, not neighbouring databases")
    else:
        doc.explain(["neighbours"], _plural(notions, "compare") + " the values of a record "
                    "under a data model, not neighbouring databases", "remove it or ask for dp")
    if pairs is not None and "dp" in notions:
        raise doc.table("attacker").fail(
            "pairs", "pairs restricts the compared values of apkdp, ppkdp and noiseless; dp "
                     "ranges over its neighbouring relation: give it in [neighbours] (relation "
                     '= "pairs") or ask for the other notions', [list(p) for p in pairs])
    return Spec(file, values, n, model, mech, know, targets, pairs, eps, delta, notions, budget,
                engine, relation, doubles(doc.raw), renyi)


def _read_limits(doc: Document, command: str, partial: bool = False) -> Budget:
    """The ``[limits]`` a command applies: ``plrv family`` decides every database with z3
    and enumerates none under a budget, so it reads none of them; ``plrv compose`` of apkdp,
    ppkdp or noiseless enumerates counts and bounds its tables' bytes, so it reads them all."""
    if command == "family":
        doc.explain(["limits"], "plrv family decides every database of the interval with z3 "
                                "and applies no enumeration limit")
        return Budget()
    limits = doc.table("limits")
    if not limits:
        return Budget()
    keys = CHECK_LIMITS if partial else LIMITS_OF.get(command, CHECK_LIMITS)
    return budget_from_limits(limits.rest("engine"), keys, doc.file)


def _read_attacker(doc: Document, command: str, notions: tuple[str, ...], values: tuple,
                   n: int, where: Sandbox | None, paths: int
                   ) -> tuple[Knowledge | tuple[Knowledge, ...], object, tuple | None]:
    """Knowledge, targets and pairs: read for the notions that condition on a target (known
    records only for apkdp and ppkdp, and Θ-reducibility; noiseless privacy has none)."""
    if not any(NOTIONS[x].needs_model for x in notions) and command != "reducible":
        doc.explain(["attacker.pairs"], "pairs restricts the compared values of apkdp, ppkdp "
                    "and noiseless; dp ranges over its neighbouring relation",
                    'give it in [neighbours] (relation = "pairs") or ask for the other notions')
        doc.explain(["attacker"], f"[attacker] describes the attacker of apkdp, ppkdp and "
                                  f"noiseless; notions = {json.dumps(list(notions))} "
                                  f"would ignore it", "remove the table or ask for those notions")
        return no_knowledge(), "all", None
    attacker = doc.table("attacker")
    know: Knowledge | tuple[Knowledge, ...] = no_knowledge()
    if command == "reducible" or any(x in _KNOWING for x in notions):
        know = _read_knowledge(attacker, where, paths)
    else:
        attacker.explain(("known", "knowledge"), "noiseless privacy has no background "
                         "knowledge: it is APK with a trivial ζ", "remove it or ask for apkdp "
                         "or ppkdp")
    targets = attacker.get("target", "all")
    pairs = None
    if command == "reducible":
        attacker.explain(("pairs",), "Θ-reducibility (thesis Definition 59) compares the "
                                     "attackers' conditional laws over every pair of values")
    elif "pairs" in attacker:
        pair = lambda v, k: tuple(list_of(v, k, record_value, length=2))  # noqa: E731
        read = attacker.list_of("pairs", pair)
        attacker.check("pairs", ordered_pairs, values, read)
        pairs = tuple(read)
    target_idx = attacker.check("target", check_targets, targets, n)
    for k in know if isinstance(know, tuple) else (know,):
        attacker.check("known", k.check_against, n, ())
        attacker.check("target", k.check_against, n, target_idx)
    return know, targets, pairs


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


def _read_knowledge(attacker: Table, where: Sandbox | None, paths: int
                    ) -> Knowledge | tuple[Knowledge, ...]:
    if "known" in attacker and "knowledge" in attacker:
        raise attacker.fail("knowledge", "give either known or knowledge, not both")
    if "known" in attacker:
        known = attacker.get("known")
        if isinstance(known, list) and known and all(isinstance(k, list) for k in known):
            return tuple(attacker.check("known", known_indices, k) for k in known)
        return attacker.check("known", known_indices, known)
    if "knowledge" in attacker:
        # a program: its draws enumerated where it runs (none: one path, its value or Dist)
        f = attacker.read("knowledge", lambda ref, k: load_program(ref, where, k, paths))
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
