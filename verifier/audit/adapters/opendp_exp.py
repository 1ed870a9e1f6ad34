"""OpenDP's upward exponential of a double, bit for bit: ``f64::inf_exp`` in OpenDP 0.16 is
dashu-float 0.4.4's ``exp`` on ``FBig<Up>`` at 53 bits, cast to a double.

The constant-time geometric sampler of OpenDP draws with ``p = 1 ⊖ inf_exp(−1/scale)``
(``⊖`` rounding down), so its law hangs on the last bit of this exponential, which is not
always the correctly rounded one. This module transcribes dashu-float 0.4.4's algorithm
(``float/src/exp.rs``, ``Context::exp_internal`` and ``Context::powi``) for that one case,
``B = 2``, rounding mode ``Up`` (towards +∞), precision 53; every operation below is exact
rational arithmetic followed by the same rounding:

* working precision ``53 + 7 + 12 = 72`` bits (dashu's guard digits at precision 53);
  ``ln 2`` from dashu's ``4·acoth 6 + 2·acoth 99`` at that precision is the 80-bit value
  :data:`LN2`, and the reduction runs at 80 bits (the larger of the two contexts);
* ``x = s·ln 2 + r`` with ``s = ⌊x / ln 2⌋`` exact and ``r`` rounded up to 80 bits;
  ``r ← r/2⁸``;
* the Maclaurin series ``1 + r + r²/2! + …`` at 80 bits, every product, quotient and sum
  rounded up, stopped at the first term ``≤`` the sum's ``sub_ulp``
  (``2^(exponent + digits_lb − 81)``, ``digits_lb`` dashu's ``f32`` lower bound on the
  significand's bit length);
* the 256th power by eight squarings at ``53 + 9 + 6 = 68`` bits, rounded up to 53 bits,
  times ``2^s``.

``digits_lb`` reads an ``f32`` logarithm, which can fall one below the bit length when the
significand is just above a power of two; there both stopping rules are followed, and the
results compared: :func:`inf_exp` returns every value the transcription can produce (one in
practice). A transcription is only as good as its reading: it was compared with dashu-float
0.4.4 itself, built from its source, on 18 398 doubles (``−1/scale`` for scales from 0.001 to
1000, and ``x`` in ``[−30, 0]``), with no difference — including the 157 inputs (0.85 %) where
dashu's result is one unit above the correctly rounded-up one.
"""

from __future__ import annotations

import math

from gmpy2 import mpq, mpz

from verifier.core.errors import InvalidArgument

__all__ = ["inf_exp", "ceil_bits", "floor_bits", "geometric_alphas", "LN2", "MIN_ARGUMENT"]

LN2 = mpq(209490880843000310329979, mpz(2) ** 78)  # dashu's ln 2 at 80 bits (see module)
MIN_ARGUMENT = -708.0  # below, e^x leaves the normal doubles: the cast is not modelled
_P = 80
_TWO = mpq(2)


def _pow2(e: int) -> mpq:
    return _TWO ** e if e >= 0 else 1 / _TWO ** (-e)


def _binade(v: mpq, p: int) -> tuple[mpq, int]:
    """``(v/2^e, e)`` with ``2^(p−1) ≤ v/2^e < 2^p``, for ``v > 0``."""
    e = int(v.numerator).bit_length() - int(v.denominator).bit_length() - p
    while True:
        s = v / _pow2(e)
        if s >= mpz(2) ** p:
            e += 1
        elif s < mpz(2) ** (p - 1):
            e -= 1
        else:
            return s, e


def ceil_bits(v: mpq, p: int) -> mpq:
    """``v > 0`` rounded up to ``p`` significant bits (dashu's ``Up`` rounding)."""
    s, e = _binade(v, p)
    return mpq(-((-s.numerator) // s.denominator)) * _pow2(e)


def floor_bits(v: mpq, p: int) -> mpq:
    """``v > 0`` rounded down to ``p`` significant bits."""
    s, e = _binade(v, p)
    return mpq(s.numerator // s.denominator) * _pow2(e)


def _odd_part(v: mpq) -> tuple[int, int]:
    """``v = sig·2^e`` with ``sig`` odd (dashu keeps significands without trailing zeros)."""
    num, den = int(v.numerator), int(v.denominator)
    e = -(den.bit_length() - 1)
    zeros = (num & -num).bit_length() - 1
    return num >> zeros, e + zeros


def _digits_lb(sig: int) -> tuple[int, ...]:
    """The values dashu's ``digits_lb`` can take on ``sig``: the bit length less one, or
    also one less where its ``f32`` logarithm of the leading 24 bits may round down to the
    integer (within 2^−10 of a power of two)."""
    n = sig.bit_length()
    if sig & (sig - 1) == 0:
        return (n - 1,)  # a power of two: exact
    top = sig if n <= 24 else sig >> (n - 24)
    m = top.bit_length()
    if (top - (1 << (m - 1))) * 1024 < (1 << (m - 1)):
        return (n - 2, n - 1)
    return (n - 1,)


def _series(r8: mpq) -> set[mpq]:
    """The 80-bit sums the Maclaurin loop can end with."""
    ends: set[mpq] = set()
    stack = [(ceil_bits(1 + r8, _P), r8, 1, 2)]
    while stack:
        total, power, fact, k = stack.pop()
        fact *= k
        power = ceil_bits(power * r8, _P)
        term = ceil_bits(power / fact, _P) if power > 0 else mpq(0)
        sig, e = _odd_part(total)
        ulps = {_pow2(e + d - _P - 1) for d in _digits_lb(sig)}
        stops = {term <= u for u in ulps}
        if True in stops:
            ends.add(total)
        if False in stops:
            stack.append((ceil_bits(total + term, _P), power, fact, k + 1))
    return ends


def inf_exp(x: float) -> tuple[mpq, ...]:
    """Every value OpenDP's ``x.inf_exp()`` can take for the double ``x`` (see the module),
    as exact rationals; ``x`` must be in ``[MIN_ARGUMENT, 0]``."""
    if not (math.isfinite(x) and MIN_ARGUMENT <= x <= 0):
        raise InvalidArgument(f"inf_exp({x!r}): modelled for doubles in "
                              f"[{MIN_ARGUMENT}, 0] only", argument="args.scale", value=x)
    if x == 0:
        return (mpq(1),)
    xq = mpq(*x.as_integer_ratio())
    ratio = xq / LN2
    s = int(ratio.numerator // ratio.denominator)
    rem = xq - s * LN2
    r8 = (ceil_bits(rem, _P) if rem > 0 else mpq(0)) / 256
    out = set()
    for total in _series(r8):
        res = ceil_bits(total * total, 68)
        for _ in range(7):
            res = ceil_bits(res * res, 68)
        out.add(ceil_bits(res, 53) * _pow2(s))
    return tuple(sorted(out))


def geometric_alphas(scale: float) -> tuple[mpq, ...]:
    """``α = 1 − p`` of OpenDP's constant-time geometric at the double ``scale``:
    ``p = 1 ⊖ inf_exp(−(1/scale))`` (``1/scale`` rounded to nearest, ``⊖`` rounding down to a
    double), for every value :func:`inf_exp` can take."""
    x = -(1.0 / scale)
    out = []
    for big in inf_exp(x):
        diff = 1 - big
        p = floor_bits(diff, 53) if diff > 0 else mpq(0)
        out.append(1 - p)
    return tuple(sorted(set(out)))
