"""``plrv audit --scan KEY=RANGE``: search a parameter of every case for its first unsound value.

``KEY`` is a key of the case — ``compose``, ``epsilon``, ``delta``, ``d_in``, ``args.NAME`` or
``options.NAME`` — and ``RANGE`` one of:

* ``LO..HI``, two integers: every integer in between. Up to :data:`MAX_LINEAR` values are all
  decided, in order (a *linear* scan: the first unsound value found is the smallest); a wider
  range is searched by *bisection*, which decides ``LO`` and ``HI`` and then halves the bracket
  between a sound and an unsound value — the boundary it reports (``b − 1`` sound, ``b``
  unsound) is a proved change of verdict, and the smallest unsound value only if soundness is
  monotone in the key. A bisection that finds no unsound value decided only some values of
  the range, so its verdict is unknown, never sound;
* ``LO..HI/N``: ``N`` evenly spaced values from ``LO`` to ``HI`` (computed exactly, each
  rounded to the nearest double and handed to the library as that double), decided in order;
* ``V1,V2,…``: those values, in order (an integer, a double ``0x1.8p-1`` or ``0.75``, or a
  string such as ``ln(3)`` for the keys that read one).

Each point is the case with that one key replaced, decided exactly as any case
(:func:`~verifier.audit.runner.run_audit`). A point at which the library (or plrv's checks)
refuses the value is recorded with its error and the scan goes on; the scan is an error only
when every point is. The scan reports every point, the first unsound value and the last sound
one before it, and each change of verdict (or of the tight ε becoming infinite) between
consecutive points.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from gmpy2 import mpq

from verifier.audit.case import ArgValue, AuditCase, AuditRow
from verifier.core.binary64 import F64, f64
from verifier.core.epsilon import Epsilon, parse_epsilon
from verifier.core.errors import InvalidArgument, VerifierError
from verifier.core.numbers import format_rational, probability, rational

__all__ = ["Scan", "ScanPoint", "ScanResult", "parse_scan", "run_scan", "MAX_LINEAR",
           "MAX_POINTS"]

MAX_LINEAR = 200  # integer values decided one by one; a wider range is bisected
MAX_POINTS = 1000  # values of a grid or a list
_KEYS = ("compose", "epsilon", "delta", "d_in")
_INT = re.compile(r"^[+-]?\d+$")
_NAME = "--scan"


@dataclass(frozen=True, slots=True)
class Scan:
    """A parsed ``--scan``: the key, the values (in order) and the method (``linear``,
    ``bisection`` over ``lo..hi``)."""

    key: str
    values: tuple[ArgValue | Epsilon | mpq, ...]
    method: str
    text: str


@dataclass(frozen=True, slots=True)
class ScanPoint:
    value: str
    row: AuditRow | None
    error: str | None = None

    @property
    def verdict(self) -> str:
        return self.row.verdict if self.row is not None else "error"

    @property
    def infinite(self) -> bool:
        return self.row is not None and self.row.tight_epsilon == Epsilon.INF


@dataclass(frozen=True, slots=True)
class ScanResult:
    """One case scanned: its points in order of value, the first unsound value and the last
    sound value below it (``None``: none found), the changes between consecutive points."""

    case: int
    key: str
    method: str
    points: tuple[ScanPoint, ...]
    first_unsound: str | None
    last_sound: str | None
    changes: tuple[str, ...]

    @property
    def undecided(self) -> bool:
        """A bisection that found no unsound value: it decided only some values of the range
        (``LO``, ``HI`` and the halvings), so it proves nothing of the values between."""
        return self.method == "bisection" and self.first_unsound is None


def _fail(text: str, why: str) -> InvalidArgument:
    return InvalidArgument(f"{_NAME} {text!r:.80}: {why}", argument=_NAME, value=text)


def _item(raw: str, key: str, text: str) -> ArgValue | Epsilon | mpq:
    raw = raw.strip()
    if not raw:
        raise _fail(text, "an empty value")
    if key == "compose":
        if not _INT.match(raw):
            raise _fail(text, f"compose takes integers, not {raw!r}")
        return int(raw)
    if key == "epsilon":
        return parse_epsilon(raw, _NAME)
    if key == "delta":
        return probability(raw, _NAME)
    if _INT.match(raw):
        return int(raw)
    if raw.lower().startswith(("0x", "-0x", "+0x")) or re.match(r"^[+-]?[\d.]+([eE][+-]?\d+)?$",
                                                                 raw):
        return f64(raw, _NAME)
    return raw


def _nearest(q: mpq) -> F64:
    # int / int is correctly rounded (nearest, ties to even) in CPython: the nearest double
    return f64(int(q.numerator) / int(q.denominator), _NAME)


def _grid_value(q: F64, key: str) -> ArgValue | Epsilon | mpq:
    if key == "epsilon":
        return Epsilon.of_nats(q.exact, _NAME)
    if key == "delta":
        return probability(q.exact, _NAME)
    return q


def parse_scan(text: str, max_compose: int | None = None) -> Scan:
    """``KEY=RANGE`` read and checked (see the module); errors name ``--scan``. A ``compose``
    above ``max_compose`` (the config's own limit) is refused as the config would refuse it."""
    scan = _parse(text)
    if scan.key == "compose":
        ks = [v for v in scan.values if isinstance(v, int)]  # every compose value is an int
        if max_compose is not None and max(ks) > max_compose:
            raise _fail(text, f"compose goes above {max_compose}, the most an audit composes")
        if min(ks) < 1:
            raise _fail(text, "compose starts at 1")
    return scan


def _parse(text: str) -> Scan:
    key, eq, rng = text.partition("=")
    key = key.strip()
    if not eq:
        raise _fail(text, "write KEY=LO..HI, KEY=LO..HI/N or KEY=V1,V2,…")
    if key not in _KEYS and not re.match(r"^(args|options)\.[A-Za-z_]\w*$", key):
        raise _fail(text, f"key {key!r} is not one a scan can vary: "
                          f"{', '.join(_KEYS)}, args.NAME or options.NAME")
    lo, dots, hi = rng.partition("..")
    if not dots:
        values = tuple(_item(v, key, text) for v in rng.split(","))
        if len(values) > MAX_POINTS:
            raise _fail(text, f"{len(values)} values, more than {MAX_POINTS}")
        return Scan(key, values, "list", text)
    hi, slash, n = hi.partition("/")
    if not slash:
        if not (_INT.match(lo.strip()) and _INT.match(hi.strip())):
            raise _fail(text, "LO..HI takes two integers; for real values write LO..HI/N")
        a, b = int(lo), int(hi)
        if a > b:
            raise _fail(text, f"LO = {a} is above HI = {b}")
        if b - a + 1 <= MAX_LINEAR:
            return Scan(key, tuple(range(a, b + 1)), "linear", text)
        return Scan(key, (a, b), "bisection", text)
    if not _INT.match(n.strip()) or not 2 <= int(n) <= MAX_POINTS:
        raise _fail(text, f"N must be an integer from 2 to {MAX_POINTS}")
    if key == "compose":
        raise _fail(text, "compose takes integers: write LO..HI")
    a_q, b_q = rational(lo.strip(), _NAME), rational(hi.strip(), _NAME)
    if a_q > b_q:
        raise _fail(text, "LO is above HI")
    count = int(n)
    grid = [_nearest(a_q + (b_q - a_q) * i / (count - 1)) for i in range(count)]
    return Scan(key, tuple(_grid_value(q, key) for q in grid), "grid", text)


def with_value(case: AuditCase, key: str, value: ArgValue | Epsilon | mpq) -> AuditCase:
    """``case`` with ``key`` set to ``value``."""
    if key == "compose":
        return replace(case, compose=int(value))  # type: ignore[arg-type]
    if key == "epsilon":
        eps = value if isinstance(value, Epsilon) else parse_epsilon(value, _NAME)
        return replace(case, epsilon=eps)
    if key == "delta":
        return replace(case, delta=value)  # type: ignore[arg-type]
    if key == "d_in":
        return replace(case, d_in=value)  # type: ignore[arg-type]
    table, name = key.split(".", 1)
    if table == "args":
        return replace(case, args={**case.args, name: value})  # type: ignore[dict-item]
    return replace(case, options={**case.options, name: value})  # type: ignore[dict-item]


def _show(value: object) -> str:
    if isinstance(value, F64):
        return f"{value.double!r} ({value.hex})"
    if isinstance(value, mpq):
        return format_rational(value)
    return str(value)


Decide = Callable[[AuditCase], AuditRow]


def _point(decide: Decide, case: AuditCase, key: str, value: ArgValue | Epsilon | mpq
           ) -> ScanPoint:
    try:
        return ScanPoint(_show(value), decide(with_value(case, key, value)))
    except (MemoryError, KeyboardInterrupt):
        raise
    except VerifierError as exc:
        return ScanPoint(_show(value), None, str(exc))


def _changes(points: Sequence[ScanPoint]) -> tuple[str, ...]:
    out = []
    for a, b in zip(points, points[1:], strict=False):
        if a.verdict != b.verdict or a.infinite != b.infinite:
            what = f"{a.verdict} → {b.verdict}" if a.verdict != b.verdict else \
                "tight ε becomes ∞" if b.infinite else "tight ε becomes finite"
            out.append(f"{a.value} → {b.value}: {what}")
    return tuple(out)


def _bisect(decide: Decide, case: AuditCase, key: str, lo: int, hi: int) -> list[ScanPoint]:
    first, last = _point(decide, case, key, lo), _point(decide, case, key, hi)
    points = {lo: first, hi: last}
    if first.verdict != "sound" or last.verdict != "unsound":
        return [first, last]  # nothing to bisect: the result says so
    while hi - lo > 1:
        mid = (lo + hi) // 2
        probe, p = mid, _point(decide, case, key, mid)
        while p.verdict not in ("sound", "unsound") and probe + 1 < hi:
            points[probe] = p
            probe += 1
            p = _point(decide, case, key, probe)
        points[probe] = p
        if p.verdict == "unsound":
            hi = probe
        elif p.verdict == "sound":
            lo = probe
        else:
            break  # every value between lo and hi errs or is unknown
    return [points[k] for k in sorted(points)]


def run_scan(case: AuditCase, scan: Scan, decide: Decide) -> ScanResult:
    """Scan one case (see the module); ``decide`` answers one case (the runner's)."""
    if scan.method == "bisection":
        lo, hi = scan.values
        points = _bisect(decide, case, scan.key, int(lo), int(hi))  # type: ignore[arg-type]
    else:
        points = [_point(decide, case, scan.key, v) for v in scan.values]
    if all(p.row is None for p in points):
        raise InvalidArgument(f"{_NAME} {scan.text}: no value could be decided; the first: "
                              f"{points[0].error}", argument=_NAME, value=scan.text)
    first = next((i for i, p in enumerate(points) if p.verdict == "unsound"), None)
    last = None
    if first is not None:
        last = next((points[i].value for i in range(first - 1, -1, -1)
                     if points[i].verdict == "sound"), None)
    return ScanResult(case.index, scan.key, scan.method, tuple(points),
                      None if first is None else points[first].value, last, _changes(points))
