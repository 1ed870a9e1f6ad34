"""CI runs exactly the README's test command (and the docs page that repeats it)."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _ci_command() -> str:
    lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    return next(x for x in reversed(lines) if x.strip() and not x.startswith("#"))


def test_the_readme_and_the_docs_show_the_command_ci_runs():
    command = _ci_command()
    assert command.startswith("python3 -m venv .venv") and "python -m pytest" in command
    for page in (ROOT / "README.md", ROOT / "docs" / "how-to" / "run-the-tests.md"):
        assert command in page.read_text(encoding="utf-8").splitlines(), page
