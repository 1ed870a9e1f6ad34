"""Spec files (TOML): what to check, read into the objects of the public API.

Tables and keys (every key checked by name; an unknown key is an error)::

    [data]        records, values, and for the partial-knowledge notions a data model:
                  prior (i.i.d.), priors (one per record) or support + weights (explicit);
                  or a family Θ: models = [{prior = …}, {priors = …}, …]
    [mechanism]   kind and its parameters (see verifier.model.mechanisms.MECHANISM_KINDS)
    [attacker]    target (index, list or "all"), known (indices, or a list of index lists
                  for a family Z) or knowledge ("module:function"), pairs (list of [a, b])
    [query]       epsilon, delta, notions
    [limits]      databases (the enumeration budget), engine

Every problem is reported as a :class:`SpecError` naming the file and the key.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from verifier.core.budget import Budget
from verifier.core.distribution import Dist
from verifier.core.epsilon import Epsilon, parse_epsilon
from verifier.core.errors import SpecError, VerifierError
from verifier.core.numbers import probability
from verifier.engines.choice import ENGINES
from verifier.engines.joint import check_targets
from verifier.io.files import check_tables, read_toml
from verifier.model.data import DataModel, check_domain, check_records, explicit, iid, independent
from verifier.model.knowledge import Knowledge, knowledge, known_indices, no_knowledge
from verifier.model.mechanisms import Mechanism, build_mechanism, load_function
from verifier.notions.check import NOTIONS, Report, check_notions
from verifier.notions.partial import ordered_pairs

__all__ = ["Spec", "load_spec", "parse_spec", "run_spec"]

_TABLES = {
    "data": {"records", "values", "prior", "priors", "support", "weights", "models"},
    "mechanism": None,  # checked by the mechanism builder
    "attacker": {"target", "known", "knowledge", "pairs"},
    "query": {"epsilon", "delta", "notions"},
    "limits": {"databases", "combinations", "engine"},
}


@dataclass(frozen=True)
class Spec:
    """A parsed spec: everything :func:`verifier.notions.check.check_notions` needs."""

    path: str | None
    values: tuple
    records: int
    model: DataModel | tuple[DataModel, ...] | None  # a tuple is a family Θ
    mechanism: Mechanism
    knowledge: Knowledge | tuple[Knowledge, ...]  # a tuple is a family Z
    targets: object
    pairs: tuple | None
    epsilon: Epsilon
    delta: object
    notions: tuple[str, ...]
    budget: Budget
    engine: str


class _Reader:
    """Reads keys of one spec, turning every library error into a SpecError at that key."""

    def __init__(self, raw: Mapping, file: str | None, prefix: str | None = None):
        self.raw = raw
        self.file = file
        self.prefix = prefix  # inside data.models[j], keys "data.x" are named "data.models[j].x"

    def fail(self, key: str, message: str) -> SpecError:
        if self.prefix and key.startswith("data."):
            key = f"{self.prefix}.{key[5:]}"
        return SpecError(message, file=self.file, key=key)

    def table(self, name: str, required: bool = True) -> dict:
        if name not in self.raw:
            if required:
                raise self.fail(f"[{name}]", "this table is missing")
            return {}
        return self.raw[name]

    def get(self, key: str, read: Callable, value: object):
        try:
            return read(value)
        except VerifierError as exc:
            raise self.fail(key, str(exc)) from None


def load_spec(path: str | Path) -> Spec:
    """Read and check a spec file."""
    return parse_spec(read_toml(path), file=str(path), search_dir=Path(path).resolve().parent)


def parse_spec(raw: Mapping, *, file: str | None = None, search_dir: Path | None = None) -> Spec:
    """Check a spec already read into a mapping (as from ``tomllib``)."""
    r = _Reader(raw, file)
    check_tables(raw, _TABLES, file)
    data, mech_t = r.table("data"), r.table("mechanism")
    attacker, query, limits = r.table("attacker", False), r.table("query"), r.table("limits", False)

    if "values" not in data:
        raise r.fail("data.values", "missing: list the values a record can take")
    values = r.get("data.values", check_domain, data["values"])
    if "records" not in data:
        raise r.fail("data.records", "missing: the number of records n")
    n = r.get("data.records", check_records, data["records"])
    model = _read_model(r, data, values, n)

    mech_t = dict(mech_t)
    if "kind" not in mech_t:
        raise r.fail("mechanism.kind", "missing: name the mechanism kind")
    kind = mech_t.pop("kind")
    try:
        mech = build_mechanism(kind, mech_t, values, search_dir)
    except VerifierError as exc:
        # name the key the message is about ("truth = 0.75 is a float…" → mechanism.truth)
        text = str(exc)
        key = next((f"mechanism.{k}" for k in mech_t if text.startswith(f"{k} = ")),
                   "mechanism.kind" if text.startswith("kind = ") else "mechanism")
        raise r.fail(key, text) from None

    know = _read_knowledge(r, attacker, n, search_dir)
    targets = attacker.get("target", "all")
    pairs = attacker.get("pairs")
    if pairs is not None:
        if not isinstance(pairs, list) or not all(isinstance(x, list) for x in pairs):
            raise r.fail("attacker.pairs", f"{pairs!r} is not a list of [a, b] pairs")
        r.get("attacker.pairs", lambda p: ordered_pairs(values, p), pairs)
        pairs = tuple(tuple(x) for x in pairs)

    target_idx = r.get("attacker.target", lambda t: check_targets(t, n), targets)
    for k in know if isinstance(know, tuple) else (know,):
        r.get("attacker.known", lambda k: k.check_against(n, ()), k)
        r.get("attacker.target", lambda k: k.check_against(n, target_idx), k)

    if "epsilon" not in query:
        raise r.fail("query.epsilon", 'missing: the claimed ε, e.g. "ln(2)"')
    eps = r.get("query.epsilon", parse_epsilon, query["epsilon"])
    delta = r.get("query.delta", lambda d: probability(d, "delta"), query.get("delta", "0"))
    notions = query.get("notions", ["dp"])
    if not isinstance(notions, list) or not notions:
        raise r.fail("query.notions", f"{notions!r} is not a non-empty list of notions")
    for notion in notions:
        if notion not in NOTIONS:
            raise r.fail("query.notions",
                         f"unknown notion {notion!r}; known notions: {', '.join(NOTIONS)}")
        if notion != "dp" and model is None:
            raise r.fail("data.prior", f"notion {notion!r} needs a data model: give prior, "
                                       f"priors, or support and weights")

    budget = r.get("limits", lambda lim: Budget(**{f"max_{k}": v for k, v in lim.items()
                                                    if k in ("databases", "combinations")}),
                   limits)
    engine = limits.get("engine", "auto")
    if engine not in ENGINES:
        raise r.fail("limits.engine", f"{engine!r} is not one of {', '.join(ENGINES)}")
    return Spec(file, values, n, model, mech, know, targets, pairs, eps, delta,
                tuple(notions), budget, engine)


def _read_model(r: _Reader, data: dict, values: tuple, n: int
                ) -> DataModel | tuple[DataModel, ...] | None:
    if "models" in data:
        models = data["models"]
        if any(k in data for k in ("prior", "priors", "support", "weights")):
            raise r.fail("data.models", "give either models or one model, not both")
        if not isinstance(models, list) or not models or \
                not all(isinstance(m, dict) for m in models):
            raise r.fail("data.models", "must be a non-empty list of tables such as "
                                        '{prior = ["1/2", "1/2"]}')
        out = []
        for j, m in enumerate(models):
            unknown = sorted(set(m) - {"prior", "priors", "support", "weights"})
            if unknown:
                raise r.fail(f"data.models[{j}].{unknown[0]}",
                             "unknown key; a model takes prior, priors, support, weights")
            model = _read_model(_Reader(r.raw, r.file, f"data.models[{j}]"), m, values, n)
            if model is None:
                raise r.fail(f"data.models[{j}]", "give prior, priors, or support and weights")
            out.append(model)
        return tuple(out)
    given = [k for k in ("prior", "priors", "support") if k in data]
    if len(given) > 1:
        raise r.fail(f"data.{given[1]}", f"give only one of prior, priors, support (got "
                                         f"{', '.join(given)})")
    if "weights" in data and "support" not in data:
        raise r.fail("data.weights", "weights go with support (an explicit distribution)")
    if "prior" in data:
        return r.get("data.prior", lambda w: iid(w, values, n), data["prior"])
    if "priors" in data:
        priors = data["priors"]
        model = r.get("data.priors", lambda p: independent(p, values), priors)
        if model.n != n:
            raise r.fail("data.priors", f"has {model.n} priors for records = {n}")
        return model
    if "support" in data:
        support, weights = data["support"], data.get("weights")
        if not isinstance(support, list) or not isinstance(weights, list) or \
                len(support) != len(weights):
            raise r.fail("data.weights", "support and weights must be lists of equal length")
        dbs = [tuple(db) if isinstance(db, list) else db for db in support]
        dist = r.get("data.weights", lambda w: Dist(zip(dbs, w), name="weights"), weights)
        model = r.get("data.support", lambda d: explicit(d, values), dist)
        if model.n != n:
            raise r.fail("data.support", f"databases have {model.n} records, not records = {n}")
        return model
    return None


def _read_knowledge(r: _Reader, attacker: dict, n: int, search_dir: Path | None
                    ) -> Knowledge | tuple[Knowledge, ...]:
    if "known" in attacker and "knowledge" in attacker:
        raise r.fail("attacker.knowledge", "give either known or knowledge, not both")
    if "known" in attacker:
        known = attacker["known"]
        if isinstance(known, list) and known and all(isinstance(k, list) for k in known):
            return tuple(r.get("attacker.known", known_indices, k) for k in known)
        return r.get("attacker.known", known_indices, known)
    if "knowledge" in attacker:
        f = r.get("attacker.knowledge",
                  lambda ref: load_function(ref, search_dir=search_dir, name="knowledge"),
                  attacker["knowledge"])
        return knowledge(f)
    return no_knowledge()


def run_spec(spec: Spec, progress=None) -> Report:
    """Run every notion the spec asks for."""
    return check_notions(spec.mechanism, values=spec.values, records=spec.records,
                         models=spec.model, knowledge=spec.knowledge, targets=spec.targets,
                         pairs=spec.pairs, epsilon=spec.epsilon, delta=spec.delta,
                         notions=spec.notions, budget=spec.budget, engine=spec.engine,
                         progress=progress)
