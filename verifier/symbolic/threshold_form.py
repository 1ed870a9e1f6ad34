"""APK and PPK δ of the thresholded count as sympy expressions in ``n, m, p, T, E``.

Setting (seed 003, Example 7; thesis Proposition 28; REFERENCE.md §5): ``n`` binary records,
i.i.d. with ``P[1] = p``; ``M_T(D) = c = Σ_j D_j`` if ``c ≥ T``, else ``⊥``. The attacker
knows ``m`` records (background ``s`` = their sum) and targets another record; the other
``N = n − 1 − m`` records are unknown, with count ``u ~ Bin(N, p)``, ``b(k) = C(N, k) p^k
(1 − p)^{N−k}`` (``0`` outside ``0..N``). With the target ``= a`` the output is ``c`` with
probability ``b(c − s − a)`` (``c ≥ T``) and ``⊥`` with ``Σ_{c<T} b(c − s − a)``, so for the
ordered pair ``(a, b)`` (seed 003, Definition 6)::

    APK_{a,b,s}(E) = Σ_{c=T}^{n} max(0, b(c−s−a) − E·b(c−s−b))
                     + max(0, Σ_{c=0}^{T−1} b(c−s−a) − E·Σ_{c=0}^{T−1} b(c−s−b)).

An output with ``Q = 0`` contributes ``P`` in full (``r = ∞``) and one with ``P = 0`` nothing:
``max(0, P − E·Q)`` covers both. A larger ``s`` releases a finer partition of ``u`` (``⊥``
merges fewer counts), and merging outputs never raises δ, so the worst background is
``s = m`` (Proposition 28: the active attacker against ``M_T`` on ``n`` records is the
passive one against ``M_{T−m}`` on the others)::

    APK(E) = max_{(a,b) ∈ {(1,0),(0,1)}} APK_{a,b,m}(E)
    PPK(E) = max_{(a,b)} Σ_{s=0}^{m} C(m, s) p^s (1 − p)^{m−s} · APK_{a,b,s}(E)

(PPK: seed 003, Definition 7 / Lemma 4 — the background is drawn with the data.)

A tiny case by hand: ``n = 2, m = 0, T = 2, p = 1/2`` (``N = 1``, ``b(0) = b(1) = 1/2``).
Pair (1, 0): output 2 has ``P = b(1) = 1/2``, ``Q = b(2) = 0``, so it contributes 1/2; ``⊥``
has ``P = b(−1) + b(0) = 1/2 ≤ E·(b(0) + b(1)) = E``: nothing. Pair (0, 1): output 2 has
``P = b(2) = 0``; ``⊥`` has ``P = 1``, ``Q = 1/2``: ``max(0, 1 − E/2)``, which is ``≤ 1/2``
for ``E ≥ 1``. So ``APK = PPK = 1/2`` at every ε.
"""

from __future__ import annotations

import sympy  # type: ignore[import-untyped]
from gmpy2 import mpq

from verifier.core.errors import InvalidArgument
from verifier.core.numbers import rational

__all__ = ["N_RECORDS", "KNOWN", "PRIOR", "THRESHOLD", "apk_delta", "ppk_delta", "evaluate"]

N_RECORDS = sympy.Symbol("n", integer=True, nonnegative=True)
KNOWN = sympy.Symbol("m", integer=True, nonnegative=True)
PRIOR = sympy.Symbol("p", positive=True)
THRESHOLD = sympy.Symbol("T", integer=True)
_E = sympy.Symbol("E", positive=True)  # E = e^ε (closed_form.EXP_EPS)
_s = sympy.Symbol("s", integer=True, nonnegative=True)
_c = sympy.Symbol("c", integer=True)


def _b(k: sympy.Expr) -> sympy.Expr:
    """``P[u = k]`` for ``u ~ Bin(n − 1 − m, p)``; sympy's binomial is 0 outside ``0..N``."""
    n_other = N_RECORDS - 1 - KNOWN
    return sympy.binomial(n_other, k) * PRIOR**k * (1 - PRIOR)**(n_other - k)


def _apk_pair(a: int, b: int, s: sympy.Expr) -> sympy.Expr:
    """``APK_{a,b,s}(E)`` (module docstring)."""
    n, t, c = N_RECORDS, THRESHOLD, _c
    released = sympy.Sum(sympy.Max(0, _b(c - s - a) - _E * _b(c - s - b)), (c, t, n))
    bottom = sympy.Max(0, sympy.Sum(_b(c - s - a), (c, 0, t - 1))
                       - _E * sympy.Sum(_b(c - s - b), (c, 0, t - 1)))
    return released + bottom


def apk_delta() -> sympy.Expr:
    """APK δ of ``M_T`` against ``m`` known records: the worst background ``s = m``."""
    return sympy.Max(_apk_pair(1, 0, KNOWN), _apk_pair(0, 1, KNOWN))


def ppk_delta() -> sympy.Expr:
    """PPK δ: APK averaged over the known records' sum ``s ~ Bin(m, p)``."""
    m, p, s = KNOWN, PRIOR, _s
    weight = sympy.binomial(m, s) * p**s * (1 - p)**(m - s)
    return sympy.Max(sympy.Sum(weight * _apk_pair(1, 0, s), (s, 0, m)),
                     sympy.Sum(weight * _apk_pair(0, 1, s), (s, 0, m)))


def _rational(name: str, value: object) -> sympy.Rational:
    q = rational(value, name)  # refuses float and bool, naming the argument
    return sympy.Rational(int(q.numerator), int(q.denominator))


def _value(expr: sympy.Basic, env: dict) -> sympy.Basic:
    """``expr`` with the symbols of ``env`` replaced, evaluated bottom-up: every ``Sum`` over
    its (now concrete) range term by term and every ``Max`` of rationals, so sympy never has
    to compare unevaluated sums (which it would do numerically)."""
    if isinstance(expr, sympy.Symbol):
        return env.get(expr, expr)
    if isinstance(expr, sympy.Sum):
        (index, lo, hi), = expr.limits
        first, last = int(_value(lo, env)), int(_value(hi, env))
        return sympy.Add(*(_value(expr.function, env | {index: sympy.Integer(k)})
                           for k in range(first, last + 1)))
    if not expr.args:
        return expr
    args = [_value(a, env) for a in expr.args]
    if isinstance(expr, sympy.Max):
        return max(args, key=sympy.Rational)
    return expr.func(*args)


def evaluate(expr: sympy.Expr, *, n: int, m: int, p: object, threshold: int,
             rate: object) -> mpq:
    """``expr`` at ``n, m, p, T`` and ``E = rate`` (``ε = ln(rate)``), as an exact rational."""
    if not 0 <= m <= n - 1:
        raise InvalidArgument(f"m = {m} known records must leave the target: 0 ≤ m ≤ n − 1 "
                              f"with n = {n}")
    env = {N_RECORDS: sympy.Integer(n), KNOWN: sympy.Integer(m), PRIOR: _rational("p", p),
           THRESHOLD: sympy.Integer(threshold), _E: _rational("rate", rate)}
    value = _value(expr, env)
    if not isinstance(value, sympy.Rational):
        raise InvalidArgument(f"the expression did not reduce to a rational: {value}")
    return mpq(int(value.p), int(value.q))
