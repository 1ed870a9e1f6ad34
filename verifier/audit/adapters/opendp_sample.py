"""``--conformance`` for OpenDP: draws from the library at a witness input, and the law plrv
decided the case on, over the same outcomes.

Randomized response and the bounded geometric have finite rational laws, given exactly.
Noisy max / top-k has finitely many outcomes with exponential-sum masses; the discrete
Laplace and Gaussian laws (``make_laplace``, ``make_geometric`` without bounds,
``make_gaussian`` on an integer or on a double's lattice, by lattice index, and the Laplace
and Gaussian thresholds) have transcendental masses
and infinitely many outcomes. For the goodness-of-fit test only, the outcomes within ``TAIL``
of the centre (or above the threshold) are kept one by one and the rest pooled into tail
cells, and each mass is the midpoint of its certified enclosure at ``PRECISION`` bits, scaled
to sum to 1. That approximation feeds a statistical test only — which can turn a verdict
``unknown``, never ``sound``; the verdict itself is decided on the exact law.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from gmpy2 import mpq

from verifier.audit.adapters import opendp_args as od
from verifier.audit.adapters import opendp_laws as laws
from verifier.audit.adapters.opendp_exp import geometric_alphas
from verifier.audit.adapters.opendp_float_noise import lattice_draws, lattice_of
from verifier.audit.adapters.opendp_noise import bounds
from verifier.audit.adapters.opendp_noisy_max import top_k_law
from verifier.audit.adapters.opendp_noisy_max_zcdp import softmax_cells
from verifier.audit.adapters.opendp_rr import bits, bitvec_flip, categories
from verifier.audit.case import AuditCase
from verifier.core.binary64 import F64
from verifier.core.distribution import BOTTOM, Dist
from verifier.core.errors import InvalidArgument
from verifier.core.expsum import ExpSum
from verifier.core.theta import Series
from verifier.model.expnoise import ExpNoise, discrete_gaussian, discrete_laplace

__all__ = ["sample", "law", "TAIL", "PRECISION", "NOISE", "TOP_K"]

NOISE = ("make_laplace", "make_geometric", "make_gaussian")  # integer noise on one integer
THRESHOLD = ("make_laplace_threshold", "make_gaussian_threshold")
GAUSSIAN = ("make_gaussian", "make_gaussian_threshold")
TOP_K = ("make_noisy_max", "make_noisy_top_k")

TAIL = 60  # outcomes kept one by one on each side of the centre (above the threshold)
PRECISION = 256  # bits of the enclosures whose midpoints the test uses


def _mid(x: Series, n: Series) -> mpq:
    lo, hi = x.enclose(PRECISION)
    d_lo, d_hi = n.enclose(PRECISION)
    return (lo / d_hi + hi / d_lo) / 2


def _noise_cells(noise: ExpNoise, centre: int) -> Dist:
    n = noise.denominator
    masses: dict[Hashable, mpq] = {o: _mid(noise.numerator(o, centre), n)
                                   for o in range(centre - TAIL, centre + TAIL + 1)}
    masses[("≥", centre + TAIL + 1)] = _mid(noise.at_least(TAIL + 1), n)
    masses[("≤", centre - TAIL - 1)] = _mid(noise.at_most(-TAIL - 1), n)
    return _normalised(masses)


def _normalised(masses: dict[Hashable, mpq]) -> Dist:
    """The approximate masses scaled to sum to 1 exactly (each moves by a relative error of
    the order of the enclosures')."""
    total = sum(masses.values(), mpq(0))
    return Dist({o: m / total for o, m in masses.items()})


def _noise_cell(o: int, centre: int) -> Hashable:
    if o > centre + TAIL:
        return ("≥", centre + TAIL + 1)
    if o < centre - TAIL:
        return ("≤", centre - TAIL - 1)
    return o


def _threshold_value(x: object) -> int | None:
    if not isinstance(x, dict) or len(x) > 1:
        raise InvalidArgument(f"a witness input of the threshold is a map of at most one "
                              f"key, not {x!r:.40}", argument="inputs", value=x)
    return next(iter(x.values())) if x else None


def _threshold_cells(noise: ExpNoise, t: int, v: int | None) -> Dist:
    if v is None:
        return Dist.point(BOTTOM)
    n = noise.denominator
    masses: dict[Hashable, mpq] = {o: _mid(noise.numerator(o, v), n)
                                   for o in range(t, t + TAIL + 1)}
    masses[("≥", t + TAIL + 1)] = _mid(noise.at_least(t + TAIL + 1 - v), n)
    masses[BOTTOM] = _mid(noise.at_most(t - 1 - v), n)
    return _normalised(masses)


def _threshold_cell(out: dict, t: int) -> Hashable:
    if not out:
        return BOTTOM
    (o,) = out.values()
    return ("≥", t + TAIL + 1) if o > t + TAIL else o


def _integer(x: object) -> int:
    if isinstance(x, bool) or not isinstance(x, int):
        raise InvalidArgument(f"a witness input {x!r:.40} is not an integer",
                              argument="inputs", value=x)
    return x


def _noise(case: AuditCase) -> ExpNoise:
    scale = od.double_arg(case, "scale").exact
    return discrete_gaussian(scale) if case.constructor in GAUSSIAN \
        else discrete_laplace(scale)


def _scores(x: object) -> tuple[int | F64, ...]:
    if not isinstance(x, tuple) or not all(
            isinstance(v, F64) or (isinstance(v, int) and not isinstance(v, bool)) for v in x):
        raise InvalidArgument(f"a witness input {x!r:.40} is not a score vector",
                              argument="inputs", value=x)
    return x


def _zcdp(case: AuditCase) -> bool:
    return case.args.get("output_measure") == "zero_concentrated_divergence"


def _top_k_cells(case: AuditCase, x: object) -> Dist:
    scores = tuple(v.exact if isinstance(v, F64) else mpq(v) for v in _scores(x))
    if od.bool_option(case, "negate"):
        scores = tuple(-v for v in scores)
    k = od.int_arg(case, "args.k", case.arg("k")) if case.constructor == "make_noisy_top_k" \
        else 1
    rate = 1 / od.double_arg(case, "scale").exact
    if _zcdp(case):
        return _normalised(softmax_cells(scores, rate, k, k > 1 or
                                         case.constructor == "make_noisy_top_k"))
    one = ExpSum.constant(1)
    cells: dict[Hashable, mpq] = {}
    for out, mass in top_k_law(scores, rate, k).items():
        cells[out if k > 1 or case.constructor == "make_noisy_top_k" else out[0]] = \
            _mid(Series.of(mass), Series.of(one))
    return _normalised(cells)


def _top_k_draws(case: AuditCase, x: object, n: int) -> list[Hashable]:
    dp = od.opendp()
    scores = _scores(x)
    floats = any(isinstance(v, F64) for v in scores)
    kind = float if floats else int
    domain = dp.vector_domain(dp.atom_domain(T=kind, nan=False) if floats
                              else dp.atom_domain(T=kind))
    metric = dp.linf_distance(T=kind, monotonic=od.bool_option(case, "monotonic"))
    top_k = case.constructor == "make_noisy_top_k"
    extra = {"k": od.int_arg(case, "args.k", case.arg("k"))} if top_k else {}
    measure = dp.zero_concentrated_divergence() if _zcdp(case) else dp.max_divergence()
    meas = getattr(dp.m, case.constructor)(
        domain, metric, measure, scale=od.double_arg(case, "scale").double,
        negate=od.bool_option(case, "negate"), **extra)
    arg = [v.double if isinstance(v, F64) else v for v in scores]
    return [tuple(meas(arg)) if top_k else meas(arg) for _ in range(n)]


def law(case: AuditCase, x: object) -> Dist:
    """The law plrv decided ``case`` on, at the witness input ``x`` (see the module)."""
    c = case.constructor
    if c == "make_randomized_response_bool":
        return laws.rr_bool(od.double_arg(case, "prob").exact, bool(x))
    if c == "make_randomized_response":
        return laws.rr_categorical(categories(case), od.double_arg(case, "prob").exact, x)
    if c == "make_randomized_response_bitvec":
        return laws.rr_bitvec(bits(x), bitvec_flip(od.double_arg(case, "f")))
    if c == "make_geometric" and "bounds" in case.args:
        alphas = geometric_alphas(od.double_arg(case, "scale").double)
        if len(alphas) != 1:
            raise InvalidArgument("the library's α is not decided: no single law to test",
                                  argument="args.scale")
        lower, upper = bounds(case)
        return laws.ct_geometric(_integer(x), alphas[0], lower, upper)
    if c in NOISE and "T" in case.args:  # a float input: the law on its lattice, by index
        _, centre, scale = lattice_of(case, x)
        noise = discrete_gaussian(scale) if c in GAUSSIAN else discrete_laplace(scale)
        return _noise_cells(noise, centre)
    if c in NOISE:
        return _noise_cells(_noise(case), _integer(x))
    if c in TOP_K:
        return _top_k_cells(case, x)
    if c in THRESHOLD:
        return _threshold_cells(_noise(case), od.int_arg(case, "args.threshold",
                                                         case.arg("threshold")),
                                _threshold_value(x))
    raise InvalidArgument(f"no law for {c}", argument="constructor", value=c)


def sample(case: AuditCase, x: object, n: int) -> Sequence[Hashable]:
    """``n`` draws of the library's measurement at the witness input ``x``, as outcomes of
    :func:`law`."""
    dp = od.opendp()
    c = case.constructor
    if c == "make_randomized_response_bool":
        meas = dp.m.make_randomized_response_bool(prob=od.double_arg(case, "prob").double)
        return [meas(bool(x)) for _ in range(n)]
    if c == "make_randomized_response":
        meas = dp.m.make_randomized_response(categories=list(categories(case)),
                                             prob=od.double_arg(case, "prob").double)
        return [meas(x) for _ in range(n)]
    if c == "make_randomized_response_bitvec":
        import numpy as np  # float ok: the library's own sampler input, not a verdict

        weight = od.int_arg(case, "args.max_weight", case.arg("max_weight"))
        meas = dp.m.make_randomized_response_bitvec(
            dp.bitvector_domain(max_weight=weight), dp.discrete_distance(),
            f=od.double_arg(case, "f").double)
        packed = np.packbits(np.array(bits(x), dtype=np.uint8))
        return [tuple(int(b) for b in np.unpackbits(np.frombuffer(meas(packed), np.uint8)))
                for _ in range(n)]
    if c in NOISE and "T" in case.args:
        lattice_of(case, x)
        assert isinstance(x, F64)
        return lattice_draws(case, x, n)
    scale = od.double_arg(case, "scale").double
    if c == "make_geometric" and "bounds" in case.args:
        meas = dp.m.make_geometric(dp.atom_domain(T=int), dp.absolute_distance(T=int),
                                   scale=scale, bounds=bounds(case))
        v = _integer(x)
        return [meas(v) for _ in range(n)]
    if c in NOISE:
        v = _integer(x)
        meas = getattr(dp.m, c)(dp.atom_domain(T=int), dp.absolute_distance(T=int),
                                scale=scale)
        return [_noise_cell(meas(v), v) for _ in range(n)]
    if c in TOP_K:
        return _top_k_draws(case, x, n)
    if c in THRESHOLD:
        t = od.int_arg(case, "args.threshold", case.arg("threshold"))
        metric = dp.l01inf_distance if c == "make_laplace_threshold" else dp.l02inf_distance
        meas = getattr(dp.m, c)(
            dp.map_domain(dp.atom_domain(T=str), dp.atom_domain(T=int)),
            metric(dp.absolute_distance(T=int)), scale=scale, threshold=t)
        _threshold_value(x)
        return [_threshold_cell(meas(x), t) for _ in range(n)]
    raise InvalidArgument(f"no sampler for {c}", argument="constructor", value=c)
