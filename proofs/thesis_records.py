"""More thesis and seed 003 statements as records: chosen known records, Theorem 4 and its
Lemma 1 (reconstructed), the coupling of its proof, Lemma 2 over every event set, and the
convexity of APK (Proposition 25).

Each check computes its expected values with plain ``Fraction`` arithmetic (binomial laws,
convolutions, subsets of outputs) or :mod:`proofs.reference`, and compares the code with them.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb

from verifier import Dist, analyse, iid, independent, knowledge, known_indices, mechanism
from verifier.core.epsilon import Epsilon
from verifier.engines.count_law import ones_law
from verifier.notions.partial.cases import apk_loss, ordered_pairs
from verifier.notions.partial.reducible import reducibility_witness

from . import reference as ref
from .families import Instance, partial_knowledge_family
from .partial_common import EPSILONS, RATES, table
from .partial_common import ref_joint as _ref
from .record import Theorem

__all__ = ["THESIS_RECORDS"]

ZERO = Fraction(0)


class Disagreement(AssertionError):
    """The code and the reference disagree (an error, never a counterexample)."""


# ------------------------------------------------------------ note after Proposition 26


def chosen_records(j1: int, j2: int):
    """ζ(D) = (j, D_j) with j = j1 or j2, each with probability 1/2: the attacker knows one
    record, but which one is part of the background value (not fixed in advance)."""
    def see(db: tuple) -> Dist:
        return Dist({(j1, db[j1]): "1/2", (j2, db[j2]): "1/2"}) if j1 != j2 else \
            Dist.point((j1, db[j1]))
    return knowledge(see, f"record {j1} or record {j2}, chosen at random")


def chosen_family():
    """A count of three independent records, target 0; the attacker knows record 1 or record
    2. With different priors for records 1 and 2 the choice matters; with equal priors, or
    with the known record fixed, it does not (the contrast: those must stay reducible)."""
    from verifier import count
    for p1, p2 in (("1/2", "1/4"), ("1/3", "2/3"), ("1/5", "1/2"), ("1/2", "1/2")):
        model = independent([["1/2", "1/2"], [str(1 - Fraction(p1)), p1],
                             [str(1 - Fraction(p2)), p2]], [0, 1])
        yield Instance(model, count([1]), 0, (), chosen_records(1, 2)), p1 != p2
        yield Instance(model, count([1]), 0, (1,)), False


def chosen_records_reducible(item) -> bool:
    """Counts stay Θ-reducible (and APK δ = PPK δ) when the attacker's knowledge says *which*
    record he knows — false: with different priors for the two records there is no bijection
    (code and reference agree) and APK δ ≠ PPK δ at some ε. Equal priors, or a fixed known
    record, stay reducible with APK δ = PPK δ; a disagreement between the code and the
    reference is an error, never a counterexample."""
    inst, breaks = item
    jt, J = table(inst), _ref(inst)
    by_ref = ref.reducible(J, inst.model.values)
    if (reducibility_witness(jt) is None) != by_ref:
        raise Disagreement(f"reducibility: code and reference disagree on {inst}")
    pairs = ordered_pairs(inst.model.values)
    equal = True
    for eps, E in zip(EPSILONS, RATES, strict=True):
        apk, ppk = ref.worst_apk(J, pairs, E), ref.worst_ppk(J, pairs, E)
        rep = analyse(inst.mech, values=inst.model.values, records=inst.model.n,
                      models=inst.model, knowledge=inst.knowledge, targets=inst.target
                      ).report(["apkdp", "ppkdp"], eps).results
        if ref.F(rep["apkdp"].delta.value) != apk or ref.F(rep["ppkdp"].delta.value) != ppk:
            raise Disagreement(f"APK/PPK δ: code and reference disagree on {inst}")
        equal &= apk == ppk
    if (by_ref or equal) if breaks else not (by_ref and equal):
        raise Disagreement(f"{inst}: expected {'no ' if breaks else ''}bijection")
    return by_ref and equal


# ------------------------------------------------------------ Theorem 4 and Lemma 1


def binomial(u: int, p: Fraction) -> list[Fraction]:
    return [comb(u, k) * p ** k * (1 - p) ** (u - k) for k in range(u + 1)]


def lemma1_family():
    for n in (5, 10, 30, 60, 200):
        for p in (Fraction(1, 100), Fraction(1, 20), Fraction(1, 10), Fraction(1, 3)):
            for k in range(0, min(n, 25) + 1):
                yield n, p, k


def lemma1_tail(item) -> bool | None:
    """Lemma 1 (reconstructed from its proof: the ratio B(j+1)/B(j) = (n−j)p/((j+1)(1−p)) is
    at most (n−k)p/(k(1−p)) < 1 for j ≥ k > np, so the tail is below a geometric series):
    Σ_{j≥k} B(j, n, p) ≤ B(k, n, p)·k(1−p)/(k − np). The code's binomial law (the count
    engine's) equals the Fraction one; the bound is checked exactly. Vacuous where k ≤ np
    (not covered) or the bound is at least 1."""
    n, p, k = item
    law = ones_law([Dist({0: str(1 - p), 1: str(p)})] * n, (0, 1))
    exact = binomial(n, p)
    if [Fraction(int(m), int(law.scale)) for m in law.mass] != exact:
        return False
    if not k > n * p:
        return None
    bound = exact[k] * k * (1 - p) / (k - n * p)
    tail = sum(exact[k:], ZERO)
    if tail > bound:
        return False
    return True if bound < 1 else None


def theorem4_bounds(n: int, t: int, p: Fraction) -> tuple[Fraction, Fraction] | None:
    """Theorem 4 without background knowledge, reconstructed from its proof: the other n − 1
    records count X ~ Bin(n−1, p); the output is not thresholded for a target 1 only when
    X ≥ T − 1, so with η = B(T−1, n−1, p) and Lemma 1, δ = η·(T−1)(1−p)/(T−1−(n−1)p); on ⊥
    the loss is ln(P[X ≤ T−1]/P[X ≤ T−2]) = ln(1 + η/P[X ≤ T−2]) ≤ ln(1 + η/(1−δ)) = ε.
    ``(e^ε, δ)``, or None outside the theorem's range (T − 1 ≤ (n−1)p, or δ ≥ 1)."""
    u = n - 1
    if not t - 1 > u * p:
        return None
    eta = comb(u, t - 1) * p ** (t - 1) * (1 - p) ** (u - t + 1)
    delta = eta * (t - 1) * (1 - p) / (t - 1 - u * p)
    return (1 + eta / (1 - delta), delta) if delta < 1 else None


def threshold_delta(laws: list[list[Fraction]], t: int, E: Fraction) -> Fraction:
    """The exact worst δ at e^ε = E of the thresholded count over the target's two values,
    the others' count law given (one law per target: records may differ)."""
    best = ZERO
    for law in laws:
        def out(v: int, law=law) -> dict:
            o: dict = {"⊥": sum((w for k, w in enumerate(law) if k + v < t), ZERO)}
            o.update({k + v: w for k, w in enumerate(law) if k + v >= t})
            return o
        best = max(best, ref.indist_delta(out(1), out(0), E), ref.indist_delta(out(0), out(1), E))
    return best


def convolve(ps: list[Fraction]) -> list[Fraction]:
    law = [Fraction(1)]
    for p in ps:
        law = [(law[k] if k < len(law) else 0) * (1 - p) + (law[k - 1] * p if k else 0)
               for k in range(len(law) + 1)]
    return law


def theorem4_family():
    """(n, T, priors): i.i.d. voters (the priors all p), and voters with different priors all
    at most p (the coupling step), on a grid of n, p and T."""
    for n in (10, 20, 40):
        for p in (Fraction(1, 100), Fraction(1, 20), Fraction(1, 10)):
            for t in range(2, 9):
                yield n, t, p, [p] * n
                yield n, t, p, [p * Fraction(j % 3 + 1, 3) for j in range(n)]


def theorem4(item) -> bool | None:
    """Theorem 4: the thresholded count is (ε, δ)-APKDP without background knowledge, with the
    reconstructed bounds of :func:`theorem4_bounds`: the code's exact APK δ at that ε (every
    target) equals the Fraction one and is at most δ. With priors p_j ≤ p the coupling of
    the proof is checked too: every tail P[X ≥ k] of the others' count (the code's law and a
    Fraction convolution, equal) is at most the Bin(n−1, p) tail, and the same (ε, δ) hold.
    On the grid the exact δ is 0.11 to 0.997 times the bound for i.i.d. voters (closest
    for large T), 0.036 to 0.63 times it for the smaller priors. Vacuous
    outside the theorem's range or where δ = 0 exactly (T > n)."""
    n, t, p, priors = item
    bounds = theorem4_bounds(n, t, p)
    if bounds is None:
        return None
    E, delta = bounds
    dists = [Dist({0: str(1 - q), 1: str(q)}) for q in priors]
    targets = [0, 1, 2] if len(set(priors)) > 1 else [n - 1]  # the three priors
    laws = []
    top = binomial(n - 1, p)
    for i in targets:
        others = [q for j, q in enumerate(priors) if j != i]
        law = convolve(others)
        code = ones_law([d for j, d in enumerate(dists) if j != i], (0, 1))
        if [Fraction(int(m), int(code.scale)) for m in code.mass] != law:
            return False
        if any(sum(law[k:], ZERO) > sum(top[k:], ZERO) for k in range(n)):
            return False
        laws.append(law)
    expected = threshold_delta(laws, t, E)
    from verifier import threshold_count
    model = iid([str(1 - p), str(p)], [0, 1], n) if len(set(priors)) == 1 else \
        independent([[str(1 - q), str(q)] for q in priors], [0, 1])
    got = analyse(threshold_count([1], t), values=[0, 1], records=n, models=model,
                  targets=list(targets)).report(["apkdp"], Epsilon.log(E)).results["apkdp"]
    if ref.F(got.delta.value) != expected or expected > delta:
        return False
    return True if expected > 0 else None


# ------------------------------------------------------------ the referendum tally


def referendum_family():
    yield from (Fraction(1, 2), Fraction(1, 3), Fraction(1, 10))


def referendum(p: Fraction) -> bool | None:
    """The thesis' referendum before Definition 59, at its stated size: 2000 voters, each
    "yes" with probability p, the exact tally released, the attacker knows 1000 votes. The
    code's APK δ (worst over the 1001 tallies of the known votes) and PPK δ at e^ε = 11/10,
    2 and 5/2 are equal, and equal the closed form of the passive attacker without knowledge
    against the tally of the 999 other unknown votes and the target, X ~ Bin(999, p):
    max over the two orders of Σ_k max(0, P[X = k − a] − e^ε·P[X = k − b]), in integers over
    the common denominator. Vacuous where δ is 0 or 1."""
    from verifier import count
    s, d = p.numerator, p.denominator
    N = [comb(999, k) * s ** k * (d - s) ** (999 - k) for k in range(1000)]

    def at(k: int) -> int:
        return N[k] if 0 <= k < len(N) else 0
    an = analyse(count([1]), values=[0, 1], records=2000,
                 models=iid([str(1 - p), str(p)], [0, 1], 2000),
                 knowledge=known_indices(range(1000)), targets=1999)
    meaningful = False
    for E in (Fraction(11, 10), Fraction(2), Fraction(5, 2)):
        e, f = E.numerator, E.denominator
        expected = max(Fraction(sum(max(0, f * at(k - a) - e * at(k - b)) for k in range(1001)),
                                f * d ** 999) for a, b in ((1, 0), (0, 1)))
        rep = an.report(["apkdp", "ppkdp"], Epsilon.log(E)).results
        if ref.F(rep["apkdp"].delta.value) != expected or \
                ref.F(rep["ppkdp"].delta.value) != expected:
            return False
        meaningful |= 0 < expected < 1
    return True if meaningful else None


# ------------------------------------------------------------ seed 003 Lemma 2


def event_family():
    """The partial-knowledge family up to three records, with at most 10 outputs."""
    for inst in partial_knowledge_family(max_records=3):
        J = _ref(inst)
        if len({o for rows in J.values() for row in rows.values() for o in row}) <= 10:
            yield inst


def lemma2_events(inst: Instance) -> bool | None:
    """Lemma 2: APK δ_{a,b,B}(ε) is the least δ with P[M ∈ S | a, B] ≤ e^ε·P[M ∈ S | b, B] + δ
    for every event S: the code's APK δ equals max_S (P[S|a,B] − e^ε·P[S|b,B]) over all 2^|O|
    sets of outputs, enumerated with Fractions. Where P[b, B] = 0 the code's convention
    (L = 0, δ = 0) is required and the pair is not counted. Vacuous where every δ is 0."""
    jt, J = table(inst, engine="brute"), _ref(inst)  # background values as in the reference
    meaningful = False
    for a, b in ordered_pairs(jt.values):
        for B in ref.backgrounds(J):
            pa, pb = ref.conditional(J, a, B), ref.conditional(J, b, B)
            loss = apk_loss(jt, a, b, B)
            if pa is None:
                if loss is not None:
                    return False
                continue
            if loss is None:
                return False
            if pb is None:
                if any(loss.delta(eps).value != 0 for eps in EPSILONS):
                    return False
                continue
            outs = sorted(set(pa) | set(pb), key=repr)
            sums = []  # (P[S | a, B], P[S | b, B]) for every set S of outputs
            for mask in range(2 ** len(outs)):
                s = [o for j, o in enumerate(outs) if mask >> j & 1]
                sums.append((sum((pa.get(o, ZERO) for o in s), ZERO),
                             sum((pb.get(o, ZERO) for o in s), ZERO)))
            for eps, E in zip(EPSILONS, RATES, strict=True):
                best = max(x - E * y for x, y in sums)
                if ref.F(loss.delta(eps).value) != best:
                    return False
                meaningful |= best > 0
    return True if meaningful else None


# ------------------------------------------------------------ Proposition 25, APK


def convexity_apk_family():
    from verifier import count, geometric_count, randomized_response, threshold_count
    for inst in partial_knowledge_family(max_records=3):
        if inst.mech.name != "count" or inst.know is not None or not inst.known:
            continue
        for other in (geometric_count([1], "1/2"), threshold_count([1], 2)):
            for lam in ("1/3", "1/2", "4/5"):
                yield inst, count([1]), other, lam
        if inst.model.values == (0, 1):
            yield inst, threshold_count([1], 1), randomized_response("3/4", [0, 1]), "1/2"


def convexity_apk(item) -> bool | None:
    """Proposition 25 (convexity) for APK: the mixture λ·M1 + (1−λ)·M2 has, for every pair
    and every background value B, an APK δ at most λ·δ1 + (1−λ)·δ2 (reference), and the
    code's APK δ of the mixture equals the reference's. Vacuous where max(δ1, δ2) = 1."""
    inst, m1, m2, lam = item
    lam = Fraction(lam)

    def mix(db):
        out: dict = {}
        for m, w in ((m1, lam), (m2, 1 - lam)):
            for o, pr in ref.law(m, db).items():
                out[o] = out.get(o, 0) + w * pr
        return Dist({o: str(pr) for o, pr in out.items() if pr})
    mixed = mechanism(mix, "mixture")
    J1, J2, Jm = _ref(inst, m1), _ref(inst, m2), _ref(inst, mixed)
    jm = table(inst, mixed)
    meaningful = False
    for a, b in ordered_pairs(inst.model.values):
        for B in ref.backgrounds(Jm):
            loss = apk_loss(jm, a, b, B)
            for eps, E in zip(EPSILONS[1:], RATES[1:], strict=True):
                d1, d2, dm = (ref.apk(J, a, b, B, E) for J in (J1, J2, Jm))
                if dm is None or d1 is None or d2 is None:
                    if (dm is None) != (loss is None):
                        return False
                    continue
                if dm > lam * d1 + (1 - lam) * d2 or loss is None or \
                        ref.F(loss.delta(eps).value) != dm:
                    return False
                meaningful |= max(d1, d2) < 1 and dm > 0
    return True if meaningful else None


THESIS_RECORDS = [
    Theorem("knowledge-choice", "thesis, note after Proposition 26",
            "counts stay Θ-reducible when the knowledge function chooses which record the "
            "attacker knows — false: with different priors there is no bijection and APK δ ≠ "
            "PPK δ", chosen_family, chosen_records_reducible, expected=False,
            compared_with="reference bijections and δ"),
    Theorem("theorem4-lemma1", "thesis Lemma 1 (reconstructed)",
            "the binomial tail from k > np on is at most B(k, n, p)·k(1−p)/(k − np)",
            lemma1_family, lemma1_tail, compared_with="Fraction binomial law"),
    Theorem("theorem4", "thesis Theorem 4 and its coupling (reconstructed)",
            "without background knowledge the thresholded count is (ε, δ)-APKDP with δ = "
            "η·(T−1)(1−p)/(T−1−(n−1)p), ε = ln(1 + η/(1−δ)), η = B(T−1, n−1, p); also for "
            "priors p_j ≤ p, whose count is dominated by Bin(n−1, p)", theorem4_family,
            theorem4, compared_with="Fraction binomial laws and convolutions"),
    Theorem("referendum-2000", "thesis, the referendum before Definition 59; Theorem 2",
            "the exact tally of 2000 votes, 1000 known: APK δ = PPK δ = the δ of a passive "
            "attacker facing the 999 other unknown votes", referendum_family, referendum,
            method="closed form"),
    Theorem("lemma2-event-sets", "seed 003 Lemma 2",
            "APK δ is the least δ making the conditioned output laws (ε, δ)-indistinguishable "
            "over every event set", event_family, lemma2_events,
            compared_with="every subset of outputs, with Fractions"),
    Theorem("convexity-apk", "thesis Proposition 25 (convexity, APK)",
            "a probabilistic mixture of two mechanisms has, per background value, APK δ at "
            "most the mixture of theirs", convexity_apk_family, convexity_apk,
            compared_with="reference"),
]
