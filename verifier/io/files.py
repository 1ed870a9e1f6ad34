"""Reading spec files: TOML in, tables checked by name, every problem a SpecError."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path

from verifier.core.errors import SpecError

__all__ = ["read_toml", "check_tables"]


def read_toml(path: str | Path) -> dict:
    """The file's tables; an unreadable file or invalid TOML is a :class:`SpecError`."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise SpecError(f"cannot read the file ({exc.strerror})", file=str(path)) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(f"not valid TOML: {exc}", file=str(path)) from None


def check_tables(raw: Mapping, known: Mapping[str, set | None], file: str | None) -> None:
    """Every table and key must be known (``None``: the table's keys are checked elsewhere)."""
    for name, table in raw.items():
        if name not in known:
            raise SpecError(f"unknown table; known: {', '.join(known)}", file=file,
                            key=f"[{name}]")
        if not isinstance(table, dict):
            raise SpecError("must be a table", file=file, key=name)
        allowed = known[name]
        if allowed is None:
            continue
        for key in table:
            if key not in allowed:
                raise SpecError(f"unknown key; {name} takes {', '.join(sorted(allowed))}",
                                file=file, key=f"{name}.{key}")
