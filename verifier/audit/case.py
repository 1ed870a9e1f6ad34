"""The values an audit passes around: a case read from the config, and the row that answers it.

A case names a library, one of its constructors and the arguments it is called with, read
exactly (:mod:`verifier.specs.audit`): a TOML integer stays an ``int``, ``{f64 = "…"}`` is an
:class:`~verifier.core.binary64.F64` (so an adapter can hand the library the very double),
a string stays a string (an adapter reads ``"1/3"`` or ``"ln(3)"`` with the reader its
argument needs), a boolean a ``bool``, a list a tuple of such values.

A row holds the library's claim as the library made it — a double it returned is an ``F64``,
read exactly as the rational it is, even when it is negative or otherwise not a valid ε or δ —
and the tight values plrv computed for the law the implementation samples from: exact
(:class:`~verifier.core.epsilon.Epsilon`, :class:`~verifier.core.delta.Delta`, ``mpq``) or an
:class:`Enclosure` of two exact values. The verdict rule (the same for every adapter): ``sound``
only when the tight value is proved ≤ the claim, ``unsound`` only when proved >, ``unknown``
otherwise — and ``unknown`` whenever the law is not modelled exactly.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from gmpy2 import mpq

from verifier.core.binary64 import F64
from verifier.core.certified import Certified
from verifier.core.delta import Delta
from verifier.core.epsilon import Epsilon
from verifier.core.errors import InvalidArgument, did_you_mean

__all__ = ["AuditCase", "AuditRow", "CurvePoint", "Enclosure", "VERDICTS", "EXACTNESS", "Value",
           "ArgValue"]

VERDICTS = ("sound", "unsound", "unknown")
EXACTNESS = ("exact", "enclosure", "proxy")

ArgValue = int | bool | str | F64 | tuple  # tuple: of ArgValue
Exact = Epsilon | Delta | mpq | F64


@dataclass(frozen=True, slots=True)
class Enclosure:
    """A value known to lie in ``[lower, upper]`` (both exact): the certified bounds of a
    value that is not computed exactly (e.g. the law of a mechanism whose parameter is a
    double ``d``, bracketed by laws at rationals below and above ``e^d``)."""

    lower: Exact
    upper: Exact


Value = Exact | Enclosure | Certified


@dataclass(frozen=True, slots=True)
class CurvePoint:
    """One point of a curve check: what it is, the library's value (a double read exactly),
    the exact value (rational or certified enclosure), the tolerance, and whether the
    library's value is within it (``None``: not decided)."""

    point: str
    library: F64 | mpq | None
    exact: mpq | Enclosure | None
    tolerance: str
    passed: bool | None
    detail: str = ""


@dataclass(frozen=True, slots=True)
class AuditCase:
    """One ``[[case]]`` of an audit config, read exactly (see the module).

    ``epsilon`` and ``delta`` are the ε / δ the case fixes: the δ at which an accountant's ε
    is read (or the ε at which its δ is), or a claim that overrides the library's.
    ``inputs`` is the finite input universe where the adapter needs one; ``options`` are the
    adapter's own settings (each adapter refuses the ones it does not know). ``index`` is the
    case's position in the config (``case[index]`` in messages).
    """

    library: str
    constructor: str
    args: Mapping[str, ArgValue]
    d_in: ArgValue | None
    compose: int | None
    epsilon: Epsilon | None
    delta: mpq | None
    inputs: tuple | None
    index: int
    options: Mapping[str, ArgValue] = field(default_factory=dict)

    @property
    def where(self) -> str:
        return f"case[{self.index}]"

    def arg(self, key: str) -> ArgValue:
        """The argument ``key``; its absence is an error naming ``args.key``."""
        if key not in self.args:
            raise InvalidArgument(f"{self.constructor} needs args.{key}",
                                  argument=f"args.{key}")
        return self.args[key]

    def only(self, args: tuple[str, ...], options: tuple[str, ...] = (), *,
             d_in: bool = False, compose: bool = False, epsilon: bool = False,
             delta: bool = False, inputs: bool = False) -> None:
        """Refuse every argument, option and case key this constructor does not use (each
        key is honoured or refused, never ignored)."""
        for key in self.args:
            if key not in args:
                raise InvalidArgument(f"{self.library}.{self.constructor} takes no argument "
                                      f"{key!r}; it takes {', '.join(args) or 'none'}"
                                      f"{did_you_mean(key, args)}",
                                      argument=f"args.{key}", value=self.args[key])
        for key in self.options:
            if key not in options:
                raise InvalidArgument(f"{self.library}.{self.constructor} has no option "
                                      f"{key!r}; it has {', '.join(options) or 'none'}"
                                      f"{did_you_mean(key, options)}",
                                      argument=f"options.{key}", value=self.options[key])
        for key, used, value in (("d_in", d_in, self.d_in), ("compose", compose, self.compose),
                                 ("epsilon", epsilon, self.epsilon),
                                 ("delta", delta, self.delta), ("inputs", inputs, self.inputs)):
            if not used and value is not None:
                raise InvalidArgument(f"{key} does not apply to {self.library}."
                                      f"{self.constructor}", argument=key, value=value)


@dataclass(frozen=True, slots=True)
class AuditRow:
    """The answer to one case (see the module for the verdict rule).

    ``claim_epsilon``/``claim_delta``: what the library claims (an ``F64`` when the library
    returned a double; an exact value when the case fixed it). ``tight_delta`` is the tight δ
    of the implemented law at the claimed ε, ``tight_epsilon`` its tight ε at the claimed δ.
    ``ratio`` is claim/tight ε as an approximate decimal (display only), ``witness`` the
    inputs (and outputs) that attain the tight values, ``notes`` what the reader should know
    (the doubles handed to the library, why a case is unknown, a conformance result);
    ``curve`` the points of an accountant's ``--conformance`` check, if run.
    """

    case: AuditCase
    claim_epsilon: Value | None
    claim_delta: Value | None
    tight_delta: Value | None
    tight_epsilon: Value | None
    verdict: str
    ratio: str | None
    exactness: str
    witness: Mapping[str, object]
    notes: tuple[str, ...] = ()
    curve: tuple[CurvePoint, ...] = ()

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise InvalidArgument(f"verdict {self.verdict!r} is not one of "
                                  f"{', '.join(VERDICTS)}", argument="verdict",
                                  value=self.verdict)
        if self.exactness not in EXACTNESS:
            raise InvalidArgument(f"exactness {self.exactness!r} is not one of "
                                  f"{', '.join(EXACTNESS)}", argument="exactness",
                                  value=self.exactness)
        if self.verdict == "sound" and self.exactness == "proxy":
            raise InvalidArgument("a case decided on a proxy law cannot be sound",
                                  argument="verdict", value=self.verdict)

    def with_notes(self, *notes: str, verdict: str | None = None,
                   curve: tuple[CurvePoint, ...] = ()) -> AuditRow:
        """This row with more notes (and, for a failed conformance test, another verdict;
        for an accountant's, the points of its curve check)."""
        from dataclasses import replace
        return replace(self, notes=(*self.notes, *notes), verdict=verdict or self.verdict,
                       curve=(*self.curve, *curve))
