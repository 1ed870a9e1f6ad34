"""tests/slow.txt names existing tests: a test renamed, or a docs block moved, leaves a stale id
that would silently put a slow test back into the quick subset (regenerate the list with
tests/slow_ids.py)."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

from slow_marks import pytest_collection_modifyitems, slow_ids

ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"^(tests/test_docs_snippets\.py)::test_(python|console)_block\[(.+):(\d+)\]$")


@functools.cache  # one parse per file, not per listed id
def _functions(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)}


@functools.cache
def _lines(page: Path) -> list[str]:
    return page.read_text(encoding="utf-8").splitlines() if page.exists() else []


def _stale(nid: str) -> str | None:
    """Why ``nid`` names no test, or None."""
    block = BLOCK.match(nid)
    if block is not None:  # a docs block: its fence opens at that line of that page
        page, line = ROOT / block.group(3), int(block.group(4))
        lines = _lines(page)
        fence = lines[line - 1].lstrip() if 0 < line <= len(lines) else ""
        lang = "python" if block.group(2) == "python" else "console"
        return None if fence.startswith("```" + lang) else f"no ```{lang} block at that line"
    path, _, rest = nid.partition("::")
    if not (ROOT / path).is_file():
        return f"no file {path}"
    name = rest.split("::")[-1].split("[")[0]
    return None if name in _functions(ROOT / path) else f"no function {name} in {path}"


def test_every_listed_slow_test_exists():
    stale = {nid: why for nid in sorted(slow_ids()) if (why := _stale(nid)) is not None}
    assert stale == {}, "stale ids in tests/slow.txt (regenerate it with tests/slow_ids.py)"


def test_a_stale_id_is_caught():
    assert _stale("tests/test_slow_list.py::test_no_such_test") is not None
    assert _stale("tests/no_such_file.py::test_x") is not None
    assert _stale("tests/test_docs_snippets.py::test_python_block[README.md:1]") is not None
    assert _stale("tests/test_slow_list.py::test_a_stale_id_is_caught") is None


def test_the_hook_marks_the_listed_tests_slow_and_no_other():
    class Item:
        def __init__(self, nodeid):
            self.nodeid, self.marks = nodeid, []

        def add_marker(self, mark):
            self.marks.append(mark.name)

    listed, unlisted = Item(sorted(slow_ids())[0]), Item("tests/test_slow_list.py::test_x")
    pytest_collection_modifyitems([listed, unlisted])
    assert (listed.marks, unlisted.marks) == (["slow"], [])
