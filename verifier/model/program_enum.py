"""The exact law of a program (:mod:`verifier.model.program`) on one input, by replay.

The program is run once per *path* — one sequence of choices — with its choices forced:
the first run takes the first value of every choice it meets; each later run replays the
longest prefix of the previous path that still has an untried value, takes that value, and
goes on with first values. Only the new part of a path is multiplied out (the weights of the
kept prefix are kept), and equal outputs are merged into one exact
:class:`~verifier.core.distribution.Dist`. Each path is run exactly once.

A program must make the same choices when replayed with the same prefix. One that does not
(it drew from ``random``, read the clock or a global it changes) is refused naming the choice
where it diverged; one that changed the state of Python's ``random`` module is refused even
when its choices repeat. ``limits.paths`` bounds the paths of one input and the choices of one
path. Outputs are merged on ``==``, so they must be of exact built-in types (a list is read
as the tuple of its elements; a subclass, whose ``==`` may merge anything, is refused); an
output that is a ``Dist`` is mixed in with the path's weight (a function returning its law
is a program of no choices).

Progress: inside ``with watching(sink):`` every enumeration in this process calls
``sink(paths)`` with the paths it has run since its last call (every :data:`_EVERY` paths and
at its end), and :func:`note_paths` passes on the paths a sandbox's child reports
(:mod:`verifier.model.sandbox`); ``plrv``'s progress bar shows their running total.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable
from fractions import Fraction

from gmpy2 import mpq, mpz

from verifier.core.budget import LIMITS, exceeded
from verifier.core.distribution import Bottom, Dist
from verifier.core.errors import UserCodeError, VerifierError
from verifier.model.program import Law, tracing

__all__ = ["enumerate_program", "Enumerated", "DEFAULT_PATHS", "watching", "note_paths"]

DEFAULT_PATHS = LIMITS["paths"].default
_ONE = mpq(1)
_KEPT = 1 << 16  # laws memoised per program (one per input)
_EVERY = 1 << 12  # paths between two progress reports of one enumeration
_SINKS: list[Callable[[int], None]] = []  # the innermost ``watching`` last


class watching:
    """While active (a ``with`` block), enumerations report the paths they run to ``sink``."""

    def __init__(self, sink: Callable[[int], None]):
        self.sink = sink

    def __enter__(self) -> None:
        _SINKS.append(self.sink)

    def __exit__(self, *exc: object) -> None:
        _SINKS.remove(self.sink)


def note_paths(paths: int) -> None:
    """``paths`` more paths run (in this process or in a sandbox's child), told to the
    innermost :class:`watching` sink, if any."""
    if _SINKS and paths > 0:
        _SINKS[-1](paths)


class _Stop(BaseException):
    """Raised inside the program to end a run (divergence, too many choices)."""

    def __init__(self, message: str, limit: bool = False):
        super().__init__(message)
        self.limit = limit


class _Replay:
    """The tracer: forced values for the first ``forced`` choices, first values after."""

    __slots__ = ("laws", "picks", "forced", "pos", "max_choices", "stopped")

    def __init__(self, max_choices: int):
        self.laws: list[Law] = []
        self.picks: list[int] = []
        self.forced = 0
        self.pos = 0
        self.max_choices = max_choices
        self.stopped: _Stop | None = None  # the run's stop, kept if the program catches it

    def __call__(self, law: Law) -> object:
        i = self.pos
        self.pos = i + 1
        if i < self.forced:
            recorded = self.laws[i]
            if law is not recorded and not law.same(recorded):
                raise self._stop(f"diverged at choice {i + 1}: {law.text} where "
                                 f"{recorded.text} was recorded (it used random, time or "
                                 f"global state?)")
            return law.values[self.picks[i]]
        if i >= self.max_choices:
            raise self._stop(f"made more than {self.max_choices} choices on one path",
                             limit=True)
        self.laws.append(law)
        self.picks.append(0)
        return law.values[0]

    def _stop(self, message: str, limit: bool = False) -> _Stop:
        """The stop to raise, remembered: a program that catches it (``except
        BaseException``) and returns is refused all the same."""
        if self.stopped is None:
            self.stopped = _Stop(message, limit)
        return self.stopped


_ATOMS = frozenset({type(None), bool, int, str, float, Fraction, type(mpq(0)), type(mpz(0)),
                    Bottom})


def _plain(value: object, name: str) -> Hashable:
    """``value`` as an output to merge on: atoms of the exact types Python compares by value
    (a list read as the tuple of its elements). Paths merge on ``==`` and ``hash``, which a
    subclass or any other type may redefine (``__eq__`` always true would merge every
    output into one, a constant law), so anything else is refused."""
    t = type(value)
    if t in _ATOMS:
        return value
    if t is tuple or t is list:
        return tuple(_plain(v, name) for v in value)  # type: ignore[attr-defined]
    what = "be hashable (a tuple, not a list or a dict)" if t in (dict, set) else \
        "be of the exact types int, str, Fraction, None or tuples of these, not a subclass " \
        "or another type (its == and hash could merge different outputs)"
    raise UserCodeError(f"program {name!r} returned {t.__name__} {_cut(value)}; outputs must "
                        f"{what}", function=name, argument="function")


def _cut(value: object) -> str:
    try:
        r = repr(value)
    except Exception:  # a user's __repr__ may raise anything
        return "<object>"
    return r if len(r) <= 60 else r[:40] + "…"


def enumerate_program(fn: Callable, args: tuple, *, name: str,
                      paths: int = DEFAULT_PATHS) -> Dist:
    """The exact law of ``fn(*args)`` over all its choices (``name`` is the program's name in
    messages: ``"module:function"`` for a spec's)."""
    replay = _Replay(paths)
    prods = [_ONE]  # prods[i]: the weight of the path's first i choices
    masses: dict[Hashable, mpq] = {}
    state = random.getstate()
    count = 0
    with tracing(replay):
        while True:
            replay.pos, replay.stopped = 0, None
            try:
                out = fn(*args)
            except _Stop as stop:
                if replay.stopped is None:  # raised by the program itself
                    raise UserCodeError(f"program {name!r} raised {stop!s:.100} on path "
                                        f"{count + 1}", function=name,
                                        argument="function") from None
            except VerifierError:  # plrv's own, naming its argument (a budget, say): as is
                if replay.stopped is not None:
                    raise _stopped(name, replay.stopped, paths) from None
                raise
            except (Exception, SystemExit) as exc:
                if replay.stopped is not None:
                    raise _stopped(name, replay.stopped, paths) from None
                raise UserCodeError(f"program {name!r} raised {type(exc).__name__}: "
                                    f"{' '.join(str(exc).split())[:200]} on path "
                                    f"{count + 1}", function=name, argument="function") from exc
            if replay.stopped is not None:  # raised, or caught by the program and ignored
                raise _stopped(name, replay.stopped, paths)
            laws, picks = replay.laws, replay.picks
            if replay.pos < replay.forced:
                raise UserCodeError(f"program {name!r} diverged at choice {replay.pos + 1}: "
                                    f"it returned where {laws[replay.pos].text} was recorded "
                                    f"(it used random, time or global state?)",
                                    function=name, argument="function")
            count += 1
            if count > paths:
                raise _paths(name, f"has more than {paths} paths on one input", paths)
            if not count % _EVERY:
                note_paths(_EVERY)
            for j in range(len(prods) - 1, len(laws)):
                prods.append(prods[j] * laws[j].weights[picks[j]])
            weight = prods[len(laws)]
            if isinstance(out, Dist):  # a law of its own: mixed in
                for o, w in out.items():
                    key = _plain(o, name)
                    masses[key] = masses.get(key, 0) + weight * w
            else:
                key = out if type(out) in _ATOMS else _plain(out, name)
                masses[key] = masses.get(key, 0) + weight
            j = len(laws) - 1
            while j >= 0 and picks[j] == len(laws[j].values) - 1:
                j -= 1
            if j < 0:
                break
            picks[j] += 1
            del laws[j + 1:], picks[j + 1:], prods[j + 1:]
            replay.forced = j + 1
    note_paths(count % _EVERY)
    if random.getstate() != state:
        raise UserCodeError(f"program {name!r} drew from Python's random module, which plrv "
                            f"cannot enumerate; draw with verifier.program's primitives",
                            function=name, argument="function")
    if sum(masses.values(), mpq(0)) != 1:  # cannot happen: each law sums to 1
        raise AssertionError(f"program {name!r}: the paths' weights do not sum to 1")
    return Dist._trusted(masses)


def _stopped(name: str, stop: _Stop, paths: int) -> Exception:
    if stop.limit:
        return _paths(name, str(stop), paths)
    return UserCodeError(f"program {name!r} {stop}", function=name, argument="function")


def _paths(name: str, what: str, paths: int) -> Exception:
    return exceeded("paths", f"program {name!r} {what}", format(paths + 1), paths)


class Enumerated:
    """``fn`` as a kernel: called with arguments, it answers their exact law (memoised by
    the arguments unless ``memo`` is false)."""

    __slots__ = ("fn", "name", "paths", "memo", "_laws", "__weakref__")

    def __init__(self, fn: Callable, name: str, paths: int = DEFAULT_PATHS, memo: bool = True):
        self.fn, self.name, self.paths, self.memo = fn, name, paths, memo
        self._laws: dict[tuple, Dist] = {}

    @property
    def __name__(self) -> str:
        return str(getattr(self.fn, "__name__", self.name))

    def __call__(self, *args: object) -> Dist:
        try:
            law = self._laws.get(args) if self.memo else None
        except TypeError:  # unhashable arguments: not memoised
            return enumerate_program(self.fn, args, name=self.name, paths=self.paths)
        if law is None:
            law = enumerate_program(self.fn, args, name=self.name, paths=self.paths)
            if not self.memo:
                return law
            if len(self._laws) >= _KEPT:
                self._laws.pop(next(iter(self._laws)))
            self._laws[args] = law
        return law

    def prefetch(self, calls: object) -> None:
        """Nothing ahead of time: the program runs in this process."""
