"""Programs (:mod:`verifier.model.program`) as mechanisms, and what the Python API accepts
as one.

``program(f)`` is the mechanism whose law on each database is ``f``'s, enumerated exactly
(:mod:`verifier.model.program_enum`); ``f`` itself is left as it is, so the function shipped
samples when it runs. :func:`as_mechanism` is how ``check_dp``, ``check_renyi``,
``compose_mechanisms`` and the pytest plugin read their mechanism argument: a
:class:`~verifier.model.mechanisms.Mechanism` as is, a plain function as a program (one of
no choices returns a value or its own ``Dist``), anything else refused naming the argument.
"""

from __future__ import annotations

from collections.abc import Callable

from verifier.core.errors import InvalidArgument
from verifier.model.mechanisms import Database, Mechanism, mechanism
from verifier.model.program_enum import DEFAULT_PATHS, Enumerated

__all__ = ["program", "as_mechanism"]


def program(f: Callable[[Database], object], name: str | None = None, *,
            symmetric: bool = False, paths: int = DEFAULT_PATHS) -> Mechanism:
    """``f`` as a mechanism: its exact law on each database, at most ``paths`` paths of
    choices per database (``limits.paths``); ``symmetric`` as for
    :func:`~verifier.model.mechanisms.mechanism` (the count engine then runs ``f`` once per
    count vector)."""
    if isinstance(f, Mechanism) or not callable(f):
        raise InvalidArgument(f"program: {f!r:.60} is not a function of the database",
                              argument="f", value=f)
    label = name or str(getattr(f, "__qualname__", None) or getattr(f, "__name__", "program"))
    return mechanism(Enumerated(f, label, paths), label, symmetric=symmetric)


def as_mechanism(mech: object, argument: str = "mech") -> Mechanism:
    """``mech`` as a mechanism: a :class:`Mechanism` as is, a function as :func:`program`."""
    if isinstance(mech, Mechanism):
        return mech
    if callable(mech):
        return program(mech)
    raise InvalidArgument(f"{argument} = {mech!r:.60} is neither a Mechanism nor a function "
                          f"of the database", argument=argument, value=mech)
