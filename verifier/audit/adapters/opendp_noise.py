"""OpenDP's integer noise decided exactly: discrete Laplace on an integer (``make_laplace``,
``make_geometric`` without bounds), the bounded constant-time geometric (``make_geometric``
with bounds: a rational law at the library's own ``α``,
:mod:`~verifier.audit.adapters.opendp_exp`), the discrete Gaussian under zCDP
(``make_gaussian``), the Laplace threshold on a map of counts
(:mod:`~verifier.audit.adapters.opendp_threshold`), and noisy max / top-k by permute-and-flip
(:mod:`~verifier.audit.adapters.opendp_noisy_max`).

The unbounded samplers take the double scale as the rational it is (``RBig::try_from(scale)``) and
sample exactly (Canonne, Kamath and Steinke, *The Discrete Gaussian for Differential
Privacy*, 2020). On an integer with ``AbsoluteDistance`` the neighbours at ``d_in`` are the
integers ``v``, ``v′`` with ``|v − v′| ≤ d_in``, so the largest shift is ``Δ = ⌊d_in⌋``:

* discrete Laplace, pure DP: the loss of ``v + Z`` against ``v′ + Z`` is ``±Δ/s`` on every
  output beyond both centres, so the tight ε is exactly ``Δ/s``
  (:func:`~verifier.notions.dp.noise_check.check_noise_dp` computes it, with the tight δ);
* discrete Gaussian, zCDP: for an integer shift completing the square gives
  ``D_α(N_Z(Δ, σ²) ‖ N_Z(0, σ²)) = α·Δ²/(2σ²)`` at every integer order and ``≤`` at every real
  ``α > 1`` (``Σ_k p^α q^{1−α} = e^{α(α−1)Δ²/(2σ²)}·Θ(αΔ)/Θ(0)`` with
  ``Θ(s) = Σ_k e^{−(k−s)²/(2σ²)}``, which is largest, ``Θ(0)``, at integer ``s``; CKS20,
  concentrated DP of the discrete Gaussian), so the tight ρ is exactly ``Δ²/(2σ²)``, a
  rational for a double σ — before the release is cast to i32; the saturating cast lowers it
  by a bounded sliver (:func:`gaussian_row`).

Both integer paths end in that saturating cast (``then_saturating_cast``): for the pure-DP
discrete Laplace it merges outputs beyond both centres, whose likelihood ratio is constant
there, so ε and δ are unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gmpy2 import mpq

from verifier.audit.adapters.opendp_args import (
    I32,
    U32,
    NegativeClaim,
    claim_epsilon,
    int_arg,
    opendp,
    scale_arg,
    verdict,
)
from verifier.audit.adapters.opendp_exp import geometric_alphas
from verifier.audit.adapters.opendp_laws import ct_geometric
from verifier.audit.adapters.opendp_noisy_max import given_input, noisy_max_answer, noisy_max_case
from verifier.audit.adapters.opendp_threshold import threshold_answer
from verifier.audit.case import AuditCase, AuditRow, Enclosure
from verifier.audit.judge import ratio, read_double
from verifier.core.binary64 import F64
from verifier.core.certified import Certified, exp_bounds
from verifier.core.distribution import Dist
from verifier.core.epsilon import Epsilon
from verifier.core.errors import BudgetExceeded, InvalidArgument, Undecided
from verifier.core.expsum import ExpSum
from verifier.core.numbers import counted, format_rational
from verifier.model.expnoise import discrete_laplace
from verifier.model.mechanisms import mechanism
from verifier.notions.dp.neighbours import check_relation, vector_relation, vectors
from verifier.notions.dp.noise_check import check_noise_dp
from verifier.notions.dp.noise_loss import DeltaForm

__all__ = ["laplace_row", "gaussian_row", "noisy_max_row", "threshold_row", "bounds", "MAX_SPAN"]


def laplace_row(case: AuditCase) -> AuditRow:
    if case.constructor == "make_geometric" and "bounds" in case.args:
        return _bounded_geometric_row(case)
    case.only(("scale",), d_in=True)
    dp = opendp()
    scale = scale_arg(case)
    make = getattr(dp.m, case.constructor)
    meas = make(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=scale.double)
    d_in = int_arg(case, "d_in", case.d_in if case.d_in is not None else 1, 1, I32[1])
    claim, eps = claim_epsilon(meas.map(d_in))
    if eps.infinite:  # MaxDivergence: D∞(P‖Q) ≤ ∞ for every pair; the tight ε is d_in/scale
        return AuditRow(case, claim, mpq(0), mpq(0), Epsilon.of_nats(d_in / scale.exact),
                        "sound", None, "exact", {"inputs": (d_in, 0)},
                        (f"scale = {scale} = {format_rational(scale.exact)} exactly",
                         "the library claims ε = ∞: vacuous (the max divergence is at most ∞ "
                         "for every pair), hence sound"))
    noise = discrete_laplace(scale.exact)
    try:
        result = check_noise_dp(noise, (0, d_in), 1, eps, mpq(0))
    except BudgetExceeded as exc:  # the pair (0, d_in) spans too many outputs
        raise BudgetExceeded(f"d_in = {d_in}: {exc}", argument="d_in", value=d_in) from None
    tight: Epsilon | Certified = result.epsilon_value or result.epsilon_enclosure \
        or Epsilon.INF  # exact for the unclamped law (ε = Δ/scale); enclosed otherwise
    exact = result.epsilon_value is not None and result.delta_exact
    c, _ = result.witness
    witness = {"inputs": (c, 0), "outputs": "every output (loss ±d_in/scale)"}
    return AuditRow(case, claim, mpq(0), Certified(result.delta_enclosure.enclose), tight,
                    verdict(result.holds),
                    ratio(claim, tight if isinstance(tight, Epsilon) else None),
                    "exact" if exact else "enclosure", witness,
                    (f"scale = {scale} = {scale.exact} exactly (the sampler takes the "
                     f"double as a rational)",
                     f"tight δ at the claimed ε: {result.delta or '0'}"))


MAX_SPAN = 400  # U − L of a bounded geometric: laws of U − L + 1 outcomes, ~2·d_in·(U − L) pairs


def bounds(case: AuditCase) -> tuple[int, int]:
    """``args.bounds`` of the bounded geometric: ``(lower, upper)``, at most ``MAX_SPAN`` apart."""
    b = case.arg("bounds")
    if not (isinstance(b, tuple) and len(b) == 2 and all(
            isinstance(x, int) and not isinstance(x, bool) for x in b)) or b[0] > b[1]:
        raise InvalidArgument(f"args.bounds = {b!r:.40}: two integers [lower, upper], "
                              f"lower ≤ upper", argument="args.bounds", value=b)
    int_arg(case, "args.bounds", b[0], *I32)
    int_arg(case, "args.bounds", b[1], *I32)
    if b[1] - b[0] > MAX_SPAN:
        raise BudgetExceeded(f"args.bounds = {list(b)}: {b[1] - b[0] + 1} outputs, more than "
                             f"{MAX_SPAN + 1}", argument="args.bounds", value=list(b))
    return b[0], b[1]


def _hex(a: mpq) -> str:
    """The double ``a`` is, in hexadecimal (int / int is correctly rounded: exact here)."""
    return (int(a.numerator) / int(a.denominator)).hex()


def _at_alpha(alpha: mpq, lower: int, upper: int) -> Callable[[tuple], Dist]:
    return lambda x: ct_geometric(x[0], alpha, lower, upper)


def _bounded_geometric_row(case: AuditCase) -> AuditRow:
    """``make_geometric`` with bounds: the constant-time sampler, decided exactly on the
    rational law at the library's own ``α`` (:mod:`~verifier.audit.adapters.opendp_exp`)."""
    case.only(("scale", "bounds"), d_in=True)
    dp = opendp()
    scale = scale_arg(case)
    lower, upper = bounds(case)
    alphas = geometric_alphas(scale.double)
    if alphas[-1] >= 1:
        raise InvalidArgument(f"args.scale = {scale}: OpenDP's p = 1 ⊖ e^(−1/scale) rounds to "
                              f"0, outside the (0, 1] the library takes", argument="args.scale",
                              value=str(scale))
    meas = dp.m.make_geometric(dp.atom_domain(T=int), dp.absolute_distance(T=int),
                               scale=scale.double, bounds=(lower, upper))
    d_in = int_arg(case, "d_in", case.d_in if case.d_in is not None else 1, 1, I32[1])
    claim, eps = claim_epsilon(meas.map(d_in))
    # equal bounds: every input is clamped to the one output, so the universe is that input
    # and one beyond it (clamped onto it): a pair of neighbours, for the engine to find ε = 0
    top = upper + 1 if lower == upper else upper
    relation = vector_relation("linf", d_in, vectors(1, lower, top))
    results = [check_relation(mechanism(_at_alpha(a, lower, upper)), relation, eps, 0)
               for a in alphas]
    holds = {r.holds for r in results}
    first = results[0]
    tight: Epsilon | Enclosure = first.epsilon if len(results) == 1 else \
        Enclosure(results[-1].epsilon, results[0].epsilon)
    label: Any = dict(first.witness)
    pair = label.pop("inputs", None)
    witness: dict[str, object] = {"inputs": tuple(x[0] for x in pair) if pair else ()}
    witness.update(label)
    alpha_text = " or ".join(f"{format_rational(a)} ({_hex(a)})" for a in alphas)
    return AuditRow(case, claim, mpq(0), first.delta, tight,
                    verdict(holds.pop() if len(holds) == 1 else None), ratio(claim, tight),
                    "exact" if len(results) == 1 else "enclosure", witness,
                    (f"α = 1 − p = {alpha_text}: p = 1 ⊖ inf_exp(−1/scale), OpenDP's "
                     f"arithmetic transcribed bit for bit",
                     f"inputs: every integer in [{lower}, {top}] (an input outside "
                     f"[{lower}, {upper}] is clamped to an end first)"))


I32_MAX = 2 ** 31 - 1  # the library casts the release to i32, saturating
_FAR = mpq(694)  # nats: e^(−694) < 2^(−1001)
_TINY = mpq(1, 2 ** 1000)


def _upper_exp(nats: mpq) -> mpq:
    """A rational ≥ ``e^(−nats)`` (``nats ≥ 0``), without underflow: ``2^−1000`` far out."""
    return _TINY if nats >= _FAR else exp_bounds(-nats, 64)[1]


def saturation_loss(u: mpq, shift: int, limit: int = I32_MAX) -> mpq:
    """A rational ``b`` with ``ρ_sat ≥ u·Δ² − b`` for the discrete Gaussian released through the
    saturating cast to i32 (see :func:`gaussian_row`): ``b = r/(2(1 − r))`` with
    ``r ≥ P[|N_Z(2Δ, σ²)| ≥ limit]`` (2^31 − 1) bounded by its geometric tail."""
    m = limit - 2 * shift
    head, ratio_ = _upper_exp(u * m * m), _upper_exp(u * (2 * m + 1))
    if ratio_ >= 1:
        return u * shift * shift
    r = 2 * head / (1 - ratio_)
    return u * shift * shift if r >= 1 else r / (2 * (1 - r))


def gaussian_row(case: AuditCase) -> AuditRow:
    """``make_gaussian`` on an integer under zCDP: ρ in the ε columns (see the notes).

    The library casts the release to i32, saturating: post-processing, so ``ρ ≤ Δ²/(2σ²)``;
    and at ``α = 2`` the pair ``(Δ, 0)`` keeps every output strictly inside the type, where
    ``Σ_o P(o)²/Q(o)`` over all of ``ℤ`` is ``e^{Δ²/σ²}``, minus a share
    ``r = P[|N_Z(2Δ, σ²)| ≥ 2^31 − 1]`` beyond it: ``ρ ≥ D_2/2 ≥ Δ²/(2σ²) + ln(1 − r)/2``.
    The tight ρ is enclosed between the two (a gap below 2^−999 unless σ is near 2^31)."""
    case.only(("scale",), d_in=True)
    dp = opendp()
    sigma = scale_arg(case)
    meas = dp.m.make_gaussian(dp.atom_domain(T=int), dp.absolute_distance(T=int),
                              scale=sigma.double)
    d_in = int_arg(case, "d_in", case.d_in if case.d_in is not None else 1, 1, 2 ** 29 - 1)
    claimed = read_double(float(meas.map(d_in)))  # float ok: the library's double, read exactly
    if claimed == float("inf"):  # float ok: ρ = ∞ bounds every divergence: vacuous
        return AuditRow(case, Epsilon.INF, None, None, None, "sound", None, "exact",
                        {"inputs": (d_in, 0)},
                        ("zCDP: the ε columns hold ρ (the library's ZeroConcentratedDivergence)",
                         "the library claims ρ = ∞: vacuous, hence sound"))
    if not isinstance(claimed, F64):
        raise InvalidArgument(f"the library returned ρ = {claimed!r}", argument="d_in")
    if claimed.exact < 0:
        raise NegativeClaim(claimed)
    u = 1 / (2 * sigma.exact * sigma.exact)
    rho = u * d_in * d_in
    lower = max(rho - saturation_loss(u, d_in), mpq(0))
    holds = True if claimed.exact >= rho else False if claimed.exact < lower else None
    witness = {"inputs": (d_in, 0), "orders": "α = 2 (and every integer α: D_α = α·Δ²/(2σ²) "
                                              "before the cast)"}
    return AuditRow(case, claimed, None, None, Enclosure(lower, rho), verdict(holds),
                    ratio(claimed, Epsilon.of_nats(rho)), "enclosure", witness,
                    ("zCDP: the ε columns hold ρ (the library's ZeroConcentratedDivergence)",
                     f"scale = {sigma} = {format_rational(sigma.exact)} exactly; tight ρ ≤ "
                     f"d_in²/(2σ²) = {format_rational(rho)}, and above it by less than "
                     f"{_show_gap(rho - lower)} (the saturating cast to i32)"))


def _show_gap(gap: mpq) -> str:
    return "2^-999" if gap <= 2 * _TINY else format_rational(gap)


# ------------------------------------------------------------- noisy max / top-k (pure DP)

def noisy_max_row(case: AuditCase) -> AuditRow:
    """``make_noisy_max`` / ``make_noisy_top_k`` with ``MaxDivergence``."""
    top_k = case.constructor == "make_noisy_top_k"
    c = noisy_max_case(case, "max_divergence")
    scale, k, negate, monotonic, signed, d_in = c.scale, c.k, c.negate, c.monotonic, \
        c.signed, c.d_in
    claim, eps = claim_epsilon(c.meas.map(c.d_arg))
    try:
        answer = noisy_max_answer(signed, 1 / scale.exact, k, d_in, monotonic, eps)
    except Undecided as exc:
        return AuditRow(case, claim, mpq(0), None, None, "unknown", None, "enclosure", {},
                        (f"undecided: {exc}",))
    x, y, out = answer.witness
    back = (lambda v: -v) if negate else (lambda v: v)
    shown = tuple(given_input(case, tuple(back(v) for v in z)) for z in (x, y))
    release = out if top_k else out[0]
    witness = {"inputs": shown, "outputs": [release]}
    tight: Epsilon | Enclosure
    if isinstance(answer.epsilon, Epsilon):
        tight = answer.epsilon
    else:
        lo, hi = answer.epsilon.enclose(128)
        tight = Enclosure(Epsilon.of_nats(max(lo, mpq(0))), Epsilon.of_nats(max(hi, mpq(0))))
    return AuditRow(case, claim, mpq(0), Certified(lambda prec: _closed(answer.delta, prec)),
                    tight, verdict(answer.holds), ratio(claim, tight),
                    "exact" if isinstance(answer.epsilon, Epsilon) else "enclosure", witness,
                    (f"scale = {scale} = {format_rational(scale.exact)} exactly",
                     f"tight ε = {answer.epsilon_text} (largest log-ratio, output {release})",
                     f"tight δ at the claimed ε = {answer.delta}",
                     f"{counted(answer.pairs, 'ordered pair')} at L∞ distance ≤ "
                     f"{format_rational(d_in)}{' (monotonic)' if monotonic else ''}"))


def _closed(x: ExpSum, prec: int) -> tuple[mpq, mpq]:
    lo, hi = x.enclose(prec)
    return max(lo, mpq(0)), max(hi, mpq(0))


# -------------------------------------------------------------------- Laplace threshold

def threshold_row(case: AuditCase) -> AuditRow:
    """``make_laplace_threshold``: the tight δ over the library's whole neighbour relation is
    1 — keys of value 0 are at distance 0 from absent ones (a missing key counts as 0) and
    each is released with ``r0 = P[Z ≥ T] > 0``, so ``n`` of them against none give
    ``δ = 1 − (1 − r0)^n → 1`` at every ε; any claimed δ < 1 is unsound. The witness is the
    worst pair of maps differing in one key, with its exact δ
    (:func:`~verifier.audit.adapters.opendp_threshold.threshold_answer`)."""
    case.only(("scale", "threshold"), d_in=True)
    dp = opendp()
    scale = scale_arg(case)
    t = int_arg(case, "args.threshold", case.arg("threshold"), 1, I32[1])
    d = case.d_in
    if not (isinstance(d, tuple) and len(d) == 3 and all(
            isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in d)):
        raise InvalidArgument(f"d_in = {d!r}: the L01Inf distance is three integers "
                              f"(l0, l1, linf) ≥ 0", argument="d_in", value=d)
    l0, l1, li = (int_arg(case, "d_in", x, 0, hi)
                  for x, hi in zip(d, (U32[1], I32[1], I32[1]), strict=True))
    if li > t:
        raise InvalidArgument(f"args.threshold = {t} is below d_in's l∞ distance {li} (the "
                              f"library takes a threshold ≥ it)", argument="args.threshold",
                              value=t)
    meas = dp.m.make_laplace_threshold(
        dp.map_domain(dp.atom_domain(T=str), dp.atom_domain(T=int)),
        dp.l01inf_distance(dp.absolute_distance(T=int)), scale=scale.double, threshold=t)
    e_claim, d_claim = meas.map(d)
    claim, eps = claim_epsilon(e_claim)
    delta_claim = read_double(float(d_claim))  # float ok: the library's double, read exactly
    if not isinstance(delta_claim, F64) or delta_claim.exact > 1:
        raise InvalidArgument(f"the library returned δ = {d_claim!r}", argument="d_in")
    if delta_claim.exact < 0:
        raise NegativeClaim(delta_claim)
    if eps.infinite:  # δ(∞) is the mass of outputs the other side never gives: still → 1
        vacuous = delta_claim.exact >= 1
        return AuditRow(case, claim, delta_claim, mpq(1), Epsilon.INF,
                        "sound" if vacuous else "unsound", None, "exact",
                        {"inputs": ({"a": 0}, {}), "outputs": "any released key",
                         "family": "n keys of value 0 against none (distance 0): δ(∞) = 1 − "
                                   f"(1 − P[Z ≥ {t}])^n → 1"},
                        (f"scale = {scale} = {format_rational(scale.exact)} exactly",
                         "the library claims ε = ∞: δ(∞) is the probability of outputs the "
                         "neighbour never gives, and the released keys of n zero-valued keys "
                         "against none are such outputs, with probability → 1: exact"))
    one = threshold_answer(scale.exact, t, min(l1, li) if l0 else 0, eps, delta_claim.exact)
    left, right = one.witness.maps("a")
    noise = discrete_laplace(scale.exact)
    r0 = Certified(DeltaForm(noise.at_least(t), noise.at_least(t), noise.denominator,
                             noise.at_least(t)).enclose)
    vacuous = delta_claim.exact >= 1
    shown = one.delta_certified.approx()
    witness = {"inputs": (left, right),
               "outputs": "every released value of key 'a' (v + Z ≥ T)"
               if one.witness.epsilon_free else "outputs where the loss exceeds ε",
               "delta": f"{one.delta} ≈ {shown}",
               "family": f"n keys of value 0 against none (distance 0): δ = 1 − (1 − r0)^n "
                         f"→ 1, r0 = P[Z ≥ {t}] ≈ {r0.approx()}"}
    short = "" if one.holds is not False else \
        " — the claim is exceeded by this pair alone"
    notes = (f"scale = {scale} = {format_rational(scale.exact)} exactly; β = e^(−1/scale)",
             f"over maps differing in one key: tight δ at the claimed ε = {one.delta} ≈ "
             f"{shown} (pair {left} against {right}) against the claimed {delta_claim}"
             f"{short}" + ("" if one.delta_decided else
                           "; the pairs were not all ranked, ≈ is the widest enclosure"),
             "over the whole relation the supremum of δ is 1 at every ε, approached as "
             "zero-valued keys are added (the witness's family): exact")
    return AuditRow(case, claim, delta_claim, mpq(1),
                    Epsilon.ZERO if vacuous else Epsilon.INF,
                    "sound" if vacuous else "unsound", None, "exact", witness, notes)
