"""Conjectures about privacy notions, and a search for their smallest counterexample.

A :class:`Conjecture` is a name, a statement in words, a predicate on an
:class:`~verifier.search.small.Instance` (True where the conjecture holds), an exhaustive
family of small instances, a Hypothesis strategy and, when the statement is a claim about the
tight δs, a z3 claim decided on symbolic templates (:mod:`verifier.symbolic.prove`).

:func:`search` tries, in order, the exhaustive family (smallest instances first), Hypothesis
(with its shrinking) and z3. A counterexample is then **minimised** by greedy moves that keep
it a counterexample — fewer records, outputs and background values, simpler laws, smaller
denominators (:func:`verifier.search.small_families.shrinks`) — and returned with the exact
engine's δs. When none is found the result says so and how far each stage went; sampling
never makes a conjecture "true" (only z3's proofs on the templates are proofs, of those).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from itertools import islice

from verifier.core.errors import UnknownName
from verifier.core.numbers import counted
from verifier.parallel.executor import Executor
from verifier.search.composition import (
    adds_up,
    composition_family,
    composition_report,
    repeated_family,
    repeated_strategy,
    runs_add_up,
)
from verifier.search.renyi_small import apk_le_ppk_rdp, shown_moments
from verifier.search.small import Instance
from verifier.search.small_families import build, exhaustive, shrinks, strategy

__all__ = ["Conjecture", "SearchBudget", "SearchResult", "search", "minimise", "CONJECTURES",
           "TEMPLATES"]


@dataclass(frozen=True)
class Conjecture:
    name: str
    statement: str
    predicate: Callable[[Instance], bool]
    family: Callable[[int], Iterable[Instance]] = exhaustive
    strategy: Callable[[int], object] | None = strategy
    claim: str | None = None   # the z3 encoding, as a claim over apk, ppk, noiseless
    # the exact δs a counterexample is reported with (default: the instance's own)
    report: Callable[[Instance], dict] | None = None


@dataclass(frozen=True)
class SearchBudget:
    """How far each stage may go."""

    max_records: int = 3       # exhaustive family and Hypothesis instances
    instances: int = 20_000    # exhaustive instances at most
    examples: int = 200        # Hypothesis examples
    z3_timeout_ms: int = 10_000
    shrink_steps: int = 400    # predicate evaluations while minimising


@dataclass(frozen=True)
class SearchResult:
    """``found``: a minimised counterexample with its exact δs; else the evidence."""

    conjecture: Conjecture
    found: bool
    counterexample: Instance | None = None
    first: Instance | None = None          # the counterexample as found, before minimising
    stage: str = ""
    deltas: dict = field(default_factory=dict)
    evidence: tuple[str, ...] = ()
    seconds: float = 0.0                   # float ok: wall time, shown to the user

    def to_dict(self) -> dict:
        """This result as ``plrv search --json`` prints it."""
        from verifier.reports.json_out import search_json

        return search_json(self)


def minimise(inst: Instance, violates: Callable[[Instance], bool], steps: int = 400
             ) -> Instance:
    """Greedy: take the first smaller instance that still violates, until none does."""
    current, used = inst, 0
    improved = True
    while improved and used < steps:
        improved = False
        for cand in sorted(shrinks(current), key=Instance.size):
            if cand.size() >= current.size():
                continue
            used += 1
            if violates(cand):
                current, improved = cand, True
                break
            if used >= steps:
                break
    return current


def _violates(conj: Conjecture) -> Callable[[Instance], bool]:
    """``not predicate``, remembered per instance (shrinking revisits instances often)."""
    seen: dict[Instance, bool] = {}

    def violates(inst: Instance) -> bool:
        if inst not in seen:
            seen[inst] = not conj.predicate(inst)
        return seen[inst]
    return violates


@dataclass(frozen=True)
class _Violation:
    """``not predicate`` as a value a shard can carry (a closure over the conjecture is not)."""

    predicate: Callable[[Instance], bool]

    def __call__(self, inst: Instance) -> bool:
        return not self.predicate(inst)


def search(conj: Conjecture, budget: SearchBudget | None = None,
           exhaustive_on: Callable[[], AbstractContextManager[Executor]] | None = None
           ) -> SearchResult:
    """Exhaustive, then Hypothesis, then z3; a minimised counterexample or the evidence.

    On a parallel executor (:mod:`verifier.parallel`) the exhaustive family is tested in
    chunks (:func:`verifier.parallel.chunks.first_passing`): the counterexample and the
    count of instances reported are the serial ones. ``exhaustive_on()`` opens that
    executor (e.g. ``lambda: executor_for(workers=2)``) and it is closed when the stage
    ends; without it, the current executor. Every other step runs serially here (the exact
    engine included), with no cluster open."""
    from verifier.parallel import SerialExecutor, current_executor, use_executor

    b = budget or SearchBudget()
    start = time.perf_counter()
    violates = _violates(conj)
    evidence: list[str] = []
    opened = exhaustive_on() if exhaustive_on is not None else nullcontext(current_executor())
    with opened as executor, use_executor(SerialExecutor()):
        found, stage = (_exhaustive_sharded(conj, b, executor, evidence) if executor.parallel
                        else _exhaustive(conj, b, violates, evidence))
    with use_executor(SerialExecutor()):
        return _later_stages(conj, b, violates, evidence, found, stage, start)


def _later_stages(conj: Conjecture, b: SearchBudget, violates, evidence: list[str],
                  found: Instance | None, stage: str, start: float) -> SearchResult:
    if found is None and conj.strategy is not None:
        found, stage = _hypothesis(conj, b, violates, evidence)
    if found is None and conj.claim is not None:
        found, stage = _z3(conj, b, violates, evidence)
    if found is None:
        return SearchResult(conj, False, evidence=tuple(evidence),
                            seconds=time.perf_counter() - start)
    small = minimise(found, violates, b.shrink_steps)
    small = Instance(small.values, small.n, small.prior, small.mechanism, small.knowledge,
                     small.target, small.rate, f"minimised from: {found.label}")
    assert violates(small)  # every accepted move was re-checked exactly
    evidence.append(f"minimised: (records, values, outputs, background values, largest and "
                    f"total denominator) {found.size()} → {small.size()}")
    deltas = conj.report(small) if conj.report is not None else dict(small.deltas)
    return SearchResult(conj, True, small, found, stage, deltas, tuple(evidence),
                        time.perf_counter() - start)


def _exhaustive(conj, b: SearchBudget, violates, evidence: list[str]):
    count, sizes = 0, set[int]()
    for inst in conj.family(b.max_records):
        if count >= b.instances:
            evidence.append(f"exhaustive: stopped at the budget of "
                            f"{counted(b.instances, 'instance')} "
                            f"(records up to {max(sizes)})")
            return None, ""
        count += 1
        sizes.add(inst.n)
        if violates(inst):
            evidence.append(f"exhaustive: counterexample at instance {count}")
            return inst, "exhaustive"
    evidence.append(_none_found(count, b))
    return None, ""


def _none_found(count: int, b: SearchBudget) -> str:
    return (f"exhaustive: {counted(count, 'instance')}, every one with 1..{b.max_records} binary "
            f"records, none a counterexample")


def _exhaustive_sharded(conj, b: SearchBudget, executor: Executor, evidence: list[str]):
    """:func:`_exhaustive` with the predicate evaluated in chunks on ``executor``: the same
    counterexample (the first in the family's order), count and evidence."""
    from verifier.parallel.chunks import first_passing

    family = iter(conj.family(b.max_records))
    seen: list[Instance] = []  # what the shards were given, in order (for the report)

    def within_budget() -> Iterator[Instance]:
        for inst in islice(family, b.instances):
            seen.append(inst)
            yield inst

    hit = first_passing(within_budget(), _Violation(conj.predicate), executor,
                        "exhaustive instances")
    if hit is not None:
        evidence.append(f"exhaustive: counterexample at instance {hit + 1}")
        return seen[hit], "exhaustive"
    if next(family, None) is not None:
        evidence.append(f"exhaustive: stopped at the budget of "
                        f"{counted(b.instances, 'instance')} (records up to "
                        f"{max(i.n for i in seen)})")
        return None, ""
    evidence.append(_none_found(len(seen), b))
    return None, ""


def _hypothesis(conj, b: SearchBudget, violates, evidence: list[str]):
    if b.examples < 1:
        evidence.append("hypothesis: skipped (0 examples asked)")
        return None, ""
    try:
        from hypothesis import HealthCheck, find, settings
        from hypothesis.errors import NoSuchExample
    except ImportError:
        evidence.append("hypothesis: skipped (not installed; pip install hypothesis)")
        return None, ""
    cfg = settings(max_examples=b.examples, database=None, deadline=None, derandomize=True,
                   suppress_health_check=list(HealthCheck))
    try:
        inst = find(conj.strategy(b.max_records), violates, settings=cfg)
    except NoSuchExample:
        evidence.append(f"hypothesis: {b.examples} random instances (joint priors, random "
                        f"mechanism and knowledge tables, 1..{b.max_records} records), none a "
                        f"counterexample")
        return None, ""
    evidence.append("hypothesis: counterexample found and shrunk")
    return inst, "hypothesis"


TEMPLATES: dict[str, dict] = {
    "randomized response, truth t in (1/2, 1), 2 records": {
        "parameters": {"t": {"gt": "1/2", "lt": "1"}},
        "data": {"records": 2, "values": [0, 1], "prior": ["2/3", "1/3"]},
        "mechanism": {"kind": "randomized_response", "truth": "t"},
        "query": {"epsilon": "ln(2)", "notions": ["apkdp", "ppkdp"]}},
    "thresholded count T = 2, prior [1 - p, p], 3 records": {
        "parameters": {"p": {"gt": "0", "lt": "1"}},
        "data": {"records": 3, "values": [0, 1], "prior": ["1 - p", "p"]},
        "mechanism": {"kind": "threshold_count", "threshold": 2},
        "query": {"epsilon": "ln(2)", "notions": ["apkdp", "ppkdp"]}},
}


def _z3(conj, b: SearchBudget, violates, evidence: list[str]):
    from verifier.specs.symbolic import parse_symbolic
    from verifier.symbolic.prove import instances, prove
    for name, raw in TEMPLATES.items():
        sym = parse_symbolic(raw)
        report = prove(sym, conj.claim, every_epsilon=True, every_known_set=True,
                       timeout_ms=b.z3_timeout_ms)
        if report.status == "counterexample":
            proof = next(p for p in report.proofs if p.status == "counterexample")
            assert proof.counterexample is not None
            know = next(k for i, k in instances(sym, True)
                        if i == proof.target and k.name == proof.knowledge)
            inst = _from_spec(sym.at(proof.counterexample.point), know, proof.target,
                              proof.counterexample.epsilon.rate, name)
            if violates(inst):
                evidence.append(f"z3: counterexample on the template {name}")
                return inst, "z3"
        evidence.append(f"z3 on the template {name} (every parameter value, every ε, every "
                        f"target and known set): {report.status}")
    return None, ""


def _from_spec(spec, know, target: int, rate, label: str) -> Instance:
    model = spec.model
    dist = model.distribution()
    return build(spec.values, spec.records, {db: p for db, p in dist.items()},
                 lambda db: dict(spec.mechanism(db).items()),
                 lambda db: dict(know(db).items()), target, rate, label)


def _le(a: str, b: str) -> Callable[[Instance], bool]:
    return lambda inst: inst.deltas[a] <= inst.deltas[b]


CONJECTURES: dict[str, Conjecture] = {c.name: c for c in [
    Conjecture("apk-le-ppk", "the active attacker never does better than the passive one: "
               "APK δ ≤ PPK δ (the converse of seed 003 Lemma 5; false)",
               _le("apk", "ppk"), claim="apk <= ppk"),
    Conjecture("lemma5", "seed 003 Lemma 5: PPK δ ≤ APK δ, for correlated data and "
               "randomized background knowledge too", _le("ppk", "apk"), claim="ppk <= apk"),
    Conjecture("lemma6", "seed 003 Lemma 6: APK δ = 0 if and only if PPK δ = 0",
               lambda i: (i.deltas["apk"] == 0) == (i.deltas["ppk"] == 0),
               claim="(apk == 0) iff (ppk == 0)"),
    Conjecture("apk-eq-ppk", "APK δ = PPK δ for every mechanism (Theorem 2's conclusion "
               "without its premise, Θ-reducibility; false)",
               lambda i: i.deltas["apk"] == i.deltas["ppk"], claim="apk == ppk"),
    # composition on the same database (REFERENCE.md §9; verifier.search.composition)
    Conjecture("apk-composes", "APK-DP composes like DP: the APK δ of two mechanisms run on "
               "the same database, at ε_1 + ε_2, is at most δ_1(ε_1) + δ_2(ε_2) (false)",
               adds_up("apk"), composition_family, None, report=composition_report),
    Conjecture("noiseless-composes", "noiseless privacy composes: δ of two releases at "
               "ε_1 + ε_2 is at most δ_1(ε_1) + δ_2(ε_2) (false: the differencing pair)",
               adds_up("noiseless"), composition_family, None, report=composition_report),
    Conjecture("ppk-runs-add-up", "the PPK δ of two runs of one mechanism at 2ε is at most "
               "twice the PPK δ of one run at ε (false: the runs share the unknown records)",
               runs_add_up("ppk"), repeated_family, repeated_strategy,
               report=composition_report),
    Conjecture("ppkrdp-implies-apkrdp", "PPK-RDP implies APK-RDP: the active attacker's "
               "Rényi divergence D_2 is at most the passive one's (the converse of "
               "APK-RDP ⇒ PPK-RDP, REFERENCE.md §8; false)", apk_le_ppk_rdp,
               report=shown_moments),
]}


def conjecture(name: str) -> Conjecture:
    if name not in CONJECTURES:
        raise UnknownName(f"conjecture {name!r} is not registered; registered: "
                          f"{', '.join(CONJECTURES)}")
    return CONJECTURES[name]


__all__ += ["conjecture"]
