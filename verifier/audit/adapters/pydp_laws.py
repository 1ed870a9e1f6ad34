"""The lattice of Google's Laplace mechanism (python-dp 1.1.5, the C++ library at commit
e59bbcf), computed exactly from the doubles its source computes.

``LaplaceMechanism(epsilon, sensitivity)`` (``cc/algorithms/numerical-mechanisms.cc``,
``distributions.cc``, ``util.cc``) releases ``AddDoubleNoise(x)`` =
``RoundToNearestMultiple(x, g) + Z·g`` for a double ``x``, every step in binary64:

* ``diversity = fl(Δ/ε)`` and the granularity ``g = GetNextPowerOfTwo(fl(diversity/2^40))
  = pow(2, ceil(log2(·)))``: the least power of two at least ``diversity/2^40``, or 0 when
  that quotient underflows to 0 (``log2(0) = −∞``, ``pow(2, −∞) = 0``);
* ``λ = fl(fl(g·ε) / fl(Δ + g))`` (``granularity * epsilon_ / (sensitivity_ + granularity)``);
* ``Z`` two-sided geometric: ``P(Z = k) ∝ e^{−λ|k|}`` (a geometric magnitude, a fair sign,
  the draw ``−0`` rejected), so outputs ``c`` lattice steps apart have loss ``λ·c`` beyond
  both centres — the largest loss of the pair;
* ``RoundToNearestDoubleMultiple(x, g)`` = ``g·⌊x/g + 1/2⌋`` (``fmod`` is exact, ties go up;
  ``x`` itself when ``g = 0``).

Two doubles at most ``Δ`` apart land at most ``⌈Δ/g⌉`` steps apart (``⌊a + d⌋ − ⌊a⌋ ≤
⌈d⌉``, and ``= d`` for an integer ``d``), and some pair lands exactly that far
(:func:`widest_pair`): a shift of ``Δ`` becomes ``⌈Δ/g⌉·g``, up to ``Δ + g`` — which the
``Δ + g`` in ``λ`` pays for, up to the rounding of ``λ``. With ``g = 0`` there is no noise at
all: the output is the input.

``ceil(log2(q))`` is the exact one except where a faithful ``log2`` could round ``k + t``
(``q = 2^k·(1 + u)``, ``0 < u < 2^−40``) down to the integer ``k``: that band is refused, as
the granularity there depends on the C library's ``log2``.
"""

from __future__ import annotations

from dataclasses import dataclass

from gmpy2 import mpq, mpz

from verifier.core.binary64 import F64
from verifier.core.errors import InvalidArgument, OutOfRange

__all__ = ["LaplaceLattice", "laplace_lattice", "round_to_lattice", "widest_pair",
           "MIN_EPSILON", "MAX_DIVERSITY", "GRANULARITY_PARAM"]

MIN_EPSILON = mpq(1, 2 ** 50)  # LaplaceDistribution::kMinEpsilon
GRANULARITY_PARAM = 2 ** 40  # kLaplaceGranularityParam
MAX_DIVERSITY = mpq(2) ** 1000  # plrv's bound (the library's overflow check stops near 2^1018)
_LOG2_BAND = mpq(1, 2 ** 40)


def nearest(x: mpq) -> F64:
    """The double nearest to ``x`` (ties to even; subnormals included): Python's int / int is
    correctly rounded."""
    return F64(int(x.numerator) / int(x.denominator))


@dataclass(frozen=True, slots=True)
class LaplaceLattice:
    """The doubles the library computes for ``LaplaceMechanism(epsilon, sensitivity)``, each
    read exactly; ``granularity`` is a power of two or 0."""

    epsilon: F64
    sensitivity: F64
    diversity: F64
    scaled: F64
    granularity: mpq
    numerator: F64
    denominator: F64
    lam: F64

    @property
    def exponent(self) -> int | None:
        """``k`` with ``granularity = 2^k`` (None when the granularity is 0)."""
        g = self.granularity
        if g == 0:
            return None
        return int(mpz(g.numerator).bit_length() - mpz(g.denominator).bit_length())


def _floor(q: mpq) -> mpz:
    return mpz(q.numerator) // mpz(q.denominator)


def _ceil(q: mpq) -> mpz:
    return -_floor(-q)


def _ceil_log2(q: mpq) -> int:
    """``⌈log2 q⌉`` for a rational ``q > 0``, exactly."""
    k = int(mpz(q.numerator).bit_length() - mpz(q.denominator).bit_length())
    while mpq(2) ** k < q:
        k += 1
    while mpq(2) ** (k - 1) >= q:
        k -= 1
    return k


def laplace_lattice(epsilon: F64, sensitivity: F64) -> LaplaceLattice:
    """The granularity and ``λ`` the library computes (see the module); the arguments in the
    ranges the library takes (checked here first, naming the argument)."""
    eps, sens = epsilon.exact, sensitivity.exact
    if eps < MIN_EPSILON:
        raise OutOfRange(f"args.epsilon = {epsilon} must be at least 2^-50 (the library's "
                         f"LaplaceDistribution::kMinEpsilon)", argument="args.epsilon",
                         value=str(epsilon))
    if sens <= 0:
        raise OutOfRange(f"args.sensitivity = {sensitivity} must be > 0",
                         argument="args.sensitivity", value=str(sensitivity))
    try:
        diversity = nearest(sens / eps)
    except OverflowError:
        diversity = None
    if diversity is None or diversity.exact > MAX_DIVERSITY:
        shown = "beyond the largest double" if diversity is None else str(diversity)
        raise OutOfRange(f"args.sensitivity = {sensitivity}: the diversity sensitivity/epsilon "
                         f"= {shown} is above 2^1000, beyond what plrv audits",
                         argument="args.sensitivity", value=str(sensitivity))
    scaled = nearest(diversity.exact / GRANULARITY_PARAM)
    if scaled.exact == 0:
        g = mpq(0)
    else:
        k = _ceil_log2(scaled.exact)
        below = mpq(2) ** (k - 1)
        if below < scaled.exact < below * (1 + _LOG2_BAND):
            raise InvalidArgument(
                f"args.sensitivity = {sensitivity}, args.epsilon = {epsilon}: diversity/2^40 = "
                f"{scaled.hex} lies less than 2^-40 above 2^{k - 1}, where the granularity "
                f"pow(2, ceil(log2(·))) depends on how the C library rounds log2; plrv does "
                f"not model it", argument="args.sensitivity", value=str(sensitivity))
        g = mpq(2) ** k
    numerator = nearest(g * eps)
    denominator = nearest(sens + g)
    lam = nearest(numerator.exact / denominator.exact)
    return LaplaceLattice(epsilon, sensitivity, diversity, scaled, g, numerator, denominator,
                          lam)


def round_to_lattice(x: mpq, g: mpq) -> mpq:
    """``RoundToNearestDoubleMultiple(x, g)``: ``g·⌊x/g + 1/2⌋``, or ``x`` when ``g = 0``."""
    if g == 0:
        return x
    return g * _floor(x / g + mpq(1, 2))


def _up(y: mpq) -> mpq:
    """The least double ``≥ y`` (``|y|`` below the largest double)."""
    if y == 0:
        return y
    a = abs(y)
    j = int(mpz(a.numerator).bit_length() - mpz(a.denominator).bit_length())
    if mpq(2) ** j > a:
        j -= 1  # now 2^j ≤ |y| < 2^(j+1)
    s = mpq(2) ** max(j - 52, -1074)
    return _ceil(y / s) * s


def widest_pair(sensitivity: mpq, g: mpq) -> tuple[F64, F64]:
    """Two doubles at most ``Δ = sensitivity`` apart whose lattice points are as many steps
    apart as any such pair's: ``0`` and ``Δ`` when ``g = 0`` or ``Δ/g`` is an integer (then
    ``Δ/g`` steps); else ``x′ = (c − 1/2)·g`` (``c = ⌈Δ/g⌉``, rounding up to ``c·g``) and the
    least double ``x ≥ x′ − Δ``, which rounds to 0 — ``c`` steps — unless no double lies in
    ``[x′ − Δ, g/2)``: then no pair reaches ``c`` steps (the doubles just below ``g/2`` are
    the densest below a half-step), and ``0``, ``Δ`` reach ``c − 1``."""
    base = (nearest(mpq(0)), nearest(sensitivity))
    if g == 0 or (sensitivity / g).denominator == 1:
        return base
    c = _ceil(sensitivity / g)
    right = (c - mpq(1, 2)) * g
    left = _up(right - sensitivity)
    if nearest(right).exact != right or left >= g / 2:
        return base
    return nearest(left), nearest(right)
