"""The count engine: exact joint tables of symmetric mechanisms over independent records.

When the mechanism depends on the database only through its counts per value and the records
are independent, the joint table ``P[D(i)=t, ζ(D)=B, M(D)=O]`` needs no enumeration of
databases: with ``K`` the known indices and ``U`` the other non-target records,

    P[D(i)=t, counts(D_K)=c_K, M(D)=O]
        = P[D(i)=t] · P[counts(D_K)=c_K] · Σ_{c_U} P[counts(D_U)=c_U] · P[M=O | c_K + c_U + e_t]

The count vectors of ``K`` and ``U`` have multinomial laws (i.i.d. records) or the convolution
of the records' priors (independent, non-identical records).

Knowing the records of ``K`` collapses to knowing their counts: given ``D(i)=t`` and
``D_K = B``, the output law depends on ``B`` only through ``counts(B)`` (``D_U`` is independent
of ``D_K`` and the mechanism is symmetric). Every ``B`` with the same counts therefore has the
same APK loss, and ``P[B | D(i)=a]`` adds up over the class, so the class table gives the
same APK, PPK and noiseless δ as the table over individual ``B``. A class stands for
``|K|! / Π_v c_K(v)!`` background values (:attr:`KnownCounts.multiplicity`).

Two routes:

* records on two values and a deterministic mechanism (every symmetric mechanism on two values
  is a function of the number of ones): the table is kept as one law
  (:mod:`verifier.engines.shift_table`), ``O(n)`` integers whatever the knowledge;
* otherwise (randomized mechanisms, more values) the table is built row by row, each cell a
  sum over the other records' count vectors. Masses are integers over one common denominator
  (the product of the priors' denominators and of the mechanism's), so the inner sums add
  integers; one rational is formed per (target value, class).

:func:`count_estimate` gives the work and the memory (bytes of digits) of either route from
the spec, before anything is built.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from functools import reduce

from gmpy2 import comb, fac, lcm, mpq, mpz

from verifier.core.budget import Budget
from verifier.core.distribution import Dist
from verifier.core.errors import BudgetExceeded
from verifier.engines.count_law import BLOCK, law_bytes
from verifier.engines.joint import JointTable
from verifier.engines.known_counts import KnownCounts
from verifier.engines.shift_table import Preimages, preimages, shift_tables
from verifier.model.data import IndependentData
from verifier.model.knowledge import NOTHING, Knowledge
from verifier.model.mechanisms import Mechanism

__all__ = ["count_law", "count_tables", "count_work", "count_estimate",
           "compositions", "shift_route", "Progress"]

Vector = tuple[int, ...]
Progress = Callable[[int, int], None]


def compositions(total: int, parts: int, allowed: Sequence[bool] | None = None):
    """Every vector of ``parts`` non-negative integers summing to ``total`` (lexicographic);
    with ``allowed``, parts marked False stay 0."""
    allowed = allowed or [True] * parts
    if parts == 0:
        if total == 0:
            yield ()
        return
    if parts == 1:
        if total == 0 or allowed[0]:
            yield (total,)
        return
    top = total if allowed[0] else 0
    for first in range(top, -1, -1):
        for rest in compositions(total - first, parts - 1, allowed[1:]):
            yield (first,) + rest


def _integer_prior(prior: Dist, values: tuple) -> tuple[list[mpz], mpz]:
    d = reduce(lcm, (w.denominator for _, w in prior.items()), mpz(1))
    return [(prior[v] * d).numerator for v in values], d


def count_law(priors: Sequence[Dist], values: tuple) -> tuple[dict[Vector, mpz], mpz]:
    """The law of the count vector of independent records: ``({c: N(c)}, S)`` with
    ``P[counts = c] = N(c)/S``, integers.

    i.i.d. records: ``N(c) = (u! / Π c_v!) · Π n_v^{c_v}`` with ``p_v = n_v/d`` and ``S = d^u``
    (the multinomial law). Otherwise the priors are convolved one record at a time.
    """
    k, u = len(values), len(priors)
    if u == 0:
        return {(0,) * k: mpz(1)}, mpz(1)
    if all(p == priors[0] for p in priors):
        weights, d = _integer_prior(priors[0], values)
        multinomial: dict[Vector, mpz] = {}
        for c in compositions(u, k, [w != 0 for w in weights]):
            n = fac(u)
            for cv, w in zip(c, weights, strict=True):
                n = n // fac(cv) * w ** cv
            multinomial[c] = n
        return multinomial, d ** u
    law: dict[Vector, mpz] = {(0,) * k: mpz(1)}
    scale = mpz(1)
    for prior in priors:
        weights, d = _integer_prior(prior, values)
        scale *= d
        nxt: dict[Vector, mpz] = {}
        for c, n in law.items():
            for v, w in enumerate(weights):
                if w:
                    key = c[:v] + (c[v] + 1,) + c[v + 1:]
                    nxt[key] = nxt.get(key, mpz(0)) + n * w
        law = nxt
    return law, scale


def _vector_count(u: int, k: int) -> int:
    return int(comb(u + k - 1, k - 1))


def count_work(data: IndependentData, know: Knowledge, targets: Sequence[int]) -> int:
    """An upper bound on the (target value, known class, other counts) combinations."""
    k = len(data.values)
    m = len(know.known or ())
    u = data.n - 1 - m
    return len(targets) * k * _vector_count(m, k) * _vector_count(u, k)


_LAST_PREIMAGES: list = []  # (mechanism, values, n, preimages) of the last look-up


def shift_route(data: IndependentData, mech: Mechanism) -> Preimages | None:
    """The preimages of a deterministic mechanism on two values (the linear route), else
    None. ``n + 1`` calls of ``on_counts``; the last answer is kept (the estimate and the
    build ask for the same)."""
    if len(data.values) != 2 or mech.on_counts is None:
        return None
    if _LAST_PREIMAGES:
        m, values, n, pre = _LAST_PREIMAGES[0]
        if m is mech and values == data.values and n == data.n:
            return pre
    pre = preimages(mech, data.values, data.n)
    _LAST_PREIMAGES[:] = [(mech, data.values, data.n, pre)]
    return pre


def _denominator_bits(priors: Sequence[Dist]) -> int:
    """Bits of the product of the priors' common denominators (a count law's scale)."""
    bits: dict[int, int] = {}  # i.i.d. models repeat one prior object
    for p in priors:
        if id(p) not in bits:
            bits[id(p)] = int(reduce(lcm, (w.denominator for _, w in p.items()),
                                     mpz(1)).bit_length())
    return sum(bits[id(p)] for p in priors)


def count_memory_floor(data: IndependentData, know: Knowledge, targets: Sequence[int]) -> int:
    """A lower bound on the bytes of either route of :func:`count_estimate`, from the spec
    alone (no call of the mechanism): the law of the ``u`` records that are neither known nor
    the target has ``u + 1`` entries of ``b_U`` bits on both routes. It lets a hopeless size
    be refused before the ``n + 1`` calls of the mechanism that the full estimate makes."""
    kset = set(know.known or ())
    t0 = targets[0] if targets else 0
    u = data.n - 1 - len(kset)
    bits_u = _denominator_bits([p for j, p in enumerate(data.priors) if j != t0 and j not in kset])
    if _streamable(data):  # the linear route streams the law: its checkpoints at least
        return 2 * (u // BLOCK + 2) * ((bits_u + 7) // 8 + 32)
    return (u + 1) * ((bits_u + 7) // 8 + 32)


def _read(pre: Preimages, u: int, m: int) -> int:
    """How many indices of the law of ``u`` records the linear route reads with ``m`` known
    records: ``x = s − k − α`` (``0 ≤ k ≤ m``, ``α ∈ {0, 1}``, and the next prefix sum) near
    each end ``s`` of a preimage interval, within ``0..u + 1``."""
    ends = sorted({e for s1, s2 in pre.runs for e in (s1, s2 + 1)}
                  | {e for _, spans in pre.groups for s1, s2 in spans for e in (s1, s2 + 1)})
    covered, top = 0, -1
    for e in ends:
        lo, hi = max(e - m - 2, top + 1, 0), min(e + 1, u + 1)
        if lo <= hi:
            covered += hi - lo + 1
            top = hi
    return covered


def _streamable(data: IndependentData) -> bool:
    """Whether a law of these records is streamed: i.i.d. on two values, both possible."""
    if not data.identical or len(data.values) != 2 or not data.priors:
        return False
    prior = data.priors[0]
    return all(0 < prior[v] < 1 for v in data.values)


def count_estimate(data: IndependentData, mech: Mechanism, know: Knowledge,
                   targets: Sequence[int]) -> tuple[int, int]:
    """``(work, bytes)`` of the count engine for this spec, before anything is built.

    ``bytes`` counts the digits of the exact numbers held at once (``b/8 + 32`` bytes for a
    number of ``b`` bits, with its header).

    * Linear route (two values, deterministic mechanism; :func:`shift_route`): per distinct
      law, ``2(u+2)`` integers of ``b_U`` bits (the law of the ``u`` other records and its
      prefix sums, ``b_U`` the bits of the product of their priors' denominators),
      ``2(m+2)`` of ``b_K`` bits for the ``m`` known records and, for noiseless privacy,
      ``2(n+1)`` of ``b_U + b_K`` bits; laws are shared by the targets when the records are
      i.i.d., and then a large law is streamed and bounded by its kept blocks
      (:func:`~verifier.engines.count_law.law_bytes`). Work: ``T·(n + 1)`` to build the
      laws plus, per target, ordered pair and class,
      ``R + I + 1`` interval sums (``R`` runs of singleton outputs, ``I`` intervals of the
      others) for each of about ``2·log2(n)`` bisection steps.
    * General route: :func:`count_work` combinations; the count laws (``L_K``, ``L_U``
      vectors) and the table (``T·k·L_K`` rows of up to ``L_U·O`` outputs, ``O`` the
      outputs of the mechanism on one count vector), each number of ``b_U + b_K + 64`` bits.
    """
    k = len(data.values)
    known = tuple(know.known or ())
    kset = set(known)
    m, n = len(known), data.n
    u = n - 1 - m
    t0 = targets[0] if targets else 0
    bits_k = _denominator_bits([data.priors[j] for j in known])
    bits_u = _denominator_bits([p for j, p in enumerate(data.priors)
                                if j != t0 and j not in kset])
    pre = shift_route(data, mech)
    if pre is not None:
        laws = 1 if data.identical else len(targets)
        lazy = _streamable(data)
        numbers = (law_bytes(u, bits_u, lazy, _read(pre, u, m)) + law_bytes(m, bits_k, lazy)
                   + law_bytes(n - 1, bits_u + bits_k, lazy, _read(pre, n - 1, 0)))
        pieces = len(pre.runs) + sum(len(iv) for _, iv in pre.groups) + 1
        work = len(targets) * ((n + 1) + 2 * (m + 1) * pieces * 2 * (n.bit_length() + 1))
        return work, laws * numbers
    lk, lu = _vector_count(m, k), _vector_count(u, k)
    assert mech.on_counts is not None
    o = len(mech.on_counts(dict(zip(data.values, (n,) + (0,) * (k - 1), strict=True)), n))
    numbers = lk + lu + len(targets) * k * lk * lu * o
    return count_work(data, know, targets), numbers * ((bits_u + bits_k + 64) // 8 + 32)


def count_tables(data: IndependentData, mech: Mechanism, know: Knowledge,
                 targets: Sequence[int], budget: Budget | None = None,
                 progress: Progress | None = None) -> dict[int, JointTable]:
    """Joint tables for every target from count vectors (the mechanism's ``on_counts``)."""
    pre = shift_route(data, mech)
    if pre is not None:
        tables = shift_tables(data, mech, know, targets, pre)
        if progress:
            progress(1, 1)
        return tables
    budget = budget or Budget()
    work = count_work(data, know, targets)
    if work > budget.max_combinations:
        raise BudgetExceeded(
            f"the count engine needs {work} combinations of counts, over the budget of "
            f"{budget.max_combinations}; use fewer records or values, or raise the budget "
            f"(--budget-counts {work})")
    values, n = data.values, data.n
    known = tuple(know.known or ())
    mechanism_rows: dict[Vector, tuple[mpz, dict]] = {}

    on_counts = mech.on_counts
    assert on_counts is not None  # the count engine runs symmetric mechanisms only

    def output_row(total: Vector) -> tuple[mpz, dict]:
        if total not in mechanism_rows:
            dist = on_counts(dict(zip(values, total, strict=True)), n)
            d = reduce(lcm, (w.denominator for _, w in dist.items()), mpz(1))
            mechanism_rows[total] = (d, {o: (w * d).numerator for o, w in dist.items()})
        return mechanism_rows[total]

    tables = {}
    law_k, scale_k = count_law([data.priors[j] for j in known], values)
    done, steps = 0, len(targets) * len(values) * len(law_k)
    for i in targets:
        rest = [j for j in range(n) if j != i and j not in known]
        law_u, scale_u = count_law([data.priors[j] for j in rest], values)
        target_w, target_d = _integer_prior(data.priors[i], values)
        rows: dict = {}
        for ti, t in enumerate(values):
            if target_w[ti] == 0:
                done += len(law_k)
                continue
            e_t = tuple(int(v == ti) for v in range(len(values)))
            by_class: dict = {}
            for c_k, n_k in law_k.items():
                done += 1
                if progress:
                    progress(done, steps)
                base = tuple(a + b for a, b in zip(c_k, e_t, strict=True))
                acc: dict[Hashable, mpz] = {}
                denoms: dict[Hashable, mpz] = {}
                for c_u, n_u in law_u.items():
                    d, row = output_row(tuple(a + b for a, b in zip(base, c_u, strict=True)))
                    for o, w in row.items():
                        term = n_u if w == 1 else n_u * w  # point masses: no multiplication
                        # keep Σ n_u·w/d exact with one denominator per output: lcm of the d's
                        if o not in acc:
                            acc[o], denoms[o] = term, d
                        elif denoms[o] == d:
                            acc[o] += term
                        else:
                            common = lcm(denoms[o], d)
                            acc[o] = acc[o] * (common // denoms[o]) + term * (common // d)
                            denoms[o] = common
                common = reduce(lcm, denoms.values(), mpz(1))
                row = {o: a if denoms[o] == common else a * (common // denoms[o])
                       for o, a in acc.items() if a}
                if not row:
                    continue
                key = KnownCounts(values, c_k) if known else NOTHING
                factor = mpq(target_w[ti] * n_k, target_d * scale_k * scale_u * common)
                by_class[key] = (factor, row)
            if by_class:
                rows[t] = by_class
        tables[i] = JointTable(i, values, rows)
    return tables

