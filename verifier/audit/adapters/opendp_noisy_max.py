"""OpenDP's noisy max and top-k under pure DP: the exact law of permute-and-flip, peeled.

**What the library does** (OpenDP 0.16, ``measurements/noisy_top_k``): ``make_noisy_top_k``
(and ``make_noisy_max``, its ``k = 1``) with ``MaxDivergence`` negates the scores if asked,
reads them and the double ``scale`` as exact rationals, and ``k`` times runs permute-and-flip
(McKenna and Sheldon, *Permute-and-Flip: A new mechanism for differentially private
selection*, 2020) on the candidates left, removing the one it releases: the candidates are
visited in a uniformly random order (a Fisher–Yates shuffle drawn step by step) and candidate
``j`` is accepted with probability ``p_j = e^{−(y* − y_j)/s}`` (``sample_bernoulli_exp``,
exact), ``y*`` the largest score left; the release is the ordered list of accepted indices.

**The law.** Candidate ``i`` is released in a round when it is accepted and every candidate
visited before it was rejected. In a uniform order the set ``S`` visited before ``i`` has
probability ``|S|!·(n − 1 − |S|)!/n!``, so with ``e_m`` the elementary symmetric polynomials of
the ``1 − p_j`` (``j ≠ i``)::

    P(i) = p_i · Σ_{m=0}^{n−1} m!·(n − 1 − m)!/n! · e_m

a polynomial in the ``e^{(y_j − y*)/s}`` with rational coefficients: an exponential sum
(:class:`~verifier.core.expsum.ExpSum`), exact. An ordered release is the product of its rounds.

**The decision.** The input metric is ``LInfDistance`` (``monotonic``: the differences must
not have opposite signs): over the given score vectors, every ordered pair at distance
``≤ d_in`` is compared output by output. ``P(o) ≤ e^ε·P′(o)`` is the sign of an exponential sum
(ε the claimed double, a rational number of nats), decided exactly; the tight ε is the largest
``ln(P(o)/P′(o))`` (ratios compared by the sign of ``P(o)·Q′ − Q·P′(o)``), exact when it is a
ratio of monomials and otherwise a certified enclosure; the tight δ at the claimed ε is
``Σ_o max(0, P(o) − e^ε·P′(o))``, an exponential sum.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import permutations
from math import factorial
from typing import Any

from gmpy2 import mpq

from verifier.audit.case import AuditCase
from verifier.core.binary64 import F64
from verifier.core.certified import MAX_PRECISION, Certified, log_bounds
from verifier.core.epsilon import Epsilon
from verifier.core.errors import BudgetExceeded, InvalidArgument, Undecided
from verifier.core.expsum import ExpSum

__all__ = ["NoisyMaxCase", "noisy_max_case", "pf_round", "top_k_law", "NoisyMaxAnswer",
           "noisy_max_answer", "linf_related", "score_vectors", "given_input", "MAX_CANDIDATES",
           "MAX_OUTPUTS"]

MAX_CANDIDATES = 8
MAX_OUTPUTS = 5_000  # ordered releases × input pairs


def pf_round(scores: Sequence[mpq], rate: mpq) -> list[ExpSum]:
    """``P(i)`` of one permute-and-flip round on ``scores`` with ``rate = 1/scale``."""
    n = len(scores)
    top = max(scores)
    p = [ExpSum.exp((y - top) * rate) for y in scores]
    out = []
    for i in range(n):
        e = [ExpSum.constant(1)] + [ExpSum() for _ in range(n - 1)]
        for j in range(n):
            if j != i:
                q = ExpSum.constant(1) - p[j]
                for m in range(n - 1, 0, -1):
                    e[m] = e[m] + e[m - 1] * q
        total = ExpSum()
        for m in range(n):
            total = total + e[m] * mpq(factorial(m) * factorial(n - 1 - m), factorial(n))
        out.append(p[i] * total)
    return out


def top_k_law(scores: tuple[mpq, ...], rate: mpq, k: int) -> dict[tuple[int, ...], ExpSum]:
    """The law of the ordered top-``k`` release (indices into ``scores``)."""
    law: dict[tuple[int, ...], ExpSum] = {}
    for order in permutations(range(len(scores)), k):
        left = list(range(len(scores)))
        mass = ExpSum.constant(1)
        for idx in order:
            probs = pf_round([scores[j] for j in left], rate)
            mass = mass * probs[left.index(idx)]
            left.remove(idx)
        law[order] = mass
    return law


def linf_related(x: Sequence[mpq], y: Sequence[mpq], d_in: mpq, monotonic: bool) -> bool:
    """``d∞(x, y) ≤ d_in`` (∞ when ``monotonic`` and two differences have opposite signs)."""
    diffs = [a - b for a, b in zip(x, y, strict=True)]
    if monotonic and any(d > 0 for d in diffs) and any(d < 0 for d in diffs):
        return False
    return max(abs(d) for d in diffs) <= d_in


@dataclass(frozen=True)
class NoisyMaxAnswer:
    """``holds``, the tight ε (exact or enclosed), the tight δ at the claimed ε (an
    exponential sum, enclosed for display), and the witness pair and output. A sign the
    certified arithmetic cannot decide raises :class:`~verifier.core.errors.Undecided`."""

    holds: bool
    epsilon: Epsilon | Certified
    epsilon_text: str
    delta: ExpSum
    witness: tuple[tuple, tuple, tuple[int, ...]]
    pairs: int


def _log_ratio(a: ExpSum, b: ExpSum) -> tuple[Epsilon | Certified, str]:
    ma, mb = a.monomial, b.monomial
    if ma is not None and mb is not None:
        nats, factor = ma[0] - mb[0], ma[1] / mb[1]
        if factor == 1:
            e = Epsilon.of_nats(nats) if nats >= 0 else None
            if e is not None:
                return e, str(e)
        if nats == 0 and factor >= 1:
            e = Epsilon.log(factor)
            return e, str(e)

    (top_a, ra), (top_b, rb) = a.relative(), b.relative()

    def enclose(prec: int) -> tuple[mpq, mpq]:
        # both masses are positive (every candidate can be released); their enclosures are
        # refined until their lower ends are too, so that ln(a_lo/b_hi) ≤ ln(a/b) ≤
        # ln(a_hi/b_lo) holds (a floor in place of a non-positive end would not bound it).
        # Each is enclosed relative to its largest term: ln(a/b) = (top_a − top_b) +
        # ln(ra/rb), so masses near e^(−10^300) (scale 1e-300) cost what masses near 1 do
        p = prec
        while True:
            a_lo, a_hi = ra.enclose_relative(p)
            b_lo, b_hi = rb.enclose_relative(p)
            if a_lo > 0 and b_lo > 0:
                break
            if p >= MAX_PRECISION:
                raise Undecided(f"the masses {a} and {b} are not separated from 0 at "
                                f"{MAX_PRECISION} bits")
            p *= 2
        lo, _ = log_bounds(a_lo / b_hi, prec)
        _, hi = log_bounds(a_hi / b_lo, prec)
        return top_a - top_b + lo, top_a - top_b + hi

    return Certified(enclose), f"ln(({a})/({b}))"


def noisy_max_answer(inputs: Sequence[tuple[mpq, ...]], rate: mpq, k: int, d_in: mpq,
                     monotonic: bool, eps: Epsilon) -> NoisyMaxAnswer:
    """Decide ``eps``-DP of the peeled permute-and-flip over ``inputs``."""
    n = len(inputs[0])
    if n > MAX_CANDIDATES or k > n or k < 1:
        raise BudgetExceeded(f"{n} candidates and k = {k}: plrv enumerates at most "
                             f"{MAX_CANDIDATES} candidates and 1 ≤ k ≤ their number",
                             argument="inputs", value=n)
    pairs = [(x, y) for x in inputs for y in inputs if x != y
             and linf_related(x, y, d_in, monotonic)]
    outputs = factorial(n) // factorial(n - k)
    if not pairs:
        raise InvalidArgument(f"no two inputs are neighbours at d_in = {d_in}",
                              argument="inputs")
    if outputs * len(pairs) > MAX_OUTPUTS:
        raise BudgetExceeded(f"{len(pairs)} pairs × {outputs} releases, more than "
                             f"{MAX_OUTPUTS}", argument="inputs", value=len(pairs))
    laws = {x: top_k_law(x, rate, k) for x in inputs}
    holds = True
    best: tuple[ExpSum, ExpSum, tuple, tuple, tuple[int, ...]] | None = None
    worst_delta: ExpSum | None = None
    worst_pair: tuple[tuple, tuple] | None = None
    for x, y in pairs:  # every sign below is decided exactly or raises Undecided
        total = ExpSum()
        for o, p in laws[x].items():
            q = laws[y][o]
            gap = p - (q * eps.base if eps.base is not None else q.shift(_nats(eps)))
            if gap.sign() > 0:
                holds = False
                total = total + gap
            if best is None or (p * best[1] - best[0] * q).sign() > 0:
                best = (p, q, x, y, o)
        if worst_delta is None or (total - worst_delta).sign() > 0:
            worst_delta, worst_pair = total, (x, y)
    assert best is not None and worst_delta is not None and worst_pair is not None
    tight, text = _log_ratio(best[0], best[1])
    return NoisyMaxAnswer(holds, tight, text, worst_delta, (best[2], best[3], best[4]),
                          len(pairs))


def _nats(eps: Epsilon) -> mpq:
    assert eps.nats is not None  # a finite ε is ln(base) or a number of nats
    return eps.nats


def score_vectors(case: AuditCase) -> tuple[tuple[tuple[mpq, ...], ...], bool]:
    """The score vectors of ``inputs`` (integers, or doubles as {f64}), one length, and
    whether they are doubles."""
    if case.inputs is None or len(case.inputs) < 2:
        raise InvalidArgument("inputs: list at least two score vectors (the finite universe "
                              "of the audit)", argument="inputs")
    rows: list[tuple[mpq, ...]] = []
    floats: set[bool] = set()
    for x in case.inputs:
        if not isinstance(x, tuple) or not x:
            raise InvalidArgument(f"inputs: {x!r:.40} is not a list of scores",
                                  argument="inputs", value=x)
        for v in x:
            if isinstance(v, F64):
                floats.add(True)
            elif isinstance(v, int) and not isinstance(v, bool):
                floats.add(False)
            else:
                raise InvalidArgument(f"inputs: score {v!r:.40} is neither an integer nor "
                                      f"a double", argument="inputs", value=v)
        rows.append(tuple(v.exact if isinstance(v, F64) else mpq(v) for v in x))
    if len({len(r) for r in rows}) != 1 or len(floats) != 1:
        raise InvalidArgument("inputs: score vectors of one length and one type",
                              argument="inputs")
    return tuple(dict.fromkeys(rows)), floats.pop()


def given_input(case: AuditCase, scores: tuple[mpq, ...]) -> tuple:
    """The score vector of ``inputs`` whose exact values are ``scores``, as the config gave
    it (integers or doubles), so that it can be handed back to the library."""
    for x in case.inputs or ():
        if tuple(v.exact if isinstance(v, F64) else mpq(v) for v in x) == scores:
            return tuple(x)
    raise AssertionError("a witness is one of the inputs")  # pragma: no cover


@dataclass(frozen=True)
class NoisyMaxCase:
    """A ``make_noisy_max`` / ``make_noisy_top_k`` case read and built: the library's
    measurement, its scale, ``k``, the options, the score vectors (negated when the library
    negates them) and ``d_in`` (exact, and as the library takes it)."""

    meas: Any
    scale: F64
    k: int
    negate: bool
    monotonic: bool
    signed: tuple[tuple[mpq, ...], ...]
    d_in: mpq
    d_arg: float | int


def noisy_max_case(case: AuditCase, measure: str, options: tuple[str, ...] = ()
                   ) -> NoisyMaxCase:
    """Read a noisy max / top-k case and build its measurement under ``measure`` (the name
    of OpenDP's measure constructor, ``"max_divergence"`` or ``"zero_concentrated_divergence"``),
    every key it reads validated first and named."""
    from verifier.audit.adapters import in_range
    from verifier.audit.adapters.opendp_args import (
        I32,
        U32,
        bool_option,
        int_arg,
        opendp,
        scale_arg,
    )

    top_k = case.constructor == "make_noisy_top_k"
    case.only(("scale", "negate", "monotonic", *options) + (("k",) if top_k else ()),
              d_in=True, inputs=True)
    dp = opendp()
    scale = scale_arg(case)
    k = int_arg(case, "args.k", case.arg("k"), 1, U32[1]) if top_k else 1
    negate, monotonic = bool_option(case, "negate"), bool_option(case, "monotonic")
    universe, floats = score_vectors(case)
    kind = float if floats else int
    domain = dp.vector_domain(dp.atom_domain(T=kind, nan=False) if floats
                              else dp.atom_domain(T=kind))
    metric = dp.linf_distance(T=kind, monotonic=monotonic)
    extra = {"k": k} if top_k else {}
    meas = getattr(dp.m, case.constructor)(domain, metric, getattr(dp, measure)(),
                                            scale=scale.double, negate=negate, **extra)
    d = case.d_in
    if d is None:
        raise InvalidArgument(f"{case.constructor} needs d_in (the L∞ distance of the score "
                              f"vectors)", argument="d_in")
    d_in = in_range(d, "d_in", ge=0).exact if isinstance(d, F64) else \
        mpq(int_arg(case, "d_in", d, 0, I32[1]))
    signed = tuple(tuple(-v for v in x) for x in universe) if negate else universe
    return NoisyMaxCase(meas, scale, k, negate, monotonic, signed, d_in,
                        d.double if isinstance(d, F64) else int(d_in))
