"""Rényi DP and zCDP against attackers with partial knowledge: APK, PPK and noiseless forms.

For a joint table of θ, ζ, target ``i`` and an ordered pair ``a ≠ b`` (REFERENCE.md §8, the
extension seed 003 names as future work), with ``L`` the PLRV of seed 003, Definition 5:

* **APK-RDP** (``apkrdp``): for every background value ``B̂`` possible under ``a``,
  ``S^APK_α(B̂) = E_{D~θ|D(i)=a, ζ(D)=B̂, O~M(D)}[e^{(α−1)·L(O, B̂)}]``, which is the Rényi
  moment of ``P[O | a, B̂]`` against ``P[O | b, B̂]`` (``1`` when ``B̂`` is impossible under
  ``b``: Definition 5's convention 1, ``L = 0``);
* **PPK-RDP** (``ppkrdp``): ``S^PPK_α = E_{D~θ|D(i)=a, O~M(D), B~ζ(D)}[e^{(α−1)·L(O, B)}]
  = Σ_B P[ζ(D)=B | D(i)=a]·S^APK_α(B)`` (the moment identity, as Lemma 4 for δ). Term by
  term it is the Rényi moment of two laws on pairs ``(B, O)``:
  ``P'(B, O) = w_B·P[O | a, B]`` against ``Q'(B, O) = w_B·P[O | b, B]`` with
  ``w_B = P[ζ(D)=B | D(i)=a]`` (``Q' = P'`` on a ``B`` impossible under ``b``). Their ratio is
  ``L``, so the PPK δ(ε) of Definition 7 is the hockey-stick divergence of ``P'`` and ``Q'``:
  every conversion from a pair's Rényi divergence to its (ε, δ) applies to PPK as it is;
* **noiseless RDP** (``noiselessrdp``): APK with ζ summed out (seed 003, Definition 3);
* the **zCDP forms** (``apkzcdp``, ``ppkzcdp``, ``noiselesszcdp``): ``ln(S_α)/(α − 1) ≤ ρ·α``
  for every real ``α > 1`` — ``P'`` and ``Q'`` being probability laws, ``D_α`` is
  nondecreasing in ``α`` and the certified search of :mod:`.zcdp` applies unchanged.

The divergence ``D_α = ln(S_α)/(α − 1)`` is exact at integer orders (``S_α`` rational) and the
report names the worst target, value pair and (APK) background value per order.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Literal, cast

from gmpy2 import mpq, mpz

from verifier.core.budget import Budget
from verifier.core.errors import InvalidArgument
from verifier.engines.choice import build_tables
from verifier.engines.joint import JointTable, check_targets
from verifier.engines.shift_table import ShiftTable
from verifier.model.data import DataModel
from verifier.model.knowledge import Knowledge, no_knowledge
from verifier.model.mechanisms import Mechanism
from verifier.notions.partial.cases import Table, ordered_pairs, tables_for
from verifier.notions.problem import CheckProblem
from verifier.notions.registry import PARTIAL_RENYI, RENYI_FORM
from verifier.notions.renyi.check import (
    OrderValue,
    RdpResult,
    RenyiClaim,
    RenyiReport,
    ZcdpResult,
    make_claim,
    rdp_conversions,
    zcdp_result,
)
from verifier.notions.renyi.divergence import Renyi, Terms, moment
from verifier.notions.renyi.shift_moments import ShiftMoments

__all__ = ["PartialCase", "apk_terms", "ppk_terms", "partial_cases", "partial_rdp",
           "partial_renyi_report",
           "check_renyi_partial", "problem_report", "merge_reports"]


def apk_terms(jt: JointTable, a: Hashable, b: Hashable, bg: Hashable
              ) -> Terms | None | Literal[False]:
    """``(Q(O), P(O)/Q(O))`` of ``P = P[O | a, B̂]``, ``Q = P[O | b, B̂]`` (``None``: some
    output possible under ``a`` is impossible under ``b``, ``S_α = +∞``); ``((1, 1),)`` when
    ``B̂`` is impossible under ``b`` (``L = 0``); ``False`` when it is impossible under ``a``
    (no case)."""
    return _weighted(jt, a, b, bg, mpq(1))


def _weighted(jt: JointTable, a: Hashable, b: Hashable, bg: Hashable, w: mpq
              ) -> Terms | None | Literal[False]:
    pa = jt.row(a, bg)
    if not pa:
        return False
    pb = jt.row(b, bg)
    if not pb:  # Definition 5, convention 1: every loss is 0
        return ((w, mpq(1)),)
    sa, sb = sum(pa.values(), mpz(0)), sum(pb.values(), mpz(0))
    out = []
    for o, p in pa.items():
        if p == 0:
            continue
        q = pb.get(o, 0)
        if q == 0:
            return None
        out.append((w * mpq(q, sb), mpq(p * sb, q * sa)))
    return tuple(out)


def ppk_terms(jt: JointTable, a: Hashable, b: Hashable) -> Terms | None | Literal[False]:
    """The terms of ``P'`` against ``Q'`` (module docstring): each background value's APK
    terms with ``Q`` scaled by ``w_B = P[ζ(D)=B | D(i)=a]``, so that ``moment`` gives
    ``Σ_B w_B·S^APK_α(B)``; ``None``: ``+∞``; ``False``: ``P[D(i)=a] = 0`` (no case)."""
    pv = jt.p_value(a)
    if pv == 0:
        return False
    out: list[tuple[mpq, mpq]] = []
    for bg in jt.backgrounds():
        w = jt.p_background(a, bg)
        if w == 0:
            continue
        t = _weighted(jt, a, b, bg, w / pv)
        if t is None:
            return None
        assert t is not False
        out += t
    return tuple(out)


@dataclass(frozen=True)
class PartialCase:
    """One case of a partial-knowledge Rényi form: its label (model, knowledge, target,
    values and, for APK, background value), its exact moment ``S_α`` at an integer order
    (``None``: ``+∞``) and its terms (for the zCDP search over real orders)."""

    label: dict
    moment: Callable[[int], mpq | None]
    terms: Callable[[], Terms | None]
    infinite: Callable[[], bool]  # S_α = +∞ (at every order α > 1)


def _of_terms(label: dict, t: Terms | None) -> PartialCase:
    return PartialCase(label, partial(moment, t), lambda: t, lambda: t is None)


def _shifted(label: dict, moment_at: Callable[[int], mpq | None],
             terms: Callable[[], Terms | None | Literal[False]], infinite: Callable[[], bool]
             ) -> PartialCase:
    """A case read off a shift table: moments in ``O(#runs + #other outputs)`` per class;
    the terms (every output, ``O(n)``) only for the zCDP search, and not at all when the
    moment is infinite."""
    def lazy() -> Terms | None:
        if infinite():
            return None
        got = terms()
        assert got is not False
        return got
    return PartialCase(label, moment_at, lazy, infinite)


def partial_cases(tables: Sequence[Table], pairs: Sequence[tuple], form: str
                  ) -> list[PartialCase]:
    """The cases of ``form`` (``"apk"``, ``"ppk"``, ``"noiseless"``): APK one per table,
    ordered pair and background value possible under ``a``; PPK and noiseless one per table
    and ordered pair. Noiseless reads the tables of the first knowledge with ζ summed out. A
    shift table (a deterministic count over binary records) is read through
    :class:`~verifier.notions.renyi.shift_moments.ShiftMoments`, never row by row."""
    out: list[PartialCase] = []
    if form == "noiseless":
        tables = [Table(t.model, 0, t.table.without_background(), t.engine)
                  for t in tables if t.knowledge == 0]
    for t in tables:
        jt = t.table
        for a, b in pairs:
            if isinstance(jt, ShiftTable) and jt.p_value(a) != 0 and jt.p_value(b) != 0:
                sm = ShiftMoments(jt, a, b)
                if form == "apk":
                    out += [_shifted(t.label(values=[a, b], background=jt.key(k)),
                                     partial(sm.apk, k),
                                     partial(apk_terms, jt, a, b, jt.key(k)),
                                     partial(sm.infinite, k))
                            for k in jt.classes()]
                else:
                    out.append(_shifted(t.label(values=[a, b]), sm.ppk,
                                        partial(ppk_terms, jt, a, b), sm.ppk_infinite))
            elif form == "apk":
                for bg in jt.backgrounds():
                    terms = apk_terms(jt, a, b, bg)
                    if terms is not False:
                        out.append(_of_terms(t.label(values=[a, b], background=bg),
                                             terms))
            else:
                terms = ppk_terms(jt, a, b)
                if terms is not False:
                    out.append(_of_terms(t.label(values=[a, b]), terms))
    return out


def partial_rdp(cases: Sequence[PartialCase], claim: RenyiClaim) -> RdpResult:
    """The tight ``D_α`` per order over ``cases``, exactly (the first case attaining it named),
    against the claim, with ``rdp``'s conversions to (ε, δ)."""
    rows = []
    # the first case with D_α = +∞ is the worst at every order: the finite moments (prefix
    # sums of n terms on a shift table) are then not formed
    infinite = next((c for c in cases if c.infinite()), None)
    for i, a in enumerate(claim.orders):
        worst: Renyi | None = None
        label: dict = {}
        for c in cases if infinite is None else (infinite,):
            v = Renyi.of_moment(a, c.moment(a))
            if worst is None or v.compare(worst) > 0:
                worst, label = v, c.label
        if worst is None:  # no case: no value is possible under two values
            worst = Renyi.of_moment(a, mpq(1))
        bound = claim.bound(i)
        rows.append(OrderValue(a, worst, bound, worst.at_most(bound), label))
    return RdpResult(tuple(rows), all(r.holds for r in rows), len(cases),
                     rdp_conversions([r.value for r in rows], claim.epsilon, claim.delta))


def partial_renyi_report(tables: Sequence[Table], pairs: Sequence[tuple],
                         notions: Sequence[str], claim: RenyiClaim,
                         info: tuple[str, ...] = ()) -> RenyiReport:
    """Each partial-knowledge Rényi notion of ``notions`` over ``tables``: the rdp forms
    exactly at the claim's orders, the zcdp forms by the certified search over α."""
    results: dict[str, RdpResult | ZcdpResult] = {}
    memo: dict[str, list[PartialCase]] = {}
    for name in notions:
        if name not in PARTIAL_RENYI:
            raise InvalidArgument(f"notion {name!r} is not a partial-knowledge Rényi notion "
                                  f"({', '.join(sorted(PARTIAL_RENYI))})", argument="notions",
                                  value=name)
        form, kind = RENYI_FORM[name]
        if form not in memo:
            memo[form] = partial_cases(tables, pairs, form)
        cases = memo[form]
        if kind == "rdp":
            results[name] = partial_rdp(cases, claim)
        else:
            if claim.rho is None:
                raise InvalidArgument(f"{name} needs the claimed rho", argument="rho")
            # one case with D_α = +∞ (at one order, so at all) makes ρ* = +∞: the others'
            # terms (O(n) outputs each on a shift table) are then not formed
            infinite = next((c for c in cases if c.infinite()), None)
            terms = [(infinite.label, None)] if infinite is not None else \
                [(c.label, c.terms()) for c in cases]
            results[name] = zcdp_result(terms, len(cases), claim.rho, claim.epsilon,
                                        claim.delta)
    engines = sorted({t.engine for t in tables})
    return RenyiReport(results, info + tuple(engines))


def merge_reports(first: RenyiReport, second: RenyiReport) -> RenyiReport:
    """The results of both reports (distinct notions), with both infos."""
    return RenyiReport({**first.results, **second.results}, first.info + second.info)


def problem_report(s: CheckProblem, claim: RenyiClaim) -> RenyiReport:
    """The partial-knowledge Rényi notions of a parsed check spec, for its claim."""
    notions = [n for n in s.notions if n in PARTIAL_RENYI]
    assert s.model is not None
    return _report(s.mechanism, s.model, notions, s.knowledge, s.targets, s.pairs, claim,
                   s.budget, s.engine)


def _report(mech: Mechanism, models: DataModel | Sequence[DataModel], notions: Sequence[str],
            knowledge: Knowledge | Sequence[Knowledge] | None, targets: object,
            pairs: Sequence | None, claim: RenyiClaim, budget: Budget | None, engine: str
            ) -> RenyiReport:
    model_list = cast(list[DataModel], list(models) if isinstance(models, (list, tuple))
                      else [models])
    if isinstance(knowledge, (list, tuple)):
        know_list = list(knowledge)
    else:
        know_list = [knowledge if knowledge is not None else no_knowledge()]
    idx = check_targets(targets, model_list[0].n)
    pair_list = ordered_pairs(model_list[0].values, pairs)
    tables = tables_for(model_list, know_list, mech, idx, budget, build_tables(engine))
    return partial_renyi_report(tables, pair_list, notions, claim)


def check_renyi_partial(mech: Mechanism, models: DataModel | Sequence[DataModel],
                        notions: Sequence[str] = ("apkrdp", "ppkrdp"), *,
                        knowledge: Knowledge | Sequence[Knowledge] | None = None,
                        targets: object = "all", pairs: Sequence | None = None,
                        orders: Sequence[int] = (), rho: object = None,
                        budgets: Sequence[object] | None = None, epsilon: object = None,
                        delta: object = None, budget: Budget | None = None,
                        engine: str = "auto") -> RenyiReport:
    """Decide the partial-knowledge Rényi notions of ``mech`` for Θ = ``models``,
    Z = ``knowledge`` (default: none), every target in ``targets`` and every ordered pair of
    distinct values (or ``pairs``).

    >>> from verifier.model.data import iid
    >>> from verifier.model.mechanisms import randomized_response
    >>> r = check_renyi_partial(randomized_response("3/4", [0, 1]), iid(["1/2", "1/2"], [0, 1], 1),
    ...                         ["apkrdp", "ppkrdp"], orders=[2], rho="1")
    >>> str(r.results["apkrdp"].orders[0].value), str(r.results["ppkrdp"].orders[0].value)
    ('ln(7/3)', 'ln(7/3)')
    """
    generic = [RENYI_FORM[n][1] if n in PARTIAL_RENYI else n for n in notions]
    if len(set(notions)) != len(notions):
        raise InvalidArgument("name each notion once", argument="notions", value=list(notions))
    claim = make_claim(sorted(set(generic)), orders, rho, budgets, epsilon, delta)
    return _report(mech, models, notions, knowledge, targets, pairs, claim, budget, engine)
