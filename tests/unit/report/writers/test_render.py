"""Any document rendered in every format by the one renderer per format."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

from rally_keystone_perf.report.blocks.model import (
    TEXT,
    Column,
    Document,
    Lines,
    Plot,
    Series,
    Table,
)
from rally_keystone_perf.report.writers.render import RENDERERS

COLUMNS = (Column("name", TEXT), Column("median", fmt="seconds"))
PLOT = Plot("medians", "x", "median (s)", [Series("a", [(1.0, 0.5), (2.0, 0.6)])])


def _document(plot: Plot = PLOT) -> Document:
    return Document(
        "A | page",
        (
            Table(COLUMNS, [["first", 0.1234], ["second", None]], "the medians"),
            plot,
            Table(COLUMNS, [["third", 1.0]], "more"),
            Lines(["a note " * 30, "ratio | two"]),
        ),
    )


def _rendered(fmt: str, document: Document | None = None) -> str:
    stream = io.StringIO()
    RENDERERS[fmt](document or _document(), stream)
    return stream.getvalue()


def test_text_puts_a_blank_line_between_tables_and_wraps_the_notes() -> None:
    text = _rendered("table")
    lines = text.splitlines()
    assert lines[0] == "A | page"
    assert "| first  |  0.123 |" in text and "| second |    n/a |" in text
    second = lines.index("| name  | median |")
    assert lines[second - 2] == "" and lines[second - 1].startswith("+")
    assert max(len(line) for line in lines) <= 120
    assert lines[-1] == "ratio | two" and lines[-2].startswith("  note a note")
    assert "<svg" not in text and "the medians" not in text


def test_markdown_escapes_pipes_and_leaves_plots_out() -> None:
    markdown = _rendered("markdown")
    assert markdown.startswith("## A \\| page\n\n| name | median |\n| --- | ---: |")
    assert "| first | 0.123 |" in markdown and "ratio \\| two" in markdown
    assert "<svg" not in markdown


def test_html_captions_tables_and_draws_the_plot_between_them() -> None:
    html = _rendered("html")
    assert html.startswith("<!DOCTYPE html>") and "<title>A | page</title>" in html
    first, plot, second = (
        html.index("<caption>the medians"),
        html.index('<div class="plots"><svg'),
        html.index("<caption>more"),
    )
    assert first < plot < second
    assert '<p class="summary">ratio | two</p>' in html
    assert '<th scope="col" class="text">name</th>' in html


def test_svg_is_the_first_plot_alone_or_nothing() -> None:
    root = ET.fromstring(_rendered("svg"))
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    empty = Plot("none", "x", "y", [Series("a", [])])
    assert _rendered("svg", _document(empty)) == ""
    assert '<div class="plots">' not in _rendered("html", _document(empty))
