"""The finite laws OpenDP 0.16's randomized-response samplers implement, exactly.

Each is read from the library's source (``rust/src/measurements/randomized_response*``) and
built from the very doubles the library samples with: ``sample_bernoulli_float(p)`` returns
``true`` with probability exactly ``p`` (it reads the binary expansion of the double ``p`` with
fair coins), so a probability the library holds as a double enters the law as the rational it
is (:class:`~verifier.core.binary64.F64`).

* ``make_randomized_response_bool(prob)``: ``arg XOR NOT Bernoulli(prob)`` — the truth with
  probability ``p``, its negation with ``1 − p`` (Warner, *Randomized response*, 1965).
* ``make_randomized_response(categories, prob)``: the categories are a set (duplicates
  dropped), ``t`` of them. A member input is released with probability ``p`` and otherwise
  a uniformly drawn *other* category (``(1 − p)/(t − 1)`` each); an input outside the
  categories — still in the library's input domain, any value of the type — is released as a
  uniform category (``1/t`` each), whatever the coin.
* ``make_randomized_response_bitvec(f)``: each bit flipped independently with probability
  ``q = f/2`` (``f.inf_div(2)``, exact for every double ``f`` in ``(0, 1]`` above the
  subnormals), the output as long as the input (Erlingsson, Pihur and Korolova, *RAPPOR*,
  2014).

The input metric of all three is ``DiscreteDistance``: any two different inputs of the domain
are neighbours at distance 1.

* ``make_geometric(scale, bounds=(L, U))`` on an integer, the constant-time sampler
  (``sample_discrete_laplace_linear``): the input is clamped to ``c ∈ [L, U]``; a fair coin
  picks a direction; ``N = U − L`` Bernoulli(``p``) trials are run, and the value moves one
  step per trial until the first success, so it moves ``k < N`` steps with probability
  ``α^k·p`` and ``N`` steps with ``α^N`` (``α = 1 − p``); a draw of 0 steps in the negative
  direction is rejected and the whole draw repeated; the result is clamped to ``[L, U]``.
  With ``p`` the double the library computes
  (:func:`~verifier.audit.adapters.opendp_exp.geometric_alphas`), the law is rational.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from itertools import product

from gmpy2 import mpq

from verifier.core.distribution import Dist
from verifier.core.errors import BudgetExceeded

__all__ = ["rr_bool", "rr_categorical", "rr_bitvec", "ct_geometric", "MAX_BITS"]

MAX_BITS = 16  # a bit-vector law has 2^bits outputs


def rr_bool(prob: mpq, truth: bool) -> Dist:
    """The law of ``make_randomized_response_bool(prob)`` at ``truth``."""
    masses: dict[Hashable, mpq] = {truth: prob, not truth: 1 - prob}
    return Dist(masses)


def rr_categorical(categories: Sequence[Hashable], prob: mpq, truth: Hashable) -> Dist:
    """The law of ``make_randomized_response(categories, prob)`` at ``truth`` (a member or
    not, see the module)."""
    cats = tuple(dict.fromkeys(categories))
    t = len(cats)
    if truth not in cats:
        return Dist.uniform(cats)
    other = (1 - prob) / (t - 1)
    return Dist({c: prob if c == truth else other for c in cats})


def rr_bitvec(bits: Sequence[int], flip: mpq) -> Dist:
    """The law of the bit-vector randomized response at ``bits``: each bit flipped
    independently with probability ``flip``; outputs are tuples of 0/1 of the same length."""
    n = len(bits)
    if n > MAX_BITS:
        raise BudgetExceeded(f"a vector of {n} bits has 2^{n} outputs; plrv enumerates at "
                             f"most 2^{MAX_BITS}", argument="inputs", value=n)
    keep = 1 - flip
    masses: dict[Hashable, mpq] = {}
    for out in product((0, 1), repeat=n):
        flips = sum(a != b for a, b in zip(bits, out, strict=True))
        masses[out] = flip ** flips * keep ** (n - flips)
    return Dist(masses)


def ct_geometric(value: int, alpha: mpq, lower: int, upper: int) -> Dist:
    """The law of OpenDP's constant-time geometric at the integer ``value`` (see the module),
    built draw by draw from the sampler: direction, steps, rejection, clamp."""
    if lower == upper:
        return Dist.point(lower)
    c = min(max(value, lower), upper)
    n = upper - lower
    p = 1 - alpha
    steps = {k: alpha ** k * p for k in range(n)}
    steps[n] = alpha ** n
    masses: dict[Hashable, mpq] = {}
    for sign in (1, -1):
        for k, m in steps.items():
            if sign < 0 and k == 0:
                continue  # rejected: the draw starts over
            out = min(max(c + sign * k, lower), upper)
            masses[out] = masses.get(out, mpq(0)) + m / 2
    kept = 1 - p / 2  # the probability that a draw is not rejected
    return Dist({o: m / kept for o, m in masses.items()})
