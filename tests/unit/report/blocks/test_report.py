"""Tests for report.blocks.report and report.blocks.overview: the report's
document, its formats' blocks, the sections against concurrency and nodes."""

from __future__ import annotations

from pathlib import Path

from rally_keystone_perf.report.blocks import overview, report
from rally_keystone_perf.report.blocks.model import Heading, Section, Table, shown
from rally_keystone_perf.report.figures import run_labels
from rally_keystone_perf.report.figures.entries import report_entries
from tests.unit.report import scaling_runs


def test_the_title_counts_the_workloads(
    reports: list[run_labels.LoadedReport],
) -> None:
    files = report_entries(reports)
    assert report.title(files) == "rally-keystone-perf report (2 workloads)"
    assert report.title(files[:1]) == "rally-keystone-perf report (1 workload)"


def test_the_csv_shows_one_table_the_others_none_of_it(
    reports: list[run_labels.LoadedReport],
) -> None:
    document = report.document(report_entries(reports))
    (table,) = shown(document.blocks, "csv")
    assert isinstance(table, Table)
    assert table.columns[0].name == "file"
    for fmt in ("table", "markdown"):
        sections = [b for b in shown(document.blocks, fmt) if isinstance(b, Section)]
        assert [s.id for s in sections] == ["w1-1", "w2-1"]
        tables = [b for s in sections for b in s.blocks if isinstance(b, Table)]
        assert tables and all(t.columns[0].name == "action" for t in tables)
    assert document.data is not None and document.data["version"] == 1


def test_sections_against_nodes_and_concurrency(tmp_path: Path) -> None:
    files = report_entries(scaling_runs.matrix(tmp_path))
    nodes = overview.node_blocks(files)
    assert nodes[0] == Heading("latency and throughput vs nodes", 2)
    section = nodes[1]
    assert isinstance(section, Section) and section.style == "series"
    table = section.blocks[0]
    assert isinstance(table, Table) and table.caption.startswith("vs nodes: ")
    assert [row[0] for row in table.rows] == sorted(row[0] for row in table.rows)
    assert overview.level_blocks(files[:1]) == []  # one level alone: no series
