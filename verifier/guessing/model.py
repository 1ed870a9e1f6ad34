"""Guessing advantage: what ε means to an attacker who guesses a sensitive attribute.

Seed 004 (Pankova & Laud; REFERENCE.md §7). A finite domain ``X`` (integers, or tuples for
several attributes), an exact prior ``π``, a mechanism ``M: X → Dist(Z)`` and the attacker's
goal ``g(x)``: the guesses that count as correct when the true value is ``x``.

* AND of attributes with precisions ``r_k``: ``d(x, x') = max_k |x_k − x'_k| / r_k`` and
  ``g(x) = {x' : d(x, x') ≤ 1}``;
* OR: ``g(x) = {x' : |x_k − x'_k| ≤ r_k for some k}``.

The advantage for target ``x`` (seed 004, "Defining guessing advantage")::

    η(x) = sup_{Y ⊆ Z} ( P[X ∈ g(x) | M(X) ∈ Y] − P[X ∈ g(x)] )

For a finite ``Z`` the supremum is attained by a single output: ``P[g | Y]`` is the average of
``P[g | z]`` over ``z ∈ Y`` weighted by ``P[z | Y]``, so it never exceeds ``max_{z ∈ Y} P[g | z]``,
and ``Y = {z}`` attains that. Hence ``η(x) = max_z P[g(x) | z] − P[g(x)]`` over outputs of
positive probability, which is how it is computed (and tested against every ``Y``).

Work: the goals cost ``|X|²`` distance tests, the advantage ``|X|·|Z|·|g|`` additions and the
tight ε·d (:func:`verifier.guessing.metric.tight_epsilon`) ``|X|²·|Z|`` ratio comparisons; the
estimate ``|X|²·|Z|`` is checked against ``limits.work`` (:meth:`GuessModel.check_work`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

from gmpy2 import mpq

from verifier.core.budget import Budget, format_size
from verifier.core.distribution import Dist
from verifier.core.errors import InvalidArgument, InvalidDistribution
from verifier.core.numbers import counted, positive, rational

__all__ = ["GuessModel", "TargetAdvantage", "advantage", "vulnerability"]


def _coords(x: Hashable) -> tuple:
    return x if isinstance(x, tuple) else (x,)


@dataclass(frozen=True, eq=False)
class GuessModel:
    """Domain, prior, mechanism and goal of a guessing attacker (seed 004)."""

    domain: tuple
    prior: Dist
    kernel: Callable[[Hashable], Dist]
    precisions: tuple  # one rational r_k > 0 per attribute
    mode: str = "and"
    budget: Budget = Budget()

    def __post_init__(self) -> None:
        if not self.domain:
            raise InvalidArgument("the domain is empty")
        dims = {len(_coords(x)) for x in self.domain}
        if len(dims) != 1:
            raise InvalidArgument("domain values must all have the same number of attributes")
        k = dims.pop()
        if len(self.precisions) != k:
            raise InvalidArgument(f"precision has {counted(len(self.precisions), 'value')} for "
                                  f"{counted(k, 'attribute')}")
        for r in self.precisions:
            positive(r, "precision")
        if self.mode not in ("and", "or"):
            raise InvalidArgument(f"mode = {self.mode!r} is not 'and' or 'or'")
        domain = set(self.domain)
        outside = [x for x in self.prior.support if x not in domain]
        if outside:
            raise InvalidDistribution(f"prior gives weight to {outside[0]!r}, not in the domain")
        size = len(self.domain)
        self.budget.require("work", size * size, f"guessing over {size} domain values: |X|²",
                            ", or use a smaller domain")

    def check_work(self, outputs: int) -> None:
        """Refuse, before the quadratic work starts, when ``|X|²·|Z|`` exceeds ``limits.work``."""
        size = len(self.domain)
        self.budget.require("work", size * size * outputs,
                            f"guessing: |X|² × |Z| = {format_size(size * size)} × "
                            f"{format_size(outputs)}", ", or use a smaller domain")

    @property
    def attributes(self) -> int:
        return len(self.precisions)

    def distance(self, x: Hashable, y: Hashable, k: int | None = None) -> mpq:
        """``max_k |x_k − y_k| / r_k`` (or attribute ``k`` alone)."""
        cx, cy = _coords(x), _coords(y)
        ks = range(self.attributes) if k is None else [k]
        return max(mpq(abs(cx[j] - cy[j])) / rational(self.precisions[j]) for j in ks)

    def goal(self, x: Hashable, k: int | None = None) -> frozenset:
        """``g(x)``: AND — ``d(x, x') ≤ 1``, i.e. ``|x_j − x'_j| ≤ r_j`` for every ``j``;
        OR — ``|x_j − x'_j| ≤ r_j`` for some ``j``."""
        r = [rational(p) for p in self.precisions]
        cx = _coords(x)
        ks = range(self.attributes) if k is None else [k]
        near = all if self.mode == "and" or k is not None else any
        return frozenset(y for y in self.domain
                         if near(abs(cx[j] - _coords(y)[j]) <= r[j] for j in ks))

    def diameter(self, k: int | None = None) -> mpq:
        """``R = max d(x, x')`` over the domain: ``max_j (max_x x_j − min_x x_j) / r_j``, since
        the largest of ``max_j |x_j − x'_j| / r_j`` over pairs is the largest attribute range
        (scaled) — each attribute's extremes form a pair."""
        ks = range(self.attributes) if k is None else [k]
        return max(mpq(max(_coords(x)[j] for x in self.domain)
                       - min(_coords(x)[j] for x in self.domain))
                   / rational(self.precisions[j]) for j in ks)

    def joint(self) -> dict[Hashable, dict[Hashable, mpq]]:
        """``z ↦ {x ↦ π(x)·P[M(x)=z]}``."""
        out: dict = {}
        warm = getattr(self.kernel, "warm", None)  # user code: every law in one round trip
        if warm is not None:
            warm(self.prior.support)
        for x, w in self.prior.items():
            for z, v in self.kernel(x).items():
                out.setdefault(z, {})[x] = w * v
        self.check_work(len(out))
        return out


@dataclass(frozen=True)
class TargetAdvantage:
    """Prior and best posterior probability of a correct guess for one target, exactly."""

    target: Hashable
    prior: mpq
    posterior: mpq
    output: Hashable  # the output attaining the posterior (the optimal event Y = {z})

    @property
    def advantage(self) -> mpq:
        return self.posterior - self.prior


def advantage(model: GuessModel, targets: Sequence[Hashable] | None = None,
              joint: dict | None = None, least: bool = False) -> list[TargetAdvantage]:
    """``η(x) = max_z P[X ∈ g(x) | M(X)=z] − P[X ∈ g(x)]`` for every target, exactly, with
    the output attaining it; with ``least``, the least posterior ``min_z`` instead (the
    other side of the advantage, ``prior − posterior``)."""
    joint = joint if joint is not None else model.joint()
    totals = {z: sum(row.values(), mpq(0)) for z, row in joint.items()}
    out = []
    for x in targets if targets is not None else model.domain:
        g = model.goal(x)
        prior = sum((model.prior[y] for y in g), mpq(0))
        best, best_z = None, None
        for z, row in joint.items():
            if totals[z] == 0:
                continue
            post = sum((row[y] for y in g if y in row), mpq(0)) / totals[z]
            if best is None or (post < best if least else post > best):
                best, best_z = post, z
        if best is None:  # the prior has mass, so some output has positive probability
            raise InvalidArgument("no output of the mechanism has positive probability")
        out.append(TargetAdvantage(x, prior, best, best_z))
    return out


def vulnerability(model: GuessModel, joint: dict | None = None) -> tuple[mpq, mpq]:
    """Expected success of the best Bayesian guess, before and after seeing the output.

    ``V_pre = max_{x̂} P[X ∈ g(x̂)]`` and ``V_post = Σ_z max_{x̂} P[X ∈ g(x̂), M(X) = z]``: a guess
    ``x̂`` is correct when the true value lies in ``g(x̂)`` (the goal is symmetric).
    """
    joint = joint if joint is not None else model.joint()
    goals = {x: model.goal(x) for x in model.domain}
    pre = max(sum((model.prior[y] for y in g), mpq(0)) for g in goals.values())
    post = sum((max(sum((row[y] for y in g if y in row), mpq(0)) for g in goals.values())
                for row in joint.values()), mpq(0))
    return pre, post
