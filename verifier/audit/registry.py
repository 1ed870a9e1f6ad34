"""The audited libraries and their adapters, imported only when a case names them.

Each library is an optional extra (``pip install -e '.[opendp]'``): its adapter module imports
the library inside its functions, and :data:`ADAPTERS` imports the adapter module on first
use, after checking that the library is installed — a missing library is a
:class:`~verifier.core.errors.UnknownName` naming the extra to install (exit 2).

An adapter module exposes its :class:`Adapter` under the attribute named in
:data:`_MODULES` (``ADAPTER`` by default). An adapter maps each constructor it supports (the
library's own name) to a function ``AuditCase -> AuditRow``; for ``--conformance`` it may
also give ``sample(case, witness_input, n)`` — ``n`` draws from the library itself at that
input — and ``law(case, witness_input)``, the exact law plrv decided the case on, as a
:class:`~verifier.core.distribution.Dist` over the same outputs. An accountant, which draws
nothing, may give instead ``curves[constructor](case)``: its one-run curve read from the
library and compared with the exact one (:mod:`verifier.audit.curve_check`).
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from verifier.audit.case import AuditCase, AuditRow, CurvePoint
from verifier.core.distribution import Dist
from verifier.core.errors import UnknownName, did_you_mean

__all__ = ["Adapter", "ADAPTERS", "LIBRARIES", "adapter"]

Sampler = Callable[[AuditCase, object, int], Sequence[Hashable]]
LawOf = Callable[[AuditCase, object], Dist]
# an accountant's one-run curve against the exact one: (what was read, its points), or None
CurveOf = Callable[[AuditCase], tuple[str, list[CurvePoint]] | None]


@dataclass(frozen=True)
class Adapter:
    """How plrv audits one library (see the module)."""

    library: str
    extra: str
    constructors: Mapping[str, Callable[[AuditCase], AuditRow]]
    sample: Sampler | None = None
    law: LawOf | None = None
    version: Callable[[], str] | None = field(default=None)
    no_conformance: str = "computes a bound; it draws no samples"  # why, without sample/law
    curves: Mapping[str, CurveOf] = field(default_factory=dict)


# library name in a config -> (import name of the library, pip extra, adapter module, attribute)
_MODULES: dict[str, tuple[str, str, str, str]] = {
    "opendp": ("opendp", "opendp", "verifier.audit.adapters.opendp", "ADAPTER"),
    "dp_accounting": ("dp_accounting", "accounting", "verifier.audit.adapters.accountants_dpa",
                      "DP_ACCOUNTING"),
    "autodp": ("autodp", "autodp", "verifier.audit.adapters.accountants_curve", "AUTODP"),
    "prv_accountant": ("prv_accountant", "prv", "verifier.audit.adapters.accountants_curve",
                       "PRV_ACCOUNTANT"),
    "diffprivlib": ("diffprivlib", "diffprivlib", "verifier.audit.adapters.diffprivlib",
                    "ADAPTER"),
    "pipeline_dp": ("pipeline_dp", "pipelinedp", "verifier.audit.adapters.pipelinedp",
                    "ADAPTER"),
    "pydp": ("pydp", "pydp", "verifier.audit.adapters.pydp", "ADAPTER"),
}

LIBRARIES = tuple(_MODULES)


def adapter(library: str) -> Adapter:
    """The adapter of ``library``, its library and adapter module imported now."""
    if library not in _MODULES:
        raise UnknownName(f"library {library!r} is not one plrv audits; it audits "
                          f"{', '.join(LIBRARIES)}{did_you_mean(library, LIBRARIES)}",
                          argument="library", value=library)
    module, extra, adapter_module, attribute = _MODULES[library]
    if importlib.util.find_spec(module) is None:
        raise UnknownName(f"library {library!r}: the Python package {module!r} is not "
                          f"installed; install it with pip install -e '.[{extra}]'",
                          argument="library", value=library)
    try:
        found = importlib.import_module(adapter_module)
    except ModuleNotFoundError as exc:
        if exc.name == adapter_module:
            raise UnknownName(f"library {library!r}: its adapter ({adapter_module}) is not "
                              f"part of this plrv", argument="library", value=library) from None
        raise
    result = getattr(found, attribute)
    assert isinstance(result, Adapter)
    return result


class _Adapters(Mapping[str, Adapter]):
    """``ADAPTERS[library]``: the adapter, imported on first use (see :func:`adapter`)."""

    def __getitem__(self, library: str) -> Adapter:
        return adapter(library)

    def __iter__(self) -> Iterator[str]:
        return iter(LIBRARIES)

    def __len__(self) -> int:
        return len(LIBRARIES)

    def __contains__(self, library: object) -> bool:
        return library in _MODULES


ADAPTERS: Mapping[str, Adapter] = _Adapters()
