"""A progress bar on stderr while tables are built (display only).

Shown by default when stderr is a terminal; ``--progress`` forces it (also when stderr is a
file or a pipe), ``--no-progress`` hides it. rich is imported only when a bar is shown.

While a bar is shown, the programs enumerated (:mod:`verifier.model.program_enum`, here or
in the user-code child) add the paths they run to a second line, ``program paths: N`` (their
running total), which appears once the first paths are reported.
"""

from __future__ import annotations

import sys
from typing import Any

from verifier.model.program_enum import watching

__all__ = ["ProgressBar"]


class ProgressBar:
    """A context manager and a ``progress(done, total)`` callback."""

    def __init__(self, enabled: bool | None, label: str):
        self.forced = enabled is True
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.label = label
        self.bar: Any = None
        self.task: Any = None
        self.paths_task: Any = None
        self.paths_done = 0
        self.watch: watching | None = None

    def __enter__(self) -> ProgressBar:
        if self.enabled:
            from rich.console import Console
            from rich.progress import Progress

            console = Console(stderr=True, force_terminal=True if self.forced else None)
            self.bar = Progress(console=console, transient=not self.forced)
            self.bar.__enter__()
            self.watch = watching(self.paths)
            self.watch.__enter__()
        return self

    def paths(self, more: int) -> None:
        """``more`` paths of a program run (the sink of :class:`watching`)."""
        if self.bar is None:
            return
        self.paths_done += more
        text = f"program paths: {self.paths_done}"
        if self.paths_task is None:
            self.paths_task = self.bar.add_task(text, total=None)
        self.bar.update(self.paths_task, description=text)

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            return
        if self.task is None:
            self.task = self.bar.add_task(self.label, total=total)
        self.bar.update(self.task, completed=done, total=total)

    def __exit__(self, *exc: object) -> None:
        if self.watch is not None:
            self.watch.__exit__(*exc)
        if self.bar is not None:
            self.bar.__exit__(*exc)
