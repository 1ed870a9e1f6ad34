"""OpenDP's randomized response (bool, categorical, bit-vector) decided exactly: the finite
rational laws of :mod:`~verifier.audit.adapters.opendp_laws` under ``DiscreteDistance`` (every
two different inputs are neighbours), by plrv's exact DP engine
(:func:`~verifier.notions.dp.neighbours.check_relation`)."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from gmpy2 import mpq

from verifier.audit.adapters import in_range
from verifier.audit.adapters.opendp_args import (
    I32,
    U32,
    bool_option,
    claim_epsilon,
    discrete_d_in,
    double_arg,
    int_arg,
    opendp,
    verdict,
)
from verifier.audit.adapters.opendp_laws import rr_bitvec, rr_bool, rr_categorical
from verifier.audit.case import AuditCase, AuditRow
from verifier.audit.judge import ratio
from verifier.core.binary64 import F64
from verifier.core.distribution import Dist
from verifier.core.epsilon import Epsilon
from verifier.core.errors import InvalidArgument
from verifier.model.mechanisms import mechanism
from verifier.notions.dp.neighbours import check_relation, predicate_relation

__all__ = ["rr_bool_row", "rr_categorical_row", "rr_bitvec_row", "bitvec_flip", "categories",
           "bits"]


def _finite_row(case: AuditCase, claim: F64 | Epsilon, eps: Epsilon,
                universe: tuple[Hashable, ...], law_at: Callable[[Hashable], Dist],
                notes: tuple[str, ...]) -> AuditRow:
    """Decide ε-DP of ``law_at`` over every pair of different inputs (DiscreteDistance)."""
    mech = mechanism(lambda x: law_at(x[0]), name=case.constructor)
    relation = predicate_relation("discrete-distance", lambda x, y: True,
                                  [(u,) for u in universe])
    result = check_relation(mech, relation, eps, 0)
    tight_eps = result.epsilon  # the tight ε at δ = 0, whatever the claimed ε
    witness = dict(result.witness)
    pair: Any = witness.pop("inputs", None)
    out: dict[str, object] = {"inputs": tuple(x[0] for x in pair) if pair else ()}
    out.update(witness)
    if eps.infinite:  # MaxDivergence: D∞(P‖Q) ≤ ∞ always holds, whatever the supports
        return AuditRow(case, claim, mpq(0), None, tight_eps, "sound", None, "exact", out,
                        (*notes, "the library claims ε = ∞: vacuous (the max divergence is "
                                 "at most ∞ for every pair), hence sound"))
    return AuditRow(case, claim, mpq(0), result.delta, tight_eps, verdict(result.holds),
                    ratio(claim, tight_eps), "exact", out, notes)


def rr_bool_row(case: AuditCase) -> AuditRow:
    case.only(("prob", "constant_time"), d_in=True)
    dp = opendp()
    prob = in_range(double_arg(case, "prob"), "args.prob", ge=mpq(1, 2), le=1,
                    why=" (the library's range)")
    meas = dp.m.make_randomized_response_bool(prob=prob.double,
                                              constant_time=bool_option(case, "constant_time"))
    claim, eps = claim_epsilon(meas.map(discrete_d_in(case)))
    return _finite_row(case, claim, eps, (False, True), lambda x: rr_bool(prob.exact, bool(x)),
                       (f"prob = {prob} = {prob.exact} exactly (Bernoulli of the double)",))


def categories(case: AuditCase) -> tuple[Hashable, ...]:
    cats = case.arg("categories")
    if not isinstance(cats, tuple) or len(cats) < 2:
        raise InvalidArgument("args.categories must list at least two categories",
                              argument="args.categories", value=cats)
    kinds = {type(c) for c in cats}
    if kinds not in ({int}, {str}):
        raise InvalidArgument("args.categories: integers or strings, all of one type",
                              argument="args.categories", value=cats)
    twice = next((c for i, c in enumerate(cats) if c in cats[:i]), None)
    if twice is not None:
        raise InvalidArgument(f"args.categories: {twice!r:.40} is listed twice",
                              argument="args.categories", value=cats)
    if kinds == {int}:
        for c in cats:
            int_arg(case, "args.categories", c, *I32)
    return cats


def _outside(cats: tuple[Hashable, ...]) -> Hashable:
    if isinstance(cats[0], int):
        return max(int(c) for c in cats) + 1  # type: ignore[call-overload]
    return "".join(str(c) for c in cats) + "#"


def rr_categorical_row(case: AuditCase) -> AuditRow:
    case.only(("categories", "prob"), d_in=True, inputs=True)
    dp = opendp()
    cats = categories(case)
    # float ok: the library's own bound, 1/t rounded to a double (it checks p ≥ fl(1/t))
    prob = in_range(double_arg(case, "prob"), "args.prob", ge=F64(1 / len(cats)), le=1,
                    why=f" (the library's range for {len(cats)} categories: p ≥ fl(1/t))")
    meas = dp.m.make_randomized_response(categories=list(cats), prob=prob.double)
    claim, eps = claim_epsilon(meas.map(discrete_d_in(case)))
    if case.inputs is not None:
        universe = tuple(dict.fromkeys(case.inputs))
        bad = [x for x in universe if type(x) is not type(cats[0])]
        if bad or len(universe) < 2:
            raise InvalidArgument("inputs: at least two values of the categories' type",
                                  argument="inputs", value=case.inputs)
        note = "inputs: the values given"
    else:
        universe = (*cats, _outside(cats))
        note = (f"inputs: the {len(cats)} categories and one value outside them "
                f"({_outside(cats)!r}; every such value has the same law, uniform over the "
                f"categories)")
    return _finite_row(case, claim, eps, universe,
                       lambda x: rr_categorical(cats, prob.exact, x),
                       (f"prob = {prob} = {prob.exact} exactly", note))


def bits(x: object) -> tuple[int, ...]:
    if isinstance(x, tuple) and all(b in (0, 1) and not isinstance(b, bool) for b in x):
        return tuple(int(b) for b in x)
    raise InvalidArgument(f"inputs: {x!r:.40} is not a list of bits (0 or 1)",
                          argument="inputs", value=x)


def bitvec_flip(f: F64) -> mpq:
    """``f.inf_div(2)``: exact when ``f/2`` is a double (refused otherwise)."""
    half = F64(f.double / 2)
    if half.exact != f.exact / 2:
        raise InvalidArgument(f"args.f = {f}: f/2 is not a double, so the library's rounded "
                              f"flip probability is not modelled", argument="args.f",
                              value=str(f))
    return half.exact


def rr_bitvec_row(case: AuditCase) -> AuditRow:
    """Bit-vector randomized response. ``BitVectorDomain`` bounds the weight, not the length,
    and under ``DiscreteDistance`` two vectors of different lengths are neighbours; the output
    is as long as the input, so their laws have disjoint supports: ε = ∞ and δ = 1 at every
    finite ε. Without ``inputs`` the universe is the library's domain as Python passes it
    (whole bytes), so that pair decides the case; ``inputs`` of one length audit a
    fixed-length use, exactly, over every pair of them."""
    case.only(("max_weight", "f", "constant_time"), d_in=True, inputs=True)
    dp = opendp()
    m = int_arg(case, "args.max_weight", case.arg("max_weight"), *U32)
    f = in_range(double_arg(case, "f"), "args.f", gt=0, le=1, why=" (the library's range)")
    meas = dp.m.make_randomized_response_bitvec(
        dp.bitvector_domain(max_weight=m), dp.discrete_distance(), f=f.double,
        constant_time=bool_option(case, "constant_time"))
    claim, eps = claim_epsilon(meas.map(discrete_d_in(case)))
    flip = bitvec_flip(f)
    flips = f"f = {f}; each bit flipped with probability f/2 = {flip}"
    if case.inputs is None:
        universe: tuple[tuple[int, ...], ...] = ((0,) * 8, (0,) * 16)
        note = ("inputs: the library's domain (vectors of any number of bytes, at most "
                f"{m} ones); give inputs of one length to audit a fixed-length use")
    else:
        universe = tuple(dict.fromkeys(bits(x) for x in case.inputs))
        for x in universe:
            if len(x) % 8 or sum(x) > m:
                raise InvalidArgument(f"inputs: {list(x)} is not in the library's domain "
                                      f"as Python passes it (whole bytes, at most {m} ones)",
                                      argument="inputs", value=list(x))
        note = "inputs: the vectors given"
    lengths = sorted({len(x) for x in universe})
    if len(lengths) > 1:
        short = next(x for x in universe if len(x) == lengths[0])
        long = next(x for x in universe if len(x) == lengths[1])
        holds = eps.infinite
        return AuditRow(case, claim, mpq(0), None if holds else mpq(1), Epsilon.INF,
                        "sound" if holds else "unsound", None, "exact",
                        {"inputs": (short, long),
                         "outputs": f"every output: {lengths[0]} bits against {lengths[1]}"},
                        (flips, note, "vectors of different lengths are neighbours under "
                         "DiscreteDistance and their outputs differ in length: disjoint "
                         "supports, ε = ∞ and δ = 1 at every finite ε"))
    if len(universe) < 2:
        raise InvalidArgument("inputs: list at least two vectors", argument="inputs")
    return _finite_row(case, claim, eps, universe, lambda x: rr_bitvec(bits(x), flip),
                       (flips, note))
