"""The z3 backend: the only module that imports z3.

It decides one kind of question — is there a value of a real parameter in a closed interval
that makes a polynomial/rational-arithmetic condition true? — and answers in three values:
``sat`` with a rational witness, ``unsat``, or ``unknown`` (including a timeout). z3's
nonlinear real arithmetic (nlsat) is a decision procedure, so ``unsat`` is a proof; a
witness leaves here as a plain rational and the caller re-checks it with the exact engine.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from gmpy2 import mpq

__all__ = ["Answer", "find_parameter"]


@dataclass(frozen=True)
class Answer:
    """``status`` is ``"sat"``, ``"unsat"`` or ``"unknown"``; ``witness`` a rational when sat."""

    status: str
    witness: mpq | None = None
    reason: str = ""


def _rational(value) -> mpq:
    import z3
    if z3.is_algebraic_value(value):  # an irrational root: take a close rational
        value = value.approx(40)
    f = Fraction(value.as_fraction())
    return mpq(f.numerator, f.denominator)


def find_parameter(build: Callable[[object], object], lo: mpq, hi: mpq,
                   timeout_ms: int = 20_000, exclude: list[mpq] | None = None) -> Answer:
    """Is there ``t ∈ [lo, hi]`` with ``build(t)`` true? ``build`` receives a z3 real and
    returns a z3 boolean built with :func:`z3_api`'s helpers (+, −, ·, /, If, Or)."""
    import z3
    t = z3.Real("t")
    s = z3.Solver()
    s.set("timeout", int(timeout_ms))
    s.add(t >= z3.Q(int(lo.numerator), int(lo.denominator)),
          t <= z3.Q(int(hi.numerator), int(hi.denominator)))
    for x in exclude or []:
        s.add(t != z3.Q(int(x.numerator), int(x.denominator)))
    s.add(build(t))
    result = s.check()
    if result == z3.sat:
        return Answer("sat", _rational(s.model().eval(t, model_completion=True)))
    if result == z3.unsat:
        return Answer("unsat")
    return Answer("unknown", reason=s.reason_unknown())


def z3_api():
    """The z3 names a condition builder needs (so callers need not import z3 themselves)."""
    import z3
    return {"If": z3.If, "Or": z3.Or, "And": z3.And, "Q": z3.Q, "Sum": z3.Sum}


__all__ += ["z3_api"]
