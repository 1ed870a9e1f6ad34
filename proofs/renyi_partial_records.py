"""The Rényi forms of APK, PPK and noiseless privacy (REFERENCE.md §8), as theorem records.

Each record runs the code's moments (:mod:`verifier.notions.renyi.partial`) on the exhaustive
partial-knowledge family and compares them with a plain-``Fraction`` moment of the
reference's conditional laws (:mod:`proofs.reference`):

* the moment identity ``S^PPK_α = Σ_B P[ζ(D)=B | D(i)=a]·S^APK_α(B)``;
* APK-RDP ⇒ PPK-RDP: the worst PPK divergence is at most the worst APK one at every order;
* at α = ∞ the two coincide, and equal apkdp's and ppkdp's tight ε at δ = 0;
* every conversion of a case's ``D_α`` to (ε, δ) is at least that case's exact δ (ε);
* the converse, PPK-RDP ⇒ APK-RDP, is false (refuted by the thresholded count).
"""

from __future__ import annotations

from fractions import Fraction

from gmpy2 import mpq

from verifier.core.epsilon import Epsilon
from verifier.notions.partial.cases import Table, apk_loss, ordered_pairs, ppk_loss
from verifier.notions.renyi.check import RenyiClaim
from verifier.notions.renyi.conversions import CKS_RDP, MIRONOV, rdp_delta, rdp_epsilon
from verifier.notions.renyi.divergence import Renyi, ScaledLog, moment
from verifier.notions.renyi.partial import apk_terms, partial_cases, partial_rdp, ppk_terms

from . import reference as ref
from .families import Instance, partial_knowledge_family
from .partial_common import EPSILONS, RATES, table
from .partial_common import ref_joint as _ref
from .record import Theorem

__all__ = ["RENYI_PARTIAL_RECORDS"]

ORDERS = (2, 3)
_DELTA = mpq(1, 10)  # where converted ε are compared with the tight ε


def ref_moment(p: dict, q: dict | None, alpha: int) -> Fraction | str:
    """``Σ_O p(O)^α·q(O)^{1−α}`` in plain ``Fraction`` (``"inf"`` if ``q(O) = 0 < p(O)``);
    ``q`` None is Definition 5's convention 1 (``L = 0``): 1."""
    if q is None:
        return Fraction(1)
    total = Fraction(0)
    for o, w in p.items():
        if q.get(o, Fraction(0)) == 0:
            return "inf"
        total += w ** alpha / q[o] ** (alpha - 1)
    return total


def ref_apk(J, a, b, B, alpha: int) -> Fraction | str | None:
    p = ref.conditional(J, a, B)
    return None if p is None else ref_moment(p, ref.conditional(J, b, B), alpha)


def ref_ppk(J, a, b, alpha: int) -> Fraction | str | None:
    """``Σ_B P[B | a]·S^APK_α(B)`` (``None``: ``P[D(i)=a] = 0``)."""
    pa = ref.p_value(J, a)
    if pa == 0:
        return None
    total = Fraction(0)
    for B, row in J[a].items():
        w = sum(row.values(), Fraction(0)) / pa
        s = ref_apk(J, a, b, B, alpha)
        if w == 0 or s is None:
            continue
        if s == "inf":
            return "inf"
        total += w * s  # type: ignore[operator]
    return total


def _code(m: mpq | None) -> Fraction | str:
    return "inf" if m is None else ref.F(m)


def moment_identity(inst: Instance) -> bool | None:
    """The code's PPK moment equals the reference's average of APK moments at orders 2 and 3
    (and each APK moment the reference's). Vacuous: one background value under ``a``, or
    ``+∞`` on both sides."""
    jt, J = table(inst), _ref(inst)
    meaningful = False
    for a, b in ordered_pairs(jt.values):
        terms = ppk_terms(jt, a, b)
        if terms is False:
            if ref.p_value(J, a) != 0:
                return False
            continue
        for alpha in ORDERS:
            # the count engine's background classes stand for several of the reference's
            # background values with one conditional law: compare the sets of moments
            code = {_code(moment(t, alpha)) for B in jt.backgrounds()  # type: ignore[arg-type]
                    if (t := apk_terms(jt, a, b, B)) is not False}
            if code != {s for B in J[a] if (s := ref_apk(J, a, b, B, alpha)) is not None}:
                return False
            expected = ref_ppk(J, a, b, alpha)
            if _code(moment(terms, alpha)) != expected:  # type: ignore[arg-type]
                return False
            live = [B for B in J[a] if ref.conditional(J, a, B) is not None]
            meaningful |= expected != "inf" and len(live) > 1
    return True if meaningful else None


def _worst(inst: Instance, form: str) -> list[Renyi]:
    """The code's tight divergence of ``form`` per order, as ``plrv check`` reports it."""
    cases = partial_cases([Table(0, 0, table(inst), "")], ordered_pairs(inst.model.values),
                          form)
    return [o.value for o in partial_rdp(cases, RenyiClaim(ORDERS, mpq(0))).orders]


def _ref_worst(inst: Instance, form: str, alpha: int) -> Fraction | str | None:
    J = _ref(inst)
    pairs = ordered_pairs(inst.model.values)
    if form == "apk":
        vals = [s for a, b in pairs for B in ref.backgrounds(J)
                if (s := ref_apk(J, a, b, B, alpha)) is not None]
    else:
        vals = [s for a, b in pairs if (s := ref_ppk(J, a, b, alpha)) is not None]
    if not vals:
        return None
    return "inf" if "inf" in vals else max(vals)  # type: ignore[type-var]


def apk_implies_ppk(inst: Instance) -> bool | None:
    """Worst PPK ``D_α`` ≤ worst APK ``D_α`` at orders 2 and 3, both equal to the reference's.
    Vacuous where the APK divergence is ``+∞`` (nothing to imply)."""
    apk, ppk = _worst(inst, "apk"), _worst(inst, "ppk")
    meaningful = False
    for alpha, va, vp in zip(ORDERS, apk, ppk, strict=True):
        for form, v in (("apk", va), ("ppk", vp)):
            expected = _ref_worst(inst, form, alpha)
            if expected is not None and _code(v.moment if not v.infinite else None) != expected:
                return False
        if vp.compare(va) > 0:
            return False
        meaningful |= not va.infinite
    return True if meaningful else None


def ppk_implies_apk(inst: Instance) -> bool | None:
    """The converse: worst APK ``D_2`` ≤ worst PPK ``D_2`` (a claim PPK-RDP meets at its
    tight value, APK-RDP must meet too). Refuted where the active attacker gains strictly
    more; vacuous where both are ``+∞``."""
    va, vp = _worst(inst, "apk")[0], _worst(inst, "ppk")[0]
    if va.infinite and vp.infinite:
        return None
    return va.compare(vp) <= 0


def _max_ratio(terms) -> Epsilon:
    if terms is None:
        return Epsilon.INF
    top = max((r for _, r in terms), default=mpq(1))
    return Epsilon.log(max(top, mpq(1)))


def infinite_order(inst: Instance) -> bool | None:
    """``D_∞ = ln max P/Q`` of PPK (the largest ratio of its background-weighted laws) equals
    the largest APK ``D_∞``, and both equal apkdp's and ppkdp's tight ε at δ = 0; vacuous
    where everything is ``0`` or ``+∞``."""
    jt, J = table(inst), _ref(inst)
    meaningful = False
    for a, b in ordered_pairs(jt.values):
        pt = ppk_terms(jt, a, b)
        if pt is False:
            continue
        apks = [_max_ratio(t) for B in jt.backgrounds()
                if (t := apk_terms(jt, a, b, B)) is not False]
        d_apk = max(apks, key=lambda e: e.sort_key() + (e.base or 0,))
        d_ppk = _max_ratio(pt)
        eps_apk = max((loss.epsilon(0) for B in jt.backgrounds()
                       if (loss := apk_loss(jt, a, b, B)) is not None),
                      key=lambda e: e.sort_key() + (e.base or 0,))
        loss = ppk_loss(jt, a, b)
        assert loss is not None
        if not (d_apk == d_ppk == eps_apk == loss.epsilon(0)):
            return False
        ratios = [ref.max_ratio(p, ref.conditional(J, b, B)) for B in J[a]
                  if (p := ref.conditional(J, a, B)) is not None]
        expected = Epsilon.INF if "inf" in ratios else Epsilon.log(max(ratios))  # type: ignore[type-var]
        if d_ppk != expected:
            return False
        meaningful |= not d_ppk.infinite and not d_ppk.is_zero
    return True if meaningful else None


def _conversions_bound(v: Renyi, loss) -> bool | None:
    """The converted δ at each ε of the family and ε at δ = 1/10 are at least the case's
    exact ones; ``None`` where every conversion is vacuous (``D_α = ∞`` or δ ≥ 1)."""
    meaningful = False
    for eps in EPSILONS:
        c = rdp_delta(v, eps)
        assert isinstance(c.value, mpq)  # rational S_α and e^ε: exact
        if c.value < loss.delta(eps).value:
            return False
        meaningful |= c.value < 1
    tight = loss.epsilon(_DELTA)
    for source in (CKS_RDP, MIRONOV):
        c = rdp_epsilon(v, _DELTA, source)
        assert isinstance(c.value, ScaledLog)
        if c.value.compare(ScaledLog(tight)) < 0:
            return False
        meaningful |= not c.value.infinite
    return True if meaningful else None


def conversions(inst: Instance) -> bool | None:
    """Every APK case ``(a, b, B̂)`` and PPK pair: each (ε, δ) converted from its exact
    ``D_2``, ``D_3`` bounds its exact δ at ε = 0, ln 2, ln 5/2 and its tight ε at δ = 1/10
    (the exact δ equal to the reference's)."""
    jt, J = table(inst), _ref(inst)
    verdicts: list[bool | None] = []
    for a, b in ordered_pairs(jt.values):
        cases = [(apk_terms(jt, a, b, B), apk_loss(jt, a, b, B)) for B in jt.backgrounds()]
        # the exact δs against the reference's, as sets (the count engine's classes stand
        # for several background values with one law)
        code = {tuple(ref.F(loss.delta(eps).value) for eps in EPSILONS)
                for _, loss in cases if loss is not None}
        if code != {tuple(ref.apk(J, a, b, B, E) for E in RATES) for B in J.get(a, {})
                    if ref.conditional(J, a, B) is not None}:
            return False
        ppk = ppk_loss(jt, a, b)
        if ppk is not None and [ref.F(ppk.delta(eps).value) for eps in EPSILONS] != \
                [ref.ppk(J, a, b, E) for E in RATES]:
            return False
        cases.append((ppk_terms(jt, a, b), ppk))
        for terms, loss in cases:
            if terms is False or loss is None:
                continue
            for alpha in ORDERS:
                verdicts.append(_conversions_bound(
                    Renyi.of_moment(alpha, moment(terms, alpha)), loss))  # type: ignore[arg-type]
    if False in verdicts:
        return False
    return True if True in verdicts else None


RENYI_PARTIAL_RECORDS = [
    Theorem("renyi-moment-identity", "REFERENCE.md §8 (seed 003 future work; Lemma 4's "
            "analogue)", "the PPK Rényi moment is the average of the APK moments over the "
            "background value, S^PPK_α = Σ_B P[B | a]·S^APK_α(B), exactly (orders 2, 3)",
            partial_knowledge_family, moment_identity,
            compared_with="reference (Fraction moments of its conditional laws)"),
    Theorem("apkrdp-implies-ppkrdp", "REFERENCE.md §8 (Lemma 5's analogue)",
            "APK-RDP implies PPK-RDP with the same ε_α: worst PPK D_α ≤ worst APK D_α "
            "(orders 2, 3)", partial_knowledge_family, apk_implies_ppk,
            compared_with="reference"),
    Theorem("renyi-order-infinity", "REFERENCE.md §8 (Lemma 6's analogue)",
            "at α = ∞ APK-RDP and PPK-RDP coincide, and equal the tight ε of APKDP and PPKDP "
            "at δ = 0", partial_knowledge_family, infinite_order,
            compared_with="reference and the apkdp/ppkdp losses"),
    Theorem("renyi-partial-conversions", "REFERENCE.md §8 (Mironov 2017 Proposition 3; "
            "Canonne, Kamath and Steinke 2020 Proposition 12)",
            "every (ε, δ) converted from a case's exact APK or PPK D_α (orders 2, 3) is at "
            "least that case's exact δ(ε) and tight ε(δ)", partial_knowledge_family,
            conversions, compared_with="reference δ"),
    Theorem("ppkrdp-implies-apkrdp", "REFERENCE.md §8 (the converse; false)",
            "PPK-RDP implies APK-RDP (worst APK D_2 ≤ worst PPK D_2)",
            partial_knowledge_family, ppk_implies_apk, expected=False,
            compared_with="the code's own APK and PPK moments"),
]
