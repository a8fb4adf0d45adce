"""Tests for report.writers.html: the table format's cells, self-contained, escaped."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest

from rally_keystone_perf.report.blocks import compare as compare_writer
from rally_keystone_perf.report.blocks import workload as text_writer
from rally_keystone_perf.report.blocks.compare_data import series_groups
from rally_keystone_perf.report.blocks.numbers import format_number
from rally_keystone_perf.report.figures import compare, run_labels
from rally_keystone_perf.report.figures.entries import report_entries
from rally_keystone_perf.report.writers.html import charts
from rally_keystone_perf.report.writers.registry import FORMATS
from tests.unit.report import factory as f
from tests.unit.report import runs as r

NASTY = 'Keystone<script>alert("x")</script>.create & <b>'
EXTERNAL = ("<script", "http://", "https://", "<link", "<img", "<iframe", "<object")
EXTERNAL += ("<embed", "@import", "url(", "src=", "javascript:", "//")
VOID = {"meta", "br", "img", "input", "link", "hr", "col", "area", "base", "wbr"}


@dataclass
class Table:
    caption: str = ""
    header: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    row_attrs: list[dict[str, str | None]] = field(default_factory=list)
    first_cells: list[dict[str, str | None]] = field(default_factory=list)


class Page(HTMLParser):
    """Tables, title, tags and text of a page; checks that tags balance."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.problems: list[str] = []
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.tables: list[Table] = []
        self.title: str | None = None
        self.text: list[str] = []
        self._svg = 0
        self._into: list[str] | None = None
        self._cell: list[str] | None = None
        self._row: list[str] | None = None
        self._row_is_header = False
        self.feed(text)
        self.close()
        if self.stack:
            self.problems.append(f"unclosed: {self.stack}")

    def handle_startendtag(self, tag: str, attrs: list) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag not in VOID:
            self.stack.append(tag)
        if tag == "svg":
            self._svg += 1
        elif tag == "title" and not self._svg:
            self._into = []
        elif tag == "table":
            self.tables.append(Table())
        elif tag == "caption":
            self._into = []
        elif tag == "tr":
            self._row, self._row_is_header = [], True
            self.tables[-1].row_attrs.append(dict(attrs))
        elif tag in ("td", "th"):
            self._cell = []
            if tag == "td":
                self._row_is_header = False
            assert self._row is not None
            if not self._row:
                self.tables[-1].first_cells.append(dict(attrs))

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes {self.stack[-1:]}")
        else:
            self.stack.pop()
        if tag == "svg":
            self._svg -= 1
        elif tag == "title" and not self._svg and self._into is not None:
            self.title, self._into = "".join(self._into), None
        elif tag == "caption" and self._into is not None:
            self.tables[-1].caption, self._into = "".join(self._into), None
        elif tag in ("td", "th") and self._cell is not None:
            assert self._row is not None
            self._row.append("".join(self._cell))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            table = self.tables[-1]
            if self._row_is_header:
                table.header = self._row
                table.row_attrs.pop()
                table.first_cells.pop()
            else:
                table.rows.append(self._row)
            self._row = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        for sink in (self._into, self._cell):
            if sink is not None:
                sink.append(data)


def text_tables(text: str) -> list[tuple[list[str], list[list[str]]]]:
    """prettytable tables of the table format: (header, rows), cells stripped."""
    tables: list[tuple[list[str], list[list[str]]]] = []
    current: list[list[str]] = []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            current.append([cell.strip() for cell in line.strip("|").split("|")])
        elif line.startswith("+"):
            continue
        elif current:
            tables.append((current[0], current[1:]))
            current = []
    return tables


def svgs(text: str) -> list[ET.Element]:
    """Every inline SVG of a page, parsed as XML (must be well-formed)."""
    return [ET.fromstring(block) for block in re.findall(r"<svg.*?</svg>", text, re.S)]


def assert_valid_page(text: str) -> Page:
    """Document shell, balanced tags, self-contained, no traceback."""
    assert text.startswith("<!DOCTYPE html>\n")
    page = Page(text)
    assert page.problems == []
    assert page.title
    metas = [attrs for tag, attrs in page.tags if tag == "meta"]
    assert {"charset": "utf-8"} in metas
    lowered = text.lower()
    for needle in EXTERNAL:
        assert needle not in lowered, needle
    for _, attrs in page.tags:
        assert "src" not in attrs
        href = attrs.get("href")
        assert href is None or href.startswith("#")
        assert not any(name.startswith("on") for name in attrs)
    assert "Traceback" not in text and "SECRET_TRACEBACK_LINE" not in text
    return page


# --- report ------------------------------------------------------------------------


@pytest.fixture
def reports(tmp_path: Path) -> list[run_labels.LoadedReport]:
    """A nested, partly failing workload with a hostile name; a plain one."""
    a = f.atomic
    nested = [a("keystone.create_user", 0.0, 0.3, children=[a("in<ner>", 0.0, 0.1)])]
    data = [f.iteration(float(i), 0.3 + i / 100, 0.01, nested) for i in range(9)]
    data.append(f.iteration(9.0, 0.2, 0.0, [], ("Err<or>", "<b>bad</b> & worse")))
    r.make_run(
        tmp_path,
        "one",
        [f.workload(data, name=NASTY, runner={"times": 10, "concurrency": 3})],
        r.state(processes=4, threads=2),
    )
    r.make_run(
        tmp_path,
        "two",
        [r.workload([0.1, 0.2, 0.3]), r.workload([0.4] * 5, position=1)],
        r.state(rounds=4),
    )
    return run_labels.load_reports([tmp_path / "one", tmp_path / "two"])


def test_html_is_a_format() -> None:
    assert "html" in FORMATS


STATS_HEADER = [*text_writer.COLUMNS, text_writer.THROUGHPUT]


def stats_tables(page: Page) -> list:
    """The statistics tables: the ``table`` format's, one per workload."""
    return [table for table in page.tables if table.header == STATS_HEADER]


def test_report_tables_equal_the_table_format(
    reports: list[run_labels.LoadedReport],
) -> None:
    out = r.write_report(reports, "html")
    page = assert_valid_page(out)
    expected = text_tables(r.write_report(reports, "table"))
    workloads = [(rep, w) for rep in reports for w in rep.workloads]
    assert len(stats_tables(page)) == len(expected) == len(workloads) == 3
    # the overview, each workload's statistics, one failures table
    assert [t.caption for t in page.tables][0] == "overview"
    assert out.count("<table") == 1 + 3 + 1
    for table, (header, rows), (_, workload) in zip(
        stats_tables(page), expected, workloads, strict=True
    ):
        assert table.caption == text_writer.heading(workload)
        assert workload.scenario_name in table.caption
        assert table.header == header
        assert header == [*text_writer.COLUMNS, text_writer.THROUGHPUT]
        assert table.rows == rows
    text = "".join(page.text)
    for rep, workload in workloads:  # the configuration once per workload
        for key, value in rep.columns(workload).items():
            assert f"{key} {value}" in text


def test_report_nested_rows_are_indented(
    reports: list[run_labels.LoadedReport],
) -> None:
    page = Page(r.write_report(reports, "html"))
    table = stats_tables(page)[0]
    names = [row[0] for row in table.rows]
    assert names[:2] == ["keystone.create_user", "in<ner>"]
    assert table.row_attrs[1].get("data-depth") == "1"
    assert "padding-left" in (table.first_cells[1].get("style") or "")
    assert "style" not in table.first_cells[0]
    total = names.index("total")
    assert table.row_attrs[total].get("class") == "total"
    assert [names[total + 1], names[total + 2]] == ["duration", "idle_duration"]
    assert table.row_attrs[total + 1].get("data-depth") == "1"


def test_report_text_is_escaped(reports: list[run_labels.LoadedReport]) -> None:
    out = r.write_report(reports, "html")
    page = Page(out)
    text = "".join(page.text)
    assert NASTY in text  # the parsed text is the original name...
    assert "<script>" not in out and "<b>bad" not in out  # ...never markup
    assert "&lt;script&gt;" in out
    (failures,) = [t for t in page.tables if t.caption.startswith("failures")]
    assert failures.caption == "failures: 1 of 10 iterations, by error type"
    assert failures.rows[0][0] == "Err<or>" and failures.rows[0][1] == "1"
    assert failures.rows[0][-1] == "<b>bad</b> & worse"
    assert "errors: none" in text


def test_report_summary_and_config(reports: list[run_labels.LoadedReport]) -> None:
    text = "".join(Page(r.write_report(reports, "html")).text)
    assert str(reports[0].path) in text and str(reports[1].path) in text
    workload = reports[0].workloads[0]
    rate = format_number(report_entries(reports)[0].entries[0].throughput)
    assert (
        f"load duration: {format_number(workload.load_duration)} s, "
        f"throughput: {rate} iterations/s" in text
    )


def test_report_durations_plots(reports: list[run_labels.LoadedReport]) -> None:
    out = r.write_report(reports, "html")
    plots = [
        p for p in svgs(out) if "iteration durations" in (p.findtext("title") or "")
    ]
    assert len(plots) == 3  # one per workload with iterations
    first = plots[0]
    assert NASTY in (first.findtext("title") or "")
    paths = [p.get("d") or "" for p in first.iter("path")]
    dots = [d for d in paths if d.count("h0") > 1]
    # 9 successful dots and one failed one (legend markers are single dots)
    assert sorted(d.count("h0") for d in dots) == [9]
    assert sum(d.count("h0") for d in paths) == 9 + 1 + 2  # + 2 legend marks
    legend = [t.text for t in first.iter("text")]
    assert "successful (9)" in legend and "failed (1)" in legend


def test_report_without_workloads_or_iterations(tmp_path: Path) -> None:
    empty = f.write_report(tmp_path / "empty.json", [f.task([[]])])
    idle = f.write_report(tmp_path / "idle.json", [f.task([[f.workload([])]])])
    out = r.write_report(run_labels.load_reports([empty, idle]), "html")
    page = assert_valid_page(out)
    assert "no workloads" in "".join(page.text)
    assert [t.caption for t in page.tables][0] == "overview"
    (table,) = stats_tables(page)
    assert table.rows[0][0] == "total"
    assert svgs(out) == []


# --- compare -----------------------------------------------------------------------


@pytest.fixture
def comparison_inputs(
    tmp_path: Path,
) -> tuple[compare.Comparison, list[compare.SeriesRow], list[run_labels.Run]]:
    """Baseline p2xt1 at concurrency 2, 4 and 8 (partly failing), p4xt1 slower."""
    r.make_run(
        tmp_path,
        "base",
        [
            r.workload(r.gauss(1, 0.5), concurrency=2),
            r.workload(r.gauss(2, 0.6), concurrency=4),
            r.workload(r.gauss(4, 0.9), concurrency=8, errors=(1, 2)),
            r.workload(r.gauss(5, 0.2), concurrency=2, name=NASTY, position=3),
        ],
        r.state(),
    )
    r.make_run(
        tmp_path,
        "slow",
        [
            r.workload(r.gauss(3, 1.0)),
            r.workload(r.gauss(6, 0.2), name=NASTY, position=1),
        ],
        r.state(processes=4),
    )
    return r.compare_inputs([tmp_path / "base", tmp_path / "slow"])


def test_compare_tables_equal_the_table_format(comparison_inputs: tuple) -> None:
    comparison, series, _ = comparison_inputs
    out = r.write_compare(comparison_inputs, "html")
    page = assert_valid_page(out)
    expected = text_tables(r.write_compare(comparison_inputs, "table"))
    groups = series_groups(series)
    assert len(groups) == 1
    assert len(page.tables) == len(expected) == len(comparison.groups) + 1 == 5
    assert out.count("<table") == 5
    captions = [compare_writer.group_title(g) for g in comparison.groups] + [
        f"latency vs concurrency: {config_label}, {scenario}"
        for config_label, scenario in groups
    ]
    for table, (header, rows), caption in zip(
        page.tables, expected, captions, strict=True
    ):
        assert table.caption == caption
        assert table.header == header
        assert table.rows == rows
    for table in page.tables[:-1]:
        assert table.header == [c.name for c in compare_writer.COMPARE_COLUMNS]
    assert page.tables[-1].header == [c.name for c in compare_writer.SERIES_COLUMNS]
    assert [row[0] for row in page.tables[-1].rows] == ["2", "4", "8"]
    # the verdicts the table format prints, p4xt1 slower at concurrency 2
    assert page.tables[0].rows[1][-1] == "slower"
    assert any(NASTY in table.caption for table in page.tables)
    assert "<script>" not in out and "&lt;script&gt;" in out


def test_compare_intro_and_runs(comparison_inputs: tuple) -> None:
    _, _, runs = comparison_inputs
    page = Page(r.write_compare(comparison_inputs, "html"))
    text = "".join(page.text)
    assert "baseline: uwsgi p2xt1; verdicts: two-sided Mann-Whitney U" in text
    assert page.title is not None and "uwsgi p2xt1" in page.title
    for run in runs:
        assert run.label in text
        assert str(run.paths[0]) in text


def test_compare_series_plots(comparison_inputs: tuple) -> None:
    _, series, _ = comparison_inputs
    plots = svgs(r.write_compare(comparison_inputs, "html"))
    titles = [plot.findtext("title") for plot in plots]
    assert titles == [
        "latency (total) vs concurrency",
        "throughput vs concurrency",
        "success rate vs concurrency",
    ]
    latency, rate, success = plots
    assert len(latency.findall("polyline")) == 3  # median, p90, p95
    assert len(latency.findall("circle")) == 3 * len(series)
    legend = {t.text for t in latency.iter("text")}
    assert {"median", "90 percentile", "95 percentile"} <= legend
    assert len(rate.findall("polyline")) == len(success.findall("polyline")) == 1
    ticks = {t.text for t in latency.iter("text")}
    assert {"2", "4", "8"} <= ticks  # the concurrency levels
    assert "100" in {t.text for t in success.iter("text")}
    # the failing level is below 100 %: its point is lower than the others
    ys = [float(c.get("cy") or 0) for c in success.findall("circle")]
    assert ys[0] == ys[1] < ys[2]


def test_compare_without_series_has_no_plots(comparison_inputs: tuple) -> None:
    comparison, _, runs = comparison_inputs
    out = r.write_compare((comparison, [], runs), "html")
    page = assert_valid_page(out)
    assert len(page.tables) == len(comparison.groups)
    assert svgs(out) == []
    assert "latency vs concurrency" not in out


# --- plots -------------------------------------------------------------------------


def test_chart_skips_missing_values() -> None:
    assert charts.chart("t", "x", "y", []) == ""
    nothing = charts.Line("a", [(1, math.nan), (2, math.inf)], "#000")
    assert charts.chart("t", "x", "y", [nothing]) == ""
    one = charts.Line("a", [(1, 0.5), (2, math.nan)], "#000")
    svg = ET.fromstring(charts.chart("t<", "x&", "y", [one]))
    assert svg.findtext("title") == "t<"
    assert len(svg.findall("circle")) == 1
    flat = charts.Line("a", [(3, 0.0), (3, 0.0)], "#000")
    assert ET.fromstring(charts.chart("t", "x", "y", [flat], x_ticks=[3])) is not None


def test_chart_points_stay_inside() -> None:
    line = charts.Line("a", [(1, 0.2), (16, 3.7), (64, 13.1)], "#000")
    svg = ET.fromstring(
        charts.chart("t", "x", "y", [line], x_ticks=[1, 16, 64], width=400, height=300)
    )
    for circle in svg.findall("circle"):
        assert 0 < float(circle.get("cx") or -1) < 400
        assert 0 < float(circle.get("cy") or -1) < 300
    labels = [t.text for t in svg.iter("text")]
    assert "15" in labels  # a round y tick above 13.1
    assert "64" in labels
