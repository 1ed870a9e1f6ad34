"""Reading specs that declare ``[parameters]``: the file, its kind, the features a command
applies (:mod:`verifier.specs.features`), and the symbolic spec built on the ordinary reader
(:func:`verifier.symbolic.instance.build_symbolic` with :func:`verifier.specs.check.parse_spec`).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from pathlib import Path

from verifier.core.errors import SpecError
from verifier.core.numbers import format_rational
from verifier.specs.check import parse_spec
from verifier.specs.features import refuse_unsupported
from verifier.specs.files import check_kind, read_toml
from verifier.symbolic.instance import SymbolicSpec, build_symbolic
from verifier.symbolic.parameters import read_parameters

__all__ = ["load_symbolic", "parse_symbolic", "point_note"]


def parse_symbolic(raw: Mapping, *, file: str | None = None,
                   search_dir: Path | None = None) -> SymbolicSpec:
    """The symbolic spec of a raw table (a spec without ``[parameters]`` has none)."""
    return build_symbolic(raw, partial(parse_spec, file=file, search_dir=search_dir),
                          file=file)


def load_symbolic(path: str | Path, command: str = "prove") -> SymbolicSpec:
    """Read a spec file that may declare ``[parameters]``, for ``command`` (a spec meant for
    another command is named as such; a feature the command does not apply is refused)."""
    raw = read_toml(path)
    check_kind(raw, command, str(path))
    refuse_unsupported(raw, command, str(path))
    return parse_symbolic(raw, file=str(path), search_dir=Path(path).resolve().parent)


def point_note(path: str | Path, at: Mapping[str, object] | None) -> str | None:
    """What ``plrv check`` says about the point it checked a spec with parameters at (None
    for a spec without parameters)."""
    raw = read_toml(path)
    if "parameters" not in raw:
        if at:
            raise SpecError("--at is given but the spec declares no [parameters]",
                            file=str(path))
        return None
    params = read_parameters(raw["parameters"],
                             lambda key, msg: SpecError(msg, file=str(path), key=key))
    if at is not None:
        point = params.check_point(at)
        return "checked at " + ", ".join(f"{k} = {format_rational(v)}" for k, v in point.items())
    point = params.sample_point()
    return ("checked at the sample point " + ", ".join(f"{k} = {format_rational(v)}"
                                                       for k, v in point.items())
            + " (choose another with --at; plrv prove decides claims for every value)")
