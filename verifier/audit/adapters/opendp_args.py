"""Reading an OpenDP audit case: the library itself, the doubles handed to it, the claims it
returns (read exactly as the binary64 rationals they are), and the verdict rule."""

from __future__ import annotations

from typing import Any

from verifier.audit.case import AuditCase
from verifier.audit.judge import read_double
from verifier.core.binary64 import F64
from verifier.core.epsilon import Epsilon
from verifier.core.errors import InvalidArgument
from verifier.core.numbers import integer

__all__ = ["opendp", "version", "double_arg", "int_arg", "bool_option", "claim_epsilon",
           "discrete_d_in", "verdict", "scale_arg", "NegativeClaim", "I32", "U32"]


def opendp() -> Any:
    """``opendp.prelude`` with the ``contrib`` features enabled."""
    import opendp.prelude as dp

    dp.enable_features("contrib")
    return dp


def version() -> str:
    import opendp

    return str(getattr(opendp, "__version__", "unknown"))


def double_arg(case: AuditCase, key: str) -> F64:
    """``args.key`` as the double handed to the library: ``{f64 = "…"}``, or an integer
    that is a double exactly."""
    value = case.arg(key)
    if isinstance(value, F64):
        return value
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) < 2 ** 1023 \
            and float(value) == value:
        return F64(float(value))
    raise InvalidArgument(f"args.{key} = {value!r:.40}: the library takes a double; write "
                          f'{{f64 = "…"}}', argument=f"args.{key}", value=value)


I32 = (-(1 << 31), (1 << 31) - 1)  # the library's i32 and u32 (Rust types of its arguments)
U32 = (0, (1 << 32) - 1)


def int_arg(case: AuditCase, key: str, value: object | None = None, lo: int | None = None,
            hi: int | None = None) -> int:
    """An integer argument (``key`` names it) in ``[lo, hi]`` when given: the range of the
    Rust type the library converts it to, checked before the library sees it."""
    v = case.arg(key) if value is None else value
    if isinstance(v, bool) or not isinstance(v, int):
        raise InvalidArgument(f"{key} = {v!r:.40} is not an integer", argument=key, value=v)
    return integer(v, key, lo=lo, hi=hi)


def bool_option(case: AuditCase, key: str) -> bool:
    v = case.args.get(key, False)
    if not isinstance(v, bool):
        raise InvalidArgument(f"args.{key} = {v!r:.40} is not a boolean",
                              argument=f"args.{key}", value=v)
    return v


class NegativeClaim(InvalidArgument):
    """The library claimed a negative ε or δ: not a privacy guarantee at all (``unsound``)."""

    def __init__(self, claim: F64) -> None:
        super().__init__(f"the library returned a negative privacy parameter {claim}: not a "
                         f"privacy guarantee", argument="d_in", value=str(claim))
        self.claim = claim


def claim_epsilon(value: object) -> tuple[F64 | Epsilon, Epsilon]:
    """A double ε the library returned: as read, and as an exact Epsilon (a negative one
    raises :class:`NegativeClaim`, a NaN is an error)."""
    d = read_double(float(value))  # type: ignore[arg-type]
    if isinstance(d, F64):
        if d.exact < 0:
            raise NegativeClaim(d)
        return d, Epsilon.of_nats(d.exact)
    if d == float("inf"):
        return Epsilon.INF, Epsilon.INF
    raise InvalidArgument(f"the library returned ε = {d!r}", argument="d_in", value=d)


def discrete_d_in(case: AuditCase) -> int:
    d = int_arg(case, "d_in", case.d_in if case.d_in is not None else 1, hi=U32[1])
    if d < 1:
        raise InvalidArgument(f"d_in = {d}: under DiscreteDistance only different inputs "
                              f"(distance 1) are compared; give d_in ≥ 1", argument="d_in",
                              value=d)
    return d


def verdict(holds: bool | None) -> str:
    return "unknown" if holds is None else "sound" if holds else "unsound"


def scale_arg(case: AuditCase) -> F64:
    """``args.scale``, a positive double (the granularity ``k`` applies to floats only, and
    is refused: integer inputs take none)."""
    scale = double_arg(case, "scale")
    if scale.exact <= 0:
        raise InvalidArgument(f"args.scale = {scale}: plrv models a positive scale",
                              argument="args.scale", value=str(scale))
    return scale
