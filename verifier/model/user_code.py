"""User functions named in a spec as ``"module:function"``: loaded in one place, called safely.

A spec reaches the user's own Python code (a mechanism, a background-knowledge function, a
singling-out adversary) by a reference ``"module:function"``. The rules:

* the reference is ``name(.name)*:name`` of Python identifiers — no relative dots, paths,
  spaces or attribute chains;
* with a spec (``search_dir`` given) only the spec's own folder is searched: the module must be
  a ``.py`` file or a package there, and a standard-library or already-imported module of the
  same name (``os:system``, ``builtins:exec``, ``subprocess:call``) is refused;
* importing writes no ``__pycache__`` into the user's folder;
* every failure — a syntax or import error, an exception (even ``SystemExit``) raised while
  importing or by a call, an answer that is not a valid output — is a
  :class:`~verifier.core.errors.UserCodeError` naming the reference, on one line; a reference
  to nothing (malformed, no such module or function, a refused module) is an
  :class:`~verifier.core.errors.UnknownName`.

Loaded with a :class:`~verifier.model.sandbox.Sandbox` (every spec reader passes one), the
function lives in a process of its own, under a time and memory limit: this module then checks
the reference and that the module is in the folder, the child imports it and answers calls as
plain data. Loaded without one (from Python, by ``verifier.model.mechanisms.load_function``),
it runs in the caller's own process, as the caller's own code does.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Protocol

from gmpy2 import mpz

from verifier.core.distribution import BOTTOM, Dist
from verifier.core.errors import UnknownName, UserCodeError
from verifier.core.numbers import Rational
from verifier.model.program import NotAProgram, forbidding
from verifier.model.program_enum import DEFAULT_PATHS, Enumerated

__all__ = ["UserFunction", "load_function", "output_value", "as_output_dist", "find_function",
           "describe_exception", "Isolated", "Loader", "load_from", "load_program"]

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_REFERENCE = re.compile(rf"^({_IDENT}(?:\.{_IDENT})*):({_IDENT})$")


def describe_exception(exc: BaseException) -> str:
    """An exception in one line: its type and message, cut to about 200 characters."""
    text = " ".join(str(exc).split())
    if isinstance(exc, SystemExit):
        return f"SystemExit({exc.code!r}) (sys.exit was called)"
    if isinstance(exc, RecursionError):
        return "RecursionError (infinite recursion?)"
    if len(text) > 200:
        text = text[:120] + " … " + text[-60:]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class Isolated:
    """A function living in another process (:class:`verifier.model.sandbox.Remote`): a
    call returns the answer as plain data or raises a :class:`UserCodeError` naming it."""

    __slots__ = ()
    __name__: str

    def __call__(self, *args: object) -> object:
        raise NotImplementedError

    def prefetch(self, calls: Iterable[tuple]) -> None:
        raise NotImplementedError


@dataclass(frozen=True, eq=False)
class UserFunction:
    """A loaded user function: calling it calls the user's function and turns any exception
    it raises (an exception of plrv's own raised inside it, too) into a
    :class:`UserCodeError` naming ``reference``."""

    reference: str
    function: Callable
    key: str = "function"  # the spec key that named it, for messages

    @property
    def __name__(self) -> str:  # mechanisms and knowledge are named after the function
        return str(getattr(self.function, "__name__", self.reference))

    def __call__(self, *args: object) -> object:
        if isinstance(self.function, (Isolated, Enumerated)):  # they name the function
            return self.function(*args)
        streams = (sys.stdout, sys.stderr)
        try:
            with forbidding():  # a random choice here would be sampled, not enumerated
                out = self.function(*args)
        except (Exception, SystemExit, NotAProgram) as exc:  # user code may raise anything
            raise UserCodeError(f"{self.key} = {self.reference!r}: the function raised "
                                f"{describe_exception(exc)}", function=self.reference,
                                argument=self.key) from exc
        finally:
            _restore(streams)
        return out

    def prefetch(self, calls: Iterable[tuple]) -> None:
        """Evaluate the function on each argument tuple of ``calls`` at once, ahead of the
        calls themselves (one round trip to an isolated function; nothing in-process)."""
        if isinstance(self.function, Isolated):
            self.function.prefetch(calls)

    def fail(self, message: str) -> UserCodeError:
        return UserCodeError(f"{self.key} = {self.reference!r}: {message}",
                             function=self.reference, argument=self.key)


def _restore(streams: tuple) -> None:
    """Standard output and error as they were before a user call: a function that closes or
    replaces them must not take plrv's report (or its error line) with it. A closed stream
    is opened again on its file descriptor (1 or 2), which closing ``sys.stdout`` leaves
    open."""
    for fd, name, stream in ((1, "stdout", streams[0]), (2, "stderr", streams[1])):
        if getattr(stream, "closed", False):
            stream = open(fd, "w", encoding=getattr(stream, "encoding", None) or "utf-8",  # noqa: SIM115
                          errors="backslashreplace", closefd=False)
        if getattr(sys, name) is not stream:
            setattr(sys, name, stream)


_MAX_LABEL_BITS = 13_000  # an integer output of about 4000 digits at most


def output_value(value: object, f: UserFunction) -> Hashable:
    """A user function's answer as an output label, read strictly: an integer, a string,
    ``None``, an exact rational (``Fraction``, ``mpq``), ``verifier.BOTTOM``, or a tuple or
    list of these (lists become tuples, recursively). Everything else is refused rather than
    compared by identity or by Python's ``==``: a float (``nan`` is not equal to itself), a
    bool (``True == 1`` would merge two outputs), an arbitrary object, a generator, a dict or
    a set (a randomized answer is a ``verifier.Dist``)."""
    if isinstance(value, (list, tuple)):
        return tuple(output_value(v, f) for v in value)
    if isinstance(value, (dict, set)):
        raise f.fail(f"returned a {type(value).__name__} ({_cut(value)}); return a value, a "
                     f"tuple, or a verifier.Dist for a randomized answer")
    if value is None or value is BOTTOM or isinstance(value, str):
        return value
    if isinstance(value, bool):
        raise f.fail(f"returned the bool {value!r}; True and 1 are one value in Python, so "
                     f"return 0/1 or strings as outputs")
    if isinstance(value, int):
        if value.bit_length() > _MAX_LABEL_BITS:
            raise f.fail(f"returned an integer of {value.bit_length()} bits as an output; "
                         f"outputs are labels of at most {_MAX_LABEL_BITS} bits")
        return value
    if isinstance(value, (Fraction, Rational, type(mpz(0)))):
        return value
    if isinstance(value, float):
        raise f.fail(f"returned the float {value!r}, which is not exact; return an integer, "
                     f"a string or a Fraction")
    raise f.fail(f"returned {type(value).__name__} {_cut(value)}; an output is an integer, a "
                 f"string, a Fraction, a tuple of these, or a verifier.Dist over them")


def as_output_dist(value: object, f: UserFunction) -> Dist:
    """A user function's answer as a distribution: a ``Dist`` with its outputs read by
    :func:`output_value`, a value as its point mass."""
    if isinstance(value, Dist):
        checked = [(output_value(o, f), w) for o, w in value.items()]
        if all(o is c for (o, _), (c, _) in zip(value.items(), checked, strict=True)):
            return value
        return Dist(checked, name=f"{f.reference}'s distribution")
    return Dist.point(output_value(value, f))


def _cut(value: object) -> str:
    r = repr(value)
    return r if len(r) <= 60 else r[:40] + "…"


def _check_reference(reference: object, key: str) -> tuple[str, str]:
    if not isinstance(reference, str):
        raise UnknownName(f'{key} = {_cut(reference)} is not a string "module:function"',
                          argument=key, value=reference)
    m = _REFERENCE.match(reference)
    if not m:
        raise UnknownName(f'{key} = {_cut(reference)} is not of the form "module:function"',
                          argument=key, value=reference)
    return m.group(1), m.group(2)


def _module_file(top: str, folder: Path) -> Path | None:
    for candidate in (folder / f"{top}.py", folder / top / "__init__.py"):
        if candidate.is_file():
            return candidate.resolve()
    return None


def _inside(path: str | None, folder: Path) -> bool:
    if not path:
        return False
    try:
        Path(path).resolve().relative_to(folder)
    except ValueError:
        return False
    return True


def _precheck(module_name: str, folder: Path, reference: str, key: str) -> None:
    """A module a spec may name: not the standard library's or plrv's, and in ``folder``."""
    top = module_name.split(".")[0]
    if top in sys.stdlib_module_names or top in sys.builtin_module_names or \
            top in ("verifier", "plrv"):
        raise UnknownName(f"{key} = {reference!r}: {top!r} is a standard-library or plrv "
                          f"module; a spec may only name functions of modules in its own "
                          f"folder", argument=key, value=reference)
    if _module_file(top, folder) is None:
        raise UnknownName(f"{key} = {reference!r}: no module {top!r} in the spec's folder "
                          f"{folder} (only that folder is searched)", argument=key,
                          value=reference)


def _import(module_name: str, folder: Path | None, reference: str, key: str):
    """Import ``module_name`` from ``folder`` only (or from ``sys.path`` when ``folder`` is
    None), writing no bytecode; a module of that name loaded from elsewhere is forgotten
    first so that two spec folders with modules of the same name do not mix."""
    if folder is not None:
        _precheck(module_name, folder, reference, key)
        top = module_name.split(".")[0]
        for name in [m for m in sys.modules if m == top or m.startswith(top + ".")]:
            if not _inside(getattr(sys.modules[name], "__file__", None), folder):
                del sys.modules[name]
    added = folder is not None and str(folder) not in sys.path
    if added:
        sys.path.insert(0, str(folder))
    writes = sys.dont_write_bytecode
    sys.dont_write_bytecode = True
    try:
        module = importlib.import_module(module_name)
    except (Exception, SystemExit) as exc:  # importing runs user code
        for name in [m for m in sys.modules if m == module_name]:
            del sys.modules[name]
        if isinstance(exc, ModuleNotFoundError) and exc.name is not None and \
                module_name.startswith(exc.name):
            raise UnknownName(f"{key} = {reference!r}: cannot import module {module_name!r} "
                              f"({exc})", argument=key, value=reference) from None
        raise UserCodeError(f"{key} = {reference!r}: cannot import module {module_name!r} "
                            f"({describe_exception(exc)})", function=reference,
                            argument=key) from None
    finally:
        sys.dont_write_bytecode = writes
        if added:
            sys.path.remove(str(folder))
    if folder is not None and not _inside(getattr(module, "__file__", None), folder):
        raise UnknownName(f"{key} = {reference!r}: module {module_name!r} is not in the spec's "
                          f"folder {folder}", argument=key, value=reference)
    return module


def find_function(module_name: str, attr: str, folder: Path | None, reference: str,
                  key: str) -> Callable:
    """The callable ``attr`` of ``module_name``, imported by :func:`_import` (in the process
    that will call it)."""
    module = _import(module_name, folder, reference, key)
    f = module.__dict__.get(attr) if hasattr(module, "__dict__") else None
    if f is None:
        raise UnknownName(f"{key} = {reference!r}: module {module_name!r} has no function "
                          f"{attr!r}", argument=key, value=reference)
    if not callable(f):
        raise UnknownName(f"{key} = {reference!r}: {attr!r} in module {module_name!r} is a "
                          f"{type(f).__name__}, not a function", argument=key, value=reference)
    return f


class Loader(Protocol):
    """Where an isolated function is loaded (:class:`verifier.model.sandbox.Sandbox`)."""

    folder: Path

    def function(self, module: str, attr: str, reference: str, key: str) -> Isolated: ...

    def program(self, module: str, attr: str, reference: str, key: str,
                paths: int) -> Isolated: ...


def load_function(reference: object, *, search_dir: Path | None = None,
                  name: str = "function", sandbox: Loader | None = None) -> UserFunction:
    """The user function ``"module:function"``, wrapped as a :class:`UserFunction`.

    With ``sandbox`` the reference and the module's place are checked here, and the module is
    imported and the function called in the sandbox's own process (``search_dir`` is then the
    sandbox's folder). Otherwise, with ``search_dir`` (a spec's folder) the module is looked up
    there and only there; without it (a call from Python) it is imported from ``sys.path``.
    ``name`` is the spec key that named it, used in messages.
    """
    module_name, attr = _check_reference(reference, name)
    assert isinstance(reference, str)
    if sandbox is not None:
        _precheck(module_name, sandbox.folder, reference, name)
        return UserFunction(reference, sandbox.function(module_name, attr, reference, name),
                            name)
    folder = None if search_dir is None else Path(search_dir).resolve()
    return UserFunction(reference, find_function(module_name, attr, folder, reference, name),
                        name)


def load_from(reference: object, where: Path | Loader | None, name: str) -> UserFunction:
    """:func:`load_function` from ``where``: a sandbox (isolated: what every spec reader
    passes), a folder (in-process, that folder only) or ``None`` (in-process, ``sys.path``)."""
    if where is None or isinstance(where, Path):
        return load_function(reference, search_dir=where, name=name)
    return load_function(reference, sandbox=where, name=name)


def load_program(reference: object, where: Path | Loader | None, name: str,
                 paths: int = DEFAULT_PATHS) -> UserFunction:
    """A program (:mod:`verifier.model.program`) named ``"module:function"``, loaded as
    :func:`load_from` loads a function: a call answers the exact law of its output on the
    arguments, enumerated where the function runs (in the sandbox's child, when isolated)
    under ``paths`` (``limits.paths``)."""
    if where is not None and not isinstance(where, Path):
        module_name, attr = _check_reference(reference, name)
        assert isinstance(reference, str)
        _precheck(module_name, where.folder, reference, name)
        return UserFunction(reference, where.program(module_name, attr, reference, name,
                                                     paths), name)
    user = load_function(reference, search_dir=where, name=name)
    return UserFunction(user.reference, Enumerated(user.function, user.reference, paths), name)
