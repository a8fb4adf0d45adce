"""One renderer per format, for any document (:mod:`..blocks.model`).

``table``
    the title, each table as prettytable draws it (a blank line between
    two tables), the lines wrapped within 120 columns; no plots.
``markdown``
    ``## title``, GitHub tables and a paragraph per line, a blank line
    between blocks; no plots.
``html``
    one self-contained page (:func:`.html.kit.page`): captioned tables,
    the plots drawn inline, a paragraph per line.
``svg``
    the document's first plot alone, a standalone SVG file with the plots'
    style sheet (nothing when there is none).

:data:`RENDERERS` maps each format to its renderer; a document kind's
registry entry (:func:`.registry.document_kind`) builds the document and
hands it to one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

from rally_keystone_perf.report.blocks.model import (
    TEXT,
    Document,
    Lines,
    Plot,
    Table,
)
from rally_keystone_perf.report.writers.cells import cell
from rally_keystone_perf.report.writers.common import (
    markdown_table,
    md_cell,
    text_table,
)
from rally_keystone_perf.report.writers.html import kit
from rally_keystone_perf.report.writers.html.charts import COLORS, Line, chart
from rally_keystone_perf.report.writers.text import wrap

SVG_NAMESPACE = 'xmlns="http://www.w3.org/2000/svg" '
Renderer = Callable[[Document, TextIO], None]


def _parts(table: Table) -> tuple[list[str], list[list[str]], list[str]]:
    """A table's header, its cells written, and its left-aligned columns."""
    header = [column.name for column in table.columns]
    rows = [
        [
            cell(column.fmt, value)
            for column, value in zip(table.columns, row, strict=True)
        ]
        for row in table.rows
    ]
    left = [column.name for column in table.columns if column.kind == TEXT]
    return header, rows, left


def render_text(document: Document, stream: TextIO) -> None:
    """The document for a terminal (see the module's doc)."""
    lines = [document.title]
    previous: object = None
    for block in document.blocks:
        if isinstance(block, Table):
            if isinstance(previous, Table):
                lines.append("")
            lines.append(text_table(*_parts(block)).get_string())
        elif isinstance(block, Lines):
            for line in block.lines:
                lines += wrap(line)
        if not isinstance(block, Plot):
            previous = block
    stream.write("\n".join(lines) + "\n")


def render_markdown(document: Document, stream: TextIO) -> None:
    """The document as GitHub markdown (see the module's doc)."""
    parts = [f"## {md_cell(document.title)}"]
    for block in document.blocks:
        if isinstance(block, Table):
            parts.append(markdown_table(*_parts(block)))
        elif isinstance(block, Lines):
            parts += [md_cell(line) for line in block.lines]
    stream.write("\n\n".join(parts) + "\n")


def draw(plot: Plot) -> str:
    """A plot as inline SVG, a color per series (empty: no point to draw)."""
    lines = [
        Line(series.label, series.points, COLORS[index % len(COLORS)])
        for index, series in enumerate(plot.series)
    ]
    return chart(plot.title, plot.x_label, plot.y_label, lines, x_ticks=plot.x_ticks)


def render_html(document: Document, stream: TextIO) -> None:
    """The document as one self-contained HTML page."""
    body = []
    for block in document.blocks:
        if isinstance(block, Table):
            body.append(kit.table(block.caption, *_parts(block)))
        elif isinstance(block, Plot):
            drawn = draw(block)
            if drawn:
                body.append(f'<div class="plots">{drawn}</div>')
        else:
            body += [f'<p class="summary">{kit.esc(line)}</p>' for line in block.lines]
    stream.write(kit.page(document.title, body))


def render_svg(document: Document, stream: TextIO) -> None:
    """The document's first plot as a standalone SVG file (see the module)."""
    drawn = next((d for plot in document.plots() if (d := draw(plot))), "")
    if not drawn:
        return
    head, _, rest = drawn.partition("\n")
    style = f"<style>{kit.PLOT_STYLE}</style>"
    head = head.replace("<svg ", f"<svg {SVG_NAMESPACE}", 1)
    stream.write(f"{head}\n{style}\n{rest}\n")


RENDERERS: dict[str, Renderer] = {
    "table": render_text,
    "markdown": render_markdown,
    "html": render_html,
    "svg": render_svg,
}
