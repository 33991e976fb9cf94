"""The tables the studies print: rows of dicts under declared columns, and an optional legend.

Two forms:

* :func:`print_table`: columns named by their keys, every cell right-aligned to the widest
  (floats to four significant digits); for the studies whose columns are their record keys.
* :func:`print_columns`: declared :class:`Column` objects, each with its header, width,
  alignment and the text of a row's cell, for the fixed-width tables of the application
  studies (a case's rows, then a blank line).

Both print a legend below the table when given one: ``header: meaning`` per column.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence


def print_table(rows: list[dict], columns: list[str], legend: dict[str, str] | None = None) -> None:
    """Print rows as an aligned text table.

    Parameters
    ----------
    rows : list of dict
        One dict per row; a missing key prints empty.
    columns : list of str
        The keys printed, in order; also the headers.
    legend : dict of str to str, optional
        ``column: meaning`` lines printed below the table.
    """
    cells = [[_fmt(r.get(c, "")) for c in columns] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(columns)]
    print("  ".join(c.rjust(w) for c, w in zip(columns, widths)))
    for row in cells:
        print("  ".join(v.rjust(w) for v, w in zip(row, widths)))
    print_legend(legend)


def print_legend(legend: dict[str, str] | None) -> None:
    """Print ``name: meaning`` per entry (nothing when ``legend`` is empty or None)."""
    for name, meaning in (legend or {}).items():
        print(f"  {name}: {meaning}")


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.4g}" if abs(v) < 1e5 else f"{v:,.0f}"
    return str(v)


@dataclass(frozen=True)
class Column:
    """One column of a fixed-width table.

    Attributes
    ----------
    header : str
        The column's header.
    width : int
        Its width; the header and every cell are padded to it (a longer cell is not cut).
    cell : callable
        ``cell(row) -> str``: the text of the column in a row.
    align : str
        ``">"`` (right, default) or ``"<"`` (left).
    gap : str
        What separates the column from the previous one (default one space).
    """

    header: str
    width: int
    cell: Callable[[dict], object]
    align: str = ">"
    gap: str = " "

    def pad(self, text: object) -> str:
        """``text`` aligned to the column's width (as it is for width 0: a last column of free text)."""
        if not self.width:
            return str(text)
        return f"{str(text):{self.align}{self.width}}"


def header_line(columns: Sequence[Column]) -> str:
    """The header line of a fixed-width table (the first column without its gap)."""
    return "".join((c.gap if i else "") + c.pad(c.header) for i, c in enumerate(columns))


def row_line(columns: Sequence[Column], row: dict) -> str:
    """One row of a fixed-width table."""
    return "".join((c.gap if i else "") + c.pad(c.cell(row)) for i, c in enumerate(columns))


def print_columns(groups: Sequence[Sequence[dict]], columns: Sequence[Column], *,
                  row_text: Callable[[dict], str | None] | None = None,
                  after_group: Callable[[Sequence[dict]], None] | None = None,
                  legend: dict[str, str] | None = None) -> None:
    """Print a fixed-width table: header, a rule as long as it, then per group its rows and a blank line.

    Parameters
    ----------
    groups : sequence of sequence of dict
        The rows, one group per case.
    columns : sequence of Column
        The declared columns.
    row_text : callable, optional
        ``row_text(row)``: a line printed instead of the row's cells when it returns a string
        (e.g. a row whose mapping failed).
    after_group : callable, optional
        Called with a group after its rows, before the blank line (e.g. a per-case summary line).
    legend : dict of str to str, optional
        Printed below the table (:func:`print_legend`).
    """
    head = header_line(columns)
    print(head)
    print("-" * len(head))
    for group in groups:
        for row in group:
            text = row_text(row) if row_text is not None else None
            print(row_line(columns, row) if text is None else text)
        if after_group is not None:
            after_group(group)
        print()
    print_legend(legend)
