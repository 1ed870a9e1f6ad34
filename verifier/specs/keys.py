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
from verifier.core.errors import (
    NO_VALUE,
    InvalidArgument,
    SpecError,
    VerifierError,
    did_you_mean,
)
from verifier.core.numbers import boolean

__all__ = ["Table", "Document", "MISSING", "boolean", "string", "list_of", "record_value", "show",
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
        raise InvalidArgument(f"{name} = {show(value)} is not one of {', '.join(choices)}"
                              f"{did_you_mean(value, choices)}", argument=name, value=value)
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
    """One table of a spec (``name``), read key by key; errors name ``name.key``.

    The table records every key it is asked about (:meth:`read` and the typed readers,
    :meth:`given`, ``key in table``, :meth:`get`): a key present and never read is one the
    command does not apply, and :meth:`finish` refuses it — so no reader keeps a list of the
    keys it honours beside the code that reads them. :attr:`raw` is the untracked mapping,
    for messages only.
    """

    def __init__(self, raw: Mapping, name: str, file: str | None):
        self.raw = raw
        self.name = name
        self.file = file
        self._seen: set[str] = set()
        self._children: list[Table] = []
        self._why: dict[str, tuple[str, str]] = {}

    @staticmethod
    def of(doc: Mapping | Document, name: str, file: str | None,
           required: bool = False) -> Table:
        """The table ``name`` of a spec document (an empty one when absent and optional)."""
        if isinstance(doc, Document):
            return doc.table(name, required)
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

    def missing(self, key: str, message: str = "missing") -> SpecError:
        """The error of a required ``key`` that is absent: at a present key that looks like
        a misspelling of it (``kindd``), with its suggestion, else ``message`` at ``key``."""
        for k in self.raw:
            if k not in self._seen and did_you_mean(k, (key,)):
                return self.fail(k, f"unknown key, and {key} is missing"
                                    f"{did_you_mean(k, (key,))}", self.raw[k])
        return self.fail(key, message)

    def __contains__(self, key: str) -> bool:
        if key in self.raw:
            self._seen.add(key)
            return True
        return False

    def __bool__(self) -> bool:
        """Whether the table has any key (reads none)."""
        return bool(self.raw)

    def given(self, *keys: str) -> list[str]:
        return [k for k in keys if k in self]

    def get(self, key: str, default: object = None) -> Any:
        """The raw value of ``key`` (``default`` when absent), recorded as read."""
        return self.raw[key] if key in self else default

    def rest(self, *exclude: str) -> dict:
        """Every key but ``exclude`` with its raw value, all recorded as read (a table whose
        keys another validator checks, e.g. a mechanism's parameters)."""
        out = {k: v for k, v in self.raw.items() if k not in exclude}
        self._seen.update(out)
        return out

    def child(self, raw: Mapping, name: str) -> Table:
        """A nested table (``data.models[0]``), whose unread keys :meth:`finish` also
        refuses."""
        t = Table(raw, name, self.file)
        self._children.append(t)
        return t

    def explain(self, keys: Collection[str], why: str, remedy: str = "remove it") -> None:
        """Why ``keys`` are not read, and what to do (for the message of :meth:`finish`, if
        they are given)."""
        for k in keys:
            self._why.setdefault(k, (why, remedy))

    def unread(self) -> list[tuple[str, tuple[str, str] | None]]:
        """``(dotted key, (why, remedy) or None)`` of every key present and never read,
        nested tables too."""
        out = [(self.key(k), self._why.get(k)) for k in self.raw if k not in self._seen]
        for c in self._children:
            out += c.unread()
        return out

    def finish(self, command: str) -> None:
        """Refuse the first key present and never read: ``command`` (``plrv check with
        notions = ["dp"]``) does not apply it."""
        for key, why in self.unread():
            raise _unread(self.file, key, command, why, _dotted(self.raw, key, self.name))

    def read(self, key: str, reader: Callable[[object, str], T], default: Any = MISSING,
             missing: str = "missing") -> T:
        """``reader(value, key)``; a :class:`VerifierError` becomes a :class:`SpecError` at
        this key. A missing key is the error ``missing`` unless a ``default`` is given."""
        if key not in self:
            if default is MISSING:
                raise self.missing(key, missing)
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
        """Refuse any key not in ``allowed`` (an unknown name; a known key the command does
        not apply is refused by :meth:`finish`)."""
        for k in self.raw:
            if k not in allowed:
                raise self.fail(k, f"unknown key; {what or self.name} takes "
                                   f"{', '.join(sorted(allowed))}{did_you_mean(k, allowed)}",
                                self.raw[k])


def _dotted(raw: Mapping, key: str, prefix: str) -> object:
    """The value at ``key`` (a dotted key under ``prefix``) for a message, if plain."""
    rest = key[len(prefix) + 1:] if key.startswith(prefix + ".") else ""
    return raw.get(rest, NO_VALUE) if rest in raw else NO_VALUE


def _unread(file: str | None, key: str, command: str, why: tuple[str, str] | None,
            value: object) -> SpecError:
    reason, remedy = why or ("", "remove it")
    shown = key if "." in key or "[" in key else f"[{key}]"
    return SpecError(f"{command} does not read {shown}{f' ({reason})' if reason else ''}; "
                     f"{remedy}", file=file, key=key, value=value)


class Document:
    """A whole spec, read table by table: it records the tables asked for (:meth:`table`,
    ``name in doc``, :meth:`get`) and :meth:`finish` refuses any table or key present and
    never read — the one check that a spec's every key is applied or refused.

    >>> doc = Document({"data": {"records": 2, "prior": [1]}}, "spec.toml")
    >>> doc.table("data").integer("records")
    2
    >>> doc.finish("plrv check")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    verifier.core.errors.SpecError: spec.toml: data.prior: plrv check does not read ...
    """

    def __init__(self, raw: Mapping, file: str | None):
        self.raw = raw
        self.file = file
        self._tables: dict[str, Table] = {}
        self._seen: set[str] = set()
        self._why: dict[str, tuple[str, str]] = {}

    def __contains__(self, name: str) -> bool:
        if name in self.raw:
            self._seen.add(name)
            return True
        return False

    def get(self, name: str, default: object = None) -> Any:
        """The raw value of the top-level ``name``, recorded as read (its keys, if a table,
        too: a table taken whole is checked by whoever reads it)."""
        return self.raw[name] if name in self else default

    def table(self, name: str, required: bool = False) -> Table:
        """The table ``name`` (an empty one when absent and optional), tracked."""
        if name in self._tables:
            return self._tables[name]
        t = Table.of(self.raw, name, self.file, required)
        self._seen.add(name)
        if name in self.raw:
            self._tables[name] = t
        return t

    def explain(self, names: Collection[str], why: str, remedy: str = "remove it") -> None:
        """Why the tables or dotted keys ``names`` are not read, and what to do, for
        :meth:`finish`."""
        for n in names:
            self._why.setdefault(n, (why, remedy))

    def unread(self) -> list[tuple[str, tuple[str, str] | None]]:
        """``(dotted key or table, (why, remedy) or None)`` of everything present and never
        read."""
        out: list[tuple[str, tuple[str, str] | None]] = []
        for name in self.raw:
            if name in self._tables:
                for key, why in self._tables[name].unread():
                    out.append((key, why or self._why.get(key) or self._why.get(name)))
            elif name not in self._seen:
                table = self.raw[name]
                keys = [f"{name}.{k}" for k in table] if isinstance(table, Mapping) and \
                    table else [name]
                out += [(k, self._why.get(k) or self._why.get(name)) for k in keys]
        return out

    def finish(self, command: str) -> None:
        """Refuse the first table or key present and never read, naming ``command`` (e.g.
        ``plrv check with notions = ["dp"]``)."""
        for key, why in self.unread():
            table, _, rest = key.partition(".")
            value = self.raw.get(table, NO_VALUE)
            if rest and isinstance(value, Mapping):
                value = value.get(rest.split("[")[0], NO_VALUE)
            raise _unread(self.file, key, command, why, value)
