"""Guessing-advantage spec files (``plrv guess``): TOML tables read into a :class:`GuessSpec`.

Spec (TOML)::

    [domain]     values = [...] | range = [lo, hi] | grid = [[...], [...]] (one list per attribute)
    [prior]      weights = [...] in domain order (default: uniform)
    [mechanism]  kind = "truncated_geometric" (alpha) | "exponential" (beta) | "identity"
                 | "function" (function = "module:function", returning a Dist)
    [goal]       precision = r or [r_1, …, r_k];  mode = "and" | "or"
    [query]      epsilon (default: the mechanism's tight ε·d), targets ("all" or a list),
                 eta (also invert: the ε that keeps the advantage at most η)
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from pathlib import Path

from gmpy2 import mpq

from verifier.core.distribution import Dist
from verifier.core.errors import SpecError, VerifierError
from verifier.core.numbers import rational
from verifier.guessing.bounds import (
    as_scaled_log,
    check_eta,
)
from verifier.guessing.metric import (
    exponential_mechanism,
    truncated_geometric,
)
from verifier.guessing.model import GuessModel
from verifier.io.files import check_tables, read_toml
from verifier.model.mechanisms import as_dist, load_function

__all__ = ['GuessSpec', 'load_guess_spec']

_KEYS = {
    "domain": {"values", "range", "grid"},
    "prior": {"weights"},
    "mechanism": {"kind", "alpha", "beta", "function"},
    "goal": {"precision", "mode"},
    "query": {"epsilon", "targets", "eta", "tolerance"},
}


@dataclass(frozen=True)
class GuessSpec:
    model: GuessModel
    epsilon: object | None  # None: the mechanism's tight ε
    targets: tuple
    eta: mpq | None
    mechanism: str
    tolerance: mpq = mpq(1, 10**6)  # relative width of the precise inversion's interval


def _fail(file, key, msg):
    return SpecError(msg, file=file, key=key)


def _domain(t: dict, file) -> tuple:
    given = [k for k in ("values", "range", "grid") if k in t]
    if len(given) != 1:
        raise _fail(file, "domain", "give exactly one of values, range, grid")
    if "values" in t:
        vals = t["values"]
    elif "range" in t:
        lo, hi = t["range"]
        vals = list(range(lo, hi + 1))
    else:
        vals = list(product(*t["grid"]))
    for v in vals:
        for c in (v if isinstance(v, tuple) else (v,)):
            if isinstance(c, bool) or not isinstance(c, int):
                raise _fail(file, "domain", f"value {v!r} is not an integer (or tuple of them)")
    if not vals or len(set(vals)) != len(vals):
        raise _fail(file, "domain", "the domain is empty or repeats a value")
    return tuple(vals)


def _kernel(t: dict, domain: tuple, file, search_dir):
    kind = t.get("kind")
    if kind == "truncated_geometric":
        if not all(isinstance(x, int) for x in domain):
            raise _fail(file, "mechanism.kind", "truncated_geometric needs a one-attribute domain")
        lo, hi = min(domain), max(domain)
        return truncated_geometric(t.get("alpha"), lo, hi)
    if kind == "exponential":
        def l1(x, z):
            cx = x if isinstance(x, tuple) else (x,)
            cz = z if isinstance(z, tuple) else (z,)
            return sum(abs(a - b) for a, b in zip(cx, cz))
        return exponential_mechanism(t.get("beta"), domain, l1)
    if kind == "identity":
        return Dist.point
    if kind == "function":
        f = load_function(t.get("function"), search_dir=search_dir, name="function")
        return lambda x: as_dist(f(x))
    raise _fail(file, "mechanism.kind", f"kind = {kind!r} is not one of truncated_geometric, "
                                        f"exponential, identity, function")


def load_guess_spec(path: str | Path) -> GuessSpec:
    """Read a guessing spec; every problem is a :class:`SpecError` naming file and key."""
    file = str(path)
    raw = read_toml(path)
    check_tables(raw, _KEYS, file)
    if "domain" not in raw:
        raise _fail(file, "[domain]", "this table is missing")
    domain = _domain(raw["domain"], file)
    key = "prior.weights"
    try:
        weights = raw.get("prior", {}).get("weights")
        prior = Dist.uniform(domain) if weights is None else Dist(
            zip(domain, weights), name="prior") if len(weights) == len(domain) else None
        if prior is None:
            raise _fail(file, key, f"has {len(weights)} weights for {len(domain)} values")
        key = "mechanism"
        kernel = _kernel(raw.get("mechanism", {"kind": "identity"}), domain, file,
                         Path(path).resolve().parent)
        key = "goal.precision"
        goal = raw.get("goal", {})
        prec = goal.get("precision", 1)
        prec = tuple(rational(r, "precision") for r in (prec if isinstance(prec, list)
                                                        else [prec]))
        key = "goal"
        model = GuessModel(domain, prior, kernel, prec, goal.get("mode", "and"))
        query = raw.get("query", {})
        key = "query.targets"
        targets = query.get("targets", "all")
        targets = domain if targets == "all" else tuple(
            tuple(t) if isinstance(t, list) else t for t in targets)
        for t in targets:
            if t not in domain:
                raise _fail(file, key, f"target {t!r} is not in the domain")
        key = "query.epsilon"
        eps = as_scaled_log(query["epsilon"]) if "epsilon" in query else None
        key = "query.eta"
        eta = check_eta(query["eta"]) if "eta" in query else None
        key = "query.tolerance"
        tolerance = rational(query.get("tolerance", "1/1000000"), "tolerance")
        if tolerance <= 0:
            raise _fail(file, key, f"tolerance = {tolerance} must be > 0")
    except SpecError:
        raise
    except VerifierError as exc:
        raise _fail(file, key, str(exc)) from None
    mech = raw.get("mechanism", {}).get("kind", "identity")
    return GuessSpec(model, eps, targets, eta, mech, tolerance)


