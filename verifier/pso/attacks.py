"""The seed's mechanisms and attacks for predicate singling out (seed 002, §4 and §6).

Mechanisms (kernels from a dataset to outputs):

* ``count(q)``: ``#{j : q(x_j)}`` (§4.2.1, the Counting Mechanism);
* ``counts(q_1 … q_m)``: the tuple of counts;
* ``composition_counts(p)`` over ``{0,1}^d``: the counts of ``p`` and of ``p ∧ b_j`` for every
  bit ``j`` (Theorem 4.6);
* ``predicate(q)``: ``(q(x_1), …, q(x_n))`` (§4.2.2, the Predicate Mechanism);
* ``bit_predicates``: the predicate mechanism of every bit predicate together, which releases
  every row (Claim 4.8);
* ``bit_suppression(k)``: groups of ``k`` rows in index order, bits on which a group disagrees
  suppressed (§6.2);
* ``interval_buckets(k)``: rows sorted, each group of ``k`` released as ``[min, max]`` (§6.2);
* ``randomized_response(truth)``: each row reported truthfully with probability ``truth``,
  otherwise as each other value equally (a DP mechanism);
* ``identity``.

Attacks (functions from the output to a predicate, a collection, or None):

* ``composition``: if ``#p = 1`` the bit counts spell the unique row of ``p``: output it
  (weight ``2^{−d}``); otherwise the empty predicate (Theorem 4.6);
* ``full``: one predicate ``{x_i}`` per released row (Claim 4.8);
* ``bit_suppression``: for the first group with suppressed bits ``S``, the predicate "agrees
  with the group's pattern on the kept bits and the suppressed bits, read as a number, are
  below ``⌈2^{|S|}/k⌉``" — about one row in ``k`` of the group (§6.2);
* ``interval_buckets``: ``{min of the first interval}`` (§6.2);
* ``trivial``: the baseline's predicate whatever the output.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from verifier.core.distribution import Dist
from verifier.core.errors import InvalidArgument
from verifier.core.numbers import positive_int, probability
from verifier.pso.predicates import EMPTY, Predicate, Universe
from verifier.pso.success import PSOMechanism

__all__ = ["MECHANISMS", "ATTACKS", "count_mechanism", "counts_mechanism",
           "composition_counts", "predicate_mechanism", "bit_predicates", "bit_suppression",
           "interval_buckets", "randomized_response_rows", "identity_mechanism",
           "composition_attack", "full_attack", "bit_suppression_attack", "interval_attack"]


def count_mechanism(q: Predicate) -> PSOMechanism:
    """A row matters only through ``q(x)``: values are lumped by it."""
    return PSOMechanism(f"count({q.label})",
                        lambda rows: sum(1 for u in rows if u in q), True,
                        lambda u: u in q, "count", (("predicate", q),))


def counts_mechanism(qs: Sequence[Predicate]) -> PSOMechanism:
    """A row matters only through ``(q_1(x), …, q_m(x))``: values are lumped by it."""
    qs = tuple(qs)
    return PSOMechanism("counts(" + ", ".join(q.label for q in qs) + ")",
                        lambda rows: tuple(sum(1 for u in rows if u in q) for q in qs), True,
                        lambda u: tuple(u in q for q in qs), "counts", (("predicates", qs),))


def composition_counts(universe: Universe, p: Predicate) -> PSOMechanism:
    """Counts of ``p`` and of ``p ∧ b_j`` for ``j = 0 … d−1`` (Theorem 4.6).

    A row outside ``p`` matters only through being outside: those values form one class; a
    row in ``p`` is seen through all its bits, so each value of ``p`` is a class of its own.
    """
    if not universe.bits:
        raise InvalidArgument("composition_counts needs a universe of bit strings (bits = d)")
    d = universe.bits
    bits = {u: tuple(universe.bit(u, j) for j in range(d)) for u in p.members}
    zero = (0,) * d

    def kernel(rows: tuple) -> tuple:
        inside = [bits[u] for u in rows if u in bits]
        return (len(inside),) + (tuple(map(sum, zip(*inside, strict=True))) if inside else zero)
    return PSOMechanism(f"counts of p = {p.label!r} and p ∧ b_j, j < {d}", kernel, True,
                        lambda u: (u,) if u in bits else (), "composition_counts")


def predicate_mechanism(q: Predicate) -> PSOMechanism:
    return PSOMechanism(f"predicate({q.label})",
                        lambda rows: tuple(int(u in q) for u in rows), False,
                        lambda u: u in q, "predicate", (("predicate", q),))


def bit_predicates(universe: Universe) -> PSOMechanism:
    """Every bit predicate's predicate mechanism at once: row ``i``'s bits, for every ``i``."""
    if not universe.bits:
        raise InvalidArgument("bit_predicates needs a universe of bit strings (bits = d)")
    d = universe.bits
    return PSOMechanism("predicate mechanisms of b_0 … b_{d−1}", lambda rows: tuple(
        tuple(universe.bit(u, j) for j in range(d)) for u in rows), False,
        kind="bit_predicates")


def bit_suppression(universe: Universe, k: int) -> PSOMechanism:
    """Groups of ``k`` rows in index order; each group released as one pattern with ``*`` where
    its rows disagree (a k-anonymizer, §6.2). The last group takes the remainder."""
    if not universe.bits:
        raise InvalidArgument("bit_suppression needs a universe of bit strings (bits = d)")
    k = positive_int(k, "k")
    d = universe.bits

    def kernel(rows: tuple) -> tuple:
        groups = [rows[i:i + k] for i in range(0, len(rows), k)]
        if len(groups) > 1 and len(groups[-1]) < k:
            groups[-2:] = [groups[-2] + groups[-1]]
        out = []
        for g in groups:
            pattern = "".join(
                str(universe.bit(g[0], j)) if all(universe.bit(u, j) == universe.bit(g[0], j)
                                                  for u in g) else "*" for j in range(d))
            out.append((pattern, len(g)))
        return tuple(out)
    return PSOMechanism(f"bit suppression, k = {k}", kernel, False, kind="bit_suppression",
                        params=(("k", k),))


def interval_buckets(k: int) -> PSOMechanism:
    """Rows sorted; each group of ``k`` consecutive rows released as ``(min, max, size)``."""
    k = positive_int(k, "k")

    def kernel(rows: tuple) -> tuple:
        s = sorted(rows)
        groups = [s[i:i + k] for i in range(0, len(s), k)]
        if len(groups) > 1 and len(groups[-1]) < k:
            groups[-2:] = [groups[-2] + groups[-1]]
        return tuple((g[0], g[-1], len(g)) for g in groups)
    return PSOMechanism(f"interval buckets, k = {k}", kernel, True, kind="interval_buckets",
                        params=(("k", k),))


def randomized_response_rows(universe: Universe, truth: object) -> PSOMechanism:
    t = probability(truth, "truth")
    vals = universe.values
    if len(vals) < 2:
        raise InvalidArgument("randomized response needs at least two values")
    other = (1 - t) / (len(vals) - 1)
    per = {u: Dist._trusted({v: (t if v == u else other) for v in vals
                             if (t if v == u else other) != 0}) for u in vals}
    return PSOMechanism(f"randomized response, truth {t}",
                        lambda rows: Dist.product(per[u] for u in rows), False,
                        kind="randomized_response", params=(("truth", t),))


def identity_mechanism() -> PSOMechanism:
    return PSOMechanism("identity", lambda rows: rows, False, kind="identity")


# ------------------------------------------------------------------------------ attacks


def _bits(universe: Universe, what: str) -> int:
    if not universe.bits:
        raise InvalidArgument(f"{what} needs a universe of bit strings (bits = d)")
    return universe.bits


def composition_attack(universe: Universe) -> Callable[[tuple], Predicate]:
    """Theorem 4.6: if ``#p = 1``, bit ``j`` of the unique row of ``p`` is ``#(p ∧ b_j)``."""
    d = _bits(universe, "the composition attack")

    def attack(out: tuple) -> Predicate:
        if out[0] != 1:
            return EMPTY
        row = sum(out[1 + j] << (d - 1 - j) for j in range(d))
        return Predicate(frozenset({row}), universe.show(row))
    return attack


def full_attack(universe: Universe) -> Callable[[tuple], tuple]:
    """Claim 4.8: the released bits spell every row; one predicate ``{x_i}`` per row."""
    d = _bits(universe, "the full attack")

    def attack(out: tuple) -> tuple:
        rows = [sum(b << (d - 1 - j) for j, b in enumerate(bits)) for bits in out]
        return tuple(Predicate(frozenset({r}), universe.show(r)) for r in rows)
    return attack


def bit_suppression_attack(universe: Universe, k: int) -> Callable[[tuple], Predicate]:
    """§6.2: inside the first group's pattern, the completions whose suppressed bits read as a
    number below ``⌈2^|S|/k⌉`` — about one row in k of the group matches."""
    d = _bits(universe, "the bit suppression attack")

    def attack(out: tuple) -> Predicate:
        pattern, size = out[0]
        free = [j for j, c in enumerate(pattern) if c == "*"]
        if not free:
            return EMPTY
        cut = -(-(2 ** len(free)) // size)
        members = []
        for u in universe.values:
            if any(pattern[j] != "*" and universe.bit(u, j) != int(pattern[j]) for j in range(d)):
                continue
            value = 0
            for j in free:
                value = 2 * value + universe.bit(u, j)
            if value < cut:
                members.append(u)
        return Predicate(frozenset(members), f"{pattern} with suppressed bits < {cut}")
    return attack


def interval_attack(out: tuple) -> Predicate:
    """§6.2: the first interval's lower end is a row's value."""
    lo = out[0][0]
    return Predicate(frozenset({lo}), f"x == {lo}")


MECHANISMS = ("count", "counts", "composition_counts", "predicate", "bit_predicates",
              "bit_suppression", "interval_buckets", "randomized_response", "identity",
              "function")
ATTACKS = ("optimal", "trivial", "composition", "full", "bit_suppression", "interval_buckets",
           "function")

