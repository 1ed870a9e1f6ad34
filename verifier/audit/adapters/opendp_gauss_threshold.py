"""OpenDP's ``make_gaussian_threshold`` on integer counts: the release δ it leaves out.

**What the library does** (OpenDP 0.16, ``measurements/noise_threshold``, the code it shares
with ``make_laplace_threshold``; see :mod:`~verifier.audit.adapters.opendp_threshold`): each
key of value ``v`` is released as ``v + Z`` when ``v + Z ≥ T`` and dropped otherwise, ``Z``
the discrete Gaussian ``P[Z = z] = e^{−z²/(2σ²)}/Θ`` at the double ``σ = scale`` read
exactly (CKS20's exact sampler), ``Θ = Σ_z e^{−z²/(2σ²)}``. The input metric ``L02Inf``
counts a missing key as the value 0. The map returns ``(ρ, δ)`` under
``Approximate<ZeroConcentratedDivergence>``.

**Why a released key against none bounds δ from below, whatever ρ.** ``(ρ, δ)``-approximate
zCDP asks for ``P = (1 − δ)P′ + δP″`` and ``Q = (1 − δ)Q′ + δQ″`` with ``P′``, ``Q′``
ρ-zCDP-close; a Rényi divergence of order ``α > 1`` is finite only when ``P′ ≪ Q′``. If
``Q`` gives a set ``S`` mass 0, so does ``Q′ ≤ Q/(1 − δ)``, hence ``P′``, and
``P(S) ≤ δ``. The map ``{k: v}`` against ``{}`` (at ``(l0, l1, l∞) = (1, |v|, |v|)``) puts
``P[Z ≥ T − v]`` on outputs where ``{}`` puts none, so ``δ ≥ P[Z ≥ T − v]`` at every ρ.

**Over the whole relation** δ is 1: a key of value 0 is at distance 0 from an absent one, and
``n`` of them against none release a key with probability ``1 − (1 − P[Z ≥ T])^n → 1``
(the same family as the Laplace threshold). Every claim with δ < 1 is unsound; δ ≥ 1 is
vacuous. The witness is the pair of maps differing in one key whose release mass is largest,
``P[Z ≥ T − L]``, ``L = min(l1, l∞)``, and its exact value is a ratio of theta series
(:class:`~verifier.core.theta.Series`), compared with the claimed δ by certified sign.
"""

from __future__ import annotations

from gmpy2 import mpq

from verifier.audit.adapters.opendp_args import (
    I32,
    U32,
    NegativeClaim,
    int_arg,
    opendp,
    scale_arg,
)
from verifier.audit.case import AuditCase, AuditRow
from verifier.audit.judge import read_double
from verifier.core.binary64 import F64
from verifier.core.certified import Certified
from verifier.core.epsilon import Epsilon
from verifier.core.errors import InvalidArgument, Undecided
from verifier.core.numbers import format_rational
from verifier.model.expnoise import ExpNoise, discrete_gaussian
from verifier.notions.dp.noise_loss import DeltaForm

__all__ = ["gaussian_threshold_row", "release_delta"]


def release_delta(noise: ExpNoise, threshold: int, value: int) -> Certified:
    """``P[value + Z ≥ threshold]``: the probability the key of ``value`` is released."""
    a = noise.at_least(threshold - value)
    return Certified(DeltaForm(a, a, noise.denominator, a).enclose)


def _released_above(noise: ExpNoise, threshold: int, value: int, delta: mpq) -> bool | None:
    """Whether ``P[value + Z ≥ threshold] > delta`` (None: not decided)."""
    try:
        return (noise.at_least(threshold - value) - noise.denominator * delta).sign() > 0
    except Undecided:
        return None


def _d_in(case: AuditCase) -> tuple[int, int, int]:
    d = case.d_in
    if not (isinstance(d, tuple) and len(d) == 3 and all(
            isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in d)):
        raise InvalidArgument(f"d_in = {d!r}: the L02Inf distance is three integers "
                              f"(l0, l2, linf) ≥ 0", argument="d_in", value=d)
    l0, l2, li = (int_arg(case, "d_in", x, 0, hi)
                  for x, hi in zip(d, (U32[1], I32[1], I32[1]), strict=True))
    return l0, l2, li


def _claim(value: object, what: str) -> F64:
    # float ok: the library's own double, read exactly by read_double
    claimed = read_double(float(value))  # type: ignore[arg-type]
    if not isinstance(claimed, F64):
        raise InvalidArgument(f"the library returned {what} = {value!r}", argument="d_in")
    if claimed.exact < 0:
        raise NegativeClaim(claimed)
    return claimed


def gaussian_threshold_row(case: AuditCase) -> AuditRow:
    """``make_gaussian_threshold``: unsound whenever the claimed δ < 1 (module), with the
    one-key witness and its exact release probability against the claimed δ."""
    case.only(("scale", "threshold"), d_in=True)
    dp = opendp()
    sigma = scale_arg(case)
    t = int_arg(case, "args.threshold", case.arg("threshold"), 1, I32[1])
    l0, l2, li = _d_in(case)
    if li > t:
        raise InvalidArgument(f"args.threshold = {t} is below d_in's l∞ distance {li} (the "
                              f"library takes a threshold ≥ it)", argument="args.threshold",
                              value=t)
    meas = dp.m.make_gaussian_threshold(
        dp.map_domain(dp.atom_domain(T=str), dp.atom_domain(T=int)),
        dp.l02inf_distance(dp.absolute_distance(T=int)), scale=sigma.double, threshold=t)
    rho_raw, delta_raw = meas.map((l0, l2, li))
    delta = _claim(delta_raw, "δ")
    if read_double(float(rho_raw)) == float("inf"):  # float ok: ρ = ∞ bounds no divergence
        return AuditRow(case, Epsilon.INF, delta, None, None, "sound", None, "exact", {},
                        ("the library claims ρ = ∞: vacuous (P′ need not be ≪ Q′), hence "
                         "sound",))
    rho = _claim(rho_raw, "ρ")
    if delta.exact > 1:
        raise InvalidArgument(f"the library returned δ = {delta_raw!r}", argument="d_in")
    noise = discrete_gaussian(sigma.exact)
    shift = min(l2, li) if l0 else 0
    value = min(shift, t - 1)  # the largest release mass of one key against none
    mass = release_delta(noise, t, value)
    above = _released_above(noise, t, value, delta.exact)
    zero = release_delta(noise, t, 0)
    vacuous = delta.exact >= 1
    left = {"a": value}
    finding = "" if above is not True else " — the claim is exceeded by this pair alone"
    notes = ("zCDP: the ε columns hold ρ (Approximate<ZeroConcentratedDivergence>); δ ≥ the "
             "mass the neighbour gives none, at every ρ",
             f"scale = σ = {sigma} = {format_rational(sigma.exact)} exactly",
             f"over maps differing in one key: {left} against {{}} releases the key with "
             f"probability P[Z ≥ {t - value}] ≈ {mass.approx()} against the claimed δ = "
             f"{delta}{finding}",
             "over the whole relation δ = 1 at every ρ, approached as zero-valued keys are "
             "added (the witness's family): exact")
    witness = {"inputs": (left, {}), "outputs": "every released value of key 'a' (v + Z ≥ T)",
               "delta": f"P[Z ≥ {t - value}] ≈ {mass.approx()}",
               "family": f"n keys of value 0 against none (distance 0): δ = 1 − (1 − r0)^n "
                         f"→ 1, r0 = P[Z ≥ {t}] ≈ {zero.approx()}"}
    return AuditRow(case, rho, delta, mpq(1), Epsilon.ZERO if vacuous else Epsilon.INF,
                    "sound" if vacuous else "unsound", None, "exact", witness, notes)
