"""Random choices for mechanisms written as ordinary Python programs.

A program is a function of the database that draws its randomness from these primitives only::

    from verifier.program import flip

    def rr(db):
        return tuple(x if flip("3/4") else 1 - x for x in db)

Every primitive has an exact finite law (rational weights: ints, strings such as ``"3/4"``,
``Fraction``, ``mpq``, or a double named exactly as ``{"f64": …}`` / ``verifier.f64``; a
``float`` is refused). Called by plrv's enumerator (:mod:`verifier.model.program_enum`), a
primitive answers the value the enumeration chooses; called anywhere else it *samples* its
law exactly (an integer drawn below the weights' common denominator), from
``random.SystemRandom()`` unless :func:`seed` gave another source. The same function serves
in production and under verification.

* ``flip(p)``: ``True`` with probability ``p``, else ``False``;
* ``bernoulli(p)``: ``1`` with probability ``p``, else ``0``;
* ``uniform(values)``: each of the distinct ``values`` with probability ``1/k``;
* ``uniform_int(lo, hi)``: each integer of ``lo..hi`` (both included) alike;
* ``choose({value: weight, …})``: each value with its weight over the weights' total;
* ``binomial(n, p)``: ``k`` with probability ``C(n, k)·p^k·(1 − p)^(n − k)``;
* ``geometric_noise(alpha, lo, hi)``: ``z ∈ lo..hi`` with probability ``∝ alpha^|z|``
  (renormalised on the window);
* ``clamped_geometric_noise(alpha, lo, hi)`` (``lo ≤ 0 ≤ hi``): the two-sided geometric law
  ``P[z] = (1 − α)/(1 + α)·α^|z|`` on all integers, the mass below ``lo`` put on ``lo`` and
  the mass above ``hi`` on ``hi``: ``P[lo] = α^|lo|/(1 + α)``, ``P[hi] = α^hi/(1 + α)`` (for
  ``lo < hi``). ``c + clamped_geometric_noise(α, −c, n − c)`` is ``geometric_count``'s law.

Values of weight 0 are no choice at all (``flip(1)`` always answers ``True``).
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Hashable, Iterable, Mapping
from math import comb

from gmpy2 import mpq, mpz

from verifier.core.errors import InvalidArgument
from verifier.core.numbers import format_rational, integer, open_unit, probability, rational

__all__ = ["Law", "flip", "bernoulli", "uniform", "uniform_int", "choose", "binomial",
           "geometric_noise", "clamped_geometric_noise", "seed", "tracing", "forbidding",
           "NotAProgram", "MAX_CHOICES"]

MAX_CHOICES = 1 << 20  # values one choice may have
_ONE = mpq(1)


class Law:
    """One choice's exact law: distinct ``values`` with positive ``weights`` summing to 1,
    and how the program asked for it (``text``, for messages)."""

    __slots__ = ("values", "weights", "text", "_cumulative")

    def __init__(self, values: tuple, weights: tuple, text: str):
        self.values, self.weights, self.text = values, weights, text
        self._cumulative: tuple[mpz, list[mpz]] | None = None

    def same(self, other: Law) -> bool:
        return self is other or (self.values == other.values and self.weights == other.weights)

    def sample(self, rng: random.Random) -> object:
        """A value drawn exactly: an integer below the common denominator, then the first
        value whose cumulative numerator exceeds it."""
        if self._cumulative is None:
            den = mpz(1)
            for w in self.weights:
                den = den * w.denominator // _gcd(den, w.denominator)
            total, ends = mpz(0), []
            for w in self.weights:
                total += w.numerator * (den // w.denominator)
                ends.append(total)
            self._cumulative = (den, ends)
        den, ends = self._cumulative
        r = rng.randrange(int(den))
        for value, end in zip(self.values, ends, strict=True):
            if r < end:
                return value
        return self.values[-1]  # unreachable: the last end is the denominator


def _gcd(a: mpz, b: mpz) -> mpz:
    while b:
        a, b = b, a % b
    return a


class _State(threading.local):
    tracer: Callable[[Law], object] | None = None


_STATE = _State()
_SOURCE: list[random.Random] = [random.SystemRandom()]


def _draw(law: Law) -> object:
    tracer = _STATE.tracer
    if tracer is not None:
        return tracer(law)
    if len(law.values) == 1:
        return law.values[0]
    return law.sample(_SOURCE[-1])


class tracing:
    """While active (a ``with`` block, in this thread), every primitive asks ``tracer`` for
    its value instead of sampling (the enumerator's hook)."""

    def __init__(self, tracer: Callable[[Law], object]):
        self.tracer = tracer
        self.outer: Callable[[Law], object] | None = None

    def __enter__(self) -> None:
        self.outer, _STATE.tracer = _STATE.tracer, self.tracer

    def __exit__(self, *exc: object) -> None:
        _STATE.tracer = self.outer


class NotAProgram(BaseException):  # not an Exception: user code's `except` lets it by
    """A primitive called by user code that plrv calls as a function, not as a program: it
    would sample, and the answer would be one draw taken for the law."""


class forbidding(tracing):
    """While active, a primitive raises :class:`NotAProgram` instead of sampling (around the
    calls of user functions that are not programs). The refusal is kept: a block that ends
    normally after one (the function caught it and returned) raises it again on leaving."""

    def __init__(self) -> None:
        super().__init__(self._refuse)
        self.refused: NotAProgram | None = None

    def _refuse(self, law: Law) -> object:
        if self.refused is None:
            self.refused = NotAProgram(
                f"{law.text} was drawn by a function plrv does not enumerate (only "
                f'[mechanism] kind = "program", attacker.knowledge and composition.steps '
                f"are); it would sample, not answer a law")
        raise self.refused

    def __exit__(self, *exc: object) -> None:
        super().__exit__(*exc)
        if exc[0] is None and self.refused is not None:
            raise self.refused


class seed:
    """Sample from ``rng`` (a ``random.Random``) instead of ``random.SystemRandom()``: at once
    when called, and only inside the block when used as ``with seed(random.Random(7)):``."""

    def __init__(self, rng: random.Random):
        if not isinstance(rng, random.Random):
            raise InvalidArgument(f"seed: {rng!r:.60} is not a random.Random",
                                  argument="rng", value=rng)
        _SOURCE.append(rng)
        self.depth = len(_SOURCE)

    def __enter__(self) -> random.Random:
        return _SOURCE[-1]

    def __exit__(self, *exc: object) -> None:
        del _SOURCE[self.depth - 1:]


_LAWS: dict[tuple, Law] = {}  # laws of numeric arguments, kept (a program repeats them)
_KEPT = 4096


def _cached(key: tuple, build: Callable[[], Law]) -> Law:
    """The law of ``key`` = ``(name, type, argument, type, argument, …)`` (the types tell
    apart arguments that read differently, ``1`` and ``True``), built once; an unhashable
    argument (an f64 table) is built every time."""
    try:
        law = _LAWS.get(key)
    except TypeError:
        return build()
    if law is None:
        law = build()
        if len(_LAWS) >= _KEPT:
            _LAWS.clear()
        _LAWS[key] = law
    return law


def _law(pairs: Iterable[tuple[Hashable, mpq]], text: str) -> Law:
    kept = [(v, w) for v, w in pairs if w != 0]
    if len(kept) > MAX_CHOICES:
        raise InvalidArgument(f"{text}: {len(kept)} values, more than the {MAX_CHOICES} one "
                              f"choice may have")
    return Law(tuple(v for v, _ in kept), tuple(w for _, w in kept), text)


def _flip_law(p: object, name: str, yes: object, no: object) -> Law:
    q = probability(p, f"{name}: p")
    return _law(((yes, q), (no, _ONE - q)), f"{name}({format_rational(q)})")


def flip(p: object = "1/2") -> bool:
    """``True`` with probability ``p``, else ``False``."""
    try:  # the common case first: a law met before, under enumeration
        law = _LAWS[("flip", type(p), p)]
    except (KeyError, TypeError):
        law = _cached(("flip", type(p), p), lambda: _flip_law(p, "flip", True, False))
    tracer = _STATE.tracer
    return tracer(law) if tracer is not None else _draw(law)  # type: ignore[return-value]


def bernoulli(p: object) -> int:
    """``1`` with probability ``p``, else ``0``."""
    return _draw(_cached(("bernoulli", type(p), p),  # type: ignore[return-value]
                         lambda: _flip_law(p, "bernoulli", 1, 0)))


def uniform(values: Iterable[Hashable]) -> object:
    """Each of the distinct ``values`` (a list, tuple or range) with probability ``1/k``."""
    if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Iterable):
        raise InvalidArgument(f"uniform: values = {values!r:.60} is not a list of values",
                              argument="values", value=values)
    vs = tuple(values)
    if not vs:
        raise InvalidArgument("uniform: values = [] has nothing to choose", argument="values")
    if len(set(vs)) != len(vs):
        raise InvalidArgument(f"uniform: values = {list(vs)!r:.60} repeats a value",
                              argument="values", value=values)
    w = mpq(1, len(vs))
    return _draw(_law(((v, w) for v in vs), f"uniform({list(vs)!r:.40})"))


def uniform_int(lo: int, hi: int) -> int:
    """Each integer of ``lo..hi`` (both included) with probability ``1/(hi − lo + 1)``."""
    def build() -> Law:
        a, b = integer(lo, "uniform_int: lo"), integer(hi, "uniform_int: hi")
        if a > b:
            raise InvalidArgument(f"uniform_int: lo = {a} > hi = {b}", argument="lo", value=lo)
        w = mpq(1, b - a + 1)
        return _law(((k, w) for k in range(a, b + 1)), f"uniform_int({a}, {b})")
    return _draw(_cached(("uniform_int", type(lo), lo, type(hi), hi), build))  # type: ignore[return-value]


def choose(weights: Mapping[Hashable, object]) -> object:
    """Each value of ``{value: weight}`` with probability ``weight / Σ weights`` (weights
    exact and non-negative, their total positive)."""
    if not isinstance(weights, Mapping) or not weights:
        raise InvalidArgument(f"choose: {weights!r:.60} is not a non-empty {{value: weight}}",
                              argument="weights", value=weights)
    read = [(v, rational(w, f"choose: weight of {v!r:.30}")) for v, w in weights.items()]
    if any(w < 0 for _, w in read):
        raise InvalidArgument(f"choose: a negative weight in {weights!r:.60}",
                              argument="weights", value=weights)
    total = sum((w for _, w in read), mpq(0))
    if total == 0:
        raise InvalidArgument(f"choose: the weights {weights!r:.60} sum to 0",
                              argument="weights", value=weights)
    return _draw(_law(((v, w / total) for v, w in read), f"choose({weights!r:.40})"))


def binomial(n: int, p: object) -> int:
    """The number of successes of ``n`` independent trials of probability ``p``."""
    def build() -> Law:
        m = integer(n, "binomial: n", lo=0)
        q = probability(p, "binomial: p")
        return _law(((k, comb(m, k) * q ** k * (1 - q) ** (m - k)) for k in range(m + 1)),
                    f"binomial({m}, {format_rational(q)})")
    return _draw(_cached(("binomial", type(n), n, type(p), p), build))  # type: ignore[return-value]


def _window(name: str, alpha: object, lo: int, hi: int) -> tuple[mpq, int, int]:
    a = open_unit(alpha, f"{name}: alpha")
    low, high = integer(lo, f"{name}: lo"), integer(hi, f"{name}: hi")
    if low > high:
        raise InvalidArgument(f"{name}: lo = {low} > hi = {high}", argument="lo", value=lo)
    return a, low, high


def geometric_noise(alpha: object, lo: int, hi: int) -> int:
    """``z ∈ lo..hi`` with probability ``alpha^|z| / Σ_{lo ≤ j ≤ hi} alpha^|j|``."""
    def build() -> Law:
        a, low, high = _window("geometric_noise", alpha, lo, hi)
        masses = [(z, a ** abs(z)) for z in range(low, high + 1)]
        total = sum((m for _, m in masses), mpq(0))
        return _law(((z, m / total) for z, m in masses),
                    f"geometric_noise({format_rational(a)}, {low}, {high})")
    return _draw(_cached(("geometric_noise", type(alpha), alpha, type(lo), lo, type(hi),  # type: ignore[return-value]
                          hi), build))


def clamped_geometric_noise(alpha: object, lo: int, hi: int) -> int:
    """The two-sided geometric noise on all integers (``P[z] ∝ alpha^|z|``) clamped to
    ``lo..hi`` (``lo ≤ 0 ≤ hi``): the tails' mass sits on the ends."""
    def build() -> Law:
        a, low, high = _window("clamped_geometric_noise", alpha, lo, hi)
        if not low <= 0 <= high:
            raise InvalidArgument(f"clamped_geometric_noise: lo = {low}, hi = {high} must "
                                  f"enclose 0", argument="lo", value=lo)
        text = f"clamped_geometric_noise({format_rational(a)}, {low}, {high})"
        if low == high:
            return _law(((0, _ONE),), text)
        inner = (1 - a) / (1 + a)
        masses = [(z, a ** abs(z) / (1 + a) if z in (low, high) else inner * a ** abs(z))
                  for z in range(low, high + 1)]
        return _law(masses, text)
    return _draw(_cached(("clamped_geometric_noise", type(alpha), alpha, type(lo), lo, type(hi),
                        hi), build))  # type: ignore[return-value]
