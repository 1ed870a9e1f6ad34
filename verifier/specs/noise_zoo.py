"""Check specs of discrete Laplace noise over ``[input]`` vectors: report noisy max, above
threshold, and noise added to each coordinate.

::

    [input]       coordinates, range (or vectors): the query-answer vectors
    [neighbours]  relation ("linf", "l1" or "pairs"), distance
    [mechanism]   kind = "noisy_max" or "above_threshold"; noise = "discrete_laplace";
                  scale (the noise on every query); above_threshold also threshold (an
                  integer), threshold_scale (either scale may be 0: no noise there, the
                  literature's broken variants), optionally compare = ">=" (default) or ">";
                  release = "index" (default) or "index_and_value" (the chosen query's noisy
                  value too, clamped to [lo, hi]: the literature's broken variants);
                  or kind = "discrete_laplace" with scale, "discrete_gaussian" with sigma:
                  the vector plus noise on each coordinate (no clamp)
    [query]       epsilon, delta, notions = ["dp"]
    [limits]      work: the ordered pairs of inputs enumerated (verifier.core.budget)

Numbers may be exact (``"2"``, ``"3/2"``) or doubles named as such (``{f64 = "…"}``). Only
``plrv check`` decides these specs, for ``dp``; every other table, key, notion or noise
(``discrete_gaussian`` for noisy max and above threshold: no closed-form sums) is refused
with the key named.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from gmpy2 import mpq

from verifier.core.budget import Budget, budget_from_limits
from verifier.core.epsilon import Epsilon, parse_epsilon
from verifier.core.errors import SpecError, did_you_mean
from verifier.core.numbers import nonnegative, positive, probability
from verifier.model.expnoise_vector import (
    CoordinateGaussian,
    CoordinateNoise,
    coordinate_gaussian,
    coordinate_laplace,
)
from verifier.model.expnoise_zoo import NoisyChoice, above_threshold, noisy_max
from verifier.notions.dp.neighbours import Relation
from verifier.specs.keys import MISSING, Document, Table, doubles, list_of, string
from verifier.specs.neighbours import INPUT_KEYS, NEIGHBOURS_KEYS, read_input, read_relation

__all__ = ["ChoiceProblem", "read_choice_spec", "read_coordinate_spec", "CHOICE_KEYS",
           "COORDINATE_KEYS"]

# kind -> the keys of [mechanism] (over [input] vectors)
CHOICE_KEYS = {"noisy_max": {"kind", "noise", "scale", "release", "lo", "hi"},
               "above_threshold": {"kind", "noise", "scale", "threshold", "threshold_scale",
                                   "compare", "release", "lo", "hi"}}
COORDINATE_KEYS = {"discrete_laplace": {"kind", "scale"}, "discrete_gaussian": {"kind", "sigma"}}
RELEASES = ("index", "index_and_value")
_TABLES = ("input", "neighbours", "mechanism", "query", "limits")


@dataclass(frozen=True)
class ChoiceProblem:
    """A noisy-max, threshold or per-coordinate noise spec: the mechanism, the relation, the
    claim, the doubles."""

    path: str | None
    choice: NoisyChoice | CoordinateNoise | CoordinateGaussian
    relation: Relation
    epsilon: Epsilon
    delta: mpq
    doubles: tuple = ()
    limits: Budget = Budget()  # only limits.work applies: the ordered pairs enumerated


def read_choice_spec(raw: Mapping, file: str | None, command: str) -> ChoiceProblem:
    """Read a ``noisy_max`` / ``above_threshold`` spec (only ``plrv check`` decides it)."""
    kind = raw["mechanism"]["kind"]
    if command != "check":
        raise SpecError(f"plrv {command} does not decide {kind} with discrete Laplace noise; "
                        f"plrv check does", file=file, key="mechanism.kind", value=kind)
    _tables(raw, file, kind)
    doc = Document(raw, file)
    mech = doc.table("mechanism", required=True)
    mech.only(CHOICE_KEYS[kind], f"kind {kind!r}")
    mech.string("kind")
    noise = mech.string("noise", missing='missing: noise = "discrete_laplace"')
    if noise != "discrete_laplace":
        raise mech.fail("noise", f"{kind} is decided with noise = \"discrete_laplace\" (its "
                                 f"sums have closed forms); {noise!r} is not", noise)
    check = positive if kind == "noisy_max" else nonnegative  # 0: no noise there
    scale = mech.rational("scale", check=check,
                          missing=f"missing: kind {kind!r} needs scale, the noise's scale")
    value = _release(mech)
    if kind == "noisy_max":
        choice = mech.check("hi", noisy_max, scale, value)
    else:
        threshold = mech.integer("threshold", missing=f"missing: kind {kind!r} needs "
                                                       "threshold, an integer")
        t_scale = mech.rational("threshold_scale", check=nonnegative,
                                missing=f"missing: kind {kind!r} needs threshold_scale, the "
                                        "threshold noise's scale")
        if scale == 0 and t_scale == 0:
            raise mech.fail("scale", "scale and threshold_scale are both 0: above threshold "
                                     "needs noise on the queries or the threshold", 0)
        if value is not None and 0 in (scale, t_scale):
            raise mech.fail("release", 'release = "index_and_value" needs noise on the '
                                       "queries and the threshold (scale and threshold_scale "
                                       "> 0)", "index_and_value")
        compare = mech.read("compare", lambda v, k: string(v, k, (">=", ">")), ">=")
        choice = mech.check("threshold_scale", above_threshold, scale, t_scale, threshold,
                            compare == ">", value)
    return _problem(doc, kind, choice)


def _release(mech: Table) -> tuple[int, int] | None:
    """The clamp of a released noisy value (``release = "index_and_value"``), else None."""
    release = mech.string("release", RELEASES, "index")
    if release == "index":
        for key in mech.given("lo", "hi"):
            raise mech.fail(key, 'clamps the released noisy value: give it with release = '
                                 '"index_and_value", or remove it', mech.get(key))
        return None
    return (mech.integer("lo", missing='missing: release = "index_and_value" clamps the '
                                       'value to [lo, hi]'),
            mech.integer("hi", missing='missing: release = "index_and_value" clamps the '
                                       'value to [lo, hi]'))


def read_coordinate_spec(raw: Mapping, file: str | None, command: str) -> ChoiceProblem:
    """Read a spec of discrete Laplace or Gaussian noise on each coordinate of ``[input]``
    vectors."""
    kind = raw["mechanism"]["kind"]
    if command != "check":
        raise SpecError(f"plrv {command} does not decide {kind} noise; plrv check does",
                        file=file, key="mechanism.kind", value=kind)
    _tables(raw, file, kind)
    doc = Document(raw, file)
    mech = doc.table("mechanism", required=True)
    for key in mech.given("lo", "hi"):
        raise mech.fail(key, "noise on each coordinate of [input] vectors is decided without "
                             "a clamp: remove lo and hi", mech.get(key))
    param = "scale" if kind == "discrete_laplace" else "sigma"
    mech.only(COORDINATE_KEYS[kind], f"kind {kind!r} over [input] vectors")
    mech.string("kind")
    value = mech.rational(param, check=positive, missing=f"missing: kind {kind!r} needs "
                                                         f"{param}")
    if kind == "discrete_gaussian":
        return _problem(doc, kind, coordinate_gaussian(value))
    return _problem(doc, kind, coordinate_laplace(value))


def _tables(raw: Mapping, file: str | None, kind: str) -> None:
    for name in raw:
        if name not in _TABLES:
            raise SpecError(f"a {kind} spec over [input] vectors is decided for dp under their "
                            f"[neighbours]; [{name}] is not applied to it: remove it"
                            f"{did_you_mean(name, _TABLES)}",
                            file=file, key=f"[{name}]", value=raw[name])


def _problem(doc: Document, kind: str,
             choice: NoisyChoice | CoordinateNoise | CoordinateGaussian) -> ChoiceProblem:
    """The relation over the ``[input]`` vectors and the claim of ``[query]``; every key
    present is read here or refused (:meth:`~verifier.specs.keys.Document.finish`)."""
    file = doc.file
    inputs = doc.table("input", required=True)
    inputs.only(INPUT_KEYS)
    neighbours = doc.table("neighbours")
    neighbours.only(NEIGHBOURS_KEYS)
    named = neighbours.raw.get("relation")  # checked here, read by read_relation
    if isinstance(named, str) and ":" in named:
        raise neighbours.fail("relation", "a predicate relation runs user code, which a "
                                          f"{kind} spec does not load: use linf, l1 or pairs",
                              named)
    values, _, xs = read_input(inputs)
    relation = read_relation(neighbours, values, 0, xs, None)
    query = doc.table("query", required=True)
    query.only({"epsilon", "delta", "notions"})
    notions = query.read("notions", lambda v, k: list_of(v, k, string), ["dp"])
    if notions != ["dp"]:
        raise query.fail("notions", f'{choice.describe()} over [input] vectors is decided for '
                                    f'dp: write notions = ["dp"]', notions)
    eps = query.read("epsilon", parse_epsilon, MISSING)
    delta = query.rational("delta", check=probability)
    limits = doc.table("limits")
    limits.only({"work"}, f"[limits] of a {kind} spec")
    budget = budget_from_limits(limits.rest(), ("work",), file)
    doc.finish(f'plrv check with {kind} noise and notions = ["dp"]')
    return ChoiceProblem(file, choice, relation, eps, delta, doubles(doc.raw), budget)
