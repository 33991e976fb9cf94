"""One self-contained HTML page with a table and PNG figures, for sharing with a team.

The page needs nothing else: the style is inline and every image is embedded as a
``data:image/png;base64`` URI, so it can be mailed or attached to a ticket as one file.
All text is HTML-escaped.
"""

from __future__ import annotations

import base64
import html
import os
from datetime import datetime, timezone
from typing import Sequence

from ..errors import InvalidInputError

__all__ = ["html_report", "write_html_report"]

_STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 72em;
       color: #222; padding: 0 1em; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; } h2 { font-size: 1.15em; margin-top: 2em; }
.meta { color: #555; font-size: 0.9em; } .meta td { padding: 0.1em 1em 0.1em 0; }
table.metrics { border-collapse: collapse; margin-top: 0.5em; font-size: 0.92em; }
table.metrics th, table.metrics td { border: 1px solid #ccc; padding: 0.3em 0.7em; }
table.metrics th { background: #f0f3f7; } table.metrics td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.metrics tr.best td { background: #eaf6ea; font-weight: 600; }
figure { margin: 1.5em 0; } figure img { max-width: 100%; border: 1px solid #ddd; }
figcaption { color: #444; font-size: 0.9em; margin-top: 0.3em; }
p.legend { color: #333; font-size: 0.88em; }
"""


def _cell(value) -> tuple[str, bool]:
    if isinstance(value, bool) or value is None:
        return html.escape(str(value)), False
    if isinstance(value, int):
        return f"{value:,}", True
    if isinstance(value, float):
        return (f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.4g}"), True
    return html.escape(str(value)), False


def html_report(
    title: str,
    columns: Sequence[str],
    rows: Sequence[Sequence],
    *,
    images: Sequence[tuple[str, bytes]] = (),
    meta: dict | None = None,
    notes: Sequence[str] = (),
    highlight: int | None = None,
    legend: dict | None = None,
) -> str:
    """Return a self-contained HTML page: title, facts, a table and embedded PNG images.

    Parameters
    ----------
    title : str
        Page title and heading.
    columns : sequence of str
        Table header.
    rows : sequence of sequence
        Table rows; numbers are right-aligned (floats from 1000 up rounded with thousands
        separators, smaller ones with 4 significant digits).
    images : sequence of (str, bytes), optional
        Caption and PNG bytes of every figure, embedded as base64 data URIs.
    meta : dict, optional
        Facts shown under the title (e.g. machine, tasks).
    notes : sequence of str, optional
        Paragraphs shown under the table.
    highlight : int, optional
        Index of a row to highlight (e.g. the best method).
    legend : dict, optional
        Column header -> what it means, with its unit: shown right under the table (the
        command line's text tables end with the same legend).

    Returns
    -------
    str
        The HTML document.

    Raises
    ------
    InvalidInputError
        If a row has a different length than ``columns`` or an image is not PNG data.

    Examples
    --------
    >>> page = html_report("Demo", ["method", "WH"], [["default", 12.0]])
    >>> "<th>WH</th>" in page and "<td class=\\"num\\">12</td>" in page
    True
    >>> '<b>WH</b>: hops x weight' in html_report("Demo", ["method", "WH"], [["default", 12.0]],
    ...                                           legend={"WH": "hops x weight"})
    True
    """
    columns = [str(c) for c in columns]
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = []
    for i, row in enumerate(rows):
        if len(row) != len(columns):
            raise InvalidInputError(f"rows: row {i} has {len(row)} cells, the header {len(columns)}; got {list(row)!r}")
        cells = []
        for v in row:
            text, num = _cell(v)
            cells.append(f'<td class="num">{text}</td>' if num else f"<td>{text}</td>")
        cls = ' class="best"' if highlight is not None and i == highlight else ""
        body.append(f"<tr{cls}>{''.join(cells)}</tr>")
    figures = []
    for caption, png in images:
        if not isinstance(png, (bytes, bytearray)) or not bytes(png[:8]) == b"\x89PNG\r\n\x1a\n":
            raise InvalidInputError(f"images: {caption!r} is not PNG data")
        data = base64.b64encode(bytes(png)).decode("ascii")
        figures.append(
            f'<figure><img alt="{html.escape(caption)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{html.escape(caption)}</figcaption></figure>"
        )
    facts = dict(meta or {})
    facts.setdefault("generated", datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))
    meta_rows = "".join(f"<tr><td>{html.escape(str(k))}</td><td>{html.escape(str(v))}</td></tr>" for k, v in facts.items())
    paragraphs = "".join(f"<p>{html.escape(n)}</p>" for n in notes)
    if legend:
        items = "; ".join(f"<b>{html.escape(str(k))}</b>: {html.escape(str(v))}" for k, v in legend.items())
        paragraphs = f'<p class="legend">Legend: {items}.</p>' + paragraphs
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<title>{html.escape(title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
        f"<h1>{html.escape(title)}</h1>\n<table class=\"meta\">{meta_rows}</table>\n"
        f"<h2>Metrics</h2>\n<table class=\"metrics\">\n<thead><tr>{head}</tr></thead>\n<tbody>\n"
        + "\n".join(body)
        + f"\n</tbody>\n</table>\n{paragraphs}\n"
        + ("<h2>Figures</h2>\n" + "\n".join(figures) if figures else "")
        + "\n</body>\n</html>\n"
    )


def write_html_report(path: str | os.PathLike, title: str, columns: Sequence[str], rows: Sequence[Sequence],
                      **options) -> None:
    """Write :func:`html_report` to ``path`` (UTF-8).

    Parameters
    ----------
    path : str or path-like
        The file.
    title, columns, rows, **options
        As for :func:`html_report`.
    """
    text = html_report(title, columns, rows, **options)
    with open(os.fspath(path), "w", encoding="utf-8") as fh:
        fh.write(text)
