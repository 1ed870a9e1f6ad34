"""dp_accounting's Poisson-subsampled randomized response:
``PoissonSampledDpEvent(q, RandomizedResponseDpEvent(p, m))`` under ``ADD_OR_REMOVE_ONE``.

The law. A record is sampled with probability ``q``; sampled, it goes through randomized
response (its bucket with probability ``1 − p + p/m``, each other ``p/m``); absent (not
sampled, or not in the database) it is the "special" input of dp_accounting's
``REPLACE_SPECIAL``, whose output is uniform over the ``m`` buckets. With the record the output
is the mixture ``P = q·RR(x) + (1 − q)·U``, without it ``Q = U``:
``P(x) = q(1 − p + p/m) + (1 − q)/m``, each other bucket ``q·p/m + (1 − q)/m``, ``Q = 1/m``
each (the ``m − 1`` other buckets merged: their ratio is one value). Add/remove neighbours
give both orders, and ``k`` runs on one pair of databases are all one order, so the tight
curve is ``max(δ_{P‖Q}^k, δ_{Q‖P}^k)``: the row is the worse of the two directions, with the
other's values in the notes.

The claim. dp_accounting 0.6 (and its source at the time of writing) accounts a
``PoissonSampledDpEvent`` only of a Gaussian or Laplace event: both accountants refuse this
one (``supports`` is false; ``PLDAccountant``: "Subevent of `PoissonSampledEvent` must be
either `GaussianDpEvent` or `LaplaceDpEvent`"). plrv asks the ``PLDAccountant`` first and uses
it if it accepts the event; otherwise (``options.route = "pmf"``, given explicitly, else the
refusal is an error naming the library's message) the claim is the library's own PLD of the
law's probability mass functions — ``from_two_probability_mass_functions`` (pessimistic,
asymmetric: both orders) self-composed ``k`` times — the way the library offers to account
a mechanism it has no event for. The masses it is handed are logs of the doubles nearest
the exact masses (the library takes doubles), so a claim short of the exact value by a few
ulps only is no finding about the library.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import replace
from typing import Any

from gmpy2 import mpq

from verifier.audit.adapters import double_arg, in_range, option_double, positive_count, quiet
from verifier.audit.adapters.accountants import k_of, query, version_of
from verifier.audit.case import AuditCase, AuditRow
from verifier.audit.judge import curve, judge, ratio, read_double
from verifier.core.delta import Delta
from verifier.core.distribution import Dist
from verifier.core.epsilon import Epsilon
from verifier.core.errors import InvalidArgument

__all__ = ["subsampled_rr_pair", "poisson_sampled"]

ROUTES = ("accountant", "pmf")


def subsampled_rr_pair(q: mpq, p: mpq, m: int) -> tuple[Dist, Dist]:
    """``(P, Q)``: the output law with the record (the mixture) and without it (uniform), on
    the record's bucket ``"x"`` and the ``m − 1`` others merged (see the module)."""
    x = q * (1 - p + p / m) + (1 - q) / m
    other = q * p / m + (1 - q) / m
    with_record: dict[Hashable, object] = {"x": x, "others": other * (m - 1)}
    without: dict[Hashable, object] = {"x": mpq(1, m), "others": mpq(m - 1, m)}
    return Dist(with_record), Dist(without)


def _log(x: mpq) -> float:
    """The library's input: ``math.log`` of the double nearest ``x`` (−inf at 0)."""
    d = int(x.numerator) / int(x.denominator)  # float ok: a mass handed to the library
    return math.log(d) if d > 0 else -math.inf


def _claim(case: AuditCase, q: Any, p: Any, m: int, k: int, route: str | None,
           interval: Any, pair: tuple[Dist, Dist], notes: list[str]) -> Any:
    """An object with ``get_epsilon``/``get_delta``: the PLDAccountant if it takes the event,
    else (``route = "pmf"``) the library's PLD of the two pmfs composed ``k`` times."""
    import dp_accounting
    from dp_accounting import pld

    relation = dp_accounting.NeighboringRelation.ADD_OR_REMOVE_ONE
    event = dp_accounting.PoissonSampledDpEvent(
        q.double, dp_accounting.RandomizedResponseDpEvent(noise_parameter=p.double,
                                                          num_buckets=m))
    acc = (pld.PLDAccountant(relation) if interval is None else
           pld.PLDAccountant(relation, value_discretization_interval=interval.double))
    why = acc._maybe_compose(event, k, False)
    if why is None:
        quiet(acc.compose, event, k, notes=notes)
        notes.append(f"dp_accounting {version_of('dp-accounting')}: PLDAccountant"
                     f"(ADD_OR_REMOVE_ONE).compose(PoissonSampledDpEvent(q, "
                     f"RandomizedResponseDpEvent(p, m)), count=k)")
        return acc
    refusal = " ".join(str(why.error_message).split())
    if route != "pmf":
        raise InvalidArgument(f"dp_accounting {version_of('dp-accounting')}'s PLDAccountant "
                              f"does not account PoissonSampledDpEvent of a "
                              f"RandomizedResponseDpEvent ({refusal}); give options.route = "
                              f"\"pmf\" for the library's PLD of the law's pmfs instead",
                              argument="constructor", value=case.constructor)
    with_record, without = pair
    upper = {o: _log(w) for o, w in with_record.items()}
    lower = {o: _log(w) for o, w in without.items()}
    kwargs = {} if interval is None else {"value_discretization_interval": interval.double}
    one = quiet(pld.privacy_loss_distribution.from_two_probability_mass_functions, lower, upper,
                pessimistic_estimate=True, symmetric=False, notes=notes, **kwargs)
    composed = one if k == 1 else quiet(one.self_compose, k, notes=notes)
    notes.append(f"dp_accounting {version_of('dp-accounting')}'s accountants refuse "
                 f"PoissonSampledDpEvent of a RandomizedResponseDpEvent ({refusal}); the claim "
                 f"is the library's PLD of the law's pmfs (from_two_probability_mass_functions,"
                 f" pessimistic, both orders; the masses handed as logs of their nearest "
                 f"doubles){f', self_compose({k})' if k > 1 else ''}")

    class _Read:
        def get_epsilon(self, delta: float) -> float:
            return composed.get_epsilon_for_delta(delta)

        def get_delta(self, epsilon: float) -> float:
            return composed.get_delta_for_epsilon(epsilon)

    return _Read()


_RANK = {"unsound": 2, "unknown": 1, "sound": 0}


def poisson_sampled(case: AuditCase) -> AuditRow:
    """The case ``PoissonSampledDpEvent`` (see the module)."""
    case.only(("sampling_probability", "noise_parameter", "num_buckets"),
              ("route", "value_discretization_interval"), compose=True, epsilon=True,
              delta=True)
    notes: list[str] = []
    q = in_range(double_arg(case, "sampling_probability", notes),
                 "args.sampling_probability", gt=0, le=1)
    p = in_range(double_arg(case, "noise_parameter", notes), "args.noise_parameter", gt=0,
                 le=1)
    m = positive_count(case.arg("num_buckets"), "args.num_buckets", 2)
    route = case.options.get("route")
    if route is not None and route not in ROUTES:
        raise InvalidArgument(f"options.route = {route!r}: give \"accountant\" (the "
                              f"PLDAccountant, if it takes the event) or \"pmf\" (the library's"
                              f" PLD of the law's pmfs when it does not)",
                              argument="options.route", value=route)
    interval = option_double(case, "value_discretization_interval", notes)
    if interval is not None:
        in_range(interval, "options.value_discretization_interval", gt=0)
    k = k_of(case)
    which, at = query(case, notes)
    pair = subsampled_rr_pair(q.exact, p.exact, m)
    reader = _claim(case, q, p, m, k, route, interval, pair, notes)
    value = read_double(quiet(reader.get_epsilon if which == "delta" else reader.get_delta,
                              at.double, notes=notes))
    claim_e = value if which == "delta" else at
    claim_d = at if which == "delta" else value
    witness = {"inputs": ["with the record", "without it"], "runs": k,
               "laws": [{str(o): str(w) for o, w in law.items()} for law in pair]}
    rows = [judge(case, claim_e, claim_d, curve([(a, b)], k), {**witness, "order": order},
                  notes)
            for (a, b), order in ((pair, "P‖Q (remove)"), (pair[::-1], "Q‖P (add)"))]
    worst, other = rows
    if _RANK[other.verdict] > _RANK[worst.verdict] or (
            other.verdict == worst.verdict and _larger(other, worst, which)):
        worst, other = other, worst
    tight_e = worst.tight_epsilon if not _above(other.tight_epsilon, worst.tight_epsilon) \
        else other.tight_epsilon
    tight_d = worst.tight_delta if not _above(other.tight_delta, worst.tight_delta) \
        else other.tight_delta
    note = (f"the other order, {other.witness['order']}: {other.verdict}, tight ε ≈ "
            f"{_approx(other.tight_epsilon)}, tight δ ≈ {_approx(other.tight_delta)}; the "
            f"tight values shown are the larger of the two orders")
    return replace(worst, tight_epsilon=tight_e, tight_delta=tight_d,
                   ratio=ratio(claim_e, tight_e), notes=(*worst.notes, note))


def _above(x: object, y: object) -> bool:
    """Whether the exact tight value ``x`` exceeds ``y`` (both ε or both δ; False when either
    is missing or not exact)."""
    if isinstance(x, Epsilon) and isinstance(y, Epsilon) or \
            isinstance(x, Delta) and isinstance(y, Delta):
        return x.compare(y) > 0  # type: ignore[arg-type]
    return False


def _larger(a: AuditRow, b: AuditRow, which: str) -> bool:
    """Whether ``a``'s tight value at the query (ε at a δ, δ at an ε) exceeds ``b``'s."""
    if which == "delta":
        return _above(a.tight_epsilon, b.tight_epsilon)
    return _above(a.tight_delta, b.tight_delta)


def _approx(v: object) -> str:
    return "—" if v is None else v.approx()  # type: ignore[attr-defined]
