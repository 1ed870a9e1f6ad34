"""Theorem records decided symbolically: for every parameter value and every ε at once.

The records of :mod:`proofs.theorems` check the seed lemmas by enumerating concrete
instances. These records decide them with z3 over symbolic families — a prior ``[1 − p, p]``
for every ``0 < p < 1``, randomized response for every truth probability ``1/2 < t < 1`` —
for every ``E = e^ε ≥ 1``, every target and every set of known records
(:func:`verifier.symbolic.prove.prove`), and Theorem 2 through a bijection certified as an
identity of rational functions (:func:`verifier.symbolic.reducibility.decide_reducible`).
"""

from __future__ import annotations

from proofs.theorems import Theorem
from verifier.symbolic.instance import SymbolicSpec, parse_symbolic
from verifier.symbolic.prove import prove
from verifier.symbolic.reducibility import decide_reducible

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


def _proved(claim: str):
    def check(sym: SymbolicSpec) -> bool:
        return prove(sym, claim, every_epsilon=True, every_known_set=True).status == "proved"
    check.__name__ = f"proved_{claim}"
    return check


def no_counterexample_to_converse(sym: SymbolicSpec) -> bool:
    """False exactly when z3 finds, and the exact engine confirms, APK δ > PPK δ."""
    return prove(sym, "apk-le-ppk", every_epsilon=True,
                 every_known_set=True).status != "counterexample"


def theorem2_by_certificate(sym: SymbolicSpec) -> bool:
    """Reducible for every p by a certified bijection, and Theorem 2 then gives APK δ = PPK δ
    (confirmed by z3 for every p and every ε)."""
    if decide_reducible(sym).reducible is not True:
        return False
    rep = prove(sym, "theorem2", every_epsilon=True)
    return rep.status == "proved" and all("Theorem 2" in p.method and "z3" in p.method
                                          for p in rep.proofs)


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
    Theorem("symbolic-converse-lemma5", "seed 003 Lemma 5 is strict (Remark 2)",
            "APK δ ≤ PPK δ for thresholded counts — false: z3 finds a confirmed counterexample",
            threshold_family, no_counterexample_to_converse, expected=False),
]
