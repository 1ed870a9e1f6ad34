"""The ``plrv audit`` config: a list of ``[[case]]`` tables, each read exactly.

::

    [[case]]
    library = "prv_accountant"          # opendp | dp_accounting | autodp | prv_accountant
                                        # | diffprivlib | pipeline_dp | pydp
    constructor = "PureDPMechanism"     # the library's own name
    args = { eps = "ln(3)" }            # the constructor's arguments
    compose = 100                       # k-fold composition (accountants)
    delta = "1/1000"                    # the δ at which the accountant's ε is read
    # epsilon = "ln(3)"                 # the ε at which its δ is read, or a claim override
    # d_in = 1                          # the library's input distance
    # inputs = [0, 1, 2]                # the finite input universe, where the adapter needs it
    # options = { ... }                 # the adapter's own settings

Every key is read or refused (an unknown key is named). No float is accepted anywhere — a
double is written ``{f64 = "0x1.5555555555555p-2"}`` (hex, exact) or ``{f64 = "0.1"}``
(the nearest double) and handed to the library as that very double. Argument values keep
their TOML types (see :mod:`verifier.audit.case`); a table is accepted only as ``{f64 = …}``.
The adapter checks the arguments of its constructor when the case runs; its errors are
reported at ``case[i].args.KEY`` of the file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gmpy2 import mpq

from verifier.audit.case import ArgValue, AuditCase
from verifier.audit.registry import LIBRARIES
from verifier.core.binary64 import f64, is_f64_table
from verifier.core.epsilon import Epsilon, parse_epsilon
from verifier.core.errors import InvalidArgument, InvalidNumber, SpecError, did_you_mean
from verifier.core.numbers import probability, rational
from verifier.specs.files import read_toml
from verifier.specs.keys import Table, show

__all__ = ["AuditConfig", "load_audit_config", "read_audit_config", "MAX_CASES",
           "MAX_COMPOSE"]

MAX_CASES = 1000
# k-fold compositions beyond this are refused: exact k-fold binary randomized response takes
# 1.8 s and 160 MB at k = 10000, but 7 s and 3.8 GB at k = 100000
MAX_COMPOSE = 10_000
_CASE_KEYS = ("library", "constructor", "args", "d_in", "compose", "epsilon", "delta",
              "inputs", "options")
_MAX_DEPTH = 8  # nesting of lists in an argument value


@dataclass(frozen=True, slots=True)
class AuditConfig:
    """The cases of a config file, in order."""

    file: str
    cases: tuple[AuditCase, ...]


def value(raw: object, name: str, depth: int = 0) -> ArgValue:
    """An argument value read exactly: int, bool, str, ``{f64 = …}`` → F64, list → tuple."""
    if isinstance(raw, (bool, int, str)):
        return raw
    if isinstance(raw, float):
        rational(raw, name)  # raises the float refusal that names the {f64 = "…"} form
    if is_f64_table(raw):
        return f64(raw["f64"], f"{name}.f64")  # type: ignore[index]
    if isinstance(raw, list):
        if depth >= _MAX_DEPTH:
            raise InvalidArgument(f"{name}: lists nested more than {_MAX_DEPTH} deep",
                                  argument=name)
        return tuple(value(v, f"{name}[{i}]", depth + 1) for i, v in enumerate(raw))
    if isinstance(raw, dict):
        raise InvalidArgument(f"{name} = {show(raw)} is a table; the only table an argument "
                              f'can be is {{f64 = "…"}}, a double', argument=name, value=raw)
    raise InvalidArgument(f"{name} = {show(raw)} of type {type(raw).__name__} is not an "
                          f"argument value (an integer, a string, a boolean, a list or "
                          f'{{f64 = "…"}})', argument=name, value=raw)


def _values(table: Table, key: str) -> dict[str, ArgValue]:
    if key not in table:
        return {}
    raw = table.raw[key]
    if not isinstance(raw, dict):
        raise table.fail(key, f"must be a table of named values, not {show(raw)}", raw)
    out: dict[str, ArgValue] = {}
    for name, v in raw.items():
        try:
            out[name] = value(v, name)
        except SpecError:
            raise
        except (InvalidArgument, InvalidNumber) as exc:
            raise table.fail(f"{key}.{name}", str(exc), v) from None
    return out


def _epsilon(v: object, name: str) -> Epsilon:
    if is_f64_table(v):  # a double ε in nats, read exactly
        return Epsilon.of_nats(rational(v, name), name)
    if isinstance(v, dict):
        raise InvalidNumber(f"{name} = {show(v)} is a table; write ε as \"ln(3)\", \"1/2\" or "
                            f'{{f64 = "…"}}', argument=name, value=v)
    if isinstance(v, float):
        rational(v, name)  # the float refusal
    return parse_epsilon(v, name)


def _case(raw: object, index: int, file: str) -> AuditCase:
    name = f"case[{index}]"
    if not isinstance(raw, dict):
        raise SpecError(f"must be a table ([[case]]), not {show(raw)}", file=file, key=name,
                        value=raw)
    t = Table(raw, name, file)
    t.only(_CASE_KEYS, "a [[case]]")
    library = t.string("library", LIBRARIES,
                       missing=f"missing; name the library: {', '.join(LIBRARIES)}")
    constructor = t.string("constructor", missing="missing; name the library's constructor")
    compose = t.integer("compose", 1, MAX_COMPOSE, default=None)
    epsilon = t.read("epsilon", _epsilon, default=None)
    delta: mpq | None = t.rational("delta", default=None, check=probability)
    d_in = t.read("d_in", value, default=None)
    inputs = t.read("inputs", value, default=None)
    if inputs is not None and not (isinstance(inputs, tuple) and inputs):
        raise t.fail("inputs", "must be a non-empty list (the input universe)", raw["inputs"])
    return AuditCase(library, constructor, _values(t, "args"), d_in, compose, epsilon, delta,
                     inputs, index, _values(t, "options"))


def read_audit_config(doc: dict, file: str) -> AuditConfig:
    """The config of a parsed TOML document (``file`` names it in errors)."""
    for key in doc:
        if key != "case":
            raise SpecError("unknown key; an audit config has only [[case]] tables"
                            + did_you_mean(key, ("case",)),
                            file=file, key=key, value=doc[key])
    cases = doc.get("case")
    if not isinstance(cases, list) or not cases:
        raise SpecError("missing: an audit config lists one or more [[case]] tables",
                        file=file, key="[[case]]", value=cases if cases is not None else None)
    if len(cases) > MAX_CASES:
        raise SpecError(f"{len(cases)} cases, more than {MAX_CASES}; split the config",
                        file=file, key="[[case]]")
    return AuditConfig(file, tuple(_case(c, i, file) for i, c in enumerate(cases)))


def load_audit_config(path: str | Path) -> AuditConfig:
    """Read an audit config file (see the module)."""
    return read_audit_config(read_toml(path), str(path))
