"""Rényi DP and zCDP of an independent composition ``M_1 × … × M_k``, exactly.

For neighbours ``x ~ y`` the composed laws are products, ``P = Π_j P_j`` and ``Q = Π_j Q_j``,
and the Rényi moment of a product is the product of the moments::

    S_α(P‖Q) = Σ_{o_1…o_k} Π_j P_j(o_j)^α Q_j(o_j)^{1−α} = Π_j S_α(P_j‖Q_j),

so ``D_α`` of the composition is the sum of the parts' ``D_α`` (Mironov 2017, "Rényi
Differential Privacy", Proposition 1, is the same fact as a composition theorem). The tight
``rdp`` value at an integer order is therefore ``max_{x ~ y} ln(Π_j S_α^j)/(α − 1)``, exact,
computed from the parts' laws without ever building the product law; the tight zCDP parameter
is ``max_{x ~ y} sup_α Σ_j D_α^j/α``, enclosed by
:func:`~verifier.notions.renyi.zcdp.sup_ratio_sum` (for ``k`` runs of one mechanism it is
``k`` times the one-run value).

The product's digits grow with ``k·α``; they are estimated before any product is taken and
refused beyond :data:`MAX_MOMENT_BITS`.
"""

from __future__ import annotations

from collections.abc import Sequence

from gmpy2 import mpq

from verifier.core.budget import Budget
from verifier.core.errors import BudgetExceeded
from verifier.model.mechanisms import Mechanism
from verifier.model.program_mechanism import as_mechanism
from verifier.notions.dp.neighbours import Relation, relation_pairs
from verifier.notions.renyi.check import (
    VACUOUS,
    OrderValue,
    Progress,
    RdpResult,
    RenyiClaim,
    RenyiReport,
    ZcdpResult,
    make_claim,
    rdp_conversions,
    zcdp_result,
)
from verifier.notions.renyi.divergence import Renyi, Terms, moment, parts_key, terms_of

__all__ = ["compose_renyi", "renyi_of_composition", "MAX_MOMENT_BITS"]

MAX_MOMENT_BITS = 1 << 26  # bits of one composed moment's numerator and denominator


def _parts(mechs: Sequence[Mechanism], x: tuple, y: tuple) -> list[tuple[int, Terms | None]]:
    """``(multiplicity, terms)`` per distinct mechanism object of ``mechs`` on ``x`` vs ``y``
    (a k-fold list repeats one object: its laws are computed once)."""
    count: dict[int, int] = {}
    first: dict[int, Mechanism] = {}
    for m in mechs:
        count[id(m)] = count.get(id(m), 0) + 1
        first.setdefault(id(m), m)
    return [(count[i], terms_of(m(x), m(y))) for i, m in first.items()]


def _product_moment(parts: Sequence[tuple[int, Terms | None]], alpha: int) -> mpq | None:
    """``Π_j S_α(P_j‖Q_j)^{m_j}`` (``None``: ``+∞``), its size checked first."""
    moments = []
    for m, t in parts:
        s = moment(t, alpha)
        if s is None:
            return None
        moments.append((m, s))
    bits = sum(m * (s.numerator.bit_length() + s.denominator.bit_length()) for m, s in moments)
    if bits > MAX_MOMENT_BITS:
        raise BudgetExceeded(f"the composed Rényi moment at order {alpha} needs about {bits} "
                             f"bits (more than {MAX_MOMENT_BITS}): compose fewer runs or ask "
                             f"for lower orders", argument="orders", value=alpha)
    out = mpq(1)
    for m, s in moments:
        out *= s ** m
    return out


def renyi_of_composition(mechs: Sequence[Mechanism], relation: Relation,
                         notions: Sequence[str], claim: RenyiClaim,
                         budget: Budget | None = None,
                         progress: Progress | None = None) -> RenyiReport:
    """``rdp``/``zcdp`` of ``M_1 × … × M_k`` (``mechs``) under ``relation``; pairs whose
    parts have equal canonical terms share their moments; ``progress(done, total)`` follows
    zcdp's searches."""
    pairs = [((x, y), _parts(mechs, x, y)) for x, y in relation_pairs(relation, budget)]
    key = "inputs" if relation.inputs else "databases"

    def label(xy: tuple) -> dict:
        return {"relation": relation.name, key: [list(xy[0]), list(xy[1])]}

    results: dict[str, RdpResult | ZcdpResult] = {}
    if "rdp" in notions:
        rows = []
        first: dict[tuple, tuple] = {}  # canonical parts → the first pair with them
        for xy, parts in pairs:
            first.setdefault(parts_key(parts), (xy, parts))
        for i, a in enumerate(claim.orders):
            worst: Renyi | None = None
            at: tuple = ()
            for xy, parts in first.values():
                v = Renyi.of_moment(a, _product_moment(parts, a))
                if worst is None or v.compare(worst) > 0:
                    worst, at = v, xy
            if worst is None:  # an empty relation: every bound holds
                worst = Renyi.of_moment(a, mpq(1))
            bound = claim.bound(i)
            rows.append(OrderValue(a, worst, bound, worst.at_most(bound),
                                   label(at) if at else VACUOUS))
        results["rdp"] = RdpResult(tuple(rows), all(r.holds for r in rows), len(pairs),
                                   rdp_conversions([r.value for r in rows], claim.epsilon,
                                                   claim.delta) if pairs else ())
    if "zcdp" in notions:
        assert claim.rho is not None  # make_claim requires it for zcdp
        results["zcdp"] = zcdp_result(
            (), len(pairs), claim.rho, claim.epsilon, claim.delta,
            parts=[(label(xy), parts) for xy, parts in pairs],
            reason="certified branch and bound over α of the parts' summed divergences",
            progress=progress)
    return RenyiReport(results, (f"neighbours {relation.describe()}",
                                 f"{len(mechs)} mechanisms composed independently"))


def compose_renyi(mechs: Sequence[Mechanism], relation: Relation,
                  notions: Sequence[str] = ("rdp",), *, orders: Sequence[int] = (),
                  rho: object = None, budgets: Sequence[object] | None = None,
                  epsilon: object = None, delta: object = None,
                  budget: Budget | None = None) -> RenyiReport:
    """Decide ``rdp``/``zcdp`` of the independent composition of ``mechs`` under
    ``relation`` (the claim as for :func:`~verifier.notions.renyi.check.check_renyi`).

    >>> from verifier.model.mechanisms import randomized_response
    >>> from verifier.notions.dp.neighbours import replace_one
    >>> rr = randomized_response("3/4", [0, 1])
    >>> r = compose_renyi([rr] * 3, replace_one([0, 1], 1), orders=[2], rho="2")
    >>> str(r.results["rdp"].orders[0].value)  # S_2 = (7/3)^3
    'ln(343/27)'
    """
    claim = make_claim(notions, orders, rho, budgets, epsilon, delta)
    mechs = [as_mechanism(m, f"mechs[{j}]") for j, m in enumerate(mechs)]
    return renyi_of_composition(mechs, relation, notions, claim, budget)
