"""Plain data of plrv's values, for JSON and the HTML of the layers above: exact numbers as
their exact strings, ``⊥`` for the bottom output, containers element by element."""

from __future__ import annotations

from gmpy2 import mpq

from verifier.core.delta import Delta
from verifier.core.distribution import Bottom
from verifier.core.epsilon import Epsilon
from verifier.core.numbers import format_rational

__all__ = ["jsonable"]

_MPQ = type(mpq(0))


def jsonable(value: object) -> object:
    """A JSON-ready form of an outcome, background value or exact number."""
    if isinstance(value, Bottom):
        return "⊥"
    if isinstance(value, (Delta, Epsilon)):
        return str(value)
    if isinstance(value, _MPQ):
        return format_rational(value)
    if isinstance(value, (tuple, list)):
        return [jsonable(v) for v in value]
    if isinstance(value, frozenset):
        return sorted((jsonable(v) for v in value), key=repr)
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if hasattr(value, "as_dict"):
        return value.as_dict()
    if isinstance(value, (bool, int, str)) or value is None:
        return value
    return repr(value)
