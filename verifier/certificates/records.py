"""The theorem records of the source checkout (``proofs/``), for ``plrv theorems``.

The records live beside the package, not in it: they are the project's regression evidence,
run from a checkout (an editable install finds them next to ``verifier/``).
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

from verifier.core.errors import InvalidArgument

__all__ = ["theorem_rows", "theorems_markdown"]


def _registry():
    root = Path(__file__).resolve().parent.parent.parent
    if not (root / "proofs" / "registry.py").is_file():
        raise InvalidArgument("the theorem records (proofs/) are not installed with plrv; run "
                              "plrv theorems from a source checkout")
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    return importlib.import_module("proofs.registry")  # beside the package, not type-checked


def theorem_rows(progress=None) -> tuple[list[dict], bool]:
    """One row per seed statement, and whether every record gives its expected verdict
    (``progress(done, total)`` after each record)."""
    registry = _registry()
    table = registry.rows(progress)
    return table, all(registry.passed(r) for r in table)


def theorems_markdown(table: list[dict]) -> str:
    return _registry().markdown(table)
