"""The guessing-advantage check: spec tables, the per-target report, and its JSON form.

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

from collections.abc import Hashable
from dataclasses import dataclass
from itertools import product
from pathlib import Path

from gmpy2 import mpq

from verifier.core.distribution import Dist
from verifier.core.errors import SpecError, VerifierError
from verifier.core.numbers import rational
from verifier.guessing.bounds import (
    Certified,
    as_scaled_log,
    check_eta,
    precise_bound,
    precise_epsilon,
    simplified_bound,
    simplified_epsilon,
)
from verifier.guessing.metric import (
    ScaledLog,
    exponential_mechanism,
    tight_epsilon,
    truncated_geometric,
)
from verifier.guessing.model import GuessModel, advantage, vulnerability
from verifier.io.files import check_tables, read_toml
from verifier.io.json_out import jsonable
from verifier.model.mechanisms import as_dist, load_function

__all__ = ["GuessSpec", "load_guess_spec", "guess_report", "TargetRow"]

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


@dataclass(frozen=True)
class TargetRow:
    target: Hashable
    prior: mpq
    posterior: mpq
    output: Hashable
    precise: Certified
    simplified: Certified

    @property
    def advantage(self) -> mpq:
        return self.posterior - self.prior

    def order(self) -> bool | None:
        """``posterior ≤ precise ≤ simplified`` (None if a comparison stays undecided)."""
        a, b = self.precise.compare(self.posterior), self.simplified.compare(self.precise)
        if a is None or b is None:
            return None
        return a >= 0 and b >= 0


def _bounds(model: GuessModel, x, eps_per_attr: list) -> tuple[Certified, Certified]:
    """The bounds for target ``x``; OR goals add the single-attribute bounds (seed 004)."""
    if model.mode == "and":
        return precise_bound(model, x, eps_per_attr[0]), simplified_bound(model, x, eps_per_attr[0])
    parts = [(precise_bound(model, x, e, k), simplified_bound(model, x, e, k))
             for k, e in enumerate(eps_per_attr)]

    def total(i):
        return Certified(lambda prec: tuple(
            min(mpq(1), sum((p[i].enclose(prec)[j] for p in parts), mpq(0))) for j in (0, 1)))
    return total(0), total(1)


def guess_report(spec: GuessSpec) -> dict:
    """Everything ``plrv guess SPEC`` shows, as exact values (and Certified bounds)."""
    m = spec.model
    ks = [None] if m.mode == "and" else list(range(m.attributes))
    tight = [tight_epsilon(m.kernel, m.domain, lambda x, y, k=k: m.distance(x, y, k))
             for k in ks]
    eps = [spec.epsilon if spec.epsilon is not None else t[0] for t in tight]
    # the bounds apply only if M is ε·d-private at the ε used (an ε in nats is not compared)
    checks = [e.compare(t[0]) >= 0 if isinstance(e, ScaledLog) else None
              for e, t in zip(eps, tight)]
    private = None if None in checks else all(checks)
    joint = m.joint()
    rows = []
    for adv in advantage(m, spec.targets, joint):
        precise, simple = _bounds(m, adv.target, eps)
        rows.append(TargetRow(adv.target, adv.prior, adv.posterior, adv.output, precise, simple))
    worst = max(rows, key=lambda r: r.advantage)
    pre, post = vulnerability(m, joint)
    out = {"tight": tight, "epsilon": eps, "private_at_epsilon": private, "rows": rows,
           "worst": worst, "vulnerability": (pre, post),
           "diameter": [m.diameter(k) for k in ks]}
    if spec.eta is not None:
        out["inversion"] = {
            "eta": spec.eta,
            "simplified": simplified_epsilon(worst.prior, spec.eta, m.diameter(ks[0])),
            "precise": precise_epsilon(m, worst.target, spec.eta, spec.tolerance)
            if m.mode == "and" else None,
            "target": worst.target}
    return out


def report_json(rep: dict) -> dict:
    """The JSON form: exact strings, certified decimals beside the bounds."""
    def cert(c: Certified) -> dict:
        return {"value": str(c) if c.value is not None else None, "approx": c.approx()}

    rows = [{"target": jsonable(r.target), "prior": str(r.prior), "posterior": str(r.posterior),
             "advantage": str(r.advantage), "output": jsonable(r.output),
             "precise_bound": cert(r.precise), "simplified_bound": cert(r.simplified),
             "slack_precise": cert(Certified(lambda p, r=r: tuple(
                 x - r.posterior for x in r.precise.enclose(p)))),
             "slack_simplified": cert(Certified(lambda p, r=r: tuple(
                 x - r.posterior for x in r.simplified.enclose(p)))),
             "order_holds": r.order()} for r in rep["rows"]]
    w = rep["worst"]
    out = {
        "epsilon": [str(e) for e in rep["epsilon"]] if len(rep["epsilon"]) > 1
        else str(rep["epsilon"][0]),
        "tight_epsilon": [{"epsilon": str(t[0]), "witness": jsonable(list(t[1]))}
                          for t in rep["tight"]],
        "private_at_epsilon": rep["private_at_epsilon"],
        "diameter": [str(d) for d in rep["diameter"]],
        "worst": {"target": jsonable(w.target), "advantage": str(w.advantage),
                  "prior": str(w.prior), "posterior": str(w.posterior),
                  "output": jsonable(w.output)},
        "vulnerability": {"prior": str(rep["vulnerability"][0]),
                          "posterior": str(rep["vulnerability"][1])},
        "targets": rows,
    }
    if "inversion" in rep:
        inv = rep["inversion"]
        out["inversion"] = {
            "eta": str(inv["eta"]), "target": jsonable(inv["target"]),
            "simplified_epsilon": str(inv["simplified"]),
            "precise_epsilon": None if inv["precise"] is None else
            [str(inv["precise"][0]), str(inv["precise"][1])]}
    return out
