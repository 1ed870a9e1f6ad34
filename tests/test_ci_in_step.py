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


def test_the_readme_and_the_docs_install_the_browser_as_ci_does():
    # every command line of .ci/run before the test command (the browser's install) is shown
    lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    steps = [x for x in lines if x.strip() and not x.startswith(("#", "set ", "cd ", "rm "))]
    assert steps[-1] == _ci_command() and any("chromium" in x for x in steps[:-1])
    for page in (ROOT / "README.md", ROOT / "docs" / "how-to" / "run-the-tests.md"):
        shown = page.read_text(encoding="utf-8").splitlines()
        assert [x for x in steps if x not in shown] == [], page
