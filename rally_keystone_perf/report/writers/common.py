"""What every writer shares: text and markdown tables, CSV, JSON.

Numbers are rounded by :mod:`..blocks.numbers` in the text formats; CSV
and JSON keep every number unrounded (``repr`` of the float; empty cell /
``null`` for Rally's ``n/a``).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Collection, Iterable, Sequence
from typing import Any, TextIO

from prettytable import PrettyTable


def text_table(
    header: Sequence[str], rows: Iterable[Sequence[object]], left: Collection[str]
) -> PrettyTable:
    """A prettytable, numbers right-aligned; the columns named in ``left`` left."""
    table = PrettyTable(list(header))
    table.align = "r"
    for name in left:
        table.align[name] = "l"
    table.add_rows([list(row) for row in rows])
    return table


def stacked_table(
    header: Sequence[str], rows: Iterable[Sequence[object]], left: Collection[str]
) -> str:
    """:func:`text_table` with each column's name on two lines (``seed avg``
    as ``seed`` over ``avg``), so that a column is as wide as its figures."""
    names = [f"column {n}" for n in range(len(header))]
    table = PrettyTable(names, header=False)
    table.align = "r"
    for name, title in zip(names, header, strict=True):
        if title in left:
            table.align[name] = "l"
    top, bottom = zip(*(_two_lines(title) for title in header), strict=True)
    table.add_row(list(top))
    table.add_row(list(bottom), divider=True)
    table.add_rows([list(row) for row in rows])
    return table.get_string()


def _two_lines(title: str) -> tuple[str, str]:
    """``seed avg`` as (``seed``, ``avg``); ``concurrency`` as ("", itself)."""
    first, _, rest = title.partition(" ")
    return (first, rest) if rest else ("", first)


def md_cell(value: object) -> str:
    """A markdown table cell: one line, pipes escaped."""
    return " ".join(str(value).split()).replace("|", "\\|")


def markdown_table(
    header: Sequence[str], rows: Iterable[Sequence[object]], left: Collection[str]
) -> str:
    """A GitHub markdown table; the columns named in ``left`` align left."""
    align = ["---" if name in left else "---:" for name in header]
    lines = [
        "| " + " | ".join(md_cell(cell) for cell in cells) + " |"
        for cells in (header, align, *rows)
    ]
    return "\n".join(lines)


def csv_value(value: Any) -> str:
    """A CSV cell: unrounded numbers, empty for None."""
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    return str(value)


def write_csv(stream: TextIO, header: Sequence[str], rows: Iterable[Sequence]) -> None:
    """Write a header and rows with the csv module (``\\n`` line ends)."""
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow(header)
    writer.writerows([csv_value(v) for v in row] for row in rows)


def write_json(document: dict[str, Any], stream: TextIO) -> None:
    """Write strict JSON (no NaN), indented, with a final newline."""
    json.dump(document, stream, indent=2, allow_nan=False)
    stream.write("\n")
