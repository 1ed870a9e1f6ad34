"""Output laws of the built-in noisy mechanisms, written once over any field.

The formulas take their parameters as values of any type with ``+ − * /`` (an ``mpq`` for
the exact engine, a z3 real for :mod:`verifier.symbolic.family`), so the mechanism that is
checked exactly and the one that z3 reasons about are the same arithmetic.

* Randomized response on a domain of ``k`` values (seed 003, Example 1): a record is
  reported truthfully with probability ``t`` and as each other value with ``(1 − t)/(k − 1)``.
* The clamped two-sided geometric count: the count ``c ∈ {0..n}`` plus noise
  ``P[k] ∝ α^|k|``, the mass beyond each end moved to that end::

      P[j] = (1−α)/(1+α)·α^|j−c|   (0 < j < n),   P[0] = α^c/(1+α),   P[n] = α^(n−c)/(1+α).

>>> from gmpy2 import mpq
>>> randomized_response_weights(mpq(3, 4), 3)
(mpq(3,4), mpq(1,8))
>>> [str(w) for w in geometric_clamped_weights(0, 2, mpq(1, 2)).values()]  # 2/3, 1/6, 1/6
['2/3', '1/6', '1/6']
"""

from __future__ import annotations

from typing import Any, TypeVar

__all__ = ["randomized_response_weights", "geometric_clamped_weights", "power"]

T = TypeVar("T")


def power(a: T, k: int) -> T:
    """``a^k`` for an integer ``k ≥ 0`` by repeated multiplication (valid for z3 terms)."""
    result: Any = 1
    for _ in range(k):
        result = result * a
    return result


def randomized_response_weights(t: T, k: int) -> tuple[T, T]:
    """``(P[report = value], P[report = a given other value])`` on ``k ≥ 2`` values."""
    s: Any = t
    return s, (1 - s) / (k - 1)


def geometric_clamped_weights(c: int, n: int, alpha: T) -> dict[int, T]:
    """``{j: P[output = j]}`` of the clamped geometric count at true count ``c`` of ``n``."""
    a: Any = alpha
    if n == 0:
        return {0: 1}  # type: ignore[dict-item]
    inner = (1 - a) / (1 + a)
    out = {0: power(a, c) / (1 + a)}
    out.update({j: inner * power(a, abs(j - c)) for j in range(1, n)})
    out[n] = power(a, n - c) / (1 + a)
    return out
