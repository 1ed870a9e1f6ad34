"""Exact composition as polynomial arithmetic: privacy-loss laws are Laurent polynomials.

Let ``g_1, …, g_d`` generate every likelihood ratio of the parts multiplicatively
(:mod:`verifier.notions.composition.basis`), so each finite ratio is ``r = Π g_i^{e_i}``.
Part ``j``'s finite atoms ``(r, p, q)`` (``P``-mass ``p/p_scale_j``, ``Q``-mass
``q/q_scale_j``) are the two integer Laurent polynomials::

    P_j(x) = Σ_atoms p·x^e,    Q_j(x) = Σ_atoms q·x^e         (x^e = Π x_i^{e_i})

The composition of independent releases multiplies ratios and masses (seed 003, Lemma 1 is
applied to the product law; REFERENCE.md §3), which is exactly the product of polynomials:
the finite atoms of ``M_1 × … × M_k`` are the terms of ``Π_j P_j`` and ``Π_j Q_j`` (same
support, since every atom has ``p, q > 0``), over the scales ``Π_j p_scale_j`` and
``Π_j q_scale_j``; distinct monomials are distinct ratios (the generators are independent).
The mass where some part's ``Q`` vanishes is ``P[L = +∞] = 1 − Π_j (1 − P_j[L = +∞])``.

Powers — a k-fold composition, or ``m`` copies of one part in a list — are computed without
repeated products. A univariate polynomial with few terms is raised by J. C. P. Miller's
recurrence (Knuth, *The Art of Computer Programming*, vol. 2, §4.7, eq. (9))::

    (Σ_i a_i y^i)^k = Σ_n c_n y^n,   c_0 = a_0^k,
    n·a_0·c_n = Σ_{i=1}^{min(n,m)} ((k+1)·i − n)·a_i·c_{n−i}

(each division is exact), ``O(k·m)`` products of one big and one small integer: k-fold
randomized response ``(a + b·y)^k`` is the binomial expansion. Longer polynomials and all
products use python-flint (``fmpz_poly``, ``fmpz_mpoly`` for several generators). k runs of
one part without gaps are streamed, never held (:mod:`verifier.notions.composition.stream`).
Exponents are first divided by their common stride (``x^{−1}, x`` becomes ``1, y`` with ``y = x²``).

δ(ε) and ε(δ) are then read off the atoms of ratio ``> 1`` in increasing order
(:class:`~verifier.notions.loss.SortedLaw`): with one generator ``g > 1`` the order is that of
the exponents; with several, the terms are ordered by certified enclosures of
``Σ e_i·ln g_i`` and, where two enclosures overlap, by exact comparison. Ratios are computed
only where a comparison needs them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import reduce
from itertools import accumulate
from math import comb, gcd
from operator import mul

import gmpy2
from flint import fmpz, fmpz_mpoly_ctx, fmpz_poly
from gmpy2 import mpq, mpz

from verifier.core.budget import Budget, exceeded, format_size
from verifier.notions.composition.basis import Basis, basis_of
from verifier.notions.composition.monomials import monomial_value, order_above_one
from verifier.notions.composition.stream import (
    Progress,
    StreamedLoss,
    dense,
    held_elsewhere,
    stream_memory,
    streamed_loss,
)
from verifier.notions.loss import SortedLaw

__all__ = ["PolynomialLoss", "PolynomialPlan", "plan_polynomial", "miller_power",
           "univariate_product", "univariate_terms", "MAX_VARIABLES", "SMALL_TERMS"]

MAX_VARIABLES = 8   # generators beyond which the convolution route is used instead
SMALL_TERMS = 8     # univariate powers of at most this many terms run Miller's recurrence
_MPZ_BYTES = 32     # an integer's header and allocation rounding, beside its digits


@dataclass(frozen=True)
class _Part:
    """One distinct part: exponents of its finite atoms, their masses, how often it recurs."""

    exponents: tuple[tuple[int, ...], ...]
    p: tuple[mpz, ...]
    q: tuple[mpz, ...]
    infinite: mpz
    p_scale: mpz
    q_scale: mpz
    copies: int


@dataclass(frozen=True)
class PolynomialPlan:
    """What the polynomial route will compute, known before any product: the generators,
    the distinct parts with their multiplicities, and estimates of the terms (distinct loss
    values, an upper bound), the bits of the largest coefficient and the work."""

    basis: Basis
    parts: tuple[_Part, ...]
    terms: int
    bits: int
    work: int
    max_values: int | None = None
    memory: int = 0           # bytes of exact integers held at once (estimated)
    streamed: bool = False    # k runs of one part: the streamed powers of stream.py

    def check_terms(self, terms: int, exactly: str) -> None:
        """Refuse more than ``max_values`` distinct loss values (``limits.loss_values``)."""
        if self.max_values is not None and terms > self.max_values:
            runs = sum(x.copies for x in self.parts)
            raise exceeded("loss_values", f"composition of {runs} privacy losses as "
                           f"polynomials in {self.basis.rank} generator(s): distinct values",
                           f"{exactly or 'up to '}{format_size(terms)}", self.max_values,
                           ", compose fewer mechanisms, or ask for a certified enclosure")

    def run(self, streams: dict | None = None, progress: Progress | None = None
            ) -> PolynomialLoss | StreamedLoss:
        """The composed law (see the module); with several generators the number of terms
        is known only once computed, and checked then. A :attr:`streamed` plan's law keeps
        no coefficients (:mod:`verifier.notions.composition.stream`; ``streams`` shares its
        powers with other laws, ``progress(done, total)`` follows the coefficients)."""
        d = self.basis.rank
        infinite, p_scale, q_scale = _infinite_and_scales(self.parts)
        if self.streamed:
            (x,) = self.parts
            exps = [e[0] for e in x.exponents]
            return streamed_loss(self.basis.generators[0], dict(zip(exps, x.p, strict=True)),
                                 dict(zip(exps, x.q, strict=True)), x.copies, infinite,
                                 p_scale, q_scale, streams, progress)
        if any(not part.p for part in self.parts):  # some part has no finite atom
            return PolynomialLoss(self.basis.generators, (), [infinite], [mpz(0)],
                                  infinite, p_scale, q_scale, 0)
        if d == 0:  # every finite ratio is 1: nothing above 1
            return PolynomialLoss((), (), [infinite], [mpz(0)], infinite, p_scale, q_scale, 1)
        if d == 1:
            low, stride, pc, qc = _univariate(self.parts)
            return _from_univariate(self.basis.generators[0], low, stride, pc, qc, infinite,
                                    p_scale, q_scale)
        return _multivariate(self, infinite, p_scale, q_scale)


def plan_polynomial(parts: Sequence, budget: Budget | None = None,
                    max_values: int | None = None, stream: bool = True,
                    streams: dict | None = None) -> PolynomialPlan | None:
    """The plan for composing ``parts`` (:class:`~verifier.notions.composition.exact.
    LossDistribution` values, in order), or None when their ratios need more than
    :data:`MAX_VARIABLES` generators. With ``max_values``, more terms than that raise
    ``limits.loss_values``; with a ``budget``, its ``work`` and ``memory`` limits are
    checked. k runs of one part with one generator, at most :data:`SMALL_TERMS` atoms and no
    gap between their exponents, are streamed unless ``stream`` is False (for tests), the
    ``streams`` other pairs made (still held) counted in their memory."""
    by_id: dict[int, list] = {}  # the same object repeated (a k-fold list) is counted cheaply
    for part in parts:
        entry = by_id.setdefault(id(part), [part, 0])
        entry[1] += 1
    groups: dict = {}  # then equal laws of different objects are merged
    for part, copies in by_id.values():
        groups[part] = groups.get(part, 0) + copies
    basis = basis_of(r for part in groups for r, _, _ in part.atoms)
    if basis.rank > MAX_VARIABLES:
        return None
    distinct = [_Part(tuple(basis.exponents(r) for r, _, _ in part.atoms),
                      tuple(p for _, p, _ in part.atoms), tuple(q for _, _, q in part.atoms),
                      part.infinite, part.p_scale, part.q_scale, copies)
                for part, copies in groups.items()]
    terms = _terms_bound(distinct, basis.rank)
    bits = sum(max(int(x.p_scale.bit_length()), int(x.q_scale.bit_length())) * x.copies
               for x in distinct)
    spread = max((len(x.p) for x in distinct), default=1)
    # Miller's recurrence or flint's products: every output coefficient costs about
    # `spread` products of a coefficient (counted once per 64 kilobits) by a small integer,
    # for P and for Q
    work = 2 * terms * (spread + 1) * (1 + bits // 65536)
    streamed = stream and _streamable(distinct, basis.rank)
    one = distinct[0]  # streamed: two streams (checkpoints, two blocks), and other pairs'
    held = held_elsewhere(streams, one.exponents, one.p, one.q, one.copies) if streamed else 0
    # else P and Q: every coefficient (then their suffix sums, in place)
    memory = (2 * stream_memory(terms - 1, spread, bits) + held if streamed
              else 2 * terms * (bits // 8 + _MPZ_BYTES))
    plan = PolynomialPlan(basis, tuple(distinct), terms, bits, work, max_values, memory, streamed)
    if basis.rank <= 1:  # the bound is the count (one generator: a dense polynomial)
        plan.check_terms(terms, "")
    if budget is not None:
        budget.require("work", work, f"exact composition of {len(parts)} privacy losses as "
                       f"polynomials: {format_size(terms)} terms of up to {bits} bits, "
                       f"coefficient products (× 64 kilobits)",
                       ", compose fewer runs, or ask for a certified enclosure "
                       "(--enclosure always)")
        budget.require("memory", memory, f"exact composition of {len(parts)} privacy losses "
                       f"as polynomials: bytes of exact integers held at once "
                       f"({'streamed' if streamed else 'every coefficient'}"
                       f"{', with the streams other pairs hold' if held else ''}, estimated)",
                       ", compose fewer runs, or ask for a certified enclosure "
                       "(--enclosure always)")
    return plan


def _streamable(parts: Sequence[_Part], d: int) -> bool:
    """One part with one generator and 2 to :data:`SMALL_TERMS` atoms whose exponents,
    divided by their stride, leave no gap (so every coefficient of a power is positive)."""
    if d != 1 or len(parts) != 1 or not 2 <= len(parts[0].p) <= SMALL_TERMS:
        return False
    return all(dense({e[0]: c for e, c in zip(parts[0].exponents, parts[0].p,
                                              strict=True)})[2])


def _terms_bound(parts: Sequence[_Part], d: int) -> int:
    """An upper bound on the terms of ``Π_j P_j^{copies_j}``: the product of the exponent
    spans (per generator, after dividing by the stride when there is one generator), and
    at most the product over parts of ``C(copies + v − 1, v − 1)`` (``v`` atoms: a product of
    ``copies`` atoms depends only on how many of each were taken)."""
    if d == 0 or any(not x.p for x in parts):
        return 1
    if d == 1:
        return univariate_terms([({e[0]: mpz(1) for e in x.exponents}, x.copies) for x in parts])
    spans = [sum(x.copies * (max(e[i] for e in x.exponents) - min(e[i] for e in x.exponents))
                 for x in parts) for i in range(d)]
    by_span = reduce(mul, (s + 1 for s in spans), 1)
    by_count = reduce(mul, (comb(x.copies + len(x.p) - 1, len(x.p) - 1) for x in parts), 1)
    return min(by_span, by_count)


def _infinite_and_scales(parts: Sequence[_Part]) -> tuple[mpz, mpz, mpz]:
    p_scale = reduce(mul, (x.p_scale ** x.copies for x in parts), mpz(1))
    q_scale = reduce(mul, (x.q_scale ** x.copies for x in parts), mpz(1))
    finite = reduce(mul, ((x.p_scale - x.infinite) ** x.copies for x in parts), mpz(1))
    return p_scale - finite, p_scale, q_scale


# -- one generator ------------------------------------------------------------------------

def miller_power(a: Sequence[mpz], k: int) -> list[mpz]:
    """The coefficients of ``(Σ_i a_i y^i)^k`` for ``a_0 ≠ 0`` (Miller's recurrence).

    >>> [int(c) for c in miller_power([mpz(1), mpz(3)], 3)]
    [1, 9, 27, 27]
    """
    m = len(a) - 1
    a0 = mpz(a[0])
    out = [a0 ** k] + [mpz(0)] * (m * k)
    nonzero = [(i, mpz(a[i])) for i in range(1, m + 1) if a[i]]
    for n in range(1, m * k + 1):
        s = mpz(0)
        for i, ai in nonzero:
            if i > n:
                break
            s += ((k + 1) * i - n) * ai * out[n - i]
        out[n] = gmpy2.divexact(s, n * a0)  # type: ignore[attr-defined]
    return out


def _power(coeffs: list[mpz], k: int) -> list[mpz]:
    if k == 1:
        return list(coeffs)
    if sum(1 for c in coeffs if c) <= SMALL_TERMS:
        return miller_power(coeffs, k)
    return [mpz(c) for c in (_flint(coeffs) ** k).coeffs()]


def _flint(coeffs: list[mpz]) -> fmpz_poly:
    return fmpz_poly([int(c) for c in coeffs])


def _spread(coeffs: list[mpz], factor: int) -> list[mpz]:
    if factor == 1:
        return coeffs
    out = [mpz(0)] * ((len(coeffs) - 1) * factor + 1)
    out[::factor] = coeffs
    return out


def _times(a: tuple[int, int, list], b: tuple[int, int, list]) -> tuple[int, int, list]:
    (low_a, sa, x), (low_b, sb, y) = a, b
    s = gcd(sa, sb)
    product = _flint(_spread(x, sa // s)) * _flint(_spread(y, sb // s))
    return low_a + low_b, s, [mpz(c) for c in product.coeffs()]


def univariate_product(parts: Sequence[tuple[Mapping[int, mpz], int]]
                       ) -> tuple[int, int, list[mpz]]:
    """``(low, stride, c)`` with ``Π_j (Σ_e m_j[e]·x^e)^{copies_j} = Σ_i c_i·x^{low + stride·i}``
    for ``parts = [(m_j, copies_j)]`` (exponent ↦ positive integer, non-empty)."""
    powered = []
    for masses, copies in parts:
        low, stride, coeffs = dense(masses)
        powered.append((low * copies, stride, _power(coeffs, copies)))
    while len(powered) > 1:  # a balanced product tree
        powered = [_times(powered[i], powered[i + 1]) if i + 1 < len(powered) else powered[i]
                   for i in range(0, len(powered), 2)]
    return powered[0]


def univariate_terms(parts: Sequence[tuple[Mapping[int, mpz], int]]) -> int:
    """An upper bound on the terms of :func:`univariate_product`: the exponent span over the
    common stride, plus one, and at most ``Π_j C(copies_j + v_j − 1, v_j − 1)``."""
    lows = [min(m) for m, _ in parts]
    stride = reduce(gcd, (e - low for (m, _), low in zip(parts, lows, strict=True)
                          for e in m), 0)
    span = sum(copies * (max(m) - low) for (m, copies), low in zip(parts, lows, strict=True))
    by_count = reduce(mul, (comb(copies + len(m) - 1, len(m) - 1) for m, copies in parts), 1)
    return min(span // stride + 1 if stride else 1, by_count)


def _univariate(parts: Sequence[_Part]) -> tuple[int, int, list, list]:
    """``(low, stride, P, Q)``: the composed coefficients of ``x^{low + stride·j}``."""
    def product(masses: Callable[[_Part], Sequence[mpz]]) -> tuple[int, int, list]:
        return univariate_product([({e[0]: c for e, c in zip(x.exponents, masses(x),
                                                              strict=True)}, x.copies)
                                   for x in parts])

    low, stride, pc = product(lambda x: x.p)
    _, _, qc = product(lambda x: x.q)
    return low, stride, pc, qc


def _from_univariate(g: mpq, low: int, stride: int, pc: list, qc: list, infinite: mpz,
                     p_scale: mpz, q_scale: mpz) -> PolynomialLoss:
    """The atoms of ratio ``g^{low + stride·j} > 1`` (``g > 1``) and their suffix sums,
    computed in place of the coefficients (a coefficient that is zero, where strides were
    spread, is an atom of no mass: it changes no sum)."""
    terms = sum(1 for c in pc if c)
    first = (-low) // stride + 1 if low <= 0 else 0  # the least j with low + stride·j > 0
    del pc[:first], qc[:first]
    for coeffs, top in ((pc, infinite), (qc, mpz(0))):
        coeffs.append(top)
        for i in range(len(coeffs) - 2, -1, -1):
            coeffs[i] += coeffs[i + 1]
    start = low + stride * first
    exps = range(start, start + stride * (len(pc) - 1), stride)
    return PolynomialLoss((g,), exps, pc, qc, infinite, p_scale, q_scale, terms)


# -- several generators ---------------------------------------------------------------------

def _multivariate(plan: PolynomialPlan, infinite: mpz, p_scale: mpz, q_scale: mpz
                  ) -> PolynomialLoss:
    gens, parts = plan.basis.generators, plan.parts
    d = len(gens)
    ctx = fmpz_mpoly_ctx.get(tuple(f"x{i}" for i in range(d)), "lex")
    shift = [0] * d
    pp, qq = ctx.from_dict({(0,) * d: 1}), ctx.from_dict({(0,) * d: 1})
    for x in parts:
        low = [min(e[i] for e in x.exponents) for i in range(d)]
        shifted = [tuple(ei - li for ei, li in zip(e, low, strict=True)) for e in x.exponents]
        pp *= ctx.from_dict({e: int(c) for e, c in zip(shifted, x.p, strict=True)}) ** x.copies
        qq *= ctx.from_dict({e: int(c) for e, c in zip(shifted, x.q, strict=True)}) ** x.copies
        shift = [s + li * x.copies for s, li in zip(shift, low, strict=True)]
    plan.check_terms(len(pp), "exactly ")
    if len(pp) != len(qq):  # pragma: no cover - P and Q share their support
        raise AssertionError("P and Q polynomials differ in support")
    terms = len(pp)
    order = order_above_one(gens, pp, shift)
    sums = []
    for poly, top in ((pp, infinite), (qq, mpz(0))):
        # suffix sums in flint integers, read in decreasing value (P and Q keep their terms
        # in the same order: the same support), without converting each one
        acc = list(accumulate(map(poly.coefficient, reversed(order.indices)),
                              initial=fmpz(int(top))))
        acc.reverse()
        sums.append(_Exact(acc))
    return PolynomialLoss(gens, order, sums[0], sums[1], infinite, p_scale, q_scale, terms)


class _Exact(Sequence):
    """A list of flint integers read as gmpy2 integers (only the few a comparison needs)."""

    def __init__(self, items: list) -> None:
        self._items = items

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, j):
        return mpz(int(self._items[j]))


@dataclass(frozen=True, eq=False)
class PolynomialLoss(SortedLaw):
    """A composed law kept as the exponents of its atoms of ratio ``> 1`` (over the
    ``generators``, in increasing ratio) and the suffix sums ``sp``, ``sq`` of their masses
    (integers over ``p_scale``, ``q_scale``; ``sp[n]`` is the mass at ``+∞``). ``terms`` is
    the number of distinct finite loss values of the whole law (all ratios, also ``≤ 1``)."""

    generators: tuple[mpq, ...]
    exponents: Sequence  # of ints (one generator) or of tuples of ints
    sp: Sequence
    sq: Sequence
    infinite: mpz
    p_scale: mpz
    q_scale: mpz
    terms: int

    def _size(self) -> int:
        return len(self.exponents)

    def _ratio(self, j: int) -> mpq:
        e = self.exponents[j]
        return self.generators[0] ** e if isinstance(e, int) else monomial_value(self.generators, e)

    def _suffixes(self) -> tuple[Sequence, Sequence]:
        return self.sp, self.sq

    def masses(self) -> list[tuple[mpq, mpq, mpq]]:
        """``(ratio, P-mass, Q-mass)`` of every atom of ratio ``> 1``, as rationals (for
        tests and small laws: it computes every ratio)."""
        return [(self._ratio(j), mpq(self.sp[j] - self.sp[j + 1], self.p_scale),
                 mpq(self.sq[j] - self.sq[j + 1], self.q_scale))
                for j in range(len(self.exponents))]
