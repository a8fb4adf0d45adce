"""One renderer per format, for any document (:mod:`..blocks.model`).

``table``
    the title (unless its level is None), then each block: a table as
    prettytable draws it (its column names on two lines when stacked), the
    lines wrapped within 120 columns, a heading as a line, a blank line
    where the document has one; no plots.
``markdown``
    ``## title`` (a paragraph at level 0, none at None), GitHub tables, a
    paragraph per line (or one list; bold when strong), ``###`` headings,
    a blank line between blocks; no plots.
``html``
    one self-contained page (:func:`.html.kit.page`): captioned tables
    (their rows' and cells' classes), the plots drawn inline (consecutive
    ones side by side), a paragraph per line of its class, the lists.
``svg``
    the document's first plot alone, a standalone SVG file with the plots'
    style sheet (nothing when there is none).
``json``
    the document's data (:func:`.common.write_json`).
``csv``
    the document's tables, their values unrounded (:func:`.common.write_csv`).

A :class:`..blocks.model.Section` is an HTML ``<section>``, its blocks
as they are elsewhere; a :class:`..blocks.model.Waterfall` is drawn
beside the plots (:func:`.html.tracing.waterfall`); :func:`html_body`
gives a page's lines of any blocks.

Each renders the blocks its format shows (:func:`..blocks.model.shown`).
:data:`RENDERERS` maps each format to its renderer; a document kind's
registry entry (:func:`.registry.document_kind`) builds the document and
hands it to one.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Sequence
from typing import TextIO

from rally_keystone_perf.report.blocks.model import (
    AS_IS,
    FLUSH,
    TEXT,
    UNBROKEN,
    Blank,
    Block,
    Column,
    Config,
    Details,
    Document,
    Heading,
    Items,
    Lines,
    Plot,
    Section,
    Table,
    Waterfall,
    shown,
)
from rally_keystone_perf.report.blocks.numbers import INDENT
from rally_keystone_perf.report.writers.cells import cell
from rally_keystone_perf.report.writers.common import (
    markdown_table,
    md_cell,
    stacked_table,
    text_table,
    write_csv,
    write_json,
)
from rally_keystone_perf.report.writers.html import kit
from rally_keystone_perf.report.writers.html.charts import (
    COLORS,
    Line,
    chart,
    histogram_chart,
)
from rally_keystone_perf.report.writers.html.tracing import waterfall

SVG_NAMESPACE = 'xmlns="http://www.w3.org/2000/svg" '
WIDTH = 120  # the terminal's lines
Renderer = Callable[[Document, TextIO], None]


def cells_of(table: Table) -> tuple[list[str], list[list[str]], list[str]]:
    """A table's header, its cells written (:func:`.cells.cell`), and its
    left-aligned columns."""
    header = [column.name for column in table.columns]
    rows = [
        [
            cell(column.fmt, value, column.missing)
            for column, value in zip(table.columns, row, strict=True)
        ]
        for row in table.rows
    ]
    left = [column.name for column in table.columns if column.kind == TEXT]
    return header, rows, left


def wrap(text: str, indent: str = "") -> list[str]:
    """``text`` in lines of at most WIDTH columns after ``indent``, the next
    ones indented further, broken at spaces outside
    :func:`..blocks.model.together`'s pieces."""
    lines = textwrap.wrap(
        text,
        WIDTH,
        initial_indent=indent,
        subsequent_indent=indent + INDENT,
        break_long_words=False,
    )
    return [line.replace(UNBROKEN, " ") for line in lines]


def _wrapped(block: Lines) -> list[str]:
    """A block of lines in the terminal (see the model's doc)."""
    indent = INDENT * block.indent
    if block.wrap == AS_IS:
        return [indent + line for line in block.lines]
    if block.wrap == FLUSH:
        return [out for line in block.lines for out in textwrap.wrap(line, WIDTH)]
    return [out for line in block.lines for out in wrap(line, indent)]


def text_lines(blocks: Sequence[Block]) -> list[str]:
    """The terminal's lines of ``blocks`` (see the module's doc)."""
    lines: list[str] = []
    for block in blocks:
        if isinstance(block, Table):
            if block.stacked:
                lines.append(stacked_table(*cells_of(block)))
            else:
                lines.append(text_table(*cells_of(block)).get_string())
        elif isinstance(block, Lines):
            lines += _wrapped(block)
        elif isinstance(block, Heading):
            lines.append(block.text)
        elif isinstance(block, Blank):
            lines.append("")
        elif isinstance(block, Section):
            lines += text_lines(block.blocks)
    return lines


def render_text(document: Document, stream: TextIO) -> None:
    """The document for a terminal (see the module's doc)."""
    lines = [] if document.level is None else [document.title]
    lines += text_lines(shown(document.blocks, "table"))
    stream.write("\n".join(lines) + "\n")


def _markdown_lines(block: Lines) -> list[str]:
    lines = [md_cell(line) for line in block.lines]
    lines = [f"**{line}**" for line in lines] if block.strong else lines
    if block.bullets:
        return ["\n".join(f"- {line}" for line in lines)] if lines else []
    return lines


def _markdown(blocks: Sequence[Block]) -> list[str]:
    """The markdown paragraphs of ``blocks``."""
    parts: list[str] = []
    for block in blocks:
        if isinstance(block, Table):
            parts.append(markdown_table(*cells_of(block)))
        elif isinstance(block, Lines):
            parts += _markdown_lines(block)
        elif isinstance(block, Heading):
            parts.append(f"{'#' * block.level} {md_cell(block.text)}")
        elif isinstance(block, Section):
            parts += _markdown(block.blocks)
    return parts


def render_markdown(document: Document, stream: TextIO) -> None:
    """The document as GitHub markdown (see the module's doc)."""
    title, level = md_cell(document.title), document.level
    parts = [] if level is None else [f"{'#' * level} {title}" if level else title]
    parts += _markdown(shown(document.blocks, "markdown"))
    stream.write("\n\n".join(parts) + "\n")


def _color(index: int, color: int | str | None) -> str:
    """A series' color: its own, or the palette's at its index."""
    if isinstance(color, str):
        return color
    return COLORS[(index if color is None else color) % len(COLORS)]


def draw(plot: Plot | Waterfall) -> str:
    """A plot as inline SVG, a color per series (empty: no point to draw)."""
    if isinstance(plot, Waterfall):
        return waterfall(plot.item)
    if plot.edges is not None:
        stacks = [
            (s.label, [int(y) for _, y in s.points], _color(n, s.color))
            for n, s in enumerate(plot.series)
        ]
        return histogram_chart(plot.title, plot.x_label, plot.edges, stacks)
    lines = [
        Line(s.label, s.points, _color(n, s.color), s.scatter, s.markers)
        for n, s in enumerate(plot.series)
    ]
    return chart(
        plot.title,
        plot.x_label,
        plot.y_label,
        lines,
        x_ticks=plot.x_ticks,
        y_max=plot.y_max,
        x_min=plot.x_min,
        width=plot.width,
    )


def _html_cell(
    index: int, text: str, kind: str, column: Column, row: tuple[int, str]
) -> str:
    """A ``<td>``: its classes (``kind``, its column's style of it), the
    first cell indented by its row's depth and linking to its row's
    anchor (``row``: its depth and anchor)."""
    depth, link = row
    cls = kit.class_attr(kind, (column.styles or {}).get(text, column.style))
    if index == 0 and depth:
        cls += f' style="padding-left:{0.5 + kit.INDENT_EM * depth:g}em"'
    text = kit.esc(text)
    if index == 0 and link:
        text = f'<a href="#{kit.esc(link)}">{text}</a>'
    return f"<td{cls}>{text}</td>"


def _html_table(table: Table) -> str:
    """A captioned table: text columns aligned left, its rows' classes and
    depths, its cells' classes (:class:`..blocks.model.Column`'s styles)."""
    header, rows, left = cells_of(table)
    text = ["text" if name in left else "" for name in header]
    head = "".join(
        f'<th scope="col"{kit.class_attr(kind)}>{kit.esc(name)}</th>'
        for kind, name in zip(text, header, strict=True)
    )
    lines = [
        '<div class="scroll"><table>',
        f"<caption>{kit.esc(table.caption)}</caption>",
        f"<thead><tr>{head}</tr></thead>",
        "<tbody>",
    ]
    count = len(rows)
    styles = table.row_styles or [""] * count
    depths = table.depths or [0] * count
    links = table.links or [""] * count
    for row, style, depth, link in zip(rows, styles, depths, links, strict=True):
        attr = kit.class_attr(style) + (f' data-depth="{depth}"' if depth else "")
        cells = [
            _html_cell(i, value, text[i], column, (depth, link))
            for i, (column, value) in enumerate(zip(table.columns, row, strict=True))
        ]
        lines.append(f"<tr{attr}>{''.join(cells)}</tr>")
    return "\n".join([*lines, "</tbody>", "</table></div>"])


def _items(block: Items) -> str:
    """A titled list: each item's name, text and configuration."""
    items = "".join(
        f"<li><b>{kit.esc(item.name)}</b>: {kit.esc(item.text)}"
        f"{kit.config_line(dict(item.config))}</li>"
        for item in block.items
    )
    return f"<h2>{kit.esc(block.title)}</h2><ul>{items}</ul>"


def html_body(blocks: Sequence[Block]) -> list[str]:
    """The HTML lines of ``blocks`` (as the page shows them): consecutive
    plots side by side in one ``<div class="plots">``."""
    body: list[str] = []
    plots: list[str] = []  # drawn, waiting to be set side by side
    for block in [*blocks, Blank()]:
        if not isinstance(block, (Plot, Waterfall)) and plots:
            body.append(f'<div class="plots">{"".join(plots)}</div>')
            plots = []
        if isinstance(block, Table):
            body.append(_html_table(block))
        elif isinstance(block, (Plot, Waterfall)):
            plots += [drawn] if (drawn := draw(block)) else []
        elif isinstance(block, Heading):
            body.append(f"<h{block.level}>{kit.esc(block.text)}</h{block.level}>")
        elif isinstance(block, Lines):
            body += [f'<p class="{block.style}">{kit.esc(x)}</p>' for x in block.lines]
        elif isinstance(block, Items):
            body.append(_items(block))
        elif isinstance(block, Details):
            body.append(
                f'<details class="{block.style}"><summary>{kit.esc(block.summary)}'
                f"</summary><pre>{kit.esc(block.text)}</pre></details>"
            )
        elif isinstance(block, Config):
            body.append(kit.config_line(dict(block.config)))
        elif isinstance(block, Section):
            anchor = f' id="{kit.esc(block.id)}"' if block.id else ""
            body.append(f'<section class="{block.style}"{anchor}>')
            body += [*html_body(block.blocks), "</section>"]
    return body


def render_html(document: Document, stream: TextIO) -> None:
    """The document as one self-contained HTML page."""
    body = html_body(shown(document.blocks, "html"))
    stream.write(kit.page(document.title, body))


def render_svg(document: Document, stream: TextIO) -> None:
    """The document's first plot as a standalone SVG file (see the module)."""
    plots = [
        block for block in shown(document.blocks, "svg") if isinstance(block, Plot)
    ]
    drawn = next((d for plot in plots if (d := draw(plot))), "")
    if not drawn:
        return
    head, _, rest = drawn.partition("\n")
    style = f"<style>{kit.PLOT_STYLE}</style>"
    head = head.replace("<svg ", f"<svg {SVG_NAMESPACE}", 1)
    stream.write(f"{head}\n{style}\n{rest}\n")


def render_csv(document: Document, stream: TextIO) -> None:
    """The document's tables as CSV, their values unrounded
    (:func:`.common.write_csv`)."""
    for block in shown(document.blocks, "csv"):
        if isinstance(block, Table):
            header = [column.name for column in block.columns]
            write_csv(stream, header, block.rows)


def render_json(document: Document, stream: TextIO) -> None:
    """The document's data, strict JSON.

    :raises ValueError: the document has no data.
    """
    if document.data is None:
        raise ValueError(f"{document.title}: no data to write as JSON")
    write_json(dict(document.data), stream)


RENDERERS: dict[str, Renderer] = {
    "table": render_text,
    "markdown": render_markdown,
    "html": render_html,
    "svg": render_svg,
    "json": render_json,
    "csv": render_csv,
}
