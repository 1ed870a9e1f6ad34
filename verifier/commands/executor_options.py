"""The ``--workers``/``--scheduler`` options of the enumerating commands (typer only: the
command line imports this module at start-up, the library when a command runs)."""

from __future__ import annotations

from typing import Annotated

import typer

__all__ = ["WorkersOpt", "SchedulerOpt"]

WorkersOpt = Annotated[int | None, typer.Option(
    "--workers", min=1, help="Enumerate on a local Dask cluster of N worker processes "
                             "(needs plrv[distributed]).")]
SchedulerOpt = Annotated[str | None, typer.Option(
    "--scheduler", envvar="PLRV_SCHEDULER", show_envvar=True,
    help="Enumerate on the Dask cluster whose scheduler is at ADDRESS, e.g. "
         "tcp://10.0.0.5:8786 (needs plrv[distributed]).")]
