"""Theorem records decided symbolically: for every parameter value and every ε at once.

The records of :mod:`proofs.theorems` check the seed lemmas by enumerating concrete
instances. These records decide them with z3 over symbolic families — a prior ``[1 − p, p]``
for every ``0 < p < 1``, randomized response for every truth probability ``1/2 < t < 1`` —
for every ``E = e^ε ≥ 1``, every target and every set of known records
(:func:`verifier.symbolic.prove.prove`), and Theorem 2 through a bijection certified as an
identity of rational functions (:func:`verifier.symbolic.reducibility.decide_reducible`).
"""

from __future__ import annotations

from gmpy2 import mpq

from proofs import reference as ref
from proofs.theorems import Theorem
from verifier.specs.symbolic import parse_symbolic
from verifier.symbolic.claims import parse_claim
from verifier.symbolic.instance import SymbolicSpec
from verifier.symbolic.prove import encoded_deltas, instances, prove
from verifier.symbolic.recheck import recheck
from verifier.symbolic.reducibility import decide_reducible

RATES = (mpq(1), mpq(2), mpq(7, 2))  # E = e^ε at which the encoding meets the exact engine

P = {"p": {"gt": "0", "lt": "1"}}
T = {"t": {"gt": "1/2", "lt": "1"}}


def _spec(params: dict, n: int, prior: list, mechanism: dict, known: list | None = None,
          target: object = "all") -> SymbolicSpec:
    raw = {"parameters": params, "data": {"records": n, "values": [0, 1], "prior": prior},
           "mechanism": mechanism, "attacker": {"target": target},
           "query": {"epsilon": "ln(2)", "notions": ["apkdp", "ppkdp"]}}
    if known is not None:
        raw["attacker"]["known"] = known
    return parse_symbolic(raw)


def symbolic_family():
    """Binary records, n ≤ 3: counts and thresholded counts with a symbolic prior, randomized
    response with a symbolic truth and a concrete prior."""
    for n in (2, 3):
        yield _spec(P, n, ["1 - p", "p"], {"kind": "count"})
        yield _spec(P, n, ["1 - p", "p"], {"kind": "threshold_count", "threshold": 2})
    yield _spec(T, 2, ["2/3", "1/3"], {"kind": "randomized_response", "truth": "t"})
    yield _spec(T, 3, ["1/2", "1/2"], {"kind": "randomized_response", "truth": "t"}, target=2)


def threshold_family():
    yield _spec(P, 3, ["1 - p", "p"], {"kind": "threshold_count", "threshold": 2})


def reducible_family():
    """Counts with a symbolic prior and known records (thesis Proposition 26)."""
    yield _spec(P, 3, ["1 - p", "p"], {"kind": "count"}, [0], 2)
    yield _spec(P, 4, ["1 - p", "p"], {"kind": "count"}, [0, 1], 3)
    yield _spec(P, 3, ["1 - p", "p"], {"kind": "count"}, [[0], [0, 1]], 2)


def _points(sym: SymbolicSpec) -> list[dict[str, mpq]]:
    """Two admissible rational points of the parameters: the sample point and one nearer
    the lower end (distinct values, so that a wrong polynomial is seen at one of them)."""
    base = sym.parameters.sample_point()
    out = [base]
    for p in sym.parameters.items:
        lo = p.lower if p.lower is not None else base[p.name] - 1
        x = (2 * lo + base[p.name]) / 3
        if p.admits(x):
            out.append({**base, p.name: x})
    return out


def encoding_agrees(sym: SymbolicSpec, claim: str) -> bool:
    """The δs the z3 encoding defines equal the exact engine's (an independent computation:
    enumeration of the concrete spec) at every instance, at two parameter points and three
    values of ``E``. A proof by z3 counts only when this holds: an encoding that is wrong
    (a cross-multiplication, a scale) would otherwise prove what it wrongly encodes."""
    c = parse_claim(claim)
    uses = set(c.uses)
    for target, know in instances(sym):
        for point in _points(sym):
            for rate in RATES:
                encoded = encoded_deltas(sym, uses, target, know, point, rate)
                if encoded is None:
                    return False
                exact = recheck(sym, c, point, rate, target, know).deltas
                if any(encoded[n] != exact[n] for n in uses):
                    return False
    return True


def threshold_reducibility_family():
    """Thresholded counts with a symbolic prior and two known records: reducible or not
    (decided symbolically), with at least three background values (0, 1 or 2 known yes)."""
    for n, threshold in ((3, 1), (3, 2), (3, 3), (4, 3), (4, 4)):
        yield _spec(P, n, ["1 - p", "p"], {"kind": "threshold_count", "threshold": threshold},
                    [0, 1], n - 1)


def reducibility_matches_reference(sym: SymbolicSpec) -> bool:
    """The symbolic decision of Definition 59 equals the reference's (every pair of
    background values compared, :func:`proofs.reference.reducible`) at admissible points: at
    two points for a "reducible for every p", at the witness point for a "not reducible"."""
    found = decide_reducible(sym)
    if found.reducible is None:
        return False
    points = _points(sym) if found.reducible else [dict(found.point)]
    for point in points:
        spec = sym.at(point)
        for know in (spec.knowledge if isinstance(spec.knowledge, tuple) else
                     (spec.knowledge,)):
            for target in instances(sym):
                J = ref.joint(spec.model, spec.mechanism, know, target[0])
                if ref.reducible(J, spec.values) != found.reducible:
                    return False
    return True


def _proved(claim: str):
    def check(sym: SymbolicSpec) -> bool:
        return prove(sym, claim, every_epsilon=True, every_known_set=True).status == \
            "proved" and encoding_agrees(sym, claim)
    check.__name__ = f"proved_{claim}"
    return check


def no_counterexample_to_converse(sym: SymbolicSpec) -> bool:
    """False exactly when z3 finds, and the exact engine confirms, APK δ > PPK δ (and the
    encoding agrees with the exact engine, see :func:`encoding_agrees`)."""
    return prove(sym, "apk-le-ppk", every_epsilon=True,
                 every_known_set=True).status != "counterexample" or \
        not encoding_agrees(sym, "apk-le-ppk")


def theorem2_by_certificate(sym: SymbolicSpec) -> bool:
    """Reducible for every p by a certified bijection, and Theorem 2 then gives APK δ = PPK δ
    (confirmed by z3 for every p and every ε)."""
    if decide_reducible(sym).reducible is not True:
        return False
    rep = prove(sym, "theorem2", every_epsilon=True)
    return rep.status == "proved" and all("Theorem 2" in p.method and "z3" in p.method
                                          for p in rep.proofs) and encoding_agrees(sym,
                                                                                  "theorem2")


SYMBOLIC_THEOREMS = [
    Theorem("symbolic-lemma6", "seed 003 Lemma 6 (z3)",
            "APK δ = 0 iff PPK δ = 0, for every parameter value and every ε",
            symbolic_family, _proved("lemma6")),
    Theorem("symbolic-lemma5", "seed 003 Lemma 5 (z3)",
            "PPK δ ≤ APK δ, for every parameter value and every ε",
            symbolic_family, _proved("lemma5")),
    Theorem("symbolic-lemma4", "seed 003 Lemma 4; thesis Theorem 1 (z3)",
            "PPK is the expectation of APK over the background value, for every parameter "
            "value and every ε", symbolic_family, _proved("lemma4")),
    Theorem("symbolic-theorem2", "thesis Theorem 2, Proposition 26, Definition 59",
            "a count with a symbolic prior is Θ-reducible for every p (certified bijection), "
            "hence APK δ = PPK δ", reducible_family, theorem2_by_certificate),
    Theorem("symbolic-reducibility", "thesis Definition 59, Proposition 26",
            "thresholded counts with a symbolic prior: Θ-reducible for every p or not, as the "
            "reference finds at admissible points (every pair of background values compared)",
            threshold_reducibility_family, reducibility_matches_reference),
    Theorem("symbolic-converse-lemma5", "seed 003 Lemma 5 is strict (Remark 2)",
            "APK δ ≤ PPK δ for thresholded counts — false: z3 finds a confirmed counterexample",
            threshold_family, no_counterexample_to_converse, expected=False),
]
