"""Guessing-advantage spec files (``plrv guess``): TOML tables read into a :class:`GuessSpec`.

Spec (TOML)::

    [domain]     values = [...] | range = [lo, hi] | grid = [[...], [...]] (one list per attribute)
    [prior]      weights = [...] in domain order (default: uniform)
    [mechanism]  kind = "truncated_geometric" (alpha) | "exponential" (beta) | "identity"
                 | "function" (function = "module:function", returning a Dist)
    [goal]       precision = r or [r_1, …, r_k];  mode = "and" | "or"
    [query]      epsilon (default: the mechanism's tight ε·d), targets ("all" or a list),
                 eta (also invert: the ε that keeps the advantage at most η), tolerance
                 (the precise inversion's relative width: only with eta, and an AND goal or
                 one attribute)
    [limits]     work (|X|²·|Z|), user_seconds, user_memory (verifier.core.budget.GUESS_LIMITS)
"""

from __future__ import annotations

from itertools import product
from pathlib import Path

from gmpy2 import mpq

from verifier.core.budget import GUESS_LIMITS, Budget, budget_from_limits
from verifier.core.distribution import Dist
from verifier.core.errors import InvalidArgument
from verifier.core.numbers import open_unit, positive
from verifier.guessing.bounds import as_scaled_log, check_tolerance
from verifier.guessing.metric import exponential_mechanism, truncated_geometric
from verifier.guessing.model import GuessModel
from verifier.guessing.problem import GuessProblem, precise_inversion
from verifier.model.sandbox import Sandbox, sandbox_for
from verifier.model.user_code import as_output_dist, load_from
from verifier.specs.files import check_kind, check_tables, read_toml
from verifier.specs.keys import Table, anything, integer_value, list_of

__all__ = ['GuessSpec', 'load_guess_spec', 'PARAMETERS', 'KINDS']

_KEYS = {
    "domain": {"values", "range", "grid"},
    "prior": {"weights"},
    "mechanism": {"kind", "alpha", "beta", "function"},
    "goal": {"precision", "mode"},
    "query": {"epsilon", "targets", "eta", "tolerance"},
    "limits": set(GUESS_LIMITS),
}
KINDS = ("truncated_geometric", "exponential", "identity", "function")


GuessSpec = GuessProblem  # the name the readers and commands use


def _domain(t: Table, budget: Budget) -> tuple:
    given = t.given("values", "range", "grid")
    if len(given) != 1:
        raise t.fail("", "give exactly one of values, range, grid")
    if "values" in t:
        vals: list = t.list_of("values", integer_value)
    elif "range" in t:
        lo, hi = t.list_of("range", integer_value, length=2)
        if hi < lo:
            raise t.fail("range", f"range = [{lo}, {hi}] is empty (lo > hi)", t.raw["range"])
        _check_size(t, "range", hi - lo + 1, budget)
        vals = list(range(lo, hi + 1))
    else:
        axes = t.list_of("grid", lambda v, k: list_of(v, k, integer_value))
        size = 1
        for axis in axes:
            size *= len(axis)
            _check_size(t, "grid", size, budget)
        vals = list(product(*axes))
    if len(set(vals)) != len(vals):
        raise t.fail(given[0], "the domain repeats a value", t.raw[given[0]])
    return tuple(vals)


def _check_size(t: Table, key: str, size: int, budget: Budget) -> None:
    """The domain's size against ``limits.work`` (``|X|²``), before the domain is built."""
    t.check(key, budget.require, "work", size ** 2, f"guessing over {size} domain values: |X|²",
            ", or use a smaller domain")


PARAMETERS = {"truncated_geometric": "alpha", "exponential": "beta", "function": "function"}


def _kernel(t: Table, domain: tuple, where: Sandbox | None):
    """The kernel ``x ↦ M(· | x)`` and the built-in kind's exact parameters. A parameter of
    another kind (``alpha`` without ``kind = "truncated_geometric"``, say) is refused: the
    kind read would never use it."""
    kind = t.string("kind", KINDS, "identity")
    for other, key in PARAMETERS.items():
        if key in t.raw and other != kind:
            raise t.fail(key, f"{key} is the parameter of kind = {other!r}; kind = {kind!r}"
                              + (" (the default)" if "kind" not in t.raw else "")
                              + " does not use it: remove it or set the kind", t.raw[key])
    if kind == "truncated_geometric":
        if not all(isinstance(x, int) for x in domain):
            raise t.fail("kind", "truncated_geometric needs a one-attribute domain", kind)
        alpha = t.rational("alpha", check=open_unit)
        return t.check("alpha", truncated_geometric, alpha, min(domain), max(domain)), \
            (("alpha", alpha),)
    if kind == "exponential":
        def l1(x, z):
            cx = x if isinstance(x, tuple) else (x,)
            cz = z if isinstance(z, tuple) else (z,)
            return sum(abs(a - b) for a, b in zip(cx, cz, strict=True))
        beta = t.rational("beta", check=open_unit)
        return t.check("beta", exponential_mechanism, beta, domain, l1), (("beta", beta),)
    if kind == "identity":
        return Dist.point, ()
    f = t.read("function", lambda ref, k: load_from(ref, where, k))

    def kernel(x: object) -> Dist:
        return as_output_dist(f(x), f)
    kernel.warm = lambda xs: f.prefetch((x,) for x in xs)  # type: ignore[attr-defined]
    return kernel, ()


def _target(domain: tuple):
    members = set(domain)

    def read(value: object, name: str):
        v = tuple(list_of(value, name, integer_value)) if isinstance(value, list) else \
            integer_value(value, name)
        if v not in members:
            raise InvalidArgument(f"target {v!r} is not in the domain", argument=name,
                                  value=value)
        return v
    return read


def load_guess_spec(path: str | Path) -> GuessSpec:
    """Read a guessing spec; every problem is a :class:`SpecError` naming file and key."""
    file = str(path)
    raw = read_toml(path)
    check_kind(raw, "guess", file)
    check_tables(raw, _KEYS, file)
    dom = Table.of(raw, "domain", file, required=True)
    limits, prior_t = Table.of(raw, "limits", file), Table.of(raw, "prior", file)
    mech_t, goal, query = (Table.of(raw, name, file) for name in ("mechanism", "goal", "query"))
    budget = budget_from_limits(limits.raw, GUESS_LIMITS, file)
    domain = _domain(dom, budget)

    if "weights" in prior_t:
        weights = prior_t.list_of("weights", anything, length=len(domain))
        prior = prior_t.check("weights", lambda: Dist(zip(domain, weights, strict=True),
                                                      name="prior"))
    else:
        prior = Dist.uniform(domain)
    kernel, params = _kernel(mech_t, domain, sandbox_for(Path(path).resolve().parent, budget))
    prec_raw = goal.raw.get("precision", 1)
    attributes = len(domain[0]) if isinstance(domain[0], tuple) else 1
    if isinstance(prec_raw, list):
        prec = tuple(goal.list_of("precision", positive, length=attributes))
    else:
        prec = (goal.rational("precision", 1, positive),)
    mode = goal.string("mode", ("and", "or"), "and")
    model = goal.check("precision", GuessModel, domain, prior, kernel, prec, mode, budget)

    targets_raw = query.raw.get("targets", "all")
    targets = domain if targets_raw == "all" else \
        tuple(query.list_of("targets", _target(domain)))
    eps = query.read("epsilon", lambda v, k: as_scaled_log(v), None)
    eta = query.rational("eta", None, open_unit)
    tolerance = query.rational("tolerance", mpq(1, 10**6), check_tolerance)
    if "tolerance" in query.raw and not (eta is not None and precise_inversion(model)):
        why = "no eta is given: nothing is inverted" if eta is None else \
            "goal.mode = 'or' over several attributes has no precise inversion"
        raise query.fail("tolerance", f"tolerance sets the width of the precise inversion of "
                                      f"eta; {why}: remove it", query.raw["tolerance"])
    return GuessSpec(model, eps, targets, eta, mech_t.raw.get("kind", "identity"), tolerance,
                     params)
