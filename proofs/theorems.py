"""Theorem records: one per statement of the seeds, checked exactly on families of instances.

Each record names the theorem, states it in words, gives the instances (an exhaustive family
and, where it makes sense, a Hypothesis strategy) and the expected verdict: ``True`` when the
statement must hold on every instance, ``False`` when the family must contain a counterexample
(a statement the seeds show to be false in general). Records are added, never loosened.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from gmpy2 import mpq

from verifier import BOTTOM, check_dp, iid, independent, known_indices, parse_epsilon
from verifier.core.delta import Delta
from verifier.core.epsilon import Epsilon
from verifier.engines.choice import joint_tables
from verifier.engines.joint import JointTable
from verifier.notions.partial import apk_loss, ordered_pairs, ppk_loss

from .families import Instance, partial_knowledge_family
from .guessing_theorems import (
    bounds_in_order,
    guessing_family,
    ring_form_bounds,
    worst_prior_family,
    worst_prior_maximises,
)
from .pso_theorems import (
    composition_family,
    counting_family,
    lemma_41,
    postprocessing_family,
    proposition_42,
    theorem_46,
)

EPSILONS = [parse_epsilon(e) for e in ("0", "ln(2)", "ln(5/2)", "1/2")]
DELTAS = [mpq(0), mpq(1, 100), mpq(1, 5)]


@dataclass(frozen=True)
class Theorem:
    name: str
    source: str
    statement: str
    family: Callable[[], Iterable]
    check: Callable[[object], bool]
    expected: bool = True
    strategy: Callable[[], object] | None = None  # a Hypothesis strategy of instances


def _table(inst: Instance, mech=None) -> JointTable:
    tables, _ = joint_tables(inst.model, mech or inst.mech, known_indices(inst.known),
                             [inst.target])
    return tables[inst.target]


def _pairs(jt: JointTable):
    return ordered_pairs(jt.values)


def _worst(deltas: Iterable[Delta]) -> Delta | None:
    best = None
    for d in deltas:
        if best is None or d > best:
            best = d
    return best


def _pair_losses(jt: JointTable):
    """``(a, b, PPK loss, {B̂: APK loss})`` for every ordered pair with ``P[D(i)=a] > 0``."""
    for a, b in _pairs(jt):
        ppk = ppk_loss(jt, a, b)
        if ppk is not None:
            yield a, b, ppk, {bg: loss for bg in jt.backgrounds()
                              if (loss := apk_loss(jt, a, b, bg)) is not None}


def lemma4(inst: Instance) -> bool:
    """PPK_{i,a,b} = Σ_B P[ζ(D)=B | D(i)=a]·APK_{i,a,b,B}, exactly, at every ε."""
    jt = _table(inst)
    for a, _, ppk, apks in _pair_losses(jt):
        pa = jt.p_value(a)
        for eps in EPSILONS:
            total_a, total_c = mpq(0), mpq(0)
            for bg, loss in apks.items():
                d, w = loss.delta(eps), jt.p_background(a, bg) / pa
                total_a, total_c = total_a + w * d.a, total_c + w * d.c
            if ppk.delta(eps) != Delta.make(total_a, total_c, eps):
                return False
    return True


def _apk_ppk(jt: JointTable, eps: Epsilon) -> tuple[Delta | None, Delta | None]:
    apk = _worst(loss.delta(eps) for a, b in _pairs(jt) for bg in jt.backgrounds()
                 if (loss := apk_loss(jt, a, b, bg)) is not None)
    ppk = _worst(loss.delta(eps) for a, b in _pairs(jt)
                 if (loss := ppk_loss(jt, a, b)) is not None)
    return apk, ppk


def lemma5(inst: Instance) -> bool:
    """(ε,δ)-APKDP ⇒ (ε,δ)-PPKDP: the worst APK δ is at least the PPK δ, at every ε."""
    jt = _table(inst)
    for eps in EPSILONS:
        apk, ppk = _apk_ppk(jt, eps)
        if ppk is not None and (apk is None or apk < ppk):
            return False
    return True


def lemma6(inst: Instance) -> bool:
    """At δ = 0 APK and PPK coincide: equal tight ε for every pair."""
    for _, _, ppk, apks in _pair_losses(_table(inst)):
        apk = [loss.epsilon(0) for loss in apks.values()]
        worst = max(apk, key=_EpsKey) if apk else Epsilon.ZERO
        if worst != ppk.epsilon(0):
            return False
    return True


class _EpsKey:
    def __init__(self, e: Epsilon):
        self.e = e

    def __lt__(self, other: _EpsKey) -> bool:
        return self.e.compare(other.e) < 0


def apk_equals_equal_ppk(inst: Instance) -> bool:
    """APK δ = PPK δ at every ε (Theorem 2's conclusion, for Θ-reducible mechanisms)."""
    jt = _table(inst)
    return all(a == p for a, p in (_apk_ppk(jt, eps) for eps in EPSILONS))


POST = {
    "released?": lambda o: o is not BOTTOM,
    "first character": lambda o: repr(o)[:1],
    "at most 1": lambda o: o if o is BOTTOM or not isinstance(o, int) else min(o, 1),
}


def post_processing(inst: Instance) -> bool:
    """Proposition 25: f∘M never has a larger APK or PPK δ than M, for any f."""
    jt = _table(inst)
    before = {eps: _apk_ppk(jt, eps) for eps in EPSILONS}
    for f in POST.values():
        jf = _table(inst, inst.mech.then(f))
        for eps in EPSILONS:
            after = _apk_ppk(jf, eps)
            for old, new in zip(before[eps], after):
                if new is not None and old is not None and new > old:
                    return False
    return True


def full_knowledge_family():
    """Full-support priors; the attacker knows every record but the target."""
    from .families import _mechanisms
    for model in (iid(["1/3", "2/3"], [0, 1], 2), iid(["1/2", "1/2"], [0, 1], 3),
                  independent([["1/4", "3/4"], ["1/2", "1/2"], ["2/3", "1/3"]], [0, 1]),
                  iid(["1/2", "1/4", "1/4"], [0, 1, 2], 2)):
        for mech in _mechanisms(model.values):
            yield model, mech


def full_knowledge_is_dp(item) -> bool:
    """APK with B = D_{−i} (every other record known) equals classical DP (seed 003 §4.2)."""
    model, mech = item
    for eps in EPSILONS:
        dp = check_dp(mech, model.values, model.n, eps, "0").delta
        worst = _worst(
            _apk_ppk(_table(Instance(model, mech, i, tuple(j for j in range(model.n) if j != i))),
                     eps)[0]
            for i in range(model.n))
        if worst != dp:
            return False
    return True


def reducible_family():
    """Counting, linear queries and means with known records (thesis Proposition 26)."""
    for inst in partial_knowledge_family(max_records=4):
        if inst.mech.name in ("count", "sum", "mean"):
            yield inst


def threshold_family():
    """Thresholded counts with known records (thesis Remark 2, Example 7)."""
    for inst in partial_knowledge_family(max_records=5):
        if inst.mech.name == "threshold_count":
            yield inst


def proposition28_family():
    """(n, T, m, p): n i.i.d. voters with P[yes] = p, threshold T, m known votes."""
    for n in (4, 6, 8):
        for m in range(0, 4):
            for t in range(m, m + 4):
                for p in ("1/5", "1/2", "1/100"):
                    yield n, t, m, p
    yield 200, 25, 20, "1/100"
    yield 1000, 100, 100, "1/1000000"  # thesis Example 7 at full size


def proposition28(item) -> bool:
    """APK of M_T with m known records = PPK of M_{T−m} with no knowledge on n − m records."""
    from verifier import analyse, threshold_count
    n, t, m, p = item
    prior = [str(1 - mpq(p)), p]
    active = analyse(threshold_count([1], t), values=[0, 1], records=n,
                     models=iid(prior, [0, 1], n), knowledge=known_indices(range(m)),
                     targets=n - 1)
    passive = analyse(threshold_count([1], t - m), values=[0, 1], records=n - m,
                      models=iid(prior, [0, 1], n - m), targets=n - m - 1)
    epsilons = EPSILONS if n <= 8 else EPSILONS[1:2]
    for eps in epsilons:
        apk = active.report(["apkdp"], eps).results["apkdp"]
        ppk = passive.report(["ppkdp"], eps).results["ppkdp"]
        if apk.delta != ppk.delta:
            return False
        if m and apk.witness["background"].counts != (0, m):  # worst case: all known are 1
            return False
    return True


def is_reducible(inst: Instance) -> bool:
    """The table of this instance admits Definition 59's bijections."""
    from verifier.notions.reducible import reducibility_witness
    return reducibility_witness(_table(inst)) is None


def reducible_implies_equal(inst: Instance) -> bool:
    """Theorem 2: whenever the instance is Θ-reducible, APK δ = PPK δ at every ε."""
    return not is_reducible(inst) or apk_equals_equal_ppk(inst)


THEOREMS = [
    Theorem("lemma4", "seed 003 Lemma 4; thesis Theorem 1",
            "PPK is the expectation of APK over the background value, exactly",
            partial_knowledge_family, lemma4),
    Theorem("lemma5", "seed 003 Lemma 5", "(ε,δ)-APKDP implies (ε,δ)-PPKDP",
            partial_knowledge_family, lemma5),
    Theorem("lemma6", "seed 003 Lemma 6", "at δ = 0, APKDP and PPKDP coincide",
            partial_knowledge_family, lemma6),
    Theorem("full-knowledge", "seed 003 §4.2, Definition 5",
            "APK with full knowledge B = D_{−i} is classical DP", full_knowledge_family,
            full_knowledge_is_dp),
    Theorem("post-processing", "thesis Proposition 25",
            "post-processing never increases the APK or the PPK δ",
            partial_knowledge_family, post_processing),
    Theorem("theorem2-reducible", "thesis Theorem 2, Proposition 26",
            "counts, sums and means with known records are Θ-reducible: APK δ = PPK δ",
            reducible_family, apk_equals_equal_ppk),
    Theorem("proposition26-reducible", "thesis Proposition 26, Definition 59",
            "counts, sums and means with known records of independent data are Θ-reducible",
            reducible_family, is_reducible),
    Theorem("theorem2", "thesis Theorem 2",
            "a Θ-reducible instance has APK δ = PPK δ (checked wherever the bijections exist)",
            partial_knowledge_family, reducible_implies_equal),
    Theorem("remark2-not-reducible", "thesis Remark 2",
            "thresholded counts are Θ-reducible — false: some instance has no bijection",
            threshold_family, is_reducible, expected=False),
    Theorem("remark2-threshold", "thesis Remark 2; seed 003 Example 1",
            "thresholded counts are not Θ-reducible: APK δ and PPK δ differ on some instance",
            threshold_family, apk_equals_equal_ppk, expected=False),
    Theorem("guess-bounds-order", "seed 004, main theorem and simplification",
            "exact posterior ≤ precise bound ≤ simplified bound for every target",
            guessing_family, bounds_in_order),
    Theorem("guess-ring-form", "REFERENCE.md §7 (ring form of the precise bound)",
            "the ring form bounds the posterior — false: the family holds a counterexample",
            guessing_family, ring_form_bounds, expected=False),
    Theorem("guess-worst-prior", "seed 004, worst-case prior distribution",
            "p = 1/(1 + e^{Rε/2}) maximises the simplified advantage, which is tanh(Rε/4)",
            worst_prior_family, worst_prior_maximises),
    Theorem("pso-proposition-4.2", "seed 002, Proposition 4.2",
            "the optimal adversary against one count succeeds at most (n+1)·baseline",
            counting_family, proposition_42),
    Theorem("pso-theorem-4.6", "seed 002, Theorem 4.6",
            "counts of p and p ∧ b_j isolate with probability B(n, w(p)) at weight 2^-d",
            composition_family, theorem_46),
    Theorem("pso-lemma-4.1", "seed 002, Lemma 4.1",
            "post-processing never raises the optimal singling-out success",
            postprocessing_family, lemma_41),
    Theorem("proposition28", "thesis Proposition 28",
            "an active attacker knowing m records of M_T faces the δ of a passive attacker with "
            "no knowledge against M_{T−m} on the other n − m records",
            proposition28_family, proposition28),
]
