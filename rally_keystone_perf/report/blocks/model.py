"""The document model: a title and a sequence of blocks.

A :class:`Table`'s cells are values, not text: each :class:`Column` names
its kind (:data:`TEXT` aligns left, :data:`NUMBER` right) and the format
of its numbers (a name of
:data:`rally_keystone_perf.report.writers.cells.FORMATS`), so that the
number formatting lives in one place and a machine format could keep the
values whole. A cell that is already text is printed as it is (a row's
``-`` for a figure nobody measured); a column's ``missing`` writes None;
a :class:`Value` names its own format.
A ``stacked`` table names its columns on two lines in the terminal.

A :class:`Plot` is data too (its series' points); the HTML renderer
draws it (:func:`rally_keystone_perf.report.writers.html.charts.chart`),
consecutive plots side by side; the text formats leave it out.

:class:`Lines` are sentences: wrapped in the terminal (:data:`HANG`: the
next lines indented, :data:`FLUSH`: not, :data:`AS_IS`: not wrapped), a
paragraph each elsewhere (or one markdown list, ``bullets``); the
terminal does not break them inside :func:`together`'s pieces.
:class:`Heading` heads a section; :class:`Blank` is a blank line in the
terminal (markdown and HTML already part their blocks); :class:`Config`
is a configuration's line and :class:`Waterfall` a traced iteration's
spans, both in HTML alone. :class:`Only`
holds blocks shown in some formats alone (the terminal's narrower tables);
a :class:`Section` groups blocks (an HTML ``<section>``); :class:`Items`
lists named things with their configuration (HTML).

A document's ``data``, when it has one, is what its JSON format writes:
an interface, its structure fixed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from rally_keystone_perf.report.readers.tracing import TracedIteration

TEXT, NUMBER = "text", "number"  # a column's kind: left or right aligned
HANG, FLUSH, AS_IS = "hang", "flush", "as is"  # how Lines wrap in the terminal
UNBROKEN = "\x00"  # a space the terminal does not break a line at

Cell = object  # None, a number, a (low, high) pair, a Value, or text as is


@dataclass(frozen=True)
class Value:
    """A cell written in a format of its own rather than its column's (a
    success rate among seconds)."""

    value: object
    fmt: str


@dataclass(frozen=True)
class Column:
    """A table's column: its name, its kind, how its values are written
    (``missing``: None's text, when not the format's own) and, in HTML, the
    class of a cell by its text (a verdict's color)."""

    name: str
    kind: str = NUMBER
    fmt: str = "plain"  # a name of writers.cells.FORMATS
    missing: str | None = None
    styles: Mapping[str, str] | None = None  # HTML class by written cell
    style: str = ""  # HTML class of a cell that ``styles`` does not name


def columns(*specs: str | Column) -> tuple[Column, ...]:
    """Columns written as data: each text holds column specs parted by
    ``;``, a spec ``name`` (a number, format ``plain``), ``name:fmt`` (a
    number in format ``fmt``), ``name:text`` (text) or ``name:text:fmt``
    (text columns whose cells are in a format: a ``(low, high)`` range); a
    :class:`Column` (with ``missing`` or ``styles``) is taken as it is.
    ``columns("run:text; median:seconds", Column("ratio", missing="n/a"))``."""
    found: list[Column] = []
    for spec in specs:
        if isinstance(spec, Column):
            found.append(spec)
            continue
        for one in spec.split(";"):
            name, *said = one.strip().split(":")
            fmt = said[-1] if said and said[-1] != TEXT else "plain"
            found.append(Column(name, TEXT if TEXT in said else NUMBER, fmt))
    return tuple(found)


@dataclass(frozen=True)
class Table:
    """Rows of cells under typed columns; ``caption`` heads it in HTML,
    ``row_styles`` are its rows' HTML classes ("": none)."""

    columns: Sequence[Column]
    rows: Sequence[Sequence[Cell]]
    caption: str = ""
    stacked: bool = False  # the terminal's column names on two lines
    row_styles: Sequence[str] | None = None
    links: Sequence[str] | None = None  # HTML: the anchor a row's first cell links to
    depths: Sequence[int] | None = (
        None  # HTML: a row's nesting (its first cell's indent)
    )


def together(text: str) -> str:
    """``text`` (``users@openstack 3.02 s``) that the terminal keeps on one line."""
    return text.replace(" ", UNBROKEN)


@dataclass(frozen=True)
class Lines:
    """Sentences: notes, how it was measured (see the module's doc);
    ``indent``: levels of indent in the terminal, ``style``: the HTML
    paragraphs' class."""

    lines: Sequence[str]
    wrap: str = HANG
    indent: int = 0
    bullets: bool = False
    style: str = "summary"
    strong: bool = False  # bold in markdown (HTML: its class says)


@dataclass(frozen=True)
class Heading:
    """A section's title: a line in the terminal, ``level`` in markdown and
    HTML."""

    text: str
    level: int = 3


@dataclass(frozen=True)
class Blank:
    """A blank line in the terminal, nothing elsewhere."""


@dataclass(frozen=True)
class Series:
    """One line of a plot: its name, its points, its color (an index of
    the palette, None: its place in the plot, or a color itself such as
    ``#9aa5b1``), a marker at each point or a bare line."""

    label: str
    points: Sequence[tuple[float, float]]
    color: int | str | None = None
    markers: bool = True
    scatter: bool = False  # dots alone, no line


@dataclass(frozen=True)
class Plot:
    """A line plot: its axes and series, ``x_ticks`` where the x ticks go;
    with ``edges``, a histogram: bars between the edges, each series' counts
    (the y of its points, a point per bin) stacked."""

    title: str
    x_label: str
    y_label: str
    series: Sequence[Series]
    x_ticks: Sequence[float] | None = None
    width: int = 560  # pixels
    y_max: float | None = None  # the y axis' top (None: above the data)
    x_min: float | None = None  # the x axis starts at or below it
    edges: Sequence[float] | None = None  # a histogram's bins (see below)


@dataclass(frozen=True)
class Item:
    """A named thing of a list: its text and its configuration."""

    name: str
    text: str
    config: Mapping[str, str]


@dataclass(frozen=True)
class Items:
    """A titled list of named things (the runs compared), in HTML alone."""

    title: str
    items: Sequence[Item]


@dataclass(frozen=True)
class Details:
    """Text folded under its summary, preformatted (HTML alone; ``style``
    its class)."""

    summary: str
    text: str
    style: str = ""


@dataclass(frozen=True)
class Section:
    """Blocks that belong together: an HTML ``<section>`` of class
    ``style`` (and ``id``, the anchor a link goes to); elsewhere the blocks
    as they are."""

    style: str
    blocks: Sequence[Block]
    id: str = ""


@dataclass(frozen=True)
class Config:
    """A configuration's ``key value`` pairs on one line (HTML alone)."""

    config: Mapping[str, str]


@dataclass(frozen=True)
class Waterfall:
    """A traced iteration's spans drawn on a time axis (HTML alone, beside
    the plots; :func:`rally_keystone_perf.report.writers.html.tracing.waterfall`)."""

    item: TracedIteration


@dataclass(frozen=True)
class Only:
    """Blocks shown in ``formats`` alone (names of the renderers)."""

    formats: Sequence[str]
    blocks: Sequence[Block]


Block = (
    Table
    | Lines
    | Heading
    | Blank
    | Plot
    | Items
    | Details
    | Section
    | Only
    | Config
    | Waterfall
)


def shown(blocks: Sequence[Block], fmt: str) -> list[Block]:
    """``blocks`` as format ``fmt`` shows them: :class:`Only` opened or
    left out (in sections too)."""
    found: list[Block] = []
    for block in blocks:
        if isinstance(block, Only):
            found += shown(block.blocks, fmt) if fmt in block.formats else []
        elif isinstance(block, Section):
            found.append(replace(block, blocks=shown(block.blocks, fmt)))
        else:
            found.append(block)
    return found


def pick(item: object, *names: str) -> dict[str, Any]:
    """``item``'s attributes as a JSON object, in the order named: each text
    holds names parted by spaces, ``key=attribute`` one written under
    another key (``pick(row, "count ratio", "run=label")``)."""
    found = {}
    for name in " ".join(names).split():
        key, _, attribute = name.partition("=")
        found[key] = getattr(item, attribute or key)
    return found


@dataclass(frozen=True)
class Document:
    """What a page says: its title and blocks, in order; ``level``: the
    title's in markdown (0: a paragraph; None: the title heads the HTML
    page alone, the blocks head the text and markdown themselves);
    ``data``: its JSON, if any."""

    title: str
    blocks: Sequence[Block] = field(default_factory=tuple)
    level: int | None = 2
    data: Mapping[str, Any] | None = None

    def plots(self) -> list[Plot]:
        return [block for block in self.blocks if isinstance(block, Plot)]
