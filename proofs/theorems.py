"""Partial-knowledge theorem records (seed 003 and the thesis), checked against a reference.

Each check compares the code (the engines and the notions) with an independent computation —
:mod:`proofs.reference`, plain ``Fraction`` arithmetic written from the definitions — and
answers ``True`` (meaningful: the statement could have failed there), ``None`` (vacuous) or
``False`` (see :mod:`proofs.record`). Records are added, never loosened.
"""

from __future__ import annotations

from verifier import (
    BOTTOM,
    Dist,
    check_dp,
    iid,
    independent,
    known_indices,
    mechanism,
    replace_one,
)
from verifier.core.epsilon import Epsilon
from verifier.engines.choice import joint_tables
from verifier.notions.partial.cases import apk_loss, ordered_pairs, ppk_loss

from . import reference as ref
from .families import Instance, partial_knowledge_family
from .partial_common import EPSILONS, RATES, apk_ppk, q, same, table, worst
from .partial_common import ref_joint as _ref
from .partial_records import PARTIAL_RECORDS
from .record import Theorem

__all__ = ["Theorem", "THEOREMS"]

def lemma4(inst: Instance) -> bool | None:
    """PPK_{i,a,b} = Σ_B P[ζ(D)=B | D(i)=a]·APK_{i,a,b,B}: the reference's PPK (Definition 7,
    term by term) against the mixture of the reference's APK, and the code against both."""
    jt, J = table(inst), _ref(inst)
    meaningful = False
    for a, b in ordered_pairs(jt.values):
        pa = ref.p_value(J, a)
        for eps, E in zip(EPSILONS, RATES, strict=True):
            direct = ref.ppk(J, a, b, E)
            if direct is None:
                continue
            apks = {B: d for B in J[a] if (d := ref.apk(J, a, b, B, E)) is not None}
            mixed = sum((sum(J[a][B].values()) / pa * d for B, d in apks.items()), ref.ZERO)
            loss = ppk_loss(jt, a, b)
            if mixed != direct or loss is None or not same(loss.delta(eps), direct):
                return False
            meaningful |= len(apks) > 1 and any(apks.values())
    return True if meaningful else None


def lemma5(inst: Instance) -> bool | None:
    """(ε,δ)-APKDP ⇒ (ε,δ)-PPKDP: worst APK δ ≥ PPK δ (reference), code equal to reference."""
    jt, J = table(inst), _ref(inst)
    pairs = ordered_pairs(jt.values)
    meaningful = False
    for eps, E in zip(EPSILONS, RATES, strict=True):
        apk, ppk = ref.worst_apk(J, pairs, E), ref.worst_ppk(J, pairs, E)
        code = apk_ppk(jt, eps)
        if not (same(code[0], apk) and same(code[1], ppk)):
            return False
        if ppk is not None and (apk is None or apk < ppk):
            return False
        meaningful |= bool(ppk)
    return True if meaningful else None


def lemma6(inst: Instance) -> bool | None:
    """At δ = 0 APK and PPK coincide: the code's tight ε are equal; the reference's PPK δ is 0
    at the largest ratio ``E*`` and positive below it. ∞ against ∞ is vacuous."""
    jt, J = table(inst), _ref(inst)
    meaningful = False
    for a, b in ordered_pairs(jt.values):
        ppk = ppk_loss(jt, a, b)
        if ppk is None:
            continue
        apks = [loss.epsilon(0) for bg in jt.backgrounds()
                if (loss := apk_loss(jt, a, b, bg)) is not None]
        worst = max(apks, key=lambda e: e.sort_key() + (e.base or 0,)) if apks else None
        if worst is None or worst.compare(ppk.epsilon(0)) != 0:
            return False
        ratios = [ref.max_ratio(p, ref.conditional(J, b, B)) for B in J[a]
                  if (p := ref.conditional(J, a, B)) is not None]
        if "inf" in ratios:
            if not ppk.epsilon(0).infinite:
                return False
            continue
        top = max(ratios)
        if ppk.epsilon(0) != Epsilon.log(top):
            return False
        if top > 1:
            if ref.ppk(J, a, b, top) != 0 or ref.ppk(J, a, b, (1 + top) / 2) == 0:
                return False
            meaningful = True
    return True if meaningful else None


def full_knowledge_family():
    """Full-support priors; the attacker knows every record but the target."""
    from .families import _mechanisms
    for model in (iid(["1/3", "2/3"], [0, 1], 2), iid(["1/2", "1/2"], [0, 1], 3),
                  independent([["1/4", "3/4"], ["1/2", "1/2"], ["2/3", "1/3"]], [0, 1]),
                  iid(["1/2", "1/4", "1/4"], [0, 1, 2], 2)):
        for mech in _mechanisms(model.values):
            yield model, mech


def full_knowledge_is_dp(item) -> bool | None:
    """APK with B = D_{−i} equals classical DP: code APK = code DP = reference DP (Lemma 1)."""
    model, mech = item
    meaningful = False
    for eps, E in zip(EPSILONS, RATES, strict=True):
        dp = check_dp(mech, replace_one(model.values, model.n), eps, "0").delta
        full = worst(d for i in range(model.n) if (d := apk_ppk(table(
            Instance(model, mech, i, tuple(j for j in range(model.n) if j != i))), eps)[0]))
        expected = ref.dp_delta(mech, model.values, model.n, E)
        if full != dp or q(dp) != expected:
            return False
        meaningful |= expected > 0
    return True if meaningful else None


POST = {
    "released?": lambda o: o is not BOTTOM,
    "first character": lambda o: repr(o)[:1],
    "at most 1": lambda o: o if not isinstance(o, int) else min(o, 1),
}


def post_processing(inst: Instance) -> bool | None:
    """Proposition 25 (post-processing): the reference's APK and PPK δ of f∘M never exceed
    those of M, for three f; the code agrees with the reference. Vacuous where δ(M) = 1."""
    J = _ref(inst)
    pairs = ordered_pairs(inst.model.values)
    meaningful = False
    for f in POST.values():
        post = inst.mech.then(f)
        jf, Jf = table(inst, post), _ref(inst, post)
        for eps, E in zip(EPSILONS[1:], RATES[1:], strict=True):
            before = (ref.worst_apk(J, pairs, E), ref.worst_ppk(J, pairs, E))
            after = (ref.worst_apk(Jf, pairs, E), ref.worst_ppk(Jf, pairs, E))
            code = apk_ppk(jf, eps)
            if not (same(code[0], after[0]) and same(code[1], after[1])):
                return False
            for old, new in zip(before, after, strict=True):
                if old is not None and new is not None and new > old:
                    return False
                meaningful |= old is not None and old < 1
    return True if meaningful else None


def small_family():
    """The partial-knowledge family up to 4 records."""
    return partial_knowledge_family(max_records=4)


def convexity_family():
    """Two mechanisms on the same outputs, mixed with probability λ, on small instances."""
    from verifier import count, geometric_count, threshold_count
    for inst in partial_knowledge_family(max_records=3):
        if inst.mech.name != "count" or inst.know is not None:
            continue
        for other in (geometric_count([1], "1/2"), threshold_count([1], 2)):
            for lam in ("1/3", "1/2"):
                yield inst, count([1]), other, lam


def convexity(item) -> bool | None:
    """Proposition 25 (convexity): the mixture λ·M1 + (1−λ)·M2 has, per pair, a PPK δ at most
    λ·δ1 + (1−λ)·δ2 ≤ max(δ1, δ2) (reference), and the code agrees on the mixture."""
    inst, m1, m2, lam = item
    lam = ref.Fraction(lam)

    def mix(db):
        out: dict = {}
        for m, w in ((m1, lam), (m2, 1 - lam)):
            for o, p in m(db).items():
                out[o] = out.get(o, 0) + w * ref.F(p)
        return Dist({o: str(p) for o, p in out.items() if p})
    mixed = mechanism(mix, "mixture")
    J1, J2, Jm = _ref(inst, m1), _ref(inst, m2), _ref(inst, mixed)
    jm = table(inst, mixed)
    meaningful = False
    for a, b in ordered_pairs(inst.model.values):
        for eps, E in zip(EPSILONS[1:], RATES[1:], strict=True):
            d1, d2, dm = (ref.ppk(J, a, b, E) for J in (J1, J2, Jm))
            loss = ppk_loss(jm, a, b)
            if dm is None or d1 is None or d2 is None:
                continue
            if dm > lam * d1 + (1 - lam) * d2 or loss is None or not same(loss.delta(eps), dm):
                return False
            meaningful |= max(d1, d2) < 1
    return True if meaningful else None


def lemma3(inst: Instance) -> bool | None:
    """Lemma 3: APK with (θ, ζ) at B̂ is APK with no knowledge on θ conditioned on ζ(D) = B̂
    (an explicit data model built by the reference); the code decides both."""
    from verifier import explicit, no_knowledge
    if inst.know is not None or not inst.known:
        return None
    jt = table(inst, engine="brute")  # background values as tuples of the known records
    dbs = ref.databases(inst.model)
    meaningful = False
    for bg in jt.backgrounds():
        cond = [(db, p) for db, p in dbs if tuple(db[j] for j in inst.known) == bg]
        z = sum((p for _, p in cond), ref.ZERO)
        theta = explicit({db: str(p / z) for db, p in cond}, inst.model.values)
        plain = joint_tables(theta, inst.mech, no_knowledge(), [inst.target])[0][inst.target]
        for a, b in ordered_pairs(jt.values):
            left, right = apk_loss(jt, a, b, bg), apk_loss(plain, a, b, "nothing")
            if left is None or right is None:
                if (left is None) != (right is None):
                    return False
                continue
            for eps in EPSILONS:
                if left.delta(eps) != right.delta(eps):
                    return False
                meaningful |= left.delta(eps) > 0
    return True if meaningful else None


def noisy_sum(n: int, top: int, alpha: str = "1/2"):
    """The sum of the records plus clamped geometric noise on {0..n·top}: its loss grows with
    the distance between the two values that differ (sensitivity ``top``)."""
    from verifier.model.kernels import geometric_clamped_weights
    a = ref.Fraction(alpha)
    return mechanism(lambda db: Dist({k: str(w) for k, w in geometric_clamped_weights(
        sum(db), n * top, a).items()}), "noisy sum", symmetric=True)


def lemma1_family():
    from .families import _mechanisms
    for values in ((0, 1), (0, 1, 2)):
        for n in (1, 2, 3):
            for mech in _mechanisms(values):
                if mech.name != "randomized_response" or n <= 2:
                    yield values, n, mech
            yield values, n, noisy_sum(n, max(values))


def lemma1(item) -> bool | None:
    """Lemma 1: tight DP δ = max over ordered neighbours of Σ_O max(0, P1(O) − e^ε·P2(O));
    the code (by counts for symmetric mechanisms) against the reference's enumeration."""
    values, n, mech = item
    meaningful = False
    for eps, E in zip(EPSILONS, RATES, strict=True):
        expected = ref.dp_delta(mech, values, n, E)
        if q(check_dp(mech, replace_one(values, n), eps, "0").delta) != expected:
            return False
        meaningful |= 0 < expected < 1
    return True if meaningful else None


def noiseless(inst: Instance) -> bool | None:
    """Definition 3: noiseless privacy is APK with ζ summed out (code against reference)."""
    from verifier import analyse
    if inst.know is not None:
        return None
    J = ref.plain(_ref(inst))
    pairs = ordered_pairs(inst.model.values)
    an = analyse(inst.mech, values=inst.model.values, records=inst.model.n, models=inst.model,
                 knowledge=known_indices(inst.known), targets=inst.target)
    meaningful = False
    for eps, E in zip(EPSILONS, RATES, strict=True):
        expected = ref.worst_ppk(J, pairs, E)
        if q(an.report(["noiseless"], eps).results["noiseless"].delta) != expected:
            return False
        meaningful |= bool(expected)
    return True if meaningful else None


def count_engine(inst: Instance) -> bool | None:
    """The count engine's class tables give the reference's APK and PPK δ (Definitions 6, 7):
    the count classes with their multiplicities stand for every background value."""
    if inst.know is not None or not inst.mech.symmetric or not hasattr(inst.model, "priors"):
        return None
    jt, J = table(inst, engine="counts"), _ref(inst)
    pairs = ordered_pairs(jt.values)
    for eps, E in zip(EPSILONS, RATES, strict=True):
        code = apk_ppk(jt, eps)
        if not (same(code[0], ref.worst_apk(J, pairs, E)) and
                same(code[1], ref.worst_ppk(J, pairs, E))):
            return False
    return True


THEOREMS = [
    Theorem("lemma4", "seed 003 Lemma 4; thesis Theorem 1",
            "PPK is the expectation of APK over the background value, exactly",
            partial_knowledge_family, lemma4, compared_with="reference (Definition 7)"),
    Theorem("lemma5", "seed 003 Lemma 5", "(ε,δ)-APKDP implies (ε,δ)-PPKDP",
            partial_knowledge_family, lemma5, compared_with="reference"),
    Theorem("lemma6", "seed 003 Lemma 6", "at δ = 0, APKDP and PPKDP coincide",
            partial_knowledge_family, lemma6, compared_with="reference"),
    Theorem("lemma3", "seed 003 Lemma 3",
            "APK-DP with knowledge ζ is APK-DP without knowledge over the data models "
            "conditioned on ζ(D) = B̂", partial_knowledge_family, lemma3,
            compared_with="conditioned explicit model"),
    Theorem("lemma1", "seed 003 Lemma 1",
            "the tight DP δ is the largest Σ_O max(0, P1 − e^ε·P2) over ordered neighbours",
            lemma1_family, lemma1, compared_with="reference enumeration"),
    Theorem("definition3-noiseless", "seed 003 Definition 3",
            "noiseless privacy is APK-DP against an attacker who knows nothing",
            partial_knowledge_family, noiseless, compared_with="reference"),
    Theorem("count-classes", "seed 003 Definitions 6 and 7 (count engine)",
            "count classes of the known records, with their multiplicities, give every APK "
            "and PPK δ", partial_knowledge_family, count_engine, compared_with="reference"),
    Theorem("full-knowledge", "seed 003 §4.2, Definition 5",
            "APK with full knowledge B = D_{−i} is classical DP", full_knowledge_family,
            full_knowledge_is_dp, compared_with="reference (Lemma 1)"),
    Theorem("post-processing", "thesis Proposition 25 (post-processing)",
            "post-processing never increases the APK or the PPK δ",
            small_family, post_processing, compared_with="reference"),
    Theorem("convexity", "thesis Proposition 25 (convexity)",
            "a probabilistic mixture of two mechanisms has PPK δ at most the mixture of theirs",
            convexity_family, convexity, compared_with="reference"),
    *PARTIAL_RECORDS,
]
