"""Reading specs that declare ``[parameters]``: the file, its kind, and the symbolic spec
built on the ordinary reader (:func:`verifier.symbolic.instance.build_symbolic` with
:func:`verifier.specs.check.parse_spec`, which refuses every key the command's notions do not
read — for ``plrv prove``, the notions its claim names).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from pathlib import Path

from verifier.core.errors import SpecError
from verifier.core.numbers import format_rational
from verifier.notions.registry import NOTIONS
from verifier.specs.check import parse_spec
from verifier.specs.files import check_kind, read_toml
from verifier.symbolic.claims import parse_claim
from verifier.symbolic.instance import SymbolicSpec, build_symbolic
from verifier.symbolic.parameters import read_parameters
from verifier.symbolic.recheck import NOTION_OF

__all__ = ["load_symbolic", "parse_symbolic", "point_note"]


def parse_symbolic(raw: Mapping, *, file: str | None = None, search_dir: Path | None = None,
                   command: str = "prove", claim: str | None = None) -> SymbolicSpec:
    """The symbolic spec of a raw table (a spec without ``[parameters]`` has none), read for
    ``command``; with ``claim`` (``plrv prove --claim``) the notions asked are those the
    claim names, not the spec's ``query.notions``."""
    notions = asked_by = None
    if claim is not None:
        uses = {NOTION_OF[u] for u in parse_claim(claim).uses}
        notions = tuple(n for n in NOTIONS if n in uses)
        asked_by = f"--claim {claim!r}"
    return build_symbolic(raw, partial(parse_spec, file=file, search_dir=search_dir,
                                       command=command, notions=notions, asked_by=asked_by),
                          file=file)


def load_symbolic(path: str | Path, command: str = "prove",
                  claim: str | None = None) -> SymbolicSpec:
    """Read a spec file that may declare ``[parameters]``, for ``command`` (a spec meant for
    another command is named as such; a key the command does not read is refused)."""
    raw = read_toml(path)
    check_kind(raw, command, str(path))
    return parse_symbolic(raw, file=str(path), search_dir=Path(path).resolve().parent,
                          command=command, claim=claim)


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
