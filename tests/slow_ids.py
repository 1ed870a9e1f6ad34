"""Regenerate tests/slow.txt from a measured run: the tests that take longer than a threshold.

Usage (from the project root; the run's times are divided by ``--load``, the machine's load
factor during the run, to give idle seconds)::

    python -m pytest -p no:cacheprovider --junitxml=/tmp/junit.xml
    python -m pytest -p no:cacheprovider -m "not slow" --collect-only -q > /tmp/quick.txt
    python tests/slow_ids.py /tmp/junit.xml --quick /tmp/quick.txt --load 1 > tests/slow.txt

``--quick`` keeps only the tests not yet marked slow otherwise (a decorator, a docs block's
``<!-- test: slow -->``); without it every test over the threshold is listed. A docs block is
never listed (its id carries a line number, which moves as the page is edited): it is printed
to stderr, to be marked ``<!-- test: slow -->`` on the line before it.
"""

from __future__ import annotations

import argparse
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEADER = """\
# The tests marked slow by tests/slow_marks.py (deselected by python -m pytest -m "not slow"):
# each took more than {threshold} s on an idle machine. Regenerate with tests/slow_ids.py
# (its docstring gives the commands); tests/test_slow_list.py checks every id still exists.
"""


def node_id(classname: str, name: str) -> str:
    """The pytest node id of a JUnit ``testcase`` (``tests.hostile.test_x.TestY`` + name)."""
    parts = classname.split(".")
    for i in range(len(parts), 0, -1):
        path = "/".join(parts[:i]) + ".py"
        if (ROOT / path).exists():
            return "::".join([path, *parts[i:], name])
    return f"{classname}::{name}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("junit", type=Path)
    parser.add_argument("--quick", type=Path, help="pytest --collect-only -q output")
    parser.add_argument("--load", type=float, default=1.0)
    parser.add_argument("--threshold", type=float, default=0.2, help="idle seconds")
    args = parser.parse_args()
    quick = None
    if args.quick is not None:
        quick = {line.strip() for line in args.quick.read_text().splitlines() if "::" in line}
    slow = set()
    for case in ET.parse(args.junit).iter("testcase"):
        nid = node_id(case.get("classname", ""), case.get("name", ""))
        if float(case.get("time", "0")) / args.load > args.threshold and (
                quick is None or nid in quick):
            if "test_docs_snippets.py::" in nid and "[" in nid:
                print(f"mark <!-- test: slow -->: {nid}", file=sys.stderr)
            else:
                slow.add(nid)
    print(HEADER.format(threshold=args.threshold), end="")
    print("\n".join(sorted(slow)))


if __name__ == "__main__":
    main()
