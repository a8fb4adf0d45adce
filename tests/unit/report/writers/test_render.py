"""Any document rendered in every format by the one renderer per format."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET

import pytest

from rally_keystone_perf.report.blocks.model import (
    AS_IS,
    FLUSH,
    TEXT,
    Blank,
    Column,
    Document,
    Heading,
    Item,
    Items,
    Lines,
    Only,
    Plot,
    Section,
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
            Blank(),
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


def _sections() -> Document:
    long = "word " * 40
    return Document(
        "sections",
        (
            Only(("table",), [Lines(["terminal only"])]),
            Only(("markdown", "html"), [Lines(["x", "y"], bullets=True, style="meta")]),
            Heading("part one"),
            Table(COLUMNS, [["a", None]], stacked=True),
            Table((Column("gap", fmt="fixed3", missing="-"),), [[None], [0.5]]),
            Lines([long], FLUSH),
            Lines([long], indent=1),
            Lines(["  kept as is"], AS_IS),
            Plot("p1", "x", "y", [Series("a", [(1.0, 1.0), (2.0, 2.0)], color=3)]),
            Plot("p2", "x", "y", [Series("b", [(1.0, 1.0), (2.0, 2.0)])]),
        ),
        level=0,
        data={"schema": "x", "values": [1, None]},
    )


def test_text_shows_its_blocks_each_as_the_terminal_has_it() -> None:
    lines = _rendered("table", _sections()).splitlines()
    assert lines[:3] == ["sections", "terminal only", "part one"]
    assert "x" not in lines
    assert lines[4:6] == ["|      |        |", "| name | median |"]  # stacked
    assert "|     - |" in lines and "| 0.500 |" in lines  # missing, fixed3
    flush = [line for line in lines if line.startswith("word")]
    assert len(flush) == 2  # the flush line's second line is not indented
    assert [line[:8] for line in lines if "word" in line][2:] == [
        "  word w",
        "    word",
    ]
    assert lines[-1] == "  kept as is"


def test_markdown_lists_bullets_and_heads_sections() -> None:
    markdown = _rendered("markdown", _sections())
    assert markdown.startswith("sections\n\n- x\n- y\n\n### part one\n\n")
    assert "terminal only" not in markdown


def test_html_sets_consecutive_plots_side_by_side_in_their_colors() -> None:
    html = _rendered("html", _sections())
    assert html.count('<div class="plots">') == 1 and html.count("<svg") == 2
    assert '<p class="meta">x</p>' in html and "<h3>part one</h3>" in html
    assert "terminal only" not in html


def test_json_writes_the_data_and_refuses_a_document_without() -> None:
    assert json.loads(_rendered("json", _sections())) == {
        "schema": "x",
        "values": [1, None],
    }
    with pytest.raises(ValueError, match="no data"):
        _rendered("json")


def _grouped() -> Document:
    verdict = Column("verdict", TEXT, styles={"slower": "v-slower"})
    table = Table(
        (Column("n"), verdict), [[1, "slower"], [2, "same"]], "t", False, ["first", ""]
    )
    return Document(
        "grouped",
        (
            Items("runs", [Item("a", "a.json", {"mode": "uwsgi"})]),
            Section(
                "group", [table, Lines(["a note"], AS_IS, strong=True, style="note")]
            ),
            Only(("csv",), [Table((Column("x"), Column("y")), [[0.1234567, None]])]),
        ),
    )


def test_a_section_groups_its_blocks_in_html_alone() -> None:
    html = _rendered("html", _grouped())
    assert '<h2>runs</h2><ul><li><b>a</b>: a.json<p class="config">' in html
    assert '<section class="group">\n<div class="scroll"><table>' in html
    assert (
        '<tr class="first"><td>1</td><td class="text v-slower">slower</td></tr>' in html
    )
    assert '<p class="note">a note</p>\n</section>' in html
    assert _rendered("markdown", _grouped()).endswith("\n\n**a note**\n")
    assert _rendered("table", _grouped()).endswith("+\na note\n")


def test_csv_writes_its_tables_unrounded() -> None:
    assert _rendered("csv", _grouped()) == "x,y\n0.1234567,\n"
