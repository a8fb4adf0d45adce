"""Trends: the same workload across runs by time, with the gate's verdicts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rally_keystone_perf.report.figures import trends
from rally_keystone_perf.report.figures.run_labels import load_reports
from rally_keystone_perf.report.readers.rally_json import ReportError
from tests.unit.report import runs as r


def _run(root: Path, name: str, mean: float, at: float, mode: str = "uwsgi") -> Path:
    """A run folder whose one workload started at ``at`` (epoch seconds)."""
    report = r.make_run(
        root, name, [r.workload(r.gauss(7, mean), concurrency=4)], r.state(mode)
    )
    document = json.loads(report.read_text())
    for task in document["tasks"]:
        for subtask in task["subtasks"]:
            for workload in subtask["workloads"]:
                workload["start_time"] = at
    report.write_text(json.dumps(document))
    return report


def _trends(root: Path) -> list[trends.Trend]:
    return trends.trends(load_reports(trends.trend_files([root])))


def test_a_workload_across_runs_oldest_first_each_gated_against_the_one_before(
    tmp_path: Path,
) -> None:
    _run(tmp_path, "c-slower", 0.4, at=3000.0)  # found first, ran last
    _run(tmp_path, "a-first", 0.2, at=1000.0)
    _run(tmp_path, "b-same", 0.2, at=2000.0)
    (trend,) = _trends(tmp_path)
    assert trend.name == "KeystonePerf.create_token c4"
    assert trend.deployment.startswith("uwsgi")
    assert [p.run for p in trend.points] == ["a-first", "b-same", "c-slower"]
    first, same, slower = (p.verdict for p in trend.points)
    assert (first, same) == (trends.FIRST, "PASS")
    assert slower.startswith("FAIL: ") and "median total" in slower
    assert trend.points[2].median == pytest.approx(0.4, rel=0.1)
    assert trend.points[0].success == 1.0 and trend.points[0].throughput


def test_runs_of_another_deployment_or_workload_are_another_trend(
    tmp_path: Path,
) -> None:
    _run(tmp_path, "uwsgi", 0.2, at=1000.0)
    _run(tmp_path, "apache", 0.2, at=2000.0, mode="apache")
    assert len(_trends(tmp_path)) == 2
    base = r.workload([0.1] * 4, concurrency=4)
    other = r.workload([0.1] * 4, concurrency=8)
    keys = {
        trends.workload_key(w.workloads[0])
        for w in load_reports(
            [
                r.make_run(tmp_path / "k", "one", [base], r.state()),
                r.make_run(tmp_path / "k", "two", [other], r.state()),
            ]
        )
    }
    assert len(keys) == 2  # the runner differs: not the same workload


def test_trend_files_under_folders_and_bad_paths(tmp_path: Path) -> None:
    report = _run(tmp_path / "runs", "one", 0.2, at=1.0)
    assert trends.trend_files([tmp_path]) == [report]
    assert trends.trend_files([report.parent]) == [report]  # a results folder
    assert trends.trend_files([report, tmp_path]) == [report]
    with pytest.raises(ReportError, match="no such file"):
        trends.trend_files([tmp_path / "nope"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(ReportError, match="no Rally reports under it"):
        trends.trend_files([tmp_path / "empty"])
