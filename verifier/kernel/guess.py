"""Guessing advantage in certificates, for the independent checker (standard library only).

Re-checks a certificate of ``plrv guess`` (seed 004, Pankova & Laud) with ``Fraction`` only:

1. the prior and every row ``M(· | x)`` of the kernel table sum to 1;
2. per target ``x``, with ``g(x)`` rebuilt from the precisions (AND: ``|x_k − y_k| ≤ r_k`` for
   every ``k``; OR: for some ``k``): ``P[X ∈ g(x)]``, the best posterior
   ``max_z P[X ∈ g(x) | M(X) = z]``, that the listed output attains it, and the advantage;
3. the best Bayesian guess before and after the output;
4. whether ``M`` is ε·d-private at ε = ``ln(b)/s``: ``M(z|x) ≤ b^{d/s}·M(z|x')`` for every
   ``x, x', z``, compared exactly as ``M(z|x)^{s·q} ≤ b^p·M(z|x')^{s·q}`` for ``d = p/q``;
5. where every ``e^{ε·d} = b^{d/s}`` involved is rational: the precise bound
   ``1/(1 + Σ_{x''∉g} π(x'') / Σ_{x'∈g} e^{ε·d(x'',x')}·π(x'))`` and the simplified one
   ``1/(1 + e^{−ε·R}·π(X∖g)/π(g))`` (OR goals: the single-attribute bounds added, at most 1),
   and then the verdict ``posterior ≤ precise ≤ simplified`` for every target. When a power is
   irrational the checker says so and leaves those comparisons to the engine.
"""

from __future__ import annotations

from fractions import Fraction

from .exact import (
    MAX_EXP_BITS,
    TOP,
    ZERO,
    Recorded,
    Rejected,
    Undecided,
    exact_fields,
    key,
    q,
    within,
)

__all__ = ["verify_guess"]

ONE = Fraction(1)


def _coords(x: object) -> tuple:
    c = tuple(x) if isinstance(x, list) else (x,)
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in c):
        raise Rejected(f"spec.domain: {x!r} is not an integer or a list of integers")
    return c


def _iroot(n: int, k: int) -> int | None:
    """The integer ``k``-th root of ``n ≥ 0``, or None when ``n`` is not a ``k``-th power."""
    lo, hi = 0, 1
    while hi ** k <= n:
        hi *= 2
    while lo < hi - 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if mid ** k <= n else (lo, mid)
    return lo if lo ** k == n else None


MAX_SCALE = 10 ** 6


def _epsilon(eps: object, j: int) -> dict:
    """One ε exactly as plrv writes it: ``{"infinite": true}``, ``{"base", "scale"}`` for
    ``ln(base)/scale`` (a rational ``base ≥ 1``, an integer ``scale ≥ 1``) or ``{"nats"}``
    (a rational ≥ 0); any other shape or an extra key is refused, never read as another."""
    where = f"spec.epsilon[{j}]"
    if isinstance(eps, dict) and set(eps) == {"infinite"} and eps["infinite"] is True:
        return eps
    if isinstance(eps, dict) and set(eps) == {"base", "scale"}:
        s = eps["scale"]
        if type(s) is not int or not 1 <= s <= MAX_SCALE or q(eps["base"], where) < 1:
            raise Rejected(f"{where}: ln(base)/scale needs base ≥ 1 and an integer scale in "
                           f"1..{MAX_SCALE}")
        return eps
    if isinstance(eps, dict) and set(eps) == {"nats"} and q(eps["nats"], where) >= 0:
        return eps
    raise Rejected(f"{where}: {eps!r:.80} is not {{infinite: true}}, {{base, scale}} or "
                   f"{{nats}} (≥ 0)")


def _pow(b: Fraction, e: int) -> Fraction:
    """``b^e``, refused beyond the kernel's size limit (unknown, never a hang)."""
    if abs(e) * (b.numerator.bit_length() + b.denominator.bit_length()) > MAX_EXP_BITS:
        raise Undecided(f"a power of {b!r:.40} with exponent {e} exceeds the kernel's size "
                        f"limit")
    return b ** e


def _power(eps: dict, d: Fraction) -> Fraction | None:
    """``e^{ε·d} = base^{d/scale}`` when it is rational, else None."""
    if "base" not in eps:
        return None
    e = d / eps["scale"]
    b = _pow(q(eps["base"], "spec.epsilon.base"), e.numerator)
    num, den = _iroot(b.numerator, e.denominator), _iroot(b.denominator, e.denominator)
    return None if num is None or den is None else Fraction(num, den)


class _Model:
    def __init__(self, spec: dict):
        self.domain = [key(x) for x in spec["domain"]]
        self.coords = {key(x): _coords(x) for x in spec["domain"]}
        self.prior = dict(zip(self.domain, (q(p, "spec.prior") for p in spec["prior"]),
                              strict=True))
        if any(p < 0 for p in self.prior.values()) or sum(self.prior.values(), ZERO) != 1:
            raise Rejected(f"spec.prior: sums to {sum(self.prior.values(), ZERO)} (or has a "
                           f"negative weight), not 1")
        self.r = [q(r, "spec.precisions") for r in spec["precisions"]]
        if any(r <= 0 for r in self.r) or any(len(c) != len(self.r)
                                              for c in self.coords.values()):
            raise Rejected("spec.precisions: not one positive precision per attribute")
        self.mode = spec["mode"]
        self.ks: list = [None] if self.mode == "and" else list(range(len(self.r)))

    def distance(self, x: str, y: str, k: int | None) -> Fraction:
        cx, cy = self.coords[x], self.coords[y]
        return max(Fraction(abs(cx[j] - cy[j])) / self.r[j]
                   for j in (range(len(self.r)) if k is None else [k]))

    def goal(self, x: str, k: int | None) -> set:
        near = all if self.mode == "and" or k is not None else any
        cx = self.coords[x]
        return {y for y in self.domain if near(abs(cx[j] - self.coords[y][j]) <= self.r[j]
                                               for j in (range(len(self.r)) if k is None
                                                         else [k]))}

    def diameter(self, k: int | None) -> Fraction:
        return max(self.distance(x, y, k) for x in self.domain for y in self.domain)


def _precise(m: _Model, x: str, eps: dict, k: int | None) -> Fraction | None:
    g = m.goal(x, k)
    inside = [(y, m.prior[y]) for y in g if m.prior[y]]
    outside = [(y, m.prior[y]) for y in m.domain if y not in g and m.prior[y]]
    if not inside:
        return ZERO
    if eps.get("infinite"):
        return ONE
    s = ZERO
    for y2, w2 in outside:
        den = ZERO
        for y1, w1 in inside:
            p = _power(eps, m.distance(y2, y1, k))
            if p is None:
                return None
            den += p * w1
        s += w2 / den
    return 1 / (1 + s)


def _simplified(m: _Model, x: str, eps: dict, k: int | None) -> Fraction | None:
    p = sum((m.prior[y] for y in m.goal(x, k)), ZERO)
    if p in (0, 1):
        return p
    if eps.get("infinite"):
        return ONE
    e = _power(eps, -m.diameter(k))
    return None if e is None else 1 / (1 + e * (1 - p) / p)


def _bound(m: _Model, x: str, epsilons: list, which) -> Fraction | None:
    parts = [which(m, x, e, k) for e, k in zip(epsilons, m.ks, strict=True)]
    if None in parts:
        return None
    return parts[0] if m.mode == "and" else min(ONE, sum(parts, ZERO))


def _private(m: _Model, kernel: dict, epsilons: list) -> bool | None:
    for eps, k in zip(epsilons, m.ks, strict=True):
        if eps.get("infinite"):
            continue
        if "base" not in eps:
            return None
        b, s = q(eps["base"], "spec.epsilon.base"), eps["scale"]
        for x in m.domain:
            for y in m.domain:
                d = m.distance(x, y, k)
                root, power = s * d.denominator, d.numerator  # d = power / denominator
                for z, p in kernel[x].items():
                    if _pow(p, root) > _pow(b, power) * _pow(kernel[y].get(z, ZERO), root):
                        return False
    return True


def _kernel(m: _Model, ev: dict) -> dict:
    kernel = {}
    for j, (x, law) in enumerate(ev["kernel"]):
        row = {key(z): q(p, f"evidence.kernel[{j}]") for z, p in law}
        if any(p < 0 for p in row.values()) or sum(row.values(), ZERO) != 1:
            raise Rejected(f"evidence.kernel[{j}] (x = {x!r}): M(· | x) sums to "
                           f"{sum(row.values(), ZERO)}, not 1")
        kernel[key(x)] = row
    if sorted(kernel) != sorted(m.domain):
        raise Rejected("evidence.kernel: not one row per value of the domain")
    return kernel


def _own_kernel(spec: dict, m: _Model) -> dict | None:
    """``M(· | x)`` of a built-in kind, written from its definition (seed 004's examples):
    the truncated geometric ``P[z|x] = (1−α)/(1+α)·α^|z−x|`` inside ``lo..hi``, the mass
    beyond each end at that end; the exponential ``P[z|x] ∝ β^{|x − z|_1}`` over the domain;
    the identity. None for user code."""
    mech = spec["mechanism"]
    kind = mech.get("kind") if isinstance(mech, dict) else None
    params = {k: q(v, f"spec.mechanism.params.{k}") for k, v in mech.get("params", {}).items()} \
        if isinstance(mech, dict) else {}
    wanted = {"truncated_geometric": {"alpha"}, "exponential": {"beta"}, "identity": set(),
              "function": set()}
    if kind not in wanted or set(params) != wanted[kind]:
        raise Rejected(f"spec.mechanism: {mech!r:.80} is not a mechanism kind with its "
                       f"parameters")
    if any(not 0 < p < 1 for p in params.values()):
        raise Rejected(f"spec.mechanism.params: {params} outside (0, 1)")
    out = {}
    if kind == "function":
        return None
    if kind == "identity":
        return {x: {x: ONE} for x in m.domain}
    if kind == "truncated_geometric":
        ints = {x: m.coords[x] for x in m.domain}
        if any(len(c) != 1 for c in ints.values()):
            raise Rejected("spec.mechanism: truncated_geometric needs a one-attribute domain")
        al, lo, hi = params["alpha"], min(c[0] for c in ints.values()), \
            max(c[0] for c in ints.values())
        within(len(ints) * (hi - lo + 1), f"truncated_geometric over {lo}..{hi}")
        for x, (v,) in ints.items():
            if lo == hi:
                out[x] = {key(v): ONE}
                continue
            row = {key(z): (1 - al) / (1 + al) * al ** abs(z - v) for z in range(lo + 1, hi)}
            row[key(lo)], row[key(hi)] = al ** (v - lo) / (1 + al), al ** (hi - v) / (1 + al)
            out[x] = row
        return out
    beta = params["beta"]
    within(len(m.domain) ** 2, f"the exponential mechanism over {len(m.domain)} values")
    for x in m.domain:
        w = {z: _pow(beta, sum(abs(a - b) for a, b in zip(m.coords[x], m.coords[z],
                                                             strict=True)))
             for z in m.domain}
        total = sum(w.values(), ZERO)
        out[x] = {z: p / total for z, p in w.items()}
    return out


def verify_guess(cert: dict, notes: list) -> bool | None:
    """Check a ``plrv guess`` certificate and return whether its claim holds (None when the
    verdict rests on the engine's certified comparisons); raises :class:`Rejected` at the
    first discrepancy."""
    exact_fields(cert, TOP | {"results", "evidence"}, "guess certificate")
    spec, ev, res = cert["spec"], cert["evidence"], cert["results"]
    exact_fields(spec, {"domain", "prior", "precisions", "mode", "mechanism", "epsilon",
                        "targets"}, "spec")
    exact_fields(res, {"targets", "vulnerability", "private_at_epsilon", "holds"}, "results")
    exact_fields(ev, {"kernel"}, "evidence")
    for j, r in enumerate(res["targets"] if isinstance(res["targets"], list) else []):
        exact_fields(r, {"target", "prior", "posterior", "output", "advantage", "precise",
                         "simplified"}, f"results.targets[{j}]")
    m = _Model(spec)
    kernel = _kernel(m, ev)
    own = _own_kernel(spec, m)
    if own is None:
        notes.append(Recorded("the kernel table M(z | x) of user code was taken from the "
                              "certificate"))
    else:
        for x in m.domain:
            if {z: p for z, p in own[x].items() if p} != {z: p for z, p in kernel[x].items()
                                                          if p}:
                raise Rejected(f"evidence.kernel (x = {x}): M(· | x) differs from the "
                               f"{spec['mechanism']['kind']} mechanism's (re-derived)")
        notes.append(f"the kernel table re-derived from the {spec['mechanism']['kind']} "
                     f"mechanism's definition")
    joint: dict = {}
    for x in m.domain:
        for z, p in kernel[x].items():
            joint.setdefault(z, {})[x] = m.prior[x] * p
    totals = {z: sum(row.values(), ZERO) for z, row in joint.items()}
    epsilons = spec["epsilon"]
    if not isinstance(epsilons, list) or len(epsilons) != len(m.ks):
        raise Rejected(f"spec.epsilon: not {len(m.ks)} value(s), one per goal part")
    epsilons = [_epsilon(e, j) for j, e in enumerate(epsilons)]
    targets = spec["targets"]
    if not isinstance(targets, list) or not targets or \
            any(key(t) not in m.prior for t in targets) or len({key(t) for t in targets}) != \
            len(targets):
        raise Rejected("spec.targets: not a non-empty list of distinct values of the domain "
                       "(a claim for every target of none is vacuous)")
    rows = res["targets"]
    if [key(r["target"]) for r in rows] != [key(t) for t in targets]:
        raise Rejected("results.targets: not one row per target of the spec, in order")
    width = max(len(law) for law in kernel.values())
    within(len(m.domain) ** 2 * (len(m.r) + width) * len(m.ks) * (len(targets) + 1),
           f"the bounds and ε·d-privacy over a domain of {len(m.domain)} values")
    exact, order = True, True
    for j, r in enumerate(rows):
        where, x = f"results.targets[{j}] (target {r['target']!r})", key(r["target"])
        g = m.goal(x, None)
        prior = sum((m.prior[y] for y in g), ZERO)
        post = {z: sum((w for y, w in row.items() if y in g), ZERO) / totals[z]
                for z, row in joint.items() if totals[z]}
        best = max(post.values())
        stated = {f: q(r[f], f"{where}.{f}") for f in ("prior", "posterior", "advantage")}
        if stated["prior"] != prior:
            raise Rejected(f"{where}.prior: {stated['prior']} in the certificate, P[X ∈ g(x)] "
                           f"= {prior}")
        if stated["posterior"] != best:
            raise Rejected(f"{where}.posterior: {stated['posterior']} in the certificate, the "
                           f"best output gives {best}")
        if post.get(key(r["output"])) != best:
            raise Rejected(f"{where}.output: {r['output']!r} does not attain the posterior "
                           f"{best}")
        if stated["advantage"] != best - prior:
            raise Rejected(f"{where}.advantage: {stated['advantage']}, not {best - prior}")
        for name, which in (("precise", _precise), ("simplified", _simplified)):
            mine = _bound(m, x, epsilons, which)
            if mine is None:
                exact = False
                if not (isinstance(r[name], dict) and set(r[name]) == {"approx"}):
                    raise Rejected(f"{where}.{name}: {r[name]!r:.60}, but the bound is "
                                   f"irrational here: it is written {{approx}}")
            elif q(r[name], f"{where}.{name}") != mine:
                raise Rejected(f"{where}.{name}: {r[name]} in the certificate, {mine} "
                               f"recomputed")
        if exact:
            pre, sim = q(r["precise"], where), q(r["simplified"], where)
            order = order and best <= pre <= sim
    goals = {x: m.goal(x, None) for x in m.domain}
    v_pre = max(sum((m.prior[y] for y in g), ZERO) for g in goals.values())
    v_post = sum((max(sum((row.get(y, ZERO) for y in g), ZERO) for g in goals.values())
                  for row in joint.values()), ZERO)
    if [q(v, "results.vulnerability") for v in res["vulnerability"]] != [v_pre, v_post]:
        raise Rejected(f"results.vulnerability: {res['vulnerability']} in the certificate, "
                       f"{v_pre}, {v_post} recomputed")
    private = _private(m, kernel, epsilons)
    if private is None:
        notes.append(Recorded("ε·d-privacy at an ε in nats was taken from the certificate"))
    elif res["private_at_epsilon"] is not private:
        raise Rejected(f"results.private_at_epsilon: {res['private_at_epsilon']} but M is "
                       f"{'' if private else 'not '}ε·d-private at the ε used")
    notes.append(f"{len(rows)} targets: prior, best posterior, its output and the advantage "
                 f"recomputed; vulnerability {v_pre} → {v_post}")
    if not exact:
        notes.append(Recorded("some e^(ε·d) is irrational: the bounds and the verdict were "
                              "taken from the certificate (the engine's certified "
                              "comparisons), not recomputed here"))
        return None
    if res["holds"] is not order:
        raise Rejected(f"results.holds: {res['holds']} but posterior ≤ precise ≤ simplified "
                       f"{'holds' if order else 'fails'} for every target")
    notes.append(f"bounds recomputed exactly: posterior ≤ precise ≤ simplified "
                 f"{'holds' if order else 'fails'}")
    return order
