"""Typed readers of spec keys: every key of every command is read through these.

A :class:`Table` wraps one TOML table of a spec; its readers take a key, check the TOML type
strictly (a boolean must be a TOML boolean, an integer a TOML integer, a number an integer or
an exact string — never a float, ``nan`` or ``inf``), check the range, and raise a
:class:`~verifier.core.errors.SpecError` carrying the file, the dotted key and the value. The
value-level checks come from :mod:`verifier.core.numbers` (one validator each), so a key read
here and an argument of the Python API are checked by the same code.

>>> t = Table({"symmetric": "false"}, "mechanism", "spec.toml")
>>> t.boolean("symmetric", False)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
verifier.core.errors.SpecError: spec.toml: mechanism.symmetric: symmetric = 'false' is a string, ...
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, TypeVar

from gmpy2 import mpq

from verifier.core import numbers
from verifier.core.binary64 import F64, f64, is_f64_table
from verifier.core.errors import NO_VALUE, InvalidArgument, SpecError, VerifierError
from verifier.core.numbers import boolean

__all__ = ["Table", "MISSING", "boolean", "string", "list_of", "record_value", "show",
           "integer_value", "anything", "doubles"]

T = TypeVar("T")


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()  # default of a required key


def show(value: object, limit: int = 60) -> str:
    """``repr`` of a value for a one-line message, cut in the middle when long."""
    r = repr(value)
    return r if len(r) <= limit else f"{r[:limit // 2 - 2]}…{r[-(limit // 2 - 2):]}"


def _type_name(value: object) -> str:
    return {bool: "a boolean", int: "an integer", float: "a float", str: "a string",
            list: "a list", dict: "a table"}.get(type(value), type(value).__name__)


def string(value: object, name: str, choices: Sequence[str] | None = None) -> str:
    """A TOML string, one of ``choices`` when given."""
    if not isinstance(value, str):
        raise InvalidArgument(f"{name} = {show(value)} is {_type_name(value)}, not a string",
                              argument=name, value=value)
    if choices is not None and value not in choices:
        raise InvalidArgument(f"{name} = {show(value)} is not one of {', '.join(choices)}",
                              argument=name, value=value)
    return value


def integer_value(value: object, name: str) -> int:
    """An integer record value (TOML integer; not a boolean or a float)."""
    return numbers.integer(value, name)


def record_value(value: object, name: str) -> int | str:
    """A record value written in a spec: a TOML integer or string (a float such as ``0.0``
    would compare equal to ``0`` and slip through membership tests, so it is refused)."""
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, float)) or not isinstance(value, int):
        raise InvalidArgument(f"{name} = {show(value)} is {_type_name(value)}; a value must be "
                              f"an integer or a string", argument=name, value=value)
    return value


def anything(value: object, name: str) -> object:
    """An element read as is (checked later, e.g. a weight read by ``Dist``)."""
    return value


def list_of(value: object, name: str, item: Callable[[object, str], T], *,
            nonempty: bool = True, length: int | None = None) -> list[T]:
    """A TOML array whose elements are read by ``item(element, "name[i]")``."""
    if not isinstance(value, list):
        raise InvalidArgument(f"{name} = {show(value)} is {_type_name(value)}, not a list",
                              argument=name, value=value)
    if nonempty and not value:
        raise InvalidArgument(f"{name} = [] is empty", argument=name, value=value)
    if length is not None and len(value) != length:
        raise InvalidArgument(f"{name} has {len(value)} elements, not {length}", argument=name,
                              value=value)
    return [item(v, f"{name}[{i}]") for i, v in enumerate(value)]


def doubles(doc: object, prefix: str = "") -> tuple[tuple[str, F64], ...]:
    """Every ``{f64 = "…"}`` of a spec document with its dotted key (``query.epsilon``,
    ``mechanism.scale``, ``data.prior[1]``), for reports to show the double beside the exact
    rational it is read as. A malformed one is left to the key's reader to refuse."""
    if is_f64_table(doc):
        try:
            return ((prefix, f64(doc["f64"])),)  # type: ignore[index]
        except VerifierError:
            return ()
    if isinstance(doc, dict):
        items = [(f"{prefix}.{k}" if prefix else str(k), v) for k, v in doc.items()]
    elif isinstance(doc, list):
        items = [(f"{prefix}[{i}]", v) for i, v in enumerate(doc)]
    else:
        return ()
    return tuple(d for key, v in items for d in doubles(v, key))


class Table:
    """One table of a spec (``name``), read key by key; errors name ``name.key``."""

    def __init__(self, raw: Mapping, name: str, file: str | None):
        self.raw = raw
        self.name = name
        self.file = file

    @staticmethod
    def of(doc: Mapping, name: str, file: str | None, required: bool = False) -> Table:
        """The table ``name`` of a spec document (an empty one when absent and optional)."""
        if name not in doc:
            if required:
                raise SpecError("this table is missing", file=file, key=f"[{name}]")
            return Table({}, name, file)
        t = doc[name]
        if not isinstance(t, dict):
            raise SpecError(f"must be a table, not {_type_name(t)}", file=file, key=name,
                            value=t)
        return Table(t, name, file)

    def key(self, key: str) -> str:
        return f"{self.name}.{key}" if key else self.name

    def fail(self, key: str, message: str, value: object = NO_VALUE) -> SpecError:
        return SpecError(message, file=self.file, key=self.key(key), value=value)

    def __contains__(self, key: str) -> bool:
        return key in self.raw

    def given(self, *keys: str) -> list[str]:
        return [k for k in keys if k in self.raw]

    def read(self, key: str, reader: Callable[[object, str], T], default: Any = MISSING,
             missing: str = "missing") -> T:
        """``reader(value, key)``; a :class:`VerifierError` becomes a :class:`SpecError` at
        this key. A missing key is the error ``missing`` unless a ``default`` is given."""
        if key not in self.raw:
            if default is MISSING:
                raise self.fail(key, missing)
            return default
        value = self.raw[key]
        try:
            return reader(value, key)
        except SpecError:
            raise
        except VerifierError as exc:
            raise self.fail(key, str(exc), value) from None

    def boolean(self, key: str, default: Any = MISSING) -> bool:
        return self.read(key, boolean, default)

    def string(self, key: str, choices: Sequence[str] | None = None,
               default: Any = MISSING, missing: str = "missing") -> str:
        return self.read(key, lambda v, n: string(v, n, choices), default, missing)

    def integer(self, key: str, lo: int | None = None, hi: int | None = None,
                default: Any = MISSING, missing: str = "missing") -> int:
        return self.read(key, lambda v, n: numbers.integer(v, n, lo, hi), default, missing)

    def rational(self, key: str, default: Any = MISSING,
                 check: Callable[[object, str], mpq] = numbers.rational,
                 missing: str = "missing") -> mpq:
        """A number (TOML integer or exact string), checked by ``check`` (e.g.
        :func:`~verifier.core.numbers.probability`, :func:`~verifier.core.numbers.positive`)."""
        return self.read(key, check, default, missing)

    def list_of(self, key: str, item: Callable[[object, str], T], default: Any = MISSING,
                nonempty: bool = True, length: int | None = None,
                missing: str = "missing") -> list[T]:
        return self.read(key, lambda v, n: list_of(v, n, item, nonempty=nonempty,
                                                   length=length), default, missing)

    def check(self, key: str, f: Callable[..., T], *args: object) -> T:
        """``f(*args)``, its :class:`VerifierError` reported at this key (a check of a value
        already read, e.g. against a budget or against another key)."""
        try:
            return f(*args)
        except SpecError:
            raise
        except VerifierError as exc:
            raise self.fail(key, str(exc), self.raw.get(key, NO_VALUE)) from None

    def only(self, allowed: Collection[str], what: str | None = None) -> None:
        """Refuse any key not in ``allowed``."""
        for k in self.raw:
            if k not in allowed:
                raise self.fail(k, f"unknown key; {what or self.name} takes "
                                   f"{', '.join(sorted(allowed))}", self.raw[k])
