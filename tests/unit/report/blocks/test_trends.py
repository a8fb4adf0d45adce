"""Trends (:mod:`rally_keystone_perf.report.blocks.trends`) in every format."""

from __future__ import annotations

import io
import json
from pathlib import Path

from rally_keystone_perf.report.blocks import trends as blocks
from rally_keystone_perf.report.figures import trends
from rally_keystone_perf.report.figures.run_labels import load_reports
from rally_keystone_perf.report.writers import registry
from tests.unit.report import runs as r
from tests.unit.report.writers.test_html import assert_valid_page


def _trends(tmp_path: Path) -> list[trends.Trend]:
    for name, mean in (("one", 0.2), ("two", 0.2)):
        r.make_run(
            tmp_path, name, [r.workload(r.gauss(3, mean), concurrency=4)], r.state()
        )
    return trends.trends(load_reports(trends.trend_files([tmp_path])))


def _write(write, found: list[trends.Trend]) -> str:
    stream = io.StringIO()
    write(found, stream)
    return stream.getvalue()


def test_a_table_per_trend_a_row_per_run(tmp_path: Path) -> None:
    found = _trends(tmp_path)
    text = _write(registry.TRENDS["table"], found)
    assert blocks.title(found[0]) in text
    assert "| gate vs the run before |" in text
    assert "| 1 | one " in text and "first run" in text
    assert max(len(line) for line in text.splitlines()) <= 120
    markdown = _write(registry.TRENDS["markdown"], found)
    assert markdown.count("\n| 2 | two |") == 1


def test_json_is_strict_and_has_every_point(tmp_path: Path) -> None:
    document = json.loads(_write(registry.TRENDS["json"], _trends(tmp_path)))
    (trend,) = document["trends"]
    assert [p["run"] for p in trend["points"]] == ["one", "two"]
    assert trend["points"][0]["gate"] == trends.FIRST


def test_the_page_plots_each_trend(tmp_path: Path) -> None:
    page = _write(registry.TRENDS["html"], _trends(tmp_path))
    assert_valid_page(page)
    assert page.count("<svg") == 1 and page.count("<table>") == 1
