"""Θ-reducibility, thresholding and the worked examples of the thesis, as theorem records.

Thesis Definition 59, Theorem 2, Proposition 26 (counting and linear queries, arithmetic,
geometric, harmonic and quadratic means), Remark 2, Proposition 28, Example 7 and Figure 3.4;
each compared with :mod:`proofs.reference` or a closed form.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations
from math import comb

from verifier import analyse, iid, independent, known_indices, mechanism, threshold_count
from verifier.notions.partial.cases import ordered_pairs
from verifier.notions.partial.reducible import reducibility_witness

from . import reference as ref
from .families import Instance, partial_knowledge_family
from .partial_common import EPSILONS, RATES, apk_ppk, same, table
from .partial_common import ref_joint as _ref
from .record import Theorem

__all__ = ["PARTIAL_RECORDS"]


class Disagreement(AssertionError):
    """The code and the reference disagree: an error in a record that expects a counterexample."""


def _reducible(inst: Instance) -> bool:
    """Definition 59 by the reference; the code's test must agree."""
    jt, J = table(inst), _ref(inst)
    by_ref = ref.reducible(J, inst.model.values)
    if (reducibility_witness(jt) is None) != by_ref:
        raise Disagreement(f"reducibility: code and reference disagree on {inst}")
    return by_ref


def _equal_apk_ppk(inst: Instance) -> tuple[bool, bool]:
    """(worst APK δ = worst PPK δ at every ε by the reference, some δ strictly in (0, 1));
    the code's values must equal the reference's."""
    jt, J = table(inst), _ref(inst)
    pairs = ordered_pairs(inst.model.values)
    equal, inside = True, False
    for eps, E in zip(EPSILONS, RATES, strict=True):
        apk, ppk = ref.worst_apk(J, pairs, E), ref.worst_ppk(J, pairs, E)
        code = apk_ppk(jt, eps)
        if not (same(code[0], apk) and same(code[1], ppk)):
            raise Disagreement(f"APK/PPK δ: code and reference disagree on {inst}")
        equal &= apk == ppk
        inside |= ppk is not None and 0 < ppk < 1
    return equal, inside


def reducible_and_equal(inst: Instance) -> bool | None:
    """Proposition 26 and Theorem 2: reducible (code and reference) and APK δ = PPK δ.
    Vacuous with a single background value (nothing to map) or δ ∈ {0, 1} everywhere."""
    try:
        reducible = _reducible(inst)
        equal, inside = _equal_apk_ppk(inst)
    except Disagreement:
        return False
    if not (reducible and equal):
        return False
    return True if inside and len(table(inst).backgrounds()) > 1 else None


def theorem2(inst: Instance) -> bool | None:
    """Theorem 2 wherever the reference finds the bijections; vacuous elsewhere."""
    try:
        if not _reducible(inst) or len(table(inst).backgrounds()) < 2:
            return None
        equal, inside = _equal_apk_ppk(inst)
    except Disagreement:
        return False
    return False if not equal else (True if inside else None)


def not_reducible(inst: Instance) -> bool:
    return _reducible(inst)


def apk_equals_ppk(inst: Instance) -> bool:
    return _equal_apk_ppk(inst)[0]


def counts_family():
    """Counting queries, sums and arithmetic means with known records, independent records
    (Proposition 26 assumes them: correlated data is left out)."""
    for inst in partial_knowledge_family(max_records=4):
        if inst.mech.name in ("count", "sum", "mean") and inst.know is None and \
                hasattr(inst.model, "priors"):
            yield inst


def threshold_family():
    for inst in partial_knowledge_family(max_records=5):
        if inst.mech.name == "threshold_count" and inst.know is None:
            yield inst


def _positive_models():
    yield iid(["1/2", "1/3", "1/6"], [1, 2, 3], 3)
    yield independent([["1/4", "3/4", "0"], ["1/2", "1/4", "1/4"], ["1/3", "1/3", "1/3"]],
                      [1, 2, 4])
    yield iid(["2/3", "1/3"], [1, 2], 4)


def _query_family(make):
    def family():
        for model in _positive_models():
            mech = make(model.n)
            for target in range(model.n):
                others = [j for j in range(model.n) if j != target]
                for size in range(1, len(others) + 1):
                    for known in combinations(others, size):
                        yield Instance(model, mech, target, known)
    family.__name__ = make.__name__ + "_family"
    return family


def weighted_linear(n: int):
    """``Σ_j w_j·D_j`` with weights ``w_j = j + 1`` (not symmetric)."""
    return mechanism(lambda db: sum((j + 1) * x for j, x in enumerate(db)), "weighted sum")


def geometric_mean(n: int):
    """``Π_j D_j``, a bijective function of the geometric mean ``(Π_j D_j)^{1/n}``."""
    def product_(db):
        out = 1
        for x in db:
            out *= x
        return out
    return mechanism(product_, "product (geometric mean)", symmetric=True)


def harmonic_mean(n: int):
    """``n / Σ_j 1/D_j``, exactly."""
    return mechanism(lambda db: Fraction(n) / sum(Fraction(1, x) for x in db),
                     "harmonic mean", symmetric=True)


def quadratic_mean(n: int):
    """``Σ_j D_j²``, a bijective function of the quadratic mean ``sqrt(Σ_j D_j²/n)``."""
    return mechanism(lambda db: sum(x * x for x in db), "sum of squares (quadratic mean)",
                     symmetric=True)


def proposition28_family():
    """(n, T, m, p): n i.i.d. voters with P[yes] = p, threshold T, m known votes."""
    for n in (4, 6, 8):
        for m in range(0, 4):
            for t in range(m, m + 4):
                for p in ("1/5", "1/2", "1/100"):
                    yield n, t, m, p
    yield 200, 25, 20, "1/100"


def proposition28(item) -> bool | None:
    """APK of M_T with m known records = PPK of M_{T−m} with no knowledge on n − m records;
    the worst background is all known records 1; n ≤ 6 also against the reference."""
    n, t, m, p = item
    prior = [str(1 - Fraction(p)), p]
    active = analyse(threshold_count([1], t), values=[0, 1], records=n,
                     models=iid(prior, [0, 1], n), knowledge=known_indices(range(m)),
                     targets=n - 1)
    passive = analyse(threshold_count([1], t - m), values=[0, 1], records=n - m,
                      models=iid(prior, [0, 1], n - m), targets=n - m - 1)
    meaningful = False
    for eps, E in zip(EPSILONS if n <= 8 else EPSILONS[1:2], RATES if n <= 8 else RATES[1:2],
                      strict=True):
        apk = active.report(["apkdp"], eps).results["apkdp"]
        ppk = passive.report(["ppkdp"], eps).results["ppkdp"]
        if apk.delta != ppk.delta:
            return False
        if m and apk.delta.value > 0 and getattr(apk.witness["background"], "counts",
                                                  None) != (0, m):
            return False
        if n <= 6:
            J = ref.joint(iid(prior, [0, 1], n), threshold_count([1], t),
                          known_indices(range(m)), n - 1)
            if apk.delta.value != ref.worst_apk(J, ordered_pairs([0, 1]), E):
                return False
        meaningful |= 0 < apk.delta.value < 1
    return True if meaningful else None


def example7_family():
    """(n, T, m, p) of Example 7 with the threshold reached by the known records: T = m."""
    for n, m, p in ((12, 3, "1/100"), (40, 4, "1/100"), (200, 20, "1/1000"),
                    (1000, 100, "1/1000000")):
        yield n, m, m, p


def example7(item) -> bool:
    """Example 7: the active attacker makes the m known votes yes, so a "no" target is
    revealed by the tally m exactly when the other n − m − 1 = u voters vote no; every other
    tally has likelihood ratio (u − k + 1)·p/(k·(1 − p)) < 2 for these p, so APK δ at ε = ln 2
    is the closed form (1 − p)^(n − m − 1)."""
    n, t, m, p = item
    q = 1 - Fraction(p)
    rep = analyse(threshold_count([1], t), values=[0, 1], records=n,
                  models=iid([str(q), p], [0, 1], n), knowledge=known_indices(range(m)),
                  targets=n - 1).report(["apkdp"], "ln(2)")
    return ref.F(rep.results["apkdp"].delta.value) == q ** (n - m - 1)


def figure34_family():
    for p in ("1/100", "1/10", "1/2"):
        for t in range(1, 9):
            yield 60, t, p


def _binomial_delta(n: int, t: int, p: Fraction, E: Fraction) -> Fraction:
    """Thresholded count, attacker without knowledge: with X ~ Bin(n − 1, p) the other
    records' count, the target's value v releases v + X when it reaches T, else ⊥."""
    law = [comb(n - 1, k) * p ** k * (1 - p) ** (n - 1 - k) for k in range(n)]

    def out(v: int) -> dict:
        o: dict = {"⊥": sum((law[k] for k in range(n) if k + v < t), Fraction(0))}
        o.update({k + v: law[k] for k in range(n) if k + v >= t})
        return o
    return max(ref.indist_delta(out(a), out(b), E) for a, b in ((0, 1), (1, 0)))


def figure34(item) -> bool | None:
    """Figure 3.4: the exact δ at ε = ln 2 and ln(5/2) of the thresholded count, against the
    binomial closed form."""
    n, t, p = item
    an = analyse(threshold_count([1], t), values=[0, 1], records=n,
                 models=iid([str(1 - Fraction(p)), p], [0, 1], n), targets=n - 1)
    meaningful = False
    for eps, E in zip(EPSILONS[1:], RATES[1:], strict=True):
        expected = _binomial_delta(n, t, Fraction(p), E)
        if ref.F(an.report(["ppkdp"], eps).results["ppkdp"].delta.value) != expected:
            return False
        meaningful |= 0 < expected < 1
    return True if meaningful else None


PARTIAL_RECORDS = [
    Theorem("proposition26-counts", "thesis Proposition 26, Theorem 2",
            "counting queries, sums and arithmetic means with known records are Θ-reducible, "
            "so APK δ = PPK δ", counts_family, reducible_and_equal,
            compared_with="reference bijections and δ"),
    Theorem("proposition26-weighted-linear", "thesis Proposition 26",
            "weighted linear queries Σ w_j·D_j are Θ-reducible (APK δ = PPK δ)",
            _query_family(weighted_linear), reducible_and_equal,
            compared_with="reference bijections and δ"),
    Theorem("proposition26-geometric-mean", "thesis Proposition 26",
            "the geometric mean is Θ-reducible (APK δ = PPK δ)",
            _query_family(geometric_mean), reducible_and_equal,
            compared_with="reference bijections and δ"),
    Theorem("proposition26-harmonic-mean", "thesis Proposition 26",
            "the harmonic mean is Θ-reducible (APK δ = PPK δ)",
            _query_family(harmonic_mean), reducible_and_equal,
            compared_with="reference bijections and δ"),
    Theorem("proposition26-quadratic-mean", "thesis Proposition 26",
            "the quadratic mean is Θ-reducible (APK δ = PPK δ)",
            _query_family(quadratic_mean), reducible_and_equal,
            compared_with="reference bijections and δ"),
    Theorem("theorem2", "thesis Theorem 2",
            "a Θ-reducible instance has APK δ = PPK δ (wherever the bijections exist)",
            partial_knowledge_family, theorem2, compared_with="reference"),
    Theorem("remark2-not-reducible", "thesis Remark 2",
            "thresholded counts are Θ-reducible — false: some instance has no bijection",
            threshold_family, not_reducible, expected=False, compared_with="reference"),
    Theorem("remark2-threshold", "thesis Remark 2; seed 003 Example 1",
            "thresholded counts have APK δ = PPK δ — false: they differ on some instance",
            threshold_family, apk_equals_ppk, expected=False, compared_with="reference"),
    Theorem("proposition28", "thesis Proposition 28",
            "an active attacker knowing m records of M_T faces the δ of a passive attacker "
            "with no knowledge against M_{T−m} on the other n − m records",
            proposition28_family, proposition28, compared_with="reference (n ≤ 6)"),
    Theorem("example7", "thesis Example 7; seed 003 Example 1",
            "the active attacker's δ at ε = ln 2 is (1 − p)^(n−m−1), up to 1000 voters",
            example7_family, example7, method="closed form"),
    Theorem("figure3.4", "thesis Figure 3.4",
            "the thresholded count's exact δ for each threshold, n = 60, three values of p",
            figure34_family, figure34, method="closed form"),
]
