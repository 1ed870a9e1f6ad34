"""Deciding a claim for every admissible parameter value (and every ε, if asked) with z3.

For each instance — a target and a background-knowledge function ζ of the spec — the claim's
negation is conjoined with the δ definitions of :mod:`verifier.symbolic.encoding` and handed to
z3 (:mod:`verifier.symbolic.solver`):

* ``unsat`` — **proved**: no admissible parameter value (and no ``E ≥ 1`` with
  ``--every-epsilon``) violates the claim;
* ``sat`` — the model leaves the solver as exact rationals (an algebraic value as rationals of
  growing precision) and is reported as a **counterexample** only once the exact engine
  (:mod:`verifier.symbolic.recheck`) confirms the claim fails there;
* anything else — **unknown**, with the reason.

``theorem2`` is first tried through Θ-reducibility: a bijection certified for every parameter
value (:mod:`verifier.symbolic.reducibility`) proves APK δ = PPK δ by Theorem 2, and the
method says so.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import combinations

from gmpy2 import mpq

from verifier.core.errors import BudgetExceeded, InvalidArgument, SpecError
from verifier.core.numbers import counted, format_rational
from verifier.engines.joint import check_targets
from verifier.model.knowledge import Knowledge, known_indices
from verifier.notions.dp.neighbours import relation_pairs, replace_one
from verifier.notions.partial.cases import ordered_pairs
from verifier.symbolic.claims import Claim, build, parse_claim
from verifier.symbolic.encoding import Encoding
from verifier.symbolic.instance import SymbolicSpec
from verifier.symbolic.recheck import Recheck, recheck
from verifier.symbolic.solver import decide
from verifier.symbolic.tables import knowledges_of, symbolic_tables

__all__ = ["Proof", "ProofReport", "prove", "instances"]

ROUNDS = 3  # solver witnesses tried before an unconfirmed violation is reported as unknown


@dataclass(frozen=True)
class Proof:
    """The verdict on one instance (a target and a ζ)."""

    target: int
    knowledge: str
    status: str  # "proved", "counterexample" or "unknown"
    method: str
    seconds: float  # wall time, shown to the user; never part of a verdict
    counterexample: Recheck | None = None
    reason: str = ""
    solver: Mapping[str, mpq] = field(default_factory=dict)  # z3's values at the witness


@dataclass(frozen=True)
class ProofReport:
    claim: Claim
    every_epsilon: bool
    epsilon: str
    parameters: str
    proofs: tuple[Proof, ...] = field(default=())

    @property
    def status(self) -> str:
        states = {p.status for p in self.proofs}
        for s in ("counterexample", "unknown"):
            if s in states:
                return s
        return "proved"

    def to_dict(self) -> dict:
        """This report as ``plrv prove --json`` prints it."""
        from verifier.symbolic.serial import prove_json

        return prove_json(self)


MAX_INSTANCES = 256  # solver instances of one prove run (--max-instances raises it)


def instance_count(sym: SymbolicSpec, every_known_set: bool = False) -> int:
    """How many instances :func:`instances` lists, counted without listing them."""
    targets = check_targets(sym.base.targets, sym.records)
    if not every_known_set:
        return len(targets) * len(knowledges_of(sym))
    return len(targets) * 2 ** (sym.records - 1)


def instances(sym: SymbolicSpec, every_known_set: bool = False
              ) -> list[tuple[int, Knowledge]]:
    """``(target, ζ)`` for each target and ζ of the spec, or with every set of known
    indices not holding the target."""
    targets = check_targets(sym.base.targets, sym.records)
    if not every_known_set:
        return [(i, k) for k in knowledges_of(sym) for i in targets]
    out = []
    for i in targets:
        others = [j for j in range(sym.records) if j != i]
        for size in range(len(others) + 1):
            out += [(i, known_indices(c)) for c in combinations(others, size)]
    return out


def prove(sym: SymbolicSpec, claim: str | Claim, *, every_epsilon: bool = False,
          every_known_set: bool = False, timeout_ms: int = 20_000,
          max_instances: int = MAX_INSTANCES) -> ProofReport:
    """Decide ``claim`` on every instance of the spec (see the module docstring). A claim
    over dp alone has one instance (dp reads no target or attacker); more than
    ``max_instances`` instances are refused before the first is decided."""
    c = claim if isinstance(claim, Claim) else parse_claim(claim)
    if c.uses - {"dp"} and sym.base.model is None:  # apk, ppk and noiseless need θ
        raise SpecError(f"--claim {c.text!r} reads {', '.join(sorted(c.uses - {'dp'}))}, "
                        f"which need a data model: give prior, priors, or support and weights",
                        file=sym.path, key="data.prior")
    rate = sym.base.epsilon.rate
    if rate is None and not every_epsilon:
        raise InvalidArgument(f"epsilon = {sym.base.epsilon}: a proof needs ε = ln(q) (so that "
                              f"e^ε is rational) or --every-epsilon")
    if c.uses == {"dp"}:
        if every_known_set:
            raise InvalidArgument("--every-known-set varies the attacker's known records, "
                                  "which dp does not read; leave it out for a claim over dp",
                                  argument="--every-known-set")
        todo = [(check_targets(sym.base.targets, sym.records)[0], knowledges_of(sym)[0])]
    else:
        count = instance_count(sym, every_known_set)
        if count > max_instances:
            sets = "every set of known records" if every_known_set else "attackers"
            raise BudgetExceeded(
                f"{counted(count, 'instance')} (targets × {sets}), each a solver call of up to "
                f"{timeout_ms // 1000} s, over the limit of "
                f"{max_instances}; raise it with --max-instances, or give fewer records or "
                f"targets", argument="--max-instances", value=count)
        todo = instances(sym, every_known_set)
    proofs = tuple(_prove_one(sym, c, i, k, None if every_epsilon else rate, timeout_ms)
                   for i, k in todo)
    return ProofReport(c, every_epsilon, "every ε" if every_epsilon else str(sym.base.epsilon),
                       sym.parameters.describe(), proofs)


def _prove_one(sym: SymbolicSpec, claim: Claim, target: int, know: Knowledge,
               rate: mpq | None, timeout_ms: int) -> Proof:
    start = time.perf_counter()
    method_prefix = ""
    if claim.name == "theorem2":
        from verifier.symbolic.reducibility import decide_reducible
        red = decide_reducible(sym, knowledges=[know], targets=[target])
        if red.reducible is True:
            method_prefix = f"Θ-reducible ({red.method}) and Theorem 2"
        elif red.reducible is False:
            where = "" if not red.point or not sym.parameters.items else \
                " at " + ", ".join(f"{k} = {format_rational(v)}" for k, v in red.point.items())
            return Proof(target, know.name, "proved", f"Theorem 2's premise fails: not "
                         f"Θ-reducible{where} ({red.method}), so the claim holds vacuously",
                         time.perf_counter() - start)
    status, method, witness, reason, solver = _z3(sym, claim, target, know, rate, timeout_ms)
    seconds = time.perf_counter() - start
    if method_prefix and status == "proved":
        method = f"{method_prefix}; {method} confirms apk == ppk"
    elif method_prefix and status == "unknown":
        status, method = "proved", method_prefix
    return Proof(target, know.name, status, method, seconds, witness, reason, solver)


def dp_pairs(sym: SymbolicSpec) -> list[tuple[tuple, tuple]]:
    """The ordered pairs DP compares: the spec's relation (``[input]``, ``[neighbours]``), by
    default replace-one over the databases of ``records`` records."""
    rel = sym.base.relation or replace_one(sym.values, sym.records)
    return list(relation_pairs(rel, sym.base.budget))


def encode(sym: SymbolicSpec, uses: frozenset[str] | set[str], target: int, know: Knowledge,
           rate: mpq | None) -> tuple[Encoding, dict]:
    """The δ terms (and Lemma 4's condition) an instance's claim reads, with their defining
    assertions in the returned :class:`Encoding`."""
    enc = Encoding(sym.parameters, rate)
    tables = symbolic_tables(sym, [know], [target]) if uses - {"dp"} else []
    pairs = ordered_pairs(sym.values, sym.base.pairs)
    apks, ppks, lemma4 = [], [], []
    for t in tables:
        for ppk, apk, cond in enc.table_cases(t, pairs).values():
            apks += list(apk.values())
            if ppk is not None:
                ppks.append(ppk)
                lemma4.append(cond)
    terms: dict = {}
    if "apk" in uses:
        terms["apk"] = enc.worst("apk", apks)
    if "ppk" in uses:
        terms["ppk"] = enc.worst("ppk", ppks)
    if "noiseless" in uses:
        plain = []
        for t in tables:
            if t.knowledge == 0:
                for _, apk, _ in enc.table_cases(t.without_background(), pairs).values():
                    plain += list(apk.values())
        terms["noiseless"] = enc.worst("noiseless", plain)
    if "dp" in uses:
        terms["dp"] = enc.dp(sym.kernel, dp_pairs(sym))
    terms["lemma4"] = enc.z.And(*lemma4) if lemma4 else enc.z.true()
    return enc, terms


def encoded_deltas(sym: SymbolicSpec, uses: set[str], target: int, know: Knowledge,
                   point: Mapping[str, mpq], rate: mpq,
                   timeout_ms: int = 20_000) -> dict[str, mpq] | None:
    """The δs as the z3 encoding defines them, at one parameter point and ``E = rate``
    (None when z3 does not return an exact model): what the exact engine must also give
    there, so that a wrong encoding cannot prove a claim unnoticed."""
    enc, terms = encode(sym, uses, target, know, rate)
    fixed = [x == enc.z.const(point[name]) for name, x in enc.named.items() if name != "E"]
    shown = {k: v for k, v in terms.items() if k in uses}
    answer = decide(enc.assertions + fixed, shown, timeout_ms)
    if answer.status != "sat" or not answer.models or not answer.models[0].exact:
        return None
    return {k: answer.models[0].values[k] for k in shown}


def _z3(sym: SymbolicSpec, claim: Claim, target: int, know: Knowledge, rate: mpq | None,
        timeout_ms: int) -> tuple[str, str, Recheck | None, str, dict]:
    enc, terms = encode(sym, claim.uses, target, know, rate)
    negation = enc.z.Not(build(claim, terms, enc.z))
    method = "z3: the negation is unsatisfiable (nonlinear real arithmetic)"
    excluded: list = []  # points where the exact engine found that the claim holds
    for _ in range(ROUNDS):
        shown = dict(enc.named) | {k: v for k, v in terms.items() if k != "lemma4"}
        answer = decide(enc.assertions + [negation] + excluded, shown, timeout_ms)
        if answer.status == "unsat":
            if excluded:
                method += f", outside {counted(len(excluded), 'point')} where the exact " \
                          f"engine shows that the claim holds"
            return "proved", method, None, "", {}
        if answer.status == "unknown":
            return "unknown", "z3", None, f"z3: {answer.reason}", {}
        checked = 0
        for model in answer.models:
            point, e = _split(sym, model.values, rate)
            if not all(p.admits(point[p.name]) for p in sym.parameters.items) or e < 1:
                continue  # a rational near an algebraic value may leave the bounds
            found = recheck(sym, claim, point, e, target, know)
            if not found.holds:
                how = "z3 witness, confirmed by the exact engine" if model.exact else \
                    "z3 algebraic witness replaced by a nearby rational, confirmed by the " \
                    "exact engine"
                return "counterexample", how, found, "", dict(model.values)
            if enc.named:
                excluded.append(_exclude(enc, model.values))
                checked += 1
        if not checked:
            break
    return "unknown", "z3", None, ("z3 found violations that the exact engine did not confirm "
                                   "at the rational points tried"), {}


def _split(sym: SymbolicSpec, values: Mapping[str, mpq], rate: mpq | None
           ) -> tuple[dict[str, mpq], mpq]:
    point = {name: values[name] for name in sym.parameters.names}
    return point, (values["E"] if rate is None else rate)


def _exclude(enc: Encoding, values: Mapping[str, mpq]):
    z = enc.z
    return z.Or(*[x != z.const(values[k]) for k, x in enc.named.items()])
