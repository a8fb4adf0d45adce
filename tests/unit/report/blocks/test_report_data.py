"""Tests for report.blocks.report_data: the report's CSV and JSON parse back."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from rally_keystone_perf.report.blocks.numbers import format_success
from rally_keystone_perf.report.figures import run_labels
from rally_keystone_perf.report.figures.stats import main_stats, throughput
from tests.unit.report import runs as r

CONFIG_KEYS = r.CONFIG_KEYS


def test_report_json(reports: list[run_labels.LoadedReport]) -> None:
    document = json.loads(r.write_report(reports, "json"))
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
    reports: list[run_labels.LoadedReport],
) -> None:
    # the exporter stores Rally's own (rounded) table in the file
    document = json.loads(r.write_report(reports, "json"))
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
            assert format_success(row["success"]) == data["success"]


def test_report_csv(reports: list[run_labels.LoadedReport]) -> None:
    rows = list(csv.DictReader(io.StringIO(r.write_report(reports, "csv"))))
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
