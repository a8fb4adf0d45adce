"""The document model: a title and a sequence of blocks.

A :class:`Table`'s cells are values, not text: each :class:`Column` names
its kind (:data:`TEXT` aligns left, :data:`NUMBER` right) and the format
of its numbers (a name of
:data:`rally_keystone_perf.report.writers.cells.FORMATS`), so that the
number formatting lives in one place and a machine format could keep the
values whole. A cell that is already text is printed as it is (a row's
``-`` for a figure nobody measured).

A :class:`Plot` is data too (its series' points); the HTML renderer
draws it (:func:`rally_keystone_perf.report.writers.html.charts.chart`),
the text formats leave it out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

TEXT, NUMBER = "text", "number"  # a column's kind: left or right aligned

Cell = object  # None, a number, a (low, high) pair, or text printed as is


@dataclass(frozen=True)
class Column:
    """A table's column: its name, its kind, how its values are written."""

    name: str
    kind: str = NUMBER
    fmt: str = "plain"  # a name of writers.cells.FORMATS


@dataclass(frozen=True)
class Table:
    """Rows of cells under typed columns; ``caption`` heads it in HTML."""

    columns: Sequence[Column]
    rows: Sequence[Sequence[Cell]]
    caption: str = ""


@dataclass(frozen=True)
class Lines:
    """Sentences under a table: notes, how it was measured (wrapped in the
    terminal, a paragraph each elsewhere)."""

    lines: Sequence[str]


@dataclass(frozen=True)
class Series:
    """One line of a plot: its name and its points."""

    label: str
    points: Sequence[tuple[float, float]]


@dataclass(frozen=True)
class Plot:
    """A line plot: its axes and series, ``x_ticks`` where the x ticks go."""

    title: str
    x_label: str
    y_label: str
    series: Sequence[Series]
    x_ticks: Sequence[float] | None = None


Block = Table | Lines | Plot


@dataclass(frozen=True)
class Document:
    """What a page says: its title and blocks, in order."""

    title: str
    blocks: Sequence[Block] = field(default_factory=tuple)

    def plots(self) -> list[Plot]:
        return [block for block in self.blocks if isinstance(block, Plot)]
