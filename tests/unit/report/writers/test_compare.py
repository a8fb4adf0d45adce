"""Tests for rally_keystone_perf.report.blocks.compare: every compare format
parses back."""

from __future__ import annotations

import csv
import io
import json

import pytest

from rally_keystone_perf.report.blocks import compare as writer
from tests.unit.report import runs as r


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
    assert list(rows[0]) == list(writer.CSV_COLUMNS)
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
    tables = r.md_tables(markdown)
    assert len(tables) == 3  # 2 matched workloads and 1 series
    assert tables[0][0] == [c.name for c in writer.COMPARE_COLUMNS]
    assert tables[0][2][:2] == [r.ACTION, "uwsgi p2xt1"]
    assert tables[0][3][-1] == "slower"
    assert tables[2][0] == [c.name for c in writer.SERIES_COLUMNS]
    table = r.write_compare(comparison_inputs, "table")
    assert table.startswith("baseline: uwsgi p2xt1; verdicts: two-sided Mann-Whitney")
    assert f"{r.SCENARIO}, concurrency 2\n+--" in table
    assert "latency vs concurrency: uwsgi p2xt1, " in table
    assert "| slower" in table and "| baseline" in table
