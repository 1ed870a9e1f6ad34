"""The documentation cannot drift: every code block of README.md and docs/ is run.

- Every ```python block runs in a fresh interpreter with the repository root as working
  directory and must exit 0. A ``print(…)  # → TEXT`` line quotes its output: when a block has
  such lines, its standard output must be exactly those texts, one line each, in order (a text
  ending in ``…`` is a prefix).
- Every ``$ plrv …`` line of a ```console, ```bash or ```sh block runs (a trailing ``\\``
  continues it on the next line); its exit status must be the one written beside it as
  ``# exit N``, else 0. The lines after it, up to the next ``$`` line, are its quoted output:
  each must appear in what the command printed (stdout and stderr, spaces collapsed, so a table
  may wrap differently); a line ``…`` stands for omitted output. The commands of one block run
  in order in one scratch folder that holds links to the repository's files, so that a file one
  command writes (a certificate) is there for the next, and nothing is written into the
  repository.
- A block is left out only by a visible marker on the line before it:
  ``<!-- test: skip: REASON -->`` (the reason is required); ``<!-- test: needs MODULE -->``
  skips it, saying so, when an optional extra's module is not installed (``opendp`` for an
  audit of OpenDP); ``<!-- test: slow -->`` marks it slow (deselected by ``-m "not slow"``).
  Markers combine on one line: ``<!-- test: slow, needs opendp -->``.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^(?P<indent>\s*)```(?P<lang>[\w-]*)")
MARKER = re.compile(r"<!--\s*test:\s*(?P<body>.*?)\s*-->")
ARROW = re.compile(r"#\s*→\s?(?P<text>.*)$")
EXIT = re.compile(r"#\s*exit\s+(?P<code>\d+)\s*$")
SHELLS = {"console", "bash", "sh", "shell"}
TIMEOUT = 300


@dataclass(frozen=True)
class Block:
    """A fenced code block: its file, the line it starts on, language, text and marker."""

    path: Path
    line: int
    lang: str
    text: str
    marker: str  # "", "slow" or "skip"
    reason: str
    needs: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        where = self.path.relative_to(ROOT) if self.path.is_relative_to(ROOT) else self.path
        return f"{where}:{self.line}"


def blocks(path: Path) -> list[Block]:
    """Every fenced block of a markdown file (indented ones too, as in an admonition)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, lang, start = m.group("indent"), m.group("lang"), i
        body: list[str] = []
        i += 1
        while i < len(lines) and lines[i].strip() != "```":
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
            i += 1
        before = next((lines[j] for j in range(start - 1, -1, -1) if lines[j].strip()), "")
        marker, reason, needs = _marker(MARKER.search(before))
        found.append(Block(path, start + 1, lang, "\n".join(body) + "\n", marker, reason,
                           needs))
        i += 1
    return found


def _marker(match: re.Match[str] | None) -> tuple[str, str, tuple[str, ...]]:
    """(``skip``/``slow``/``""``, the skip's reason, the modules a block needs)."""
    if match is None:
        return "", "", ()
    body = match.group("body")
    if body.startswith("skip"):
        return "skip", body[4:].lstrip(":").strip(), ()
    parts = [p.strip() for p in body.split(",")]
    needs = tuple(p.split()[1] for p in parts if p.startswith("needs "))
    unknown = [p for p in parts if p != "slow" and not p.startswith("needs ")]
    if unknown:
        raise ValueError(f"unknown docs test marker {unknown} in {match.group(0)!r}")
    return ("slow" if "slow" in parts else ""), "", needs


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def all_blocks() -> list[Block]:
    return [b for path in documents() for b in blocks(path)]


def _param(block: Block) -> object:
    marks: list[pytest.MarkDecorator] = []
    if block.marker == "slow":
        marks.append(pytest.mark.slow)
    elif block.marker == "skip":
        marks.append(pytest.mark.skip(reason=f"{block.name}: {block.reason}"))
    missing = [m for m in block.needs if importlib.util.find_spec(m) is None]
    if missing:
        marks.append(pytest.mark.skip(reason=f"{block.name} needs {', '.join(missing)} "
                                             "(an optional extra), not installed"))
    return pytest.param(block, id=block.name, marks=marks)


PYTHON = [_param(b) for b in all_blocks() if b.lang == "python"]
CONSOLE = [_param(b) for b in all_blocks()
           if b.lang in SHELLS and any(line.startswith("$ plrv ")
                                       for line in b.text.splitlines())]


def expected_prints(code: str) -> list[str]:
    return [m.group("text").rstrip() for line in code.splitlines()
            if (m := ARROW.search(line)) and "print(" in line]


def output_matches(expected: list[str], stdout: str) -> bool:
    got = stdout.splitlines()
    if len(got) != len(expected):
        return False
    return all(g.rstrip().startswith(e[:-1].rstrip()) if e.endswith("…") else g.rstrip() == e
               for e, g in zip(expected, got, strict=True))


def run_python(block: Block) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", block.text], cwd=ROOT, capture_output=True,
                          text=True, timeout=TIMEOUT, env=_env())


@pytest.mark.parametrize("block", PYTHON)
def test_python_block(block: Block) -> None:
    done = run_python(block)
    assert done.returncode == 0, f"{block.name} exits {done.returncode}:\n{done.stderr}"
    expected = expected_prints(block.text)
    if expected:
        assert output_matches(expected, done.stdout), (
            f"{block.name}: the output quoted with # → is not what the code prints:\n"
            f"quoted:  {expected}\nprinted: {done.stdout.splitlines()}")


@dataclass(frozen=True)
class Command:
    """A ``$ plrv …`` line: its arguments, expected exit status and quoted output lines."""

    line: str
    args: tuple[str, ...]
    status: int
    output: tuple[str, ...]


def commands(text: str) -> list[Command]:
    """The ``$ plrv`` commands of a shell block with their quoted output (other ``$`` lines,
    such as ``$ dask worker …``, end the output before them but are not run)."""
    found: list[Command] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith("$ "):
            i += 1
            continue
        full = line[2:]
        while full.rstrip().endswith("\\") and i + 1 < len(lines):
            i += 1
            full = full.rstrip()[:-1] + " " + lines[i].strip()
        i += 1
        output: list[str] = []
        while i < len(lines) and not lines[i].startswith("$ "):
            if lines[i].strip() not in ("", "…", "..."):
                output.append(lines[i])
            i += 1
        if full.startswith("plrv "):
            m = EXIT.search(full)
            args = shlex.split(full, comments=True)[1:]
            found.append(Command(full, tuple(args), int(m.group("code")) if m else 0,
                                 tuple(output)))
    return found


def _squash(text: str) -> str:
    return " ".join(text.split())


def _env() -> dict[str, str]:
    env = dict(os.environ, COLUMNS="100", NO_COLOR="1", PYTHONDONTWRITEBYTECODE="1")
    env.pop("FORCE_COLOR", None)
    return env


def _plrv() -> list[str]:
    script = Path(sys.executable).parent / "plrv"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from verifier.cli import main; "
                                  "sys.argv[0] = 'plrv'; main()"]


def scratch(tmp: Path) -> Path:
    """A folder with links to the repository's files: relative paths work, outputs stay out."""
    for entry in ROOT.iterdir():
        if entry.name not in {".git", ".venv", "site"}:
            (tmp / entry.name).symlink_to(entry)
    return tmp


def run_command(command: Command, cwd: Path) -> list[str]:
    """The problems with one command: its exit status, then each quoted line not printed."""
    done = subprocess.run([*_plrv(), *command.args], cwd=cwd, capture_output=True, text=True,
                          timeout=TIMEOUT, env=_env())
    problems = []
    if done.returncode != command.status:
        problems.append(f"$ {command.line}: exit {done.returncode}, the docs say "
                        f"{command.status}\n{done.stderr[-2000:]}")
    printed = _squash(done.stdout + "\n" + done.stderr)
    problems += [f"$ {command.line}: does not print {line!r}" for line in command.output
                 if _squash(line) not in printed]
    return problems


@pytest.mark.parametrize("block", CONSOLE)
def test_console_block(block: Block, tmp_path: Path) -> None:
    cwd = scratch(tmp_path)
    problems = [p for command in commands(block.text) for p in run_command(command, cwd)]
    assert not problems, f"{block.name}:\n" + "\n".join(problems)


def test_every_document_has_its_blocks_found_and_markers_give_reasons() -> None:
    found = all_blocks()
    assert len(PYTHON) >= 10 and len(CONSOLE) >= 20, (len(PYTHON), len(CONSOLE))
    for block in found:
        if block.marker == "skip":
            assert len(block.reason) >= 10, f"{block.name}: a skip needs its reason"
    # a python block quoting output it cannot print would never be compared: each quoted
    # line must sit on a print
    for block in found:
        if block.lang == "python":
            for line in block.text.splitlines():
                if ARROW.search(line):
                    assert "print(" in line, f"{block.name}: '# →' on a line without print"


def test_the_checks_can_fail(tmp_path: Path) -> None:
    """The runner rejects a wrong exit status, output that is not printed and a wrong quoted
    print (independent facts: examples/threshold_partial.toml's APK claim fails, exit 1)."""
    doc = tmp_path / "doc.md"
    doc.write_text("```console\n$ plrv check examples/threshold_partial.toml\nno such line\n"
                   "```\n\n```python\nprint(1 + 1)   # → 3\n```\n", encoding="utf-8")
    shell, python = blocks(doc)
    [command] = commands(shell.text)
    assert command.status == 0 and command.output == ("no such line",)
    (tmp_path / "repo").mkdir()
    problems = run_command(command, scratch(tmp_path / "repo"))
    assert any("exit 1, the docs say 0" in p for p in problems), problems
    assert any("does not print 'no such line'" in p for p in problems), problems
    assert run_python(python).stdout == "2\n"
    assert not output_matches(expected_prints(python.text), "2\n")
    assert output_matches(["1/4 ln(2) …"], "1/4 ln(2) True\n")


def test_markers(tmp_path: Path) -> None:
    """A block that needs a module that is not installed is skipped saying so; a skip needs a
    reason; an unknown marker is an error, not silently ignored."""
    doc = tmp_path / "doc.md"
    doc.write_text("<!-- test: slow, needs no_such_module_here -->\n```python\nprint(1)\n```\n"
                   "<!-- test: skip: needs a cluster at 10.0.0.5 -->\n```console\n$ plrv x\n```\n",
                   encoding="utf-8")
    needs, skipped = blocks(doc)
    assert (needs.marker, needs.needs) == ("slow", ("no_such_module_here",))
    marks = {m.name for m in _param(needs).marks}  # type: ignore[attr-defined]
    assert marks == {"slow", "skip"}
    assert (skipped.marker, skipped.reason) == ("skip", "needs a cluster at 10.0.0.5")
    doc.write_text("<!-- test: quick -->\n```python\nprint(1)\n```\n", encoding="utf-8")
    with pytest.raises(ValueError, match="unknown docs test marker"):
        blocks(doc)


def _generated() -> object:
    """docs/hooks/generated.py, the mkdocs hook that writes the reference pages."""
    spec = importlib.util.spec_from_file_location("docs_generated",
                                                  ROOT / "docs" / "hooks" / "generated.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_reference_pages_cover_every_command_and_schema() -> None:
    """The CLI page has every command's --help, the spec and output pages every schema
    (and every top-level key of each), so a new command or schema cannot be left out."""
    import json

    import typer.main

    from verifier.cli import app

    generated: Any = _generated()
    cli = generated.cli_page()
    group = typer.main.get_command(app)
    names = group.list_commands(group.make_context("plrv", [], resilient_parsing=True))
    assert len(names) >= 13
    for name in names:
        assert f"## plrv {name}\n" in cli and f"Usage: plrv {name} " in cli, name
    pages = generated.spec_page() + generated.output_page()
    for path in sorted((ROOT / "schemas").glob("*.json")):
        schema = json.loads(path.read_text(encoding="utf-8"))
        assert f"`schemas/{path.name}`" in pages, path.name
        for key in schema.get("properties", {}):
            assert f"| `{key}` |" in pages, (path.name, key)
