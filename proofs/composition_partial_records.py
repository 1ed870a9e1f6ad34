"""Composition under partial knowledge (REFERENCE.md §9), as theorem records.

* ``composition-full-knowledge``: an attacker who knows every other record sees, given the
  target, a product of one-run laws (the mixture has one term), so APK δ of k runs equals
  classical DP composition over the pairs of databases that differ in the target — compared
  with plrv's DP composition (:func:`verifier.notions.composition.exact.compose_mechanisms`).
* ``composition-histograms``: the k-run engine (mixtures over the unknown records, the
  histogram of the outputs) equals the one-run engine on the product mechanism
  ``D ↦ M(D)^{⊗k}`` over ordered tuples, for APK, PPK and noiseless.
* ``composition-noiseless-adds``, ``composition-apk-adds``, ``composition-ppk-runs-add`` (all
  expected false): δ's add up under composition for noiseless privacy (refuted by the
  differencing pair: the count of all records and the count of all but the target), for APK,
  and for two runs of one mechanism under PPK (refuted by randomized response of an OR: the
  runs share the other record, so the second run sharpens what the first said).
"""

from __future__ import annotations

from collections.abc import Iterator

from verifier.core.epsilon import Epsilon
from verifier.model.data import iid
from verifier.model.knowledge import known_indices
from verifier.model.mechanisms import Mechanism, geometric_count, mechanism, randomized_response
from verifier.notions.check import check_partial
from verifier.notions.composition.exact import compose_mechanisms
from verifier.notions.composition.partial_check import compose_partial
from verifier.notions.dp.neighbours import explicit_pairs
from verifier.notions.problem import CheckProblem
from verifier.search.composition import (
    adds_up,
    composition_family,
    repeated_family,
    runs_add_up,
)

from .record import Theorem

__all__ = ["COMPOSITION_PARTIAL_RECORDS"]

NOTIONS = ("apkdp", "ppkdp", "noiseless")


def _rr_threshold(t: int) -> Mechanism:
    """Randomized response (truth 3/4) of the bit [count ≥ t], declared symmetric."""
    from verifier.core.distribution import Dist

    def bit(db: tuple) -> Dist:
        b = int(sum(db) >= t)
        return Dist({b: "3/4", 1 - b: "1/4"})
    return mechanism(bit, name=f"rr of count >= {t}", symmetric=True)


def _mechanisms(n: int) -> Iterator[Mechanism]:
    yield randomized_response("3/4", [0, 1])
    yield geometric_count([1], "1/2")
    yield _rr_threshold(max(1, n - 1))


def _problem(mech: Mechanism, n: int, known: tuple, rate: int) -> CheckProblem:
    from verifier.core.budget import Budget

    return CheckProblem(None, (0, 1), n, iid(["2/3", "1/3"], [0, 1], n), mech,
                        known_indices(list(known)), 0, None, Epsilon.log(rate), 0,
                        NOTIONS, Budget(), "auto")


def full_knowledge_family() -> Iterator[tuple]:
    for n in (2, 3):
        for mech in _mechanisms(n):
            for k in (1, 2, 3):
                for rate in (1, 2):
                    yield mech, n, k, rate


def full_knowledge(inst: tuple) -> bool | None:
    """APK δ and tight ε at δ = 0 of k runs, full knowledge = DP composition over the pairs
    that differ in record 0 (vacuous when both δs are 0: nothing could differ)."""
    mech, n, k, rate = inst
    c = compose_partial(_problem(mech, n, tuple(range(1, n)), rate), k)
    apk = c.report.results["apkdp"]
    pairs = []
    for rest in _databases(n - 1):
        pairs.append([(0, *rest), (1, *rest)])
    dp = compose_mechanisms([mech] * k, explicit_pairs(pairs), Epsilon.log(rate), 0)
    if apk.delta != dp.delta or apk.epsilon != dp.epsilon:
        return False
    return None if dp.delta.value == 0 and apk.delta.value == 0 else True


def _databases(n: int) -> list[tuple]:
    if n == 0:
        return [()]
    return [(x, *rest) for x in (0, 1) for rest in _databases(n - 1)]


def histograms_family() -> Iterator[tuple]:
    for mech in _mechanisms(3):
        for known in ((), (1,), (1, 2)):
            for k in (2, 3):
                for rate in (1, 2):
                    yield mech, 3, known, k, rate


def _power(mech: Mechanism, k: int) -> Mechanism:
    """``D ↦ M(D)^{⊗k}`` over ordered k-tuples of outputs."""
    from verifier.core.distribution import Dist

    def runs(db: tuple) -> Dist:
        law = Dist({(): 1})
        for _ in range(k):
            law = Dist({(*s, o): p * q for s, p in law.items() for o, q in mech(db).items()})
        return law
    return mechanism(runs, name=f"{k} runs of {mech.name}")


def histograms(inst: tuple) -> bool | None:
    """Every notion's δ and tight ε of the k-run engine = the one-run engine on ``M^{⊗k}``;
    vacuous when every δ is 0."""
    mech, n, known, k, rate = inst
    c = compose_partial(_problem(mech, n, known, rate), k)
    data = iid(["2/3", "1/3"], [0, 1], n)
    direct = check_partial(_power(mech, k), data, knowledge=known_indices(list(known)),
                           targets=0, epsilon=Epsilon.log(rate), notions=list(NOTIONS)).results
    for notion in NOTIONS:
        got = c.report.results[notion]
        if (got.delta, got.epsilon) != (direct[notion].delta, direct[notion].epsilon):
            return False
    return True if any(direct[x].delta.value for x in NOTIONS) else None


COMPOSITION_PARTIAL_RECORDS = [
    Theorem("composition-full-knowledge", "REFERENCE.md §9 (full knowledge)",
            "with every other record known, APK δ of k runs on the same database is classical "
            "DP composition over the pairs of databases that differ in the target",
            full_knowledge_family, full_knowledge,
            compared_with="plrv's DP composition (compose_mechanisms, explicit pairs)"),
    Theorem("composition-histograms", "REFERENCE.md §9 (mixture of product laws)",
            "APK, PPK and noiseless δ and tight ε of k runs from the histogram of the outputs "
            "equal those of the product mechanism D ↦ M(D)^⊗k over ordered tuples",
            histograms_family, histograms,
            compared_with="the one-run engine on the product mechanism"),
    Theorem("composition-noiseless-adds", "REFERENCE.md §9 (classical composition)",
            "noiseless privacy composes: two releases on the same database at ε_1 + ε_2 have "
            "δ ≤ δ_1(ε_1) + δ_2(ε_2) (false: the count of all records and the count of all "
            "but the target, each private alone, together reveal the target)",
            lambda: composition_family(2), adds_up("noiseless"), expected=False),
    Theorem("composition-apk-adds", "REFERENCE.md §9 (classical composition)",
            "APK-DP composes like DP: ε's and δ's of two mechanisms on the same database add "
            "up (false)", lambda: composition_family(2), adds_up("apk"), expected=False),
    Theorem("composition-ppk-runs-add", "REFERENCE.md §9 (classical composition)",
            "the PPK δ of two runs of one mechanism at 2ε is at most twice the PPK δ of one "
            "run at ε (false: randomized response of the OR of two records, whose runs share "
            "the other record)", lambda: repeated_family(2), runs_add_up("ppk"),
            expected=False),
]
