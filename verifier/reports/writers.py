"""Output files named on the command line (``--csv``, ``--json-file``, ``--plot``), written all
or nothing: every file goes to a temporary name beside its target first, and the targets are
replaced only when every file has been written (:func:`verifier.specs.files.write_atomically`).
Each file written is confirmed on stderr (``wrote PATH (--option)``), after all of them are."""

from __future__ import annotations

import csv
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from verifier.reports.json_out import dumps, sweep_rows
from verifier.specs.files import write_atomically

__all__ = ["write_sweep", "write_curve", "write_advantage_plot", "write_certificate",
           "write_html"]


def _write(writers: Mapping[Path, Callable[[Path], None]], options: Mapping[Path, str]) -> None:
    write_atomically(writers, options)
    for path in writers:
        print(f"wrote {path} ({options[path]})", file=sys.stderr)


def write_sweep(report, csv_path: Path | None, json_path: Path | None,
                plot_path: Path | None) -> None:
    """A :class:`~verifier.notions.sweep.SweepReport`'s rows as CSV and JSON, and its plot."""
    rows = sweep_rows(report.points)
    writers: dict[Path, Callable[[Path], None]] = {}
    if csv_path is not None:
        writers[csv_path] = _csv(rows, "p")
    if json_path is not None:
        def write_json(tmp: Path) -> None:
            tmp.write_text(dumps(rows, indent=1), encoding="utf-8")
        writers[json_path] = write_json
    if plot_path is not None:
        from verifier.reports.plot import plot_threshold_sweep

        def write_plot(tmp: Path) -> None:
            plot_threshold_sweep(report.points, tmp, fmt=_format(plot_path),
                                 title=f"{report.mechanism}, n = {report.records}",
                                 epsilon=str(report.epsilon), delta=str(report.delta))
        writers[plot_path] = write_plot
    _write(writers, {path: option for path, option in (
        (csv_path, "--csv"), (json_path, "--json-file"), (plot_path, "--plot"))
        if path is not None})


def write_curve(rows: list[dict], csv_path: Path | None, plot_path: Path | None,
                draw: Callable[[Path, str], None]) -> None:
    """``plrv curve``'s sample rows (:func:`verifier.reports.curve.sample_rows`) as CSV, and
    its plot drawn by ``draw(path, format)``."""
    writers: dict[Path, Callable[[Path], None]] = {}
    if csv_path is not None:
        writers[csv_path] = _csv(rows, "notion")
    if plot_path is not None:
        writers[plot_path] = lambda tmp: draw(tmp, _format(plot_path))
    _write(writers, {path: option for path, option in ((csv_path, "--csv"),
                                                         (plot_path, "--plot"))
                     if path is not None})


def _csv(rows: list[dict], first: str) -> Callable[[Path], None]:
    """A writer of ``rows`` as CSV, the keys of the first row as header (``first`` alone when
    there are no rows)."""
    def write(tmp: Path) -> None:
        with open(tmp, "w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]) if rows else [first])
            writer.writeheader()
            writer.writerows(rows)
    return write


def write_certificate(cert: dict, path: Path) -> None:
    """A certificate as JSON (``--certificate``), written all or nothing."""
    def write(tmp: Path) -> None:
        tmp.write_text(dumps(cert) + "\n", encoding="utf-8")

    _write({path: write}, {path: "--certificate"})


def write_advantage_plot(path: Path, diameter) -> None:
    """The advantage-against-ε plot of ``plrv guess --plot``."""
    from verifier.reports.plot import plot_advantage

    _write({path: lambda tmp: plot_advantage(tmp, diameter, fmt=_format(path))},
           {path: "--plot"})


def _format(path: Path) -> str:
    return path.suffix.lstrip(".").lower()


def write_html(text: str, path: Path, option: str) -> None:
    """An HTML page (``plrv report -o``, ``plrv audit --html``), written all or nothing."""
    def write(tmp: Path) -> None:
        tmp.write_text(text, encoding="utf-8")

    _write({path: write}, {path: option})
