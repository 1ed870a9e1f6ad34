"""The z3 backend: the only module that imports z3.

It decides sentences of real arithmetic with polynomials and ``If``-terms — is there a value
of the real variables that makes the assertions true? — in three values: ``sat`` with a
model whose values leave here as plain rationals, ``unsat``, or ``unknown`` (including a
timeout). z3's nonlinear real arithmetic (nlsat) is a decision procedure, so ``unsat`` is a
proof. An algebraic (irrational) model value is offered as rationals of growing precision;
the caller re-checks every witness with the exact engine before reporting it.

Callers build terms through :class:`Terms` (so that no other module imports z3) and use
Python's ``+ − * < <= ==`` on them, which z3 overloads.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from gmpy2 import mpq

__all__ = ["Answer", "Model", "Terms", "decide", "find_parameter", "z3_api"]

Term = Any  # a z3 expression
APPROXIMATIONS = (3, 6, 12, 24, 48)  # decimal digits of the rationals offered for an algebraic


@dataclass(frozen=True)
class Model:
    """The values of the named variables: exact when ``exact``, else one rational close to an
    algebraic value per variable (the caller must re-check)."""

    values: Mapping[str, mpq]
    exact: bool = True


@dataclass(frozen=True)
class Answer:
    """``status`` is ``"sat"``, ``"unsat"`` or ``"unknown"``; ``models`` (when sat) are the
    rational candidates, the exact model first or approximations of growing precision."""

    status: str
    witness: mpq | None = None
    reason: str = ""
    models: tuple[Model, ...] = field(default=())


def _rational(value: Any, digits: int = 40) -> tuple[mpq, bool]:
    import z3
    exact = not z3.is_algebraic_value(value)
    if not exact:  # an irrational root: take a close rational
        value = value.approx(digits)
    f = Fraction(value.as_fraction())
    return mpq(f.numerator, f.denominator), exact


def _q(x: object) -> Any:
    """An exact z3 rational (its digits written by gmpy2: no int-to-string digit limit)."""
    import z3
    q = mpq(x)
    return z3.RealVal(f"{q.numerator:d}/{q.denominator:d}")


class Terms:
    """Builders of z3 terms for the encodings in :mod:`verifier.symbolic.encoding`."""

    def __init__(self) -> None:
        import z3
        self.z3 = z3
        self.If, self.And, self.Or, self.Not = z3.If, z3.And, z3.Or, z3.Not
        self.Implies, self.Sum = z3.Implies, z3.Sum

    def real(self, name: str) -> Term:
        return self.z3.Real(name)

    def boolean(self, name: str) -> Term:
        return self.z3.Bool(name)

    def const(self, x: object) -> Term:
        return _q(x)

    def true(self) -> Term:
        return self.z3.BoolVal(True)

    def poly(self, terms: Iterable[tuple[Sequence[int], mpq]], variables: Sequence[Term]
             ) -> Term:
        """``Σ c·Π x_j^{k_j}`` from ``(exponents, c)`` pairs (powers as products)."""
        out = []
        for exponents, c in terms:
            factors = [_q(c)]
            for x, k in zip(variables, exponents, strict=True):
                factors += [x] * int(k)
            term = factors[0]
            for f in factors[1:]:
                term = term * f
            out.append(term)
        if not out:
            return _q(0)
        return out[0] if len(out) == 1 else self.z3.Sum(out)

    def positive_part(self, x: Term) -> Term:
        return self.z3.If(x > 0, x, _q(0))

    def maximum(self, name: str, items: Sequence[Term]) -> tuple[Term, list[Term]]:
        """A fresh variable equal to ``max(0, items…)`` and its defining assertions."""
        m = self.z3.Real(name)
        defs = [m >= 0] + [m >= x for x in items]
        defs.append(self.z3.Or([m == 0] + [m == x for x in items]))
        return m, defs


def decide(assertions: Sequence[Term], variables: Mapping[str, Term],
           timeout_ms: int = 20_000) -> Answer:
    """Are the assertions satisfiable? When sat, the named variables' values as rationals."""
    import z3
    s = z3.Solver()
    s.set("timeout", int(timeout_ms))
    s.add(*assertions)
    result = s.check()
    if result == z3.unsat:
        return Answer("unsat")
    if result != z3.sat:
        return Answer("unknown", reason=s.reason_unknown() or "z3 gave no answer")
    m = s.model()
    raw = {name: m.eval(v, model_completion=True) for name, v in variables.items()}
    first = {name: _rational(v) for name, v in raw.items()}
    if all(exact for _, exact in first.values()):
        return Answer("sat", models=(Model({k: v for k, (v, _) in first.items()}),))
    models = tuple(Model({k: _rational(v, digits)[0] for k, v in raw.items()}, exact=False)
                   for digits in APPROXIMATIONS)
    return Answer("sat", models=models)


def find_parameter(build: Callable[[object], object], lo: mpq, hi: mpq,
                   timeout_ms: int | Callable[[], int] = 20_000,
                   exclude: list[mpq] | None = None) -> Answer:
    """Is there ``t ∈ [lo, hi]`` with ``build(t)`` true? ``build`` receives a z3 real and
    returns a z3 boolean built with :func:`z3_api`'s helpers (+, −, ·, /, If, Or).
    ``timeout_ms`` may be a function giving the time left once the formula is built (the
    caller's deadline covers the building too)."""
    import z3
    t = z3.Real("t")
    s = z3.Solver()
    s.add(t >= _q(lo), t <= _q(hi))
    for x in exclude or []:
        s.add(t != _q(x))
    s.add(build(t))
    s.set("timeout", max(1, int(timeout_ms() if callable(timeout_ms) else timeout_ms)))
    result = s.check()
    if result == z3.sat:
        return Answer("sat", _rational(s.model().eval(t, model_completion=True))[0])
    if result == z3.unsat:
        return Answer("unsat")
    return Answer("unknown", reason=s.reason_unknown())


def z3_api():
    """The z3 names a condition builder needs (so callers need not import z3 themselves)."""
    import z3
    return {"If": z3.If, "Or": z3.Or, "And": z3.And, "Q": z3.Q, "Sum": z3.Sum}
