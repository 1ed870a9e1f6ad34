"""Mechanisms: kernels from a database (a tuple of records) to a distribution of outputs.

A plain function returning a value is a deterministic mechanism (a point mass). A mechanism
that depends on the database only through its multiset of records is *symmetric*; it then
also carries ``on_counts``, the same kernel written on the counts per record value, which the
count engine uses to scale to thousands of records.

Built-ins (thresholding from thesis §3.2.2, Definition 60):

* ``count(S)``: ``#{j : D_j ∈ S}``;
* ``threshold_count(S, T)``: the count ``c`` if ``c ≥ T``, else ``⊥``;
* ``sum``, ``mean``, ``identity``;
* ``randomized_response(truth, values)``: each record independently reported truthfully with
  probability ``truth``, otherwise as each other value with ``(1 − truth)/(k − 1)``;
* ``geometric_count(S, α)``: the count plus two-sided geometric noise ``P[k] ∝ α^|k|`` clamped
  to ``{0..n}``, the mass beyond each end going to that end:
  ``P[j] = (1−α)/(1+α)·α^|j−c|`` inside, ``P[0] = α^c/(1+α)``, ``P[n] = α^(n−c)/(1+α)``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import product
from pathlib import Path

from gmpy2 import mpq

from verifier.core.distribution import BOTTOM, Dist
from verifier.core.errors import InvalidArgument, UnknownName, VerifierError, did_you_mean
from verifier.core.numbers import (
    boolean,
    format_rational,
    integer,
    open_unit,
    probability,
    rational,
)
from verifier.model.expnoise import NOISE_KINDS
from verifier.model.expnoise_zoo import ZOO_KINDS
from verifier.model.kernels import geometric_clamped_weights, randomized_response_weights
from verifier.model.program_enum import DEFAULT_PATHS, Enumerated
from verifier.model.user_code import Loader, UserFunction, as_output_dist, load_program

__all__ = [
    "Mechanism",
    "mechanism",
    "count",
    "threshold_count",
    "sum_query",
    "mean_query",
    "identity",
    "randomized_response",
    "geometric_count",
    "load_function",
    "build_mechanism",
    "MECHANISM_KINDS",
    "all_databases",
    "as_dist",
]

Database = tuple
Counts = Mapping[Hashable, int]


@dataclass(frozen=True, eq=False)
class Mechanism:
    """A kernel ``M: database ↦ Dist`` with a name and its parameters, for display.

    ``on_counts`` is set for symmetric mechanisms: ``on_counts(counts, n)`` gives the same
    distribution as ``kernel(D)`` for every ``D`` with those counts per value. ``kind`` is the
    built-in kind this mechanism is (``"count"``, ``"randomized_response"`` …), set only by the
    built-in builders: user code and post-processing have ``None`` whatever their name, so
    that nothing (a certificate, a solver encoding) mistakes ``def count(db)`` for the count.
    ``outputs_bound(n)``, when known, bounds the number of outputs on a database of ``n``
    records without running the kernel (so that a budget refuses before any work).
    """

    name: str
    kernel: Callable[[Database], Dist]
    params: Mapping[str, object] = field(default_factory=dict)
    on_counts: Callable[[Counts, int], Dist] | None = None
    kind: str | None = None
    outputs_bound: Callable[[int], int] | None = None
    prefetch: Callable[[Iterable[Database]], None] | None = None

    @property
    def symmetric(self) -> bool:
        return self.on_counts is not None

    def warm(self, databases: Iterable[Database]) -> None:
        """Evaluate the kernel on ``databases`` ahead of the calls that follow (user code in
        its own process answers them in a few round trips; any other kernel is left alone)."""
        if self.prefetch is not None:
            self.prefetch(databases)

    def warm_counts(self, vectors: Iterable[Sequence[int]], values: Sequence[Hashable]) -> None:
        """:meth:`warm` on the database ``on_counts`` evaluates for each count vector."""
        if self.prefetch is not None:
            self.prefetch(representative(dict(zip(values, c, strict=True))) for c in vectors)

    def __call__(self, database: Database) -> Dist:
        return self.kernel(tuple(database))

    def then(self, f: Callable[[Hashable], Hashable], name: str | None = None) -> Mechanism:
        """Post-processing: the mechanism ``f(M(D))``."""
        on_counts = self.on_counts
        return Mechanism(
            name or f"post({self.name})",
            lambda db: self.kernel(db).map(f),
            dict(self.params),
            (lambda c, n: on_counts(c, n).map(f)) if on_counts else None,
        )

    def describe(self) -> str:
        args = ", ".join(f"{k}={_show(v)}" for k, v in self.params.items())
        return f"{self.name}({args})"

    def __repr__(self) -> str:
        """The name and parameters, not the kernel's function object:

        >>> randomized_response("3/4", [0, 1])
        Mechanism(randomized_response(truth=3/4, values=[0, 1]))
        """
        return f"Mechanism({self.describe()}{', symmetric' if self.symmetric else ''})"


def _show(v: object) -> str:
    if isinstance(v, type(mpq(0))):
        return format_rational(v)
    if isinstance(v, (list, tuple, frozenset)):
        return "[" + ", ".join(_show(x) for x in v) + "]"
    return str(v)


def as_dist(value: object) -> Dist:
    """A kernel's answer as a Dist: a Dist as is, any other value as its point mass (a list
    is the tuple of its elements, so that ``[a, b]`` and ``(a, b)`` are the same output)."""
    return value if isinstance(value, Dist) else Dist.point(_hashable(value))


def _hashable(value: object) -> Hashable:
    if isinstance(value, (list, tuple)):
        return tuple(_hashable(v) for v in value)
    try:
        hash(value)
    except TypeError:
        raise InvalidArgument(f"a mechanism returned {type(value).__name__} {value!r:.60}, "
                              f"which is not a value (a randomized answer is a Dist)") from None
    return value


def mechanism(f: Callable[[Database], object], name: str | None = None,
              *, symmetric: bool = False) -> Mechanism:
    """Wrap a user function: a returned :class:`Dist` is a kernel, any other value a point mass;
    random choices drawn with :mod:`verifier.program` are enumerated exactly.

    With ``symmetric=True`` the caller declares that ``f`` depends only on the multiset of
    records; the count engine then calls ``f`` on one representative database per count vector.
    """
    prefetch = None
    if isinstance(f, UserFunction):
        user = f
        kernel = lambda db: as_output_dist(user(db), user)  # noqa: E731
        prefetch = lambda dbs: user.prefetch((tuple(db),) for db in dbs)  # noqa: E731
    elif isinstance(f, Enumerated):
        kernel = f
    else:  # its choices (verifier.program) enumerated; none: one path, its value or Dist
        kernel = Enumerated(f, str(getattr(f, "__name__", "function")), memo=False)
    on_counts = (lambda c, n: kernel(representative(c))) if symmetric else None
    return Mechanism(name or str(getattr(f, "__name__", "function")), kernel, {}, on_counts,
                     prefetch=prefetch)


def representative(counts: Counts) -> Database:
    """The database a symmetric user mechanism is run on for ``counts``: each value as often
    as it is counted, in the order of ``counts``."""
    return tuple(v for v, c in counts.items() for _ in range(c))


def _counted(values: Collection[Hashable]) -> frozenset:
    if isinstance(values, (str, bytes)) or not isinstance(values, (list, tuple, set, frozenset)):
        raise InvalidArgument(f"counts = {values!r} is not a list of record values",
                              argument="counts", value=values)
    for v in values:
        if isinstance(v, (float, list, dict, set)):
            raise InvalidArgument(f"counts contains {v!r}, which is not a record value (an "
                                  f"integer or a string)", argument="counts", value=values)
    return frozenset(values)


def _symmetric(name: str, params: dict, from_count: Callable[[int, int], Dist],
               counted: frozenset) -> Mechanism:
    def kernel(db: Database) -> Dist:
        return from_count(sum(1 for x in db if x in counted), len(db))

    def on_counts(counts: Counts, n: int) -> Dist:
        return from_count(sum(c for v, c in counts.items() if v in counted), n)

    return Mechanism(name, kernel, params, on_counts, kind=name)


def count(values: Collection[Hashable] = (1,)) -> Mechanism:
    """``M(D) = #{j : D_j ∈ values}``."""
    counted = _counted(values)
    return _symmetric("count", {"counts": sorted(counted, key=repr)},
                      lambda c, n: Dist.point(c), counted)


def threshold_count(values: Collection[Hashable] = (1,), threshold: int = 1) -> Mechanism:
    """``M_T(D) = c`` if ``c = #{j : D_j ∈ values} ≥ T``, else ``⊥`` (thesis Definition 60)."""
    counted = _counted(values)
    threshold = integer(threshold, "threshold")
    return _symmetric("threshold_count",
                      {"counts": sorted(counted, key=repr), "threshold": threshold},
                      lambda c, n: Dist.point(c if c >= threshold else BOTTOM), counted)


def _numeric_records(db: Database) -> list[mpq]:
    return [rational(x, "record") for x in db]


def sum_query() -> Mechanism:
    """``M(D) = Σ_j D_j`` over numeric records."""
    def total(counts: Counts, n: int) -> Dist:
        return Dist.point(sum((rational(v, "record") * c for v, c in counts.items()), mpq(0)))
    return Mechanism("sum", lambda db: Dist.point(sum(_numeric_records(db), mpq(0))), {}, total,
                     kind="sum")


def mean_query() -> Mechanism:
    """``M(D) = (1/n)·Σ_j D_j`` over numeric records, exact."""
    def mean(counts: Counts, n: int) -> Dist:
        return Dist.point(sum((rational(v, "record") * c for v, c in counts.items()), mpq(0)) / n)
    return Mechanism("mean",
                     lambda db: Dist.point(sum(_numeric_records(db), mpq(0)) / len(db)), {}, mean,
                     kind="mean")


def identity() -> Mechanism:
    """``M(D) = D``: releases the database itself."""
    return Mechanism("identity", Dist.point, {}, kind="identity", outputs_bound=lambda n: 1)


def randomized_response(truth: object, values: Sequence[Hashable]) -> Mechanism:
    """k-ary randomized response on every record, independently.

    Record value ``v`` is reported as ``v`` with probability ``truth`` and as each other value
    of the domain with ``(1 − truth)/(k − 1)``. The output is the tuple of reports.
    """
    t = probability(truth, "truth")
    domain = list(dict.fromkeys(values))
    if len(domain) < 2:
        raise InvalidArgument(f"values = {list(values)!r}: randomized response needs ≥ 2 values")
    t, other = randomized_response_weights(t, len(domain))
    per_value = {v: Dist._trusted({u: (t if u == v else other) for u in domain
                                   if (t if u == v else other) != 0}) for v in domain}

    def kernel(db: Database) -> Dist:
        try:
            return Dist.product(per_value[x] for x in db)
        except KeyError as exc:
            raise InvalidArgument(f"record {exc.args[0]!r} is not in values = {domain!r}") from None

    reports = max(len(d) for d in per_value.values())  # reports a record can give
    return Mechanism("randomized_response", kernel, {"truth": t, "values": domain},
                     kind="randomized_response", outputs_bound=lambda n: reports ** n)


def _geometric_clamped(c: int, n: int, alpha: mpq) -> Dist:
    weights = geometric_clamped_weights(c, n, alpha)
    return Dist._trusted({k: mpq(w) for k, w in weights.items() if w != 0})


def geometric_count(values: Collection[Hashable] = (1,), alpha: object = "1/2") -> Mechanism:
    """The count plus two-sided geometric noise ``P[k] ∝ α^|k|``, clamped to ``{0..n}``.

    With ``α = e^{−ε}`` this is ε-DP for the count (sensitivity 1).
    """
    a = open_unit(alpha, "alpha")
    counted = _counted(values)
    return _symmetric("geometric_count", {"counts": sorted(counted, key=repr), "alpha": a},
                      lambda c, n: _geometric_clamped(c, n, a), counted)


def load_function(reference: str, *, search_dir: Path | None = None,
                  name: str = "function") -> Callable:
    """The function named ``"module:function"`` (see :func:`verifier.model.user_code.
    load_function`, which also wraps its calls; this returns the function itself)."""
    from verifier.model.user_code import load_function as load

    return load(reference, search_dir=search_dir, name=name).function


# --------------------------------------------------------------- spec-level builder

def _build_user(p: dict, values, where):
    from verifier.model.user_code import load_from

    f = load_from(p["function"], where, "function")
    symmetric = _arg("symmetric", boolean, p.get("symmetric", False))
    return mechanism(f, name=f.__name__, symmetric=symmetric)


def _build_program(p: dict, where, paths: int) -> Mechanism:
    f = load_program(p["function"], where, "function", paths)
    symmetric = _arg("symmetric", boolean, p.get("symmetric", False))
    return mechanism(f, name=f.__name__, symmetric=symmetric)


def _arg(key: str, read: Callable, value: object):
    """``read(value, key)``; an error names ``key`` (its ``argument``) for the spec reader."""
    try:
        return read(value, key)
    except VerifierError as exc:
        exc.argument = key
        raise


def _counts_arg(p: Mapping, domain: Sequence[Hashable]) -> frozenset:
    """The spec's ``counts``: a non-empty list of distinct record values, each in the domain
    (a value outside it would make the count constant, and every claim hold vacuously)."""
    given = p.get("counts", [1])

    def read(v: object, key: str) -> frozenset:
        counted = _counted(v)  # type: ignore[arg-type]
        assert isinstance(v, (list, tuple))
        if not v:
            raise InvalidArgument("counts = [] counts nothing; list the record values to count",
                                  value=v)
        if len(counted) != len(v):
            raise InvalidArgument(f"counts = {v!r} repeats a value", value=v)
        outside = [x for x in v if x not in domain]
        if outside:
            default = "" if "counts" in p else " (counts defaults to [1])"
            raise InvalidArgument(f"counts = {v!r}: {outside[0]!r} is not one of the record "
                                  f"values {list(domain)!r}{default}", value=v)
        return counted

    return _arg("counts", read, given)


MECHANISM_KINDS: dict[str, tuple[frozenset, frozenset, Callable]] = {
    # kind: (required keys, optional keys, builder(params, values, where)): ``where`` user
    # code is loaded from (verifier.model.user_code.load_from)
    "count": (frozenset(), frozenset({"counts"}),
              lambda p, v, d: count(_counts_arg(p, v))),
    "threshold_count": (frozenset({"threshold"}), frozenset({"counts"}),
                        lambda p, v, d: threshold_count(
                            _counts_arg(p, v), _arg("threshold", integer, p["threshold"]))),
    "sum": (frozenset(), frozenset(), lambda p, v, d: sum_query()),
    "mean": (frozenset(), frozenset(), lambda p, v, d: mean_query()),
    "identity": (frozenset(), frozenset(), lambda p, v, d: identity()),
    "randomized_response": (frozenset({"truth"}), frozenset(),
                            lambda p, v, d: randomized_response(
                                _arg("truth", probability, p["truth"]), v)),
    "geometric_count": (frozenset({"alpha"}), frozenset({"counts"}),
                        lambda p, v, d: geometric_count(
                            _counts_arg(p, v), _arg("alpha", open_unit, p["alpha"]))),
    "function": (frozenset({"function"}), frozenset({"symmetric"}), _build_user),
    "program": (frozenset({"function"}), frozenset({"symmetric"}),
                lambda p, v, d: _build_program(p, d, DEFAULT_PATHS)),
}


def build_mechanism(kind: str, params: Mapping[str, object], values: Sequence[Hashable],
                    search_dir: Path | Loader | None = None, *,
                    paths: int = DEFAULT_PATHS) -> Mechanism:
    """Build a mechanism from a spec table: ``kind`` and its parameters, checked by name.
    ``search_dir`` is where a ``kind = "function"`` or ``"program"`` is loaded from: a
    sandbox (isolated), a folder or ``None`` (in-process); ``paths`` bounds a program's
    paths per database (``limits.paths``).

    Every error carries the key it is about as its ``argument`` (``"truth"``, ``"kind"``;
    ``None`` when it is about the mechanism as a whole)."""
    if not isinstance(kind, str) or kind not in MECHANISM_KINDS:
        kinds = sorted({*MECHANISM_KINDS, *NOISE_KINDS, *ZOO_KINDS})  # (noise: its own reader)
        raise UnknownName(f"kind = {kind!r} is not a mechanism kind; known kinds: "
                          f"{', '.join(kinds)}{did_you_mean(kind, kinds)}", argument="kind",
                          value=kind)
    required, optional, build = MECHANISM_KINDS[kind]
    if unknown := sorted(params.keys() - required - optional):  # first: a misspelt required
        takes = ", ".join(sorted(required | optional)) or "none"
        raise InvalidArgument(f"mechanism kind {kind!r} takes no key {', '.join(unknown)} (it "
                              f"takes {takes}){did_you_mean(unknown[0], required | optional)}",
                              argument=unknown[0], value=params[unknown[0]])
    if missing := sorted(required - params.keys()):
        raise InvalidArgument(f"mechanism kind {kind!r} needs {', '.join(missing)}",
                              argument=missing[0])
    if kind == "program":
        return _build_program(dict(params), search_dir, paths)
    return build(dict(params), values, search_dir)


def all_databases(values: Sequence[Hashable], n: int):
    """Every database of ``n`` records over ``values``, in lexicographic order."""
    return product(values, repeat=n)

