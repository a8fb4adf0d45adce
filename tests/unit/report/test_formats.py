"""Tests for report.formats and report.compare_formats: every format parses back."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from rally_keystone_perf.report import (
    FORMATS,
    compare,
    compare_formats,
    config,
    formats,
    render,
)
from rally_keystone_perf.report.stats import main_stats, throughput
from tests.unit.report import factory as f
from tests.unit.report import runs as r

CONFIG_KEYS = r.CONFIG_KEYS


@pytest.fixture
def reports(tmp_path: Path) -> list[config.LoadedReport]:
    """Two run folders: one with a nested, partly failing workload, one plain."""
    a = f.atomic
    nested = [a("keystone.create_user", 0.0, 0.3, children=[a("inner", 0.0, 0.1)])]
    data = [f.iteration(float(i), 0.3 + i / 100, 0.01, nested) for i in range(9)]
    data.append(f.iteration(9.0, 0.2, 0.0, [], ("Err|or", "pipe | in\nmessage")))
    r.make_run(
        tmp_path,
        "one",
        [f.workload(data, runner={"times": 10, "concurrency": 3})],
        r.state(processes=4, threads=2),
    )
    r.make_run(tmp_path, "two", [r.workload([0.1, 0.2, 0.3])], r.state(rounds=4))
    return config.load_reports([tmp_path / "one", tmp_path / "two"])


def _write(reports: list[config.LoadedReport], fmt: str) -> str:
    stream = io.StringIO()
    formats.write_report(reports, stream, fmt)
    return stream.getvalue()


def _md_tables(text: str) -> list[list[list[str]]]:
    """Markdown tables as rows of cells; checks each has a separator row."""
    tables: list[list[list[str]]] = []
    current: list[list[str]] = []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            current.append([c.strip() for c in line.strip().strip("|").split(" | ")])
        elif current:
            header, separator, *_ = current
            assert len(separator) == len(header)
            assert all(set(cell) <= {"-", ":"} and "---" in cell for cell in separator)
            tables.append(current)
            current = []
    return tables


# --- report --------------------------------------------------------------------


def test_report_table_columns(reports: list[config.LoadedReport]) -> None:
    out = _write(reports, "table")
    assert out.startswith(f"report: {reports[0].path}\n")
    assert f"\nreport: {reports[1].path}\n" in out
    headers = [line for line in out.splitlines() if line.startswith("| action")]
    assert len(headers) == 2
    cells = [cell.strip() for cell in headers[0].strip("|").split("|")]
    assert cells == [*render.COLUMNS, formats.THROUGHPUT, *CONFIG_KEYS]
    assert "SECRET_TRACEBACK_LINE" not in out
    row = r"\| uwsgi \| +stock \| +4 \| +2 \| +request-local \| +sqlite \| +default \|"
    assert re.search(row, out)


def test_report_json(reports: list[config.LoadedReport]) -> None:
    document = json.loads(_write(reports, "json"))
    assert document["schema"] == "rally-keystone-perf/report"
    assert document["version"] == 1
    first, second = document["reports"]
    assert first["file"] == str(reports[0].path)
    assert first["config"]["processes"] == "4"
    assert second["config"]["hash rounds"] == "4"
    (workload,) = first["workloads"]
    loaded = reports[0].workloads[0]
    assert workload["config"] == reports[0].columns(loaded)
    assert list(workload["config"]) == CONFIG_KEYS
    assert workload["throughput"] == throughput(loaded)
    assert (workload["iterations"], workload["failed_iterations"]) == (10, 1)
    assert workload["errors"] == [
        {"type": "Err|or", "message": "pipe | in message", "count": 1}
    ]
    rows = main_stats(loaded)
    assert [row["name"] for row in workload["rows"]] == [row.name for row in rows]
    for got, row in zip(workload["rows"], rows, strict=True):
        assert got["depth"] == row.depth
        assert got["median"] == row.median  # unrounded
        assert got["success"] == row.success
        assert got["count"] == row.count


def test_report_agrees_with_rallys_statistics(
    reports: list[config.LoadedReport],
) -> None:
    # the exporter stores Rally's own (rounded) table in the file
    document = json.loads(_write(reports, "json"))
    for report, ours in zip(reports, document["reports"], strict=True):
        raw = json.loads(report.path.read_text())
        stored = raw["tasks"][0]["subtasks"][0]["workloads"][0]["statistics"]
        theirs: dict[str, Any] = {}

        def collect(items: list[dict], stored: dict[str, Any] = theirs) -> None:
            for item in items:
                stored[item["display_name"]] = item["data"]
                collect(item["children"])

        collect([*stored["durations"]["atomics"], stored["durations"]["total"]])
        rows = ours["workloads"][0]["rows"]
        assert {row["name"] for row in rows} == set(theirs)
        for row in rows:
            data = theirs[row["name"]]
            for key, name in (("min", "min"), ("median", "median"), ("p90", "90%ile")):
                assert round(row[key], 3) == data[name]
            assert round(row["p95"], 3) == data["95%ile"]
            assert round(row["avg"], 3) == data["avg"]
            assert round(row["max"], 3) == data["max"]
            assert render.format_success(row["success"]) == data["success"]


def test_report_csv(reports: list[config.LoadedReport]) -> None:
    rows = list(csv.DictReader(io.StringIO(_write(reports, "csv"))))
    loaded = [w for report in reports for w in report.workloads]
    expected = [row for w in loaded for row in main_stats(w)]
    assert len(rows) == len(expected)
    assert [row["action"] for row in rows] == [row.name for row in expected]
    assert [float(row["p95"]) for row in rows] == [row.p95 for row in expected]
    assert rows[0]["file"] == str(reports[0].path)
    assert rows[0]["processes"] == "4"
    assert rows[0]["concurrency"] == "3"
    assert rows[-1]["hash rounds"] == "4"
    assert float(rows[0]["throughput"]) == throughput(loaded[0])


def test_report_markdown(reports: list[config.LoadedReport]) -> None:
    out = _write(reports, "markdown")
    tables = _md_tables(out)
    assert len(tables) == 2
    header = tables[0][0]
    assert header == [*render.COLUMNS, formats.THROUGHPUT, *CONFIG_KEYS]
    names = [row[0] for row in tables[0][2:]]
    assert names[:2] == ["keystone.create_user", "-> inner"]
    assert "- 1 x Err\\|or: pipe \\| in message" in out
    assert f"## {reports[0].path}" in out


def test_report_without_workloads(tmp_path: Path) -> None:
    path = f.write_report(tmp_path / "empty.json", [f.task([[]])])
    (report,) = config.load_reports([path])
    assert "no workloads" in _write([report], "table")
    assert json.loads(_write([report], "json"))["reports"][0]["workloads"] == []


def test_unknown_format(reports: list[config.LoadedReport]) -> None:
    with pytest.raises(ValueError, match="unknown format 'xml'"):
        _write(reports, "xml")


# --- compare -------------------------------------------------------------------


@pytest.fixture
def comparison_inputs(
    tmp_path: Path,
) -> tuple[compare.Comparison, list[compare.SeriesRow], list[config.Run]]:
    """Baseline p2xt1 at concurrency 2 and 4, p4xt1 slower at 2."""
    r.make_run(
        tmp_path,
        "base",
        [
            r.workload(r.gauss(1, 0.5), concurrency=2),
            r.workload(r.gauss(2, 0.6), concurrency=4),
        ],
        r.state(),
    )
    r.make_run(tmp_path, "slow", [r.workload(r.gauss(3, 1.0))], r.state(processes=4))
    runs = config.load_runs([tmp_path / "base", tmp_path / "slow"])
    comparison = compare.compare([(x.label, x.workloads) for x in runs])
    series = compare.series([(x.config_label, x.workloads) for x in runs])
    return comparison, series, runs


def test_compare_json(comparison_inputs: tuple) -> None:
    document = json.loads(r.write_compare(comparison_inputs, "json"))
    assert document["schema"] == "rally-keystone-perf/compare"
    assert document["version"] == 1
    assert document["alpha"] == 0.05
    assert document["baseline"] == "uwsgi p2xt1"
    assert [run["label"] for run in document["runs"]] == ["uwsgi p2xt1", "uwsgi p4xt1"]
    first = document["comparisons"][0]
    assert (first["scenario"], first["concurrency"]) == (r.SCENARIO, 2)
    action = first["actions"][0]
    assert action["action"] == r.ACTION
    base, slow = action["results"]
    assert base["verdict"] == "baseline" and base["p_value"] is None
    assert slow["verdict"] == "slower" and 0 < slow["p_value"] < 0.05
    assert slow["ratio"] == pytest.approx(2.0, rel=0.1)
    assert isinstance(slow["median"], float)
    (series,) = document["series"]
    assert series["config"] == "uwsgi p2xt1"
    assert [p["concurrency"] for p in series["points"]] == [2, 4]


def test_compare_csv(comparison_inputs: tuple) -> None:
    rows = list(csv.DictReader(io.StringIO(r.write_compare(comparison_inputs, "csv"))))
    assert list(rows[0]) == list(compare_formats.CSV_COLUMNS)
    records = [row["record"] for row in rows]
    # 2 groups x 2 actions x 2 runs, then 2 series points
    assert records == ["compare"] * 8 + ["series"] * 2
    slow = rows[1]
    assert (slow["run"], slow["verdict"]) == ("uwsgi p4xt1", "slower")
    assert float(slow["ratio"]) > 1.5
    assert float(slow["p_value"]) < 0.05
    assert rows[-1]["concurrency"] == "4"
    assert float(rows[-1]["success"]) == 1.0


def test_compare_markdown_and_table(comparison_inputs: tuple) -> None:
    markdown = r.write_compare(comparison_inputs, "markdown")
    tables = _md_tables(markdown)
    assert len(tables) == 3  # 2 matched workloads and 1 series
    assert tables[0][0] == list(compare_formats.COMPARE_COLUMNS)
    assert tables[0][2][:2] == [r.ACTION, "uwsgi p2xt1"]
    assert tables[0][3][-1] == "slower"
    assert tables[2][0] == list(compare_formats.SERIES_COLUMNS)
    table = r.write_compare(comparison_inputs, "table")
    assert table.startswith("baseline: uwsgi p2xt1; verdicts: two-sided Mann-Whitney")
    assert f"{r.SCENARIO}, concurrency 2\n+--" in table
    assert "latency vs concurrency: uwsgi p2xt1, " in table
    assert "| slower" in table and "| baseline" in table


def test_every_format_writes_something(comparison_inputs: tuple) -> None:
    for fmt in FORMATS:
        assert r.write_compare(comparison_inputs, fmt).endswith("\n")
    with pytest.raises(ValueError, match="unknown format"):
        r.write_compare(comparison_inputs, "xml")


@pytest.mark.parametrize("fmt", ["table", "markdown", "html"])
def test_a_disabled_cache_is_flagged(tmp_path: Path, fmt: str) -> None:
    disabled = r.state()
    disabled["keystone_cache"] = "disabled"
    flagged = r.make_run(tmp_path, "off", [r.workload([0.1] * 3)], disabled)
    stock = r.make_run(tmp_path, "stock", [r.workload([0.1] * 3)], r.state())
    out = _write(config.load_reports([flagged]), fmt)
    assert "cache was disabled ([cache] enabled = false)" in out
    assert "5-12x slower than a stock Keystone" in out
    assert "cache was disabled" not in _write(config.load_reports([stock]), fmt)
