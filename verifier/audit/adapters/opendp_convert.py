"""OpenDP's conversions from zCDP to (ε, δ), against the exact δ(ε) of the law they convert.

**What the library does** (OpenDP 0.16, ``combinators/measure_cast/zCDP_to_approxDP`` and
``combinators/fix_delta``): ``make_zCDP_to_approxDP(meas)`` turns the ρ of ``meas.map(d_in)``
into a privacy profile ``δ(ε) = min(1, e^{(α−1)(αρ−ε) + α·ln(1 − 1/α)}/(α − 1))`` at an α its
bisection picks (Canonne, Kamath and Steinke, *The Discrete Gaussian for Differential
Privacy*, 2020, Corollary 13 — a bound for every ρ-zCDP mechanism, evaluated with upward
rounding); ``make_fix_delta(meas, δ)`` reads the ε of that profile at ``δ`` (its own search).

**The audit.** The converted measurement here is ``make_gaussian`` on an integer with
``AbsoluteDistance``: the discrete Gaussian at the double σ (read exactly, sampled exactly),
cast to i32. Its exact δ at the printed ε is the δ of the pair shifted by ``d_in``
(:func:`~verifier.notions.dp.noise_check.check_noise_dp`: exponential sums, tails enclosed);
the cast is post-processing, so that δ bounds the released law's from above, and from below
within the mass beyond ``±(2^31 − 1)``, under 2^−1000 for ``σ, d_in ≤ 2^20``. The range
taken is narrower, where the exact δ is computed in seconds: ``2^−6 ≤ σ ≤ 2^10`` (its work
grows as ``σ`` and as ``1/σ²``) and ``1 ≤ d_in ≤ 2^10``; for a σ outside it, a printed δ of 1 or
ε of ∞ is vacuous (sound: every law has δ ≤ 1), anything else is refused naming the key.
``make_zCDP_to_approxDP`` is read at the case's ``epsilon`` (``δ = profile.delta(ε)``),
``make_fix_delta`` at its ``delta`` (the printed pair ``(ε, δ)``); either is sound when the
exact δ at that ε is at most the printed δ.
"""

from __future__ import annotations

from gmpy2 import mpq

from verifier.audit.adapters import double_of, in_range
from verifier.audit.adapters.opendp_args import (
    NegativeClaim,
    claim_epsilon,
    int_arg,
    opendp,
    scale_arg,
    verdict,
)
from verifier.audit.case import AuditCase, AuditRow
from verifier.audit.judge import read_double
from verifier.core.binary64 import F64
from verifier.core.certified import Certified
from verifier.core.epsilon import Epsilon
from verifier.core.errors import InvalidArgument
from verifier.core.numbers import format_rational
from verifier.model.expnoise import discrete_gaussian
from verifier.notions.dp.noise_check import check_noise_dp

__all__ = ["conversion_row", "MAX_SCALE", "MIN_SCALE"]

MAX_SCALE = 2 ** 10  # σ and d_in: the exact δ in seconds (the cast's mass below 2^-1000)
MIN_SCALE = mpq(1, 2 ** 6)  # σ: e^(−1/(2σ²)) in seconds
_CAST = mpq(1, 2 ** 1000)  # a bound on the δ the cast to i32 can remove


def _epsilon(case: AuditCase, notes: list[str]) -> F64:
    """The case's ``epsilon`` as the double handed to ``profile.delta``."""
    eps = case.epsilon
    if eps is None:
        raise InvalidArgument("make_zCDP_to_approxDP needs epsilon (the ε at which the "
                              "profile's δ is read)", argument="epsilon")
    if eps.infinite:
        raise InvalidArgument("epsilon = inf: the profile is read at a finite ε",
                              argument="epsilon", value="inf")
    d, note = double_of(str(eps) if eps.base is not None else eps.nats, "epsilon")
    if note:
        notes.append(note)
    return d


def conversion_row(case: AuditCase) -> AuditRow:
    """``make_zCDP_to_approxDP`` / ``make_fix_delta`` of ``make_gaussian`` on an integer."""
    fix = case.constructor == "make_fix_delta"
    case.only(("scale",), d_in=True, delta=fix, epsilon=not fix)
    dp = opendp()
    sigma = scale_arg(case)
    d_in = int_arg(case, "d_in", case.d_in if case.d_in is not None else 1, 1, MAX_SCALE)
    notes: list[str] = []
    inner = dp.m.make_gaussian(dp.atom_domain(T=int), dp.absolute_distance(T=int),
                               scale=sigma.double)
    rho = read_double(float(inner.map(d_in)))  # float ok: the library's ρ, read exactly
    approx = dp.c.make_zCDP_to_approxDP(inner)
    if fix:
        if case.delta is None:
            raise InvalidArgument("make_fix_delta needs delta (the δ it fixes)",
                                  argument="delta")
        delta_in, note = double_of(case.delta, "delta")
        if note:
            notes.append(note)
        in_range(delta_in, "delta", gt=0, lt=1)
        e_out, d_out = dp.c.make_fix_delta(approx, delta=delta_in.double).map(d_in)
        claim, eps = claim_epsilon(e_out)
    else:
        e_in = _epsilon(case, notes)
        in_range(e_in, "epsilon", ge=0)
        d_out = approx.map(d_in).delta(e_in.double)
        claim, eps = e_in, Epsilon.of_nats(e_in.exact)
    delta = read_double(float(d_out))  # float ok: the library's δ, read exactly
    if not isinstance(delta, F64) or delta.exact > 1:
        raise InvalidArgument(f"the library returned δ = {d_out!r}", argument="d_in")
    if delta.exact < 0:
        raise NegativeClaim(delta)
    if eps.infinite:  # δ(∞) of the discrete Gaussian: 0 (every output has mass on both sides)
        return AuditRow(case, claim, delta, mpq(0), None, "sound", None, "exact",
                        {"inputs": (d_in, 0)}, ("the library prints ε = ∞: vacuous",))
    if delta.exact == 1:  # every law has δ ≤ 1 at every ε
        return AuditRow(case, claim, delta, None, None, "sound", None, "exact",
                        {"inputs": (d_in, 0)}, ("the library prints δ = 1: vacuous",))
    in_range(sigma, "args.scale", ge=MIN_SCALE, le=MAX_SCALE,
             why=" (where plrv computes the exact δ of the discrete Gaussian in seconds)")
    result = check_noise_dp(discrete_gaussian(sigma.exact), (0, d_in), 1, eps, delta.exact)
    holds = result.holds
    if holds is False:  # the unclamped law exceeds the claim: by more than the cast removes?
        lo = result.delta_enclosure.enclose(128)[0]
        holds = False if lo - _CAST > delta.exact else None
    witness = {"inputs": (d_in, 0), "outputs": "where the loss exceeds ε"}
    notes[:0] = [f"scale = {sigma} = {format_rational(sigma.exact)} exactly; the library's ρ = "
                 f"{rho} for d_in = {d_in}, converted by CKS20's bound (Corollary 13)",
                 f"exact δ of the discrete Gaussian at the printed ε: {result.delta or '…'} "
                 f"(δ ≈ {result.delta_enclosure.approx()})"]
    return AuditRow(case, claim, delta, Certified(result.delta_enclosure.enclose),
                    result.epsilon_enclosure,
                    verdict(holds), None, "enclosure", witness, tuple(notes))
