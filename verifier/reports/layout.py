"""The layout of every text report: a console 80 columns wide off a terminal, ``label
value`` lines whose values wrap in their own column, and tables that fall back to one block
per row when their rows would not fit (a long exact value is never cut or folded inside a
table's cell)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

from verifier.reports.text import WIDTH

__all__ = ["console", "line", "table", "rows"]


def console() -> Console:
    """A console with markup off: a terminal's own width, else :data:`WIDTH` columns."""
    c = Console(highlight=False, markup=False)
    return c if c.is_terminal else Console(highlight=False, markup=False, width=WIDTH)


def line(c: Console, label: str, *parts: str | Text, width: int = 10) -> None:
    """``label      value``: the value wrapped in its own column."""
    grid = Table.grid(padding=(0, 1))
    grid.add_column(min_width=width, no_wrap=True)
    grid.add_column(overflow="fold")
    grid.add_row(Text(label, style="bold"), Text.assemble(*parts))
    c.print(grid)


def table(title: str, columns: Iterable[str], keep_first: bool = False) -> Table:
    """A table whose values wrap in their cells, never cut (``keep_first``: the first
    column, a short label such as a notion's name, on one line)."""
    out = Table(title=Text(title) if title else None)
    for j, col in enumerate(columns):
        out.add_column(Text(col), overflow="fold", no_wrap=keep_first and j == 0)
    return out


def _width(cell: str | Text) -> int:
    return cell_len(cell.plain if isinstance(cell, Text) else cell)


def rows(c: Console, title: str, columns: Sequence[str],
         cells: Sequence[Sequence[str | Text]], name_first: bool = True) -> None:
    """``cells`` as a table when every row fits the console on one line (each column as wide
    as its widest cell, a header as its longest word), else one block per row: its first
    cell (after the first column's name, with ``name_first``), then ``  column  value``
    lines."""
    widths = [max([max(cell_len(w) for w in col.split()), *(_width(r[j]) for r in cells)])
              for j, col in enumerate(columns)]
    spare = c.width - (sum(widths) + 3 * len(columns) + 1)
    if spare >= 0:
        for j, col in enumerate(columns):  # room left: headers on one line, left first
            grow = min(spare, max(0, cell_len(col) - widths[j]))
            widths[j] += grow
            spare -= grow
        if cell_len(title) > sum(widths) + 3 * len(columns) + 1:  # wider than the table:
            c.print(title)  # on a line of its own, not folded and centred over it
            title = ""
        out = table(title, columns, keep_first=True)
        for column, width in zip(out.columns, widths, strict=True):
            column.width = width  # a header wraps between its words, a value never
        for r in cells:
            out.add_row(*r)
        c.print(out)
        return
    c.print(title)
    label = max(cell_len(col) for col in columns[1:]) + 3
    for r in cells:
        c.print(Text.assemble(columns[0] + " ", r[0]) if name_first else r[0])
        for col, cell in zip(columns[1:], r[1:], strict=True):
            line(c, f"  {col}", cell, width=label)
