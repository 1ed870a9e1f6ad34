"""Plain data across the boundary to the process running user code, both ways.

Arguments (databases, earlier outputs) go to the child and answers come back as JSON of
tagged lists, never as pickles: reading a pickle runs code, and what the child says is
untrusted. Values:

* ``None``, a string, a bool, an integer below ``2^53`` in size: themselves;
* ``["I", hex]`` a larger integer (hexadecimal: no digit limit), ``["f", repr]`` a float,
  ``["F", num, den]`` a ``Fraction``, ``["q", num, den]`` an ``mpq``, ``["z", n]`` an ``mpz``
  (numerators and denominators in hexadecimal), ``["B"]`` ``verifier.BOTTOM``;
* ``["t", …]``, ``["l", …]``, ``["s", …]``, ``["S", …]`` a tuple, list, set, frozenset;
  ``["d", [k, v], …]`` a dict;
* ``["D", [outcome, weight], …]`` a ``verifier.Dist`` (rebuilt by the reader, which checks
  that the weights are exact, non-negative and sum to 1);
* ``["P", label, member, …]`` a singling-out predicate (read as :class:`Labelled`);
* ``["o", type name, repr]`` anything else, read as a :class:`Foreign` stand-in so that the
  strict readers (:func:`verifier.model.user_code.output_value`) refuse it by its type name.

Nesting is at most :data:`MAX_DEPTH` deep; a frame at most :data:`MAX_FRAME` bytes.
"""

from __future__ import annotations

import json
import os
import select
import time
from dataclasses import dataclass
from fractions import Fraction

__all__ = ["encode", "decode", "dumps", "loads", "Labelled", "Foreign", "WireError",
           "send_frame", "recv_frame", "Timeout", "Closed", "MAX_DEPTH", "MAX_FRAME"]

MAX_DEPTH = 200
MAX_FRAME = 1 << 28  # 256 MiB of JSON in one answer
_SMALL = 1 << 53
_HEADER = 8


class WireError(ValueError):
    """Data that is not a value of the format above (said by the child: untrusted)."""


class Timeout(Exception):
    """The deadline passed while waiting on the other process."""


class Closed(Exception):
    """The other process closed its end (it exited or was killed)."""


@dataclass(frozen=True, slots=True)
class Labelled:
    """A predicate from the child: its members and the text it came with."""

    members: frozenset
    label: str


class Foreign:
    """A value of a type that does not cross the boundary, shown by its type and repr."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text


_FOREIGN: dict[str, type] = {}


def _foreign(type_name: str, text: str) -> Foreign:
    name = "".join(c for c in type_name if c.isalnum() or c in "_.")[-60:] or "object"
    cls = _FOREIGN.get(name)
    if cls is None:
        cls = _FOREIGN[name] = type(name, (Foreign,), {"__slots__": ()})
    return cls(text)


def _hex(n: int) -> str:
    return format(n, "x") if n >= 0 else "-" + format(-n, "x")


def _cut(text: str, size: int = 80) -> str:
    return text if len(text) <= size else text[:size - 20] + "…" + text[-10:]


def _type_name(value: object) -> str:
    t = type(value)
    return f"{t.__module__}.{t.__qualname__}"


def encode(value: object, depth: int = 0) -> object:
    """``value`` as JSON-able tagged data (the child encodes answers, the parent arguments)."""
    if depth > MAX_DEPTH:
        raise WireError(f"a value nested more than {MAX_DEPTH} deep")
    if value is None:
        return None
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        n = int(value)
        return n if -_SMALL < n < _SMALL else ["I", _hex(n)]
    if isinstance(value, float):
        return ["f", repr(float(value))]  # float ok: an output label, repr round-trips it
    d = depth + 1
    if isinstance(value, (tuple, list)):
        return ["t" if isinstance(value, tuple) else "l", *(encode(v, d) for v in value)]
    if isinstance(value, (set, frozenset)):
        return ["S" if isinstance(value, frozenset) else "s", *(encode(v, d) for v in value)]
    if isinstance(value, dict):
        return ["d", *([encode(k, d), encode(v, d)] for k, v in value.items())]
    if isinstance(value, Fraction):
        return ["F", _hex(value.numerator), _hex(value.denominator)]
    name = _type_name(value)
    if name in ("gmpy2.mpq", "gmpy2.gmpy2.mpq"):
        return ["q", _hex(int(value.numerator)), _hex(int(value.denominator))]  # type: ignore[attr-defined]
    if name in ("gmpy2.mpz", "gmpy2.gmpy2.mpz"):
        return ["z", _hex(int(value))]  # type: ignore[call-overload]
    if name == "verifier.core.distribution.Bottom":
        return ["B"]
    if name == "verifier.core.distribution.Dist":
        return ["D", *([encode(o, d), encode(w, d)] for o, w in value.items())]  # type: ignore[attr-defined]
    if name == "verifier.pso.predicates.Predicate":
        label = getattr(value, "label", "")
        return ["P", label if isinstance(label, str) else "",
                *(encode(m, d) for m in getattr(value, "members", ()))]
    try:
        text = _cut(repr(value))
    except Exception:  # a user's __repr__ may raise anything
        text = f"<{type(value).__name__} object>"
    return ["o", _cut(type(value).__name__, 60), text]


def _int(text: object) -> int:
    if not isinstance(text, str) or not 0 < len(text) <= (1 << 22):
        raise WireError("an integer that is not hexadecimal text")
    try:
        return int(text, 16)
    except ValueError:
        raise WireError(f"an integer that is not hexadecimal text: {_cut(text, 40)}") from None


def _ratio(data: list) -> tuple[int, int]:
    if len(data) != 3:
        raise WireError(f"a rational with {len(data) - 1} parts")
    num, den = _int(data[1]), _int(data[2])
    if den <= 0:
        raise WireError("a rational with a denominator that is not positive")
    return num, den


def decode(data: object, depth: int = 0) -> object:
    """The value ``data`` encodes; anything else is a :class:`WireError`."""
    if depth > MAX_DEPTH:
        raise WireError(f"a value nested more than {MAX_DEPTH} deep")
    if data is None or type(data) in (bool, str, int):
        return data
    if type(data) is not list or not data or not isinstance(data[0], str):
        raise WireError(f"an item of type {type(data).__name__} where a value was expected")
    tag, rest, d = data[0], data[1:], depth + 1
    if tag in ("t", "l", "s", "S"):
        items = [decode(v, d) for v in rest]
        try:
            return {"t": tuple, "l": list, "s": set, "S": frozenset}[tag](items)
        except TypeError:  # an unhashable member of a set
            raise WireError("a set with an unhashable member") from None
    if tag == "I" and len(rest) == 1:
        return _int(rest[0])
    if tag == "f" and len(rest) == 1 and isinstance(rest[0], str) and len(rest[0]) < 40:
        try:
            return float(rest[0])  # float ok: an output label, never a weight
        except ValueError:
            raise WireError(f"a float that is not one: {_cut(rest[0], 40)}") from None
    if tag in ("F", "q"):
        num, den = _ratio(data)
        if tag == "F":
            return Fraction(num, den)
        from gmpy2 import mpq
        return mpq(num, den)
    if tag == "z" and len(rest) == 1:
        from gmpy2 import mpz
        return mpz(_int(rest[0]))
    if tag == "B" and not rest:
        from verifier.core.distribution import BOTTOM
        return BOTTOM
    if tag == "d":
        return dict(_pair(p, d) for p in rest)
    if tag == "D":
        from verifier.core.distribution import Dist
        return Dist([_pair(p, d) for p in rest], name="the distribution returned")
    if tag == "P" and rest and isinstance(rest[0], str):
        try:
            return Labelled(frozenset(decode(m, d) for m in rest[1:]), _cut(rest[0], 200))
        except TypeError:
            raise WireError("a predicate with an unhashable member") from None
    if tag == "o" and len(rest) == 2 and all(isinstance(x, str) for x in rest):
        return _foreign(rest[0], _cut(rest[1]))
    raise WireError(f"an item tagged {_cut(repr(tag), 20)} with {len(rest)} parts")


def _pair(data: object, depth: int) -> tuple:
    if type(data) is not list or len(data) != 2:
        raise WireError("a pair that is not a list of two")
    return decode(data[0], depth), decode(data[1], depth)


def dumps(message: object) -> bytes:
    return json.dumps(message, separators=(",", ":"), allow_nan=False).encode("ascii")


def loads(payload: bytes) -> object:
    """JSON, strictly: no NaN or infinities, no duplicate-free guarantee needed (lists only)."""
    def refuse(token: str) -> object:
        raise WireError(f"the non-JSON constant {token}")
    try:
        return json.loads(payload.decode("ascii"), parse_constant=refuse)
    except WireError:
        raise
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise WireError(f"not JSON ({_cut(' '.join(str(exc).split()), 60)})") from None


def _wait(fd: int, write: bool, deadline: float | None) -> None:
    left = None if deadline is None else deadline - time.monotonic()
    if left is not None and left <= 0:
        raise Timeout
    ready = select.select([], [fd], [], left) if write else select.select([fd], [], [], left)
    if not any(ready):
        raise Timeout


def send_frame(fd: int, payload: bytes, deadline: float | None = None) -> None:
    """Write ``payload`` with its length, waiting at most until ``deadline``."""
    view = memoryview(len(payload).to_bytes(_HEADER, "big") + payload)
    while view:
        _wait(fd, True, deadline)
        try:
            n = os.write(fd, view[:1 << 16])
        except (BrokenPipeError, ConnectionResetError):
            raise Closed from None
        view = view[n:]


def recv_frame(fd: int, deadline: float | None = None, limit: int = MAX_FRAME) -> bytes:
    """Read one frame, waiting at most until ``deadline``; a frame over ``limit`` bytes is a
    :class:`WireError`, end of file :class:`Closed`."""
    header = _read(fd, _HEADER, deadline)
    size = int.from_bytes(header, "big")
    if size > limit:
        raise WireError(f"an answer of {size} bytes, over the limit of {limit}")
    return _read(fd, size, deadline)


def _read(fd: int, size: int, deadline: float | None) -> bytes:
    parts, left = [], size
    while left:
        _wait(fd, False, deadline)
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            raise Closed
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)
