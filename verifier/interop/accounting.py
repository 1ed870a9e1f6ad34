"""plrv's exact privacy loss beside Google's dp_accounting (the optional extra
``plrv[accounting]``).

:func:`to_pld` builds dp_accounting's ``PrivacyLossDistribution`` from an exact
:class:`~verifier.notions.composition.exact.LossDistribution` by its *pessimistic* discretisation
with interval ``h``: a loss ``ln r`` is rounded up to ``k·h`` with ``k = ⌈ln(r)/h⌉`` (decided
exactly), and every mass is rounded up to the next float, so the accountant's δ(ε) of the
result is at least the exact one (dp_accounting: ``δ(ε) = inf_mass + Σ_L max(0, 1 −
e^{ε − L})·P(L)``, which grows with every ``L`` and every mass).

:func:`compare_composition` puts the exact δ(ε) of the k-fold composition
(:mod:`verifier.notions.composition.exact`) beside the accountant's estimate for it, and their
difference: the ground truth against which an accountant's pessimism can be seen.
"""

from __future__ import annotations

import importlib
import math
from dataclasses import dataclass
from typing import Any

from gmpy2 import mpq

from verifier.core.budget import Budget
from verifier.core.certified import compare_exp
from verifier.core.delta import Delta
from verifier.core.epsilon import Epsilon, parse_epsilon
from verifier.core.errors import InvalidArgument, VerifierError
from verifier.core.numbers import positive
from verifier.model.mechanisms import Mechanism
from verifier.notions.composition.exact import LossDistribution, compose_law
from verifier.notions.dp.neighbours import Relation, relation_pairs

__all__ = ["MissingExtra", "dp_accounting", "to_pld", "Comparison", "compare_composition",
           "ceil_log", "epsilon_float"]


class MissingExtra(VerifierError, ImportError):
    """An optional dependency is not installed."""


def dp_accounting() -> Any:
    """The ``dp_accounting`` package, or :class:`MissingExtra` naming the extra to install."""
    try:
        module = importlib.import_module("dp_accounting")  # optional: imported on use
    except ImportError:
        raise MissingExtra("accountant interop needs dp_accounting: pip install -e "
                           "'.[accounting]' from a checkout of plrv (or pip install "
                           "dp-accounting)") from None
    return module


def _float(x: mpq) -> float:
    """The float nearest ``x`` (int / int is correctly rounded)."""
    return int(x.numerator) / int(x.denominator)  # float ok: a value handed to dp_accounting


def _log(x: mpq) -> float:
    """An approximation of ``ln x`` (a starting point, corrected exactly by the callers)."""
    # a first guess only: ceil_log and epsilon_float correct it by exact comparison
    num, den = int(x.numerator), int(x.denominator)
    return math.log(num) - math.log(den)  # float ok: a first guess, corrected exactly


def _float_up(x: mpq) -> float:
    f = _float(x)
    return math.nextafter(f, math.inf) if mpq(f) < x else f  # float ok: for dp_accounting


def _float_down(x: mpq) -> float:
    f = _float(x)
    return math.nextafter(f, -math.inf) if mpq(f) > x else f  # float ok: for dp_accounting


def _exceeds(r: mpq, nats: mpq) -> bool:
    """``r > e^nats`` for ``nats ≥ 0``, certified."""
    return compare_exp(r, Epsilon.of_nats(nats)) > 0


def ceil_log(r: mpq, h: mpq) -> int:
    """``⌈ln(r)/h⌉`` for rationals ``r > 0``, ``h > 0``, exact: the least ``k`` with
    ``e^{k·h} ≥ r``."""
    if r >= 1:
        k = max(0, math.ceil(_log(r) / _float(h)) - 1)  # float ok: guess, corrected below
        while _exceeds(r, k * h):
            k += 1
        while k > 0 and not _exceeds(r, (k - 1) * h):
            k -= 1
        return k
    s = 1 / r  # ⌈−ln(s)/h⌉ = −⌊ln(s)/h⌋, the largest m with e^{m·h} ≤ s
    m = max(0, math.floor(_log(s) / _float(h)) - 1)  # float ok: guess, corrected below
    while compare_exp(s, Epsilon.of_nats((m + 1) * h)) >= 0:
        m += 1
    while m > 0 and compare_exp(s, Epsilon.of_nats(m * h)) < 0:
        m -= 1
    return -m


def _interval(interval: object) -> tuple[float, mpq]:
    h = positive(interval, "interval")
    f = _float(h)  # float ok: dp_accounting's grid; the exact rounding uses mpq(f)
    return f, mpq(f)  # dp_accounting works with the float; the rounding uses its exact value


def to_pld(loss: LossDistribution, interval: object = "1/10000") -> Any:
    """dp_accounting's pessimistic ``PrivacyLossDistribution`` of ``loss`` (under ``P``)."""
    pld = dp_accounting().pld.privacy_loss_distribution
    hf, h = _interval(interval)
    pmf: dict[int, mpq] = {}
    for r, p, _ in loss.atoms:
        k = ceil_log(r, h)
        pmf[k] = pmf.get(k, mpq(0)) + mpq(p, loss.p_scale)
    return pld.PrivacyLossDistribution.create_from_rounded_probability(
        {k: _float_up(m) for k, m in pmf.items()}, _float_up(mpq(loss.infinite, loss.p_scale)),
        hf, pessimistic_estimate=True)


def epsilon_float(eps: Epsilon) -> float:
    """A float ``≤ ε`` (the accountant is asked at a point no larger than the claim).

    float ok: the argument of dp_accounting's own (float) δ; never on plrv's exact path."""
    if eps.infinite:
        return math.inf
    if eps.base is not None:
        f = _log(eps.base)
        while f > 0 and compare_exp(eps.base, Epsilon.of_nats(mpq(f))) < 0:
            f = math.nextafter(f, -math.inf)
        return max(f, 0.0)
    assert eps.nats is not None
    return _float_down(eps.nats)


@dataclass(frozen=True)
class Comparison:
    """The exact δ(ε) of a k-fold composition and dp_accounting's estimate of it.

    ``accountant`` is the exact value of the float dp_accounting returns; ``difference`` is
    ``accountant − exact`` when the exact δ is rational (``None`` otherwise)."""

    k: int
    epsilon: Epsilon
    exact: Delta
    accountant: mpq
    difference: mpq | None
    interval: mpq


def compare_composition(mech: Mechanism, relation: Relation, k: int, epsilon: object,
                        interval: object = "1/10000",
                        budget: Budget | None = None) -> Comparison:
    """plrv's exact δ(ε) of ``k`` independent runs of ``mech`` beside dp_accounting's
    pessimistic estimate from the same losses (both the worst over ordered pairs of
    ``relation``)."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InvalidArgument(f"k = {k!r} is not a positive integer", argument="k", value=k)
    eps = parse_epsilon(epsilon)
    ef = epsilon_float(eps)
    _, h = _interval(interval)
    exact: Delta | None = None
    accountant = mpq(0)
    for x, y in relation_pairs(relation, budget):
        one = LossDistribution.of(mech(x), mech(y))
        d = compose_law([one] * k)[0].delta(eps)
        if exact is None or d.compare(exact) > 0:
            exact = d
        estimate = mpq(to_pld(one, interval).self_compose(k).get_delta_for_epsilon(ef))
        accountant = max(accountant, estimate)
    assert exact is not None  # a relation has at least one pair
    diff = accountant - exact.value if exact.is_rational else None
    return Comparison(k, eps, exact, accountant, diff, h)
