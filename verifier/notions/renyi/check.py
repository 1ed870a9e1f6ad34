"""Rényi DP and zCDP of a mechanism under a neighbouring relation, with conversions to (ε, δ).

* ``rdp`` (Mironov 2017, Definition 4): at each integer order ``α`` the tight value is
  ``max_{x ~ y} D_α(M(x)‖M(y))`` over the ordered pairs of the relation
  (:mod:`verifier.notions.dp.neighbours`), exact (:mod:`.divergence`); the claim is a budget
  per order, or ``D_α ≤ ρ·α``.
* ``zcdp`` (Bun and Steinke 2016, Definition 1.1): ``D_α ≤ ρ·α`` for every real ``α > 1``;
  the tight ``ρ* = max_{x ~ y} sup_α D_α/α`` is enclosed pair by pair (:mod:`.zcdp`) and the
  claim decided where the enclosure decides it — else it is undecided (``holds = None``).

Both range over the same ordered pairs as ``dp`` (both directions count); the laws of each
distinct pair are compared once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from gmpy2 import mpq

from verifier.core.budget import Budget
from verifier.core.epsilon import Epsilon, parse_epsilon
from verifier.core.errors import InvalidArgument
from verifier.core.numbers import nonnegative, probability
from verifier.core.vocabulary import stamped
from verifier.model.mechanisms import Mechanism
from verifier.model.program_mechanism import as_mechanism
from verifier.notions.display import (
    rdp_described,
    report_html,
    report_repr,
    result_html,
    result_repr,
    zcdp_described,
)
from verifier.notions.dp.neighbours import Relation, relation_cases
from verifier.notions.renyi.conversions import (
    BUN_STEINKE,
    CKS_RDP,
    CKS_ZCDP,
    MIRONOV,
    Conversion,
    rdp_delta,
    rdp_epsilon,
    zcdp_delta,
    zcdp_epsilon,
)
from verifier.notions.renyi.divergence import (
    Renyi,
    ScaledLog,
    Terms,
    canonical,
    check_order,
    kl_bounds,
    moment,
    parts_key,
    terms_of,
)
from verifier.notions.renyi.zcdp import sup_ratio_sum
from verifier.notions.result import VACUOUS_RELATION_NOTE, Case
from verifier.notions.serial import renyi_json

__all__ = ["VACUOUS", "Progress", "RenyiClaim", "OrderValue", "RdpResult", "ZcdpResult",
           "RenyiReport", "distinct_pairs", "rdp_result", "zcdp_result", "renyi_report",
           "check_renyi", "make_claim", "RENYI_NOTIONS"]

RENYI_NOTIONS = ("rdp", "zcdp")
Progress = Callable[[int, int], None]  # progress(done, total) of a long loop
VACUOUS = {"note": VACUOUS_RELATION_NOTE}  # the witness when the relation has no pair


@dataclass(frozen=True)
class RenyiClaim:
    """What ``rdp`` and ``zcdp`` are asked: the orders of ``rdp``, and the claim — ``rho``
    (``D_α ≤ ρ·α``; zcdp needs it) or one budget per order (``budgets``, rdp only); and the
    ``epsilon`` and ``delta`` (either may be absent) at which to convert to (ε, δ)."""

    orders: tuple[int, ...] = ()
    rho: mpq | None = None
    budgets: tuple[Epsilon, ...] | None = None
    epsilon: Epsilon | None = None
    delta: mpq | None = None

    def __post_init__(self) -> None:
        for a in self.orders:
            check_order(a, "orders")
        if self.budgets is not None and len(self.budgets) != len(self.orders):
            raise InvalidArgument(f"{len(self.budgets)} budgets for {len(self.orders)} "
                                  f"orders: give one per order", argument="rdp_epsilon")
        if self.budgets is not None and self.rho is not None:
            raise InvalidArgument("give rho or per-order budgets, not both", argument="rho")

    def bound(self, i: int) -> Epsilon:
        """The claimed bound on ``D_α`` at the ``i``-th order."""
        if self.budgets is not None:
            return self.budgets[i]
        if self.rho is None:
            raise InvalidArgument("rdp needs a claim: rho (D_α ≤ ρ·α) or one budget per "
                                  "order (rdp_epsilon)", argument="rho")
        return Epsilon.of_nats(self.rho * self.orders[i], "rho·α")


@dataclass(frozen=True)
class OrderValue:
    """The tight ``D_α`` at one order (the worst pair, ``witness``), the claimed bound and
    whether it holds."""

    order: int
    value: Renyi
    bound: Epsilon
    holds: bool
    witness: Mapping[str, object]


@dataclass(frozen=True)
class RdpResult:
    orders: tuple[OrderValue, ...]
    holds: bool
    cases: int
    conversions: tuple[tuple[str, Conversion], ...] = ()  # (what, conversion)

    def __repr__(self) -> str:
        return result_repr("RdpResult", rdp_described(self))

    def _repr_html_(self) -> str:
        return result_html(rdp_described(self))


@dataclass(frozen=True)
class ZcdpResult:
    """The claim ``rho``, the verdict (``None``: undecided), the tight ρ* — ``exact`` where a
    closed form gives it, else enclosed in ``[lo, hi]`` — the pair and the order that attain
    ``lo``, and how many orders were evaluated."""

    rho: mpq
    holds: bool | None
    lo: mpq
    hi: mpq
    exact: mpq | None
    infinite: bool
    at: str
    witness: Mapping[str, object]
    cases: int
    evaluations: int = 0
    conversions: tuple[tuple[str, Conversion], ...] = ()
    reason: str = ""  # how ρ* was found (the reduction or the search)

    def __repr__(self) -> str:
        return result_repr("ZcdpResult", zcdp_described(self))

    def _repr_html_(self) -> str:
        return result_html(zcdp_described(self))


@dataclass(frozen=True)
class RenyiReport:
    results: dict[str, RdpResult | ZcdpResult]
    info: tuple[str, ...] = field(default=())

    @property
    def holds(self) -> bool | None:
        """``False`` if a notion fails, ``None`` if one is undecided, else ``True``."""
        verdicts = [r.holds for r in self.results.values()]
        return False if False in verdicts else None if None in verdicts else True

    def to_dict(self, claim: RenyiClaim, mechanism: str | None = None) -> dict:
        """This report for ``claim`` as ``plrv check --json`` prints it (``mechanism``: the
        description a noise spec's report adds to each notion)."""
        return stamped("check", renyi_json(self, claim, mechanism), self.holds)

    def __repr__(self) -> str:
        return report_repr("RenyiReport", self.holds, self.results)

    def _repr_html_(self) -> str:
        return report_html(self.results)


def distinct_pairs(cases: Iterable[Case]) -> tuple[list[tuple[Mapping, Terms | None]], int]:
    """The distinct ordered pairs of output laws of ``cases`` (the first label met for each),
    as :func:`~verifier.notions.renyi.divergence.terms_of`, and the number of cases."""
    seen: dict[tuple[int, int], tuple] = {}
    out: list[tuple[Mapping, Terms | None]] = []
    count = 0
    for case in cases:
        count += case.count
        if case.laws is None:
            raise InvalidArgument("Rényi notions need the output laws of each pair")
        p, q = case.laws
        key = (id(p), id(q))
        if key not in seen:
            seen[key] = (p, q)  # kept alive, so the ids stay theirs
            out.append((case.label, terms_of(p, q)))
    return out, count


def rdp_result(pairs: Sequence[tuple[Mapping, Terms | None]], cases: int, claim: RenyiClaim,
               at_epsilon: Epsilon | None = None, at_delta: mpq | None = None) -> RdpResult:
    """The tight ``D_α`` per order over ``pairs``, exactly, against the claim."""
    rows = []
    first: dict[Terms | None, Mapping] = {}  # pairs with equal canonical terms: one moment
    for lab, t in pairs:
        first.setdefault(canonical(t), lab)
    for i, a in enumerate(claim.orders):
        worst: Renyi | None = None
        label: Mapping = {}
        for t, lab in first.items():
            v = Renyi.of_moment(a, moment(t, a))
            if worst is None or v.compare(worst) > 0:
                worst, label = v, lab
        if worst is None:  # no pair: the relation is empty, every divergence bound holds
            worst, label = Renyi.of_moment(a, mpq(1)), VACUOUS
        bound = claim.bound(i)
        rows.append(OrderValue(a, worst, bound, worst.at_most(bound), label))
    # no pair: nothing to convert (δ = 0 at every ε, vacuously)
    return RdpResult(tuple(rows), all(r.holds for r in rows), cases,
                     rdp_conversions([r.value for r in rows], at_epsilon, at_delta)
                     if pairs else ())


def rdp_conversions(values: Sequence[Renyi], at_epsilon: Epsilon | None,
                    at_delta: mpq | None) -> tuple[tuple[str, Conversion], ...]:
    """The best converted ε at the query's δ (each source) and δ at its ε, over the orders."""
    out = []
    if at_delta is not None and at_delta > 0 and values:
        for source in (CKS_RDP, MIRONOV):
            out.append(("epsilon", _least(rdp_epsilon(v, at_delta, source) for v in values)))
    if at_epsilon is not None and values:
        out.append(("delta", _least(rdp_delta(v, at_epsilon) for v in values)))
    return tuple(out)


def _least(conversions: Iterable[Conversion]) -> Conversion:
    """The smallest of valid bounds (exact ones compared exactly; enclosures by their upper
    ends — any of them is a valid bound, the choice only picks the one shown)."""
    best: Conversion | None = None
    for c in conversions:
        if best is None or _key_less(c, best):
            best = c
    assert best is not None
    return best


def _key_less(a: Conversion, b: Conversion) -> bool:
    va, vb = a.value, b.value
    if isinstance(va, mpq) and isinstance(vb, mpq):
        return va < vb
    if isinstance(va, ScaledLog) and isinstance(vb, ScaledLog):
        return va.compare(vb) < 0
    return _upper(va) < _upper(vb)


def _upper(v: object) -> mpq:
    if isinstance(v, mpq):
        return v
    if getattr(v, "infinite", False):
        return mpq(10) ** 100
    return v.enclose(128)[1]  # type: ignore[attr-defined]


def zcdp_result(pairs: Sequence[tuple[Mapping, Terms | None]], cases: int, rho: mpq,
                at_epsilon: Epsilon | None = None, at_delta: mpq | None = None, *,
                parts: Sequence[tuple[Mapping, Sequence[tuple[int, Terms | None]]]] | None = None,
                reason: str = "certified branch and bound over α (D_α nondecreasing in α)",
                progress: Progress | None = None) -> ZcdpResult:
    """ρ-zCDP over ``pairs``: refuted by any pair, proved when every pair is, else undecided;
    ``[lo, hi]`` encloses the tight ρ* and the pair named is the first (in enumeration order)
    whose certified lower bound is the largest. ``parts`` replaces ``pairs`` for a
    composition: per pair, ``(copies, terms)`` of each component, whose divergences add.

    Pairs with equal canonical parts (:func:`~.divergence.canonical`) are searched once; the
    others in decreasing order of their KL lower bound, each stopped once its upper bound
    falls to the largest lower bound found (it cannot be the worst pair). ``progress(done,
    total)`` is called after each search."""
    summed = parts if parts is not None else [(lab, ((1, t),)) for lab, t in pairs]
    if not summed:  # no pair: the claim holds vacuously, nothing to convert
        return ZcdpResult(rho, True, mpq(0), mpq(0), mpq(0), False, "no pair", VACUOUS,
                          cases, 0, (), "the neighbouring relation has no pair")
    for lab, each in summed:
        if any(t is None for m, t in each if m):
            return ZcdpResult(rho, False, mpq(0), mpq(0), None, True, "every α > 1", lab,
                              cases, 0, (), "D_α = +∞: an output of M(x) is "
                                            "impossible under M(y)")
    first: dict[tuple, int] = {}  # canonical parts → the first pair with them
    distinct: list[tuple[int, tuple]] = []
    for j, (_, each) in enumerate(summed):
        key = parts_key(each)
        if key not in first:
            first[key] = j
            distinct.append((j, key))
    estimate = {j: sum((m * kl_bounds(t, 64)[0] for m, t in key), mpq(0))
                for j, key in distinct}
    distinct.sort(key=lambda jk: (-estimate[jk[0]], jk[0]))
    lo, hi, best, at, evaluations = mpq(0), mpq(0), -1, "—", 0
    verdicts = []
    for done, (j, key) in enumerate(distinct, 1):
        b = sup_ratio_sum(key, rho, floor=lo if best >= 0 else None)
        evaluations += b.evaluations
        verdicts.append(b.holds)
        if best < 0 or b.lo > lo or (b.lo == lo and j < best):
            lo, at, best = b.lo, b.describe_at(), j
        hi = max(hi, b.hi)
        if progress is not None:
            progress(done, len(distinct))
    holds = False if lo > rho else None if None in verdicts else True
    exact = lo if lo == hi else None
    return ZcdpResult(rho, holds, lo, hi, exact, False, at, summed[best][0], cases,
                      evaluations, zcdp_conversions(hi, at_epsilon, at_delta), reason)


def zcdp_conversions(rho: mpq, at_epsilon: Epsilon | None, at_delta: mpq | None
                     ) -> tuple[tuple[str, Conversion], ...]:
    """(ε, δ) from ρ-zCDP at the query's δ and ε (``rho`` an upper bound on the tight ρ*)."""
    out = []
    if at_delta is not None and 0 < at_delta < 1:
        out += [("epsilon", zcdp_epsilon(rho, at_delta, CKS_ZCDP)),
                ("epsilon", zcdp_epsilon(rho, at_delta, BUN_STEINKE))]
    if at_epsilon is not None:
        out.append(("delta", zcdp_delta(rho, at_epsilon)))
    return tuple(out)


def renyi_report(cases: Iterable[Case], notions: Sequence[str], claim: RenyiClaim,
                 info: tuple[str, ...] = (), progress: Progress | None = None) -> RenyiReport:
    """``rdp`` and/or ``zcdp`` (``notions``) over the ordered pairs of ``cases``;
    ``progress(done, total)`` follows zcdp's searches, pair by pair."""
    pairs, count = distinct_pairs(cases)
    results: dict[str, RdpResult | ZcdpResult] = {}
    for name in notions:
        if name == "rdp":
            results["rdp"] = rdp_result(pairs, count, claim, claim.epsilon, claim.delta)
        elif name == "zcdp":
            if claim.rho is None:
                raise InvalidArgument("zcdp needs the claimed rho", argument="rho")
            results["zcdp"] = zcdp_result(pairs, count, claim.rho, claim.epsilon, claim.delta,
                                          progress=progress)
        else:
            raise InvalidArgument(f"notion {name!r} is not a Rényi notion "
                                  f"({', '.join(RENYI_NOTIONS)})", argument="notions",
                                  value=name)
    return RenyiReport(results, info + (f"{len(pairs)} distinct pairs of output laws",))


def make_claim(notions: Sequence[str], orders: Sequence[int] = (), rho: object = None,
               budgets: Sequence[object] | None = None, epsilon: object = None,
               delta: object = None) -> RenyiClaim:
    """The :class:`RenyiClaim` of the Python API's arguments, each read exactly: only Rényi
    notions, each once; zcdp needs ``rho``; rdp needs orders and ``rho`` or ``budgets``."""
    for name in notions:
        if name not in RENYI_NOTIONS:
            raise InvalidArgument(f"notion {name!r} is not a Rényi notion "
                                  f"({', '.join(RENYI_NOTIONS)})", argument="notions",
                                  value=name)
    if not notions or len(set(notions)) != len(notions):
        raise InvalidArgument("name rdp and/or zcdp, each once", argument="notions",
                              value=list(notions))
    if "rdp" in notions and not orders:
        raise InvalidArgument("rdp needs the orders α to decide (e.g. orders=[2, 3, 4])",
                              argument="orders", value=list(orders))
    if "rdp" not in notions and orders:
        raise InvalidArgument("orders apply to rdp; zcdp ranges over every α > 1",
                              argument="orders", value=list(orders))
    if "zcdp" in notions and rho is None:
        raise InvalidArgument("zcdp needs the claimed rho", argument="rho")
    return RenyiClaim(tuple(orders), None if rho is None else nonnegative(rho, "rho"),
                      None if budgets is None else
                      tuple(parse_epsilon(b, "rdp_epsilon") for b in budgets),
                      None if epsilon is None else parse_epsilon(epsilon),
                      None if delta is None else probability(delta, "delta"))


def check_renyi(mech: Mechanism, relation: Relation, notions: Sequence[str] = ("rdp",), *,
                orders: Sequence[int] = (), rho: object = None,
                budgets: Sequence[object] | None = None, epsilon: object = None,
                delta: object = None, budget: Budget | None = None,
                engine: str = "auto") -> RenyiReport:
    """Decide ``rdp``/``zcdp`` of ``mech`` under ``relation``; the conversions to (ε, δ) are
    taken at ``epsilon`` and ``delta`` where given.

    >>> from verifier.model.mechanisms import randomized_response
    >>> from verifier.notions.dp.neighbours import replace_one
    >>> r = check_renyi(randomized_response("3/4", [0, 1]), replace_one([0, 1], 1),
    ...                 orders=[2, 3], rho="1")
    >>> [str(o.value) for o in r.results["rdp"].orders], r.holds
    (['ln(7/3)', 'ln(61/9)/2'], True)
    """
    claim = make_claim(notions, orders, rho, budgets, epsilon, delta)
    mech = as_mechanism(mech)
    return renyi_report(relation_cases(relation, mech, budget, engine), notions, claim,
                        (f"neighbours {relation.describe()}",))
