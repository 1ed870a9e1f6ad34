"""OpenDP (``pip install -e '.[opendp]'``): its measurements audited against their own maps.

For each case the adapter builds the measurement with the library (``contrib`` features),
reads the claim from the library itself — ``meas.map(d_in)``, a double ε or a pair (ε, δ),
read exactly as the binary64 rationals they are — and decides it on the law the
implementation samples from (read from OpenDP 0.16's Rust source; see
:mod:`~verifier.audit.adapters.opendp_laws` and
:mod:`~verifier.audit.adapters.opendp_threshold`), over every pair of inputs the library's
input metric calls neighbours at ``d_in``:

* ``make_randomized_response_bool``, ``make_randomized_response``,
  ``make_randomized_response_bitvec``: finite rational laws, ``DiscreteDistance`` (every two
  different inputs are neighbours), decided by plrv's exact DP engine
  (:func:`~verifier.notions.dp.neighbours.check_relation`);
* ``make_laplace`` and ``make_geometric`` without bounds, on an integer: ``v + Z``, ``Z``
  discrete Laplace at the double scale read exactly (CKS20's exact sampler), decided with
  exponential sums (:func:`~verifier.notions.dp.noise_check.check_noise_dp`);
* ``make_laplace_threshold`` on a map of integer counts (``L01Inf``, a missing key counting
  as 0).

A ``sound`` verdict is a proof that the tight value is at most the claim; ``unsound`` a proof
that it exceeds it, with the inputs (and outputs) that witness it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from gmpy2 import mpq

from verifier.audit.adapters.opendp_laws import bit_vectors, rr_bitvec, rr_bool, rr_categorical
from verifier.audit.adapters.opendp_sample import law, sample
from verifier.audit.adapters.opendp_threshold import threshold_answer
from verifier.audit.case import AuditCase, AuditRow, Enclosure
from verifier.audit.judge import ratio, read_double
from verifier.audit.registry import Adapter
from verifier.core.binary64 import F64
from verifier.core.certified import Certified
from verifier.core.distribution import Dist
from verifier.core.epsilon import Epsilon
from verifier.core.errors import InvalidArgument
from verifier.model.expnoise import discrete_laplace
from verifier.model.mechanisms import mechanism
from verifier.notions.dp.neighbours import check_relation, predicate_relation
from verifier.notions.dp.noise_check import check_noise_dp

__all__ = ["ADAPTER", "opendp", "double_arg", "NON_MEMBER"]

NON_MEMBER = "a value outside the categories"


def opendp() -> Any:
    """``opendp.prelude`` with the ``contrib`` features enabled."""
    import opendp.prelude as dp

    dp.enable_features("contrib")
    return dp


def _version() -> str:
    import opendp

    return str(getattr(opendp, "__version__", "unknown"))


def double_arg(case: AuditCase, key: str) -> F64:
    """``args.key`` as the double handed to the library: ``{f64 = "…"}``, or an integer
    that is a double exactly."""
    value = case.arg(key)
    if isinstance(value, F64):
        return value
    if isinstance(value, int) and not isinstance(value, bool) and float(value) == value:
        return F64(float(value))
    raise InvalidArgument(f"args.{key} = {value!r:.40}: the library takes a double; write "
                          f'{{f64 = "…"}}', argument=f"args.{key}", value=value)


def _int_arg(case: AuditCase, key: str, value: object | None = None) -> int:
    v = case.arg(key) if value is None else value
    if isinstance(v, bool) or not isinstance(v, int):
        raise InvalidArgument(f"{key} = {v!r:.40} is not an integer", argument=key, value=v)
    return v


def _bool_option(case: AuditCase, key: str) -> bool:
    v = case.args.get(key, False)
    if not isinstance(v, bool):
        raise InvalidArgument(f"args.{key} = {v!r:.40} is not a boolean",
                              argument=f"args.{key}", value=v)
    return v


def _claim_epsilon(value: object) -> tuple[F64 | Epsilon, Epsilon]:
    """A double ε the library returned: as read, and as an exact Epsilon."""
    d = read_double(float(value))  # type: ignore[arg-type]
    if isinstance(d, F64):
        if d.exact < 0:
            raise InvalidArgument(f"the library returned a negative ε = {d}", argument="d_in")
        return d, Epsilon.of_nats(d.exact)
    if d == float("inf"):
        return Epsilon.INF, Epsilon.INF
    raise InvalidArgument(f"the library returned ε = {d!r}", argument="d_in", value=d)


def _discrete_d_in(case: AuditCase) -> int:
    d = _int_arg(case, "d_in", case.d_in if case.d_in is not None else 1)
    if d < 1:
        raise InvalidArgument(f"d_in = {d}: under DiscreteDistance only different inputs "
                              f"(distance 1) are compared; give d_in ≥ 1", argument="d_in",
                              value=d)
    return d


def _verdict(holds: bool | None) -> str:
    return "unknown" if holds is None else "sound" if holds else "unsound"


# ------------------------------------------------------------------ finite rational laws

def _finite_row(case: AuditCase, claim: F64 | Epsilon, eps: Epsilon,
                universe: tuple[Hashable, ...], law_at: Callable[[Hashable], Dist],
                notes: tuple[str, ...]) -> AuditRow:
    """Decide ε-DP of ``law_at`` over every pair of different inputs (DiscreteDistance)."""
    mech = mechanism(lambda x: law_at(x[0]), name=case.constructor)
    relation = predicate_relation("discrete-distance", lambda x, y: True,
                                  [(u,) for u in universe])
    result = check_relation(mech, relation, eps, 0)
    tight_eps = check_relation(mech, relation, Epsilon.INF, 0).epsilon if eps.infinite \
        else result.epsilon
    witness = dict(result.witness)
    pair: Any = witness.pop("inputs", None)
    out: dict[str, object] = {"inputs": tuple(x[0] for x in pair) if pair else ()}
    out.update(witness)
    return AuditRow(case, claim, mpq(0), result.delta, tight_eps, _verdict(result.holds),
                    ratio(claim, tight_eps), "exact", out, notes)


def _rr_bool(case: AuditCase) -> AuditRow:
    case.only(("prob", "constant_time"), d_in=True)
    dp = opendp()
    prob = double_arg(case, "prob")
    meas = dp.m.make_randomized_response_bool(prob=prob.double,
                                              constant_time=_bool_option(case, "constant_time"))
    claim, eps = _claim_epsilon(meas.map(_discrete_d_in(case)))
    return _finite_row(case, claim, eps, (False, True), lambda x: rr_bool(prob.exact, bool(x)),
                       (f"prob = {prob} = {prob.exact} exactly (Bernoulli of the double)",))


def _categories(case: AuditCase) -> tuple[Hashable, ...]:
    cats = case.arg("categories")
    if not isinstance(cats, tuple) or len(cats) < 2:
        raise InvalidArgument("args.categories must list at least two categories",
                              argument="args.categories", value=cats)
    kinds = {type(c) for c in cats}
    if kinds not in ({int}, {str}):
        raise InvalidArgument("args.categories: integers or strings, all of one type",
                              argument="args.categories", value=cats)
    return tuple(dict.fromkeys(cats))  # the library keeps them as a set


def _outside(cats: tuple[Hashable, ...]) -> Hashable:
    if isinstance(cats[0], int):
        return max(int(c) for c in cats) + 1  # type: ignore[call-overload]
    return "".join(str(c) for c in cats) + "#"


def _rr_categorical(case: AuditCase) -> AuditRow:
    case.only(("categories", "prob"), d_in=True, inputs=True)
    dp = opendp()
    cats = _categories(case)
    prob = double_arg(case, "prob")
    meas = dp.m.make_randomized_response(categories=list(cats), prob=prob.double)
    claim, eps = _claim_epsilon(meas.map(_discrete_d_in(case)))
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


def _bits(x: object) -> tuple[int, ...]:
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


def _rr_bitvec(case: AuditCase) -> AuditRow:
    case.only(("max_weight", "f", "constant_time"), d_in=True, inputs=True)
    dp = opendp()
    m = _int_arg(case, "args.max_weight", case.arg("max_weight"))
    f = double_arg(case, "f")
    meas = dp.m.make_randomized_response_bitvec(
        dp.bitvector_domain(max_weight=m), dp.discrete_distance(), f=f.double,
        constant_time=_bool_option(case, "constant_time"))
    claim, eps = _claim_epsilon(meas.map(_discrete_d_in(case)))
    flip = bitvec_flip(f)
    if case.inputs is not None:
        universe = tuple(dict.fromkeys(_bits(x) for x in case.inputs))
        for x in universe:
            if len(x) % 8 or sum(x) > m:
                raise InvalidArgument(f"inputs: {list(x)} is not in the library's domain "
                                      f"as Python passes it (whole bytes, at most {m} ones)",
                                      argument="inputs", value=list(x))
        note = "inputs: the vectors given"
    else:
        universe = bit_vectors(8, m)
        note = (f"inputs: every vector of 8 bits (one byte) with at most {m} ones; the "
                f"library's domain bounds no length, and vectors of different lengths are "
                f"neighbours whose outputs differ in length (ε = ∞): list them in inputs "
                f"to audit that")
    return _finite_row(case, claim, eps, universe, lambda x: rr_bitvec(_bits(x), flip),
                       (f"f = {f}; each bit flipped with probability f/2 = {flip}", note))


# ------------------------------------------------------------- discrete Laplace on integers

def _scale(case: AuditCase) -> F64:
    """``args.scale``, a positive double (the granularity ``k`` applies to floats only, and
    is refused: integer inputs take none)."""
    scale = double_arg(case, "scale")
    if scale.exact <= 0:
        raise InvalidArgument(f"args.scale = {scale}: plrv models a positive scale",
                              argument="args.scale", value=str(scale))
    return scale


def _laplace_integer(case: AuditCase) -> AuditRow:
    case.only(("scale",), d_in=True)
    dp = opendp()
    scale = _scale(case)
    make = getattr(dp.m, case.constructor)
    meas = make(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=scale.double)
    d_in = _int_arg(case, "d_in", case.d_in if case.d_in is not None else 1)
    if d_in < 1:
        raise InvalidArgument(f"d_in = {d_in} must be ≥ 1", argument="d_in", value=d_in)
    claim, eps = _claim_epsilon(meas.map(d_in))
    noise = discrete_laplace(scale.exact)
    result = check_noise_dp(noise, (0, d_in), 1, eps, mpq(0))
    tight = result.epsilon_value
    if tight is None:  # pragma: no cover - the unclamped discrete Laplace has ε = Δ/scale
        raise InvalidArgument("the tight ε was not found exactly", argument="args.scale")
    holds = result.holds
    c, _ = result.witness
    witness = {"inputs": (c, 0), "outputs": "every output (loss ±d_in/scale)"}
    return AuditRow(case, claim, mpq(0), Certified(result.delta_enclosure.enclose), tight,
                    _verdict(holds), ratio(claim, tight), "exact", witness,
                    (f"scale = {scale} = {scale.exact} exactly (the sampler takes the "
                     f"double as a rational)",
                     f"tight δ at the claimed ε: {result.delta or '0'}"))


# -------------------------------------------------------------------- Laplace threshold

def _threshold(case: AuditCase) -> AuditRow:
    case.only(("scale", "threshold"), d_in=True)
    dp = opendp()
    scale = _scale(case)
    t = _int_arg(case, "args.threshold", case.arg("threshold"))
    d = case.d_in
    if not (isinstance(d, tuple) and len(d) == 3 and all(
            isinstance(x, int) and not isinstance(x, bool) for x in d)):
        raise InvalidArgument(f"d_in = {d!r}: the L01Inf distance is three integers "
                              f"(l0, l1, linf)", argument="d_in", value=d)
    l0, l1, li = d
    if l0 != 1:
        raise InvalidArgument(f"d_in = {list(d)}: plrv decides one changed key (l0 = 1); "
                              f"several keys are a composition it does not model here",
                              argument="d_in", value=list(d))
    meas = dp.m.make_laplace_threshold(
        dp.map_domain(dp.atom_domain(T=str), dp.atom_domain(T=int)),
        dp.l01inf_distance(dp.absolute_distance(T=int)), scale=scale.double, threshold=t)
    e_claim, d_claim = meas.map(d)
    claim, eps = _claim_epsilon(e_claim)
    delta_claim = read_double(float(d_claim))
    if not isinstance(delta_claim, F64) or not 0 <= delta_claim.exact <= 1:
        raise InvalidArgument(f"the library returned δ = {d_claim!r}", argument="d_in")
    answer = threshold_answer(scale.exact, t, min(l1, li), eps, delta_claim.exact)
    left, right = answer.witness.maps("a")
    tight_eps: Epsilon | Enclosure | None
    if answer.epsilon_infinite:
        tight_eps = Epsilon.INF
    elif answer.epsilon_bounds is None:
        tight_eps = None
    else:
        lo, hi = answer.epsilon_bounds
        tight_eps = Enclosure(Epsilon.of_nats(lo), Epsilon.of_nats(hi))
    witness = {"inputs": (left, right),
               "outputs": "every released value of key 'a' (v + Z ≥ T)"
               if answer.witness.epsilon_free else "outputs where the loss exceeds ε",
               "delta_exact": str(answer.delta)}
    notes = (f"scale = {scale} = {scale.exact} exactly; β = e^(−1/scale)",
             f"tight δ at the claimed ε = {answer.delta} ≈ {answer.delta_certified.approx()}"
             f" against the claimed {delta_claim} (pair {left} against {right})",
             "tight δ is exact (an exponential sum, compared by the Lindemann–Weierstrass "
             "zero test and certified signs); the number shown is its enclosure")
    return AuditRow(case, claim, delta_claim, answer.delta_certified, tight_eps,
                    _verdict(answer.holds), ratio(claim, tight_eps),
                    "exact" if answer.delta_decided else "enclosure", witness, notes)


ADAPTER = Adapter(
    library="opendp",
    extra="opendp",
    constructors={
        "make_randomized_response_bool": _rr_bool,
        "make_randomized_response": _rr_categorical,
        "make_randomized_response_bitvec": _rr_bitvec,
        "make_laplace": _laplace_integer,
        "make_geometric": _laplace_integer,
        "make_laplace_threshold": _threshold,
    },
    sample=sample,
    law=law,
    version=_version,
)
