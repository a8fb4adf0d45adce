"""The machine's drift over a table's runs; rows within it marked."""

from __future__ import annotations

from pathlib import Path

import pytest

from rally_keystone_perf.report.figures import combined, drift
from rally_keystone_perf.report.figures.run_labels import load_reports
from tests.unit.report import runs as r
from tests.unit.report.blocks.test_combined import combined_table


def _run(tmp_path: Path, mode: str, avg: float, probes: tuple[float, float]) -> Path:
    state = r.state(mode)
    state["machine"] = {"probe_before": probes[0], "probe_after": probes[1]}
    return r.make_run(
        tmp_path, mode, [r.workload([avg] * 10, concurrency=4)], run_state=state
    )


def test_the_drift_is_the_probes_spread_over_every_run(tmp_path: Path) -> None:
    reports = load_reports(
        [
            _run(tmp_path, "uwsgi", 0.2, (0.100, 0.104)),
            _run(tmp_path, "apache", 0.2, (0.110, 0.108)),
        ]
    )
    assert drift.table_drift(reports) == pytest.approx(0.10)


def test_no_drift_without_two_probes(tmp_path: Path) -> None:
    report = r.make_run(tmp_path, "x", [r.workload([0.1] * 3)], r.state())
    assert drift.table_drift(load_reports([report])) is None


def test_rows_of_one_workload_against_the_fastest() -> None:
    keys = ["list", "list", "list", "token", "alone"]
    marks = drift.versus_fastest(keys, [0.20, 0.21, 0.30, 0.5, 0.1], 0.08)
    assert marks[0] == drift.Versus(0.0, False)  # the fastest
    assert marks[1] is not None and marks[1].within_drift
    assert marks[1].slower == pytest.approx(0.05)
    assert marks[2] is not None and not marks[2].within_drift
    assert marks[3] is None and marks[4] is None  # alone in its workload


def test_nothing_is_within_an_unknown_drift() -> None:
    marks = drift.versus_fastest(["a", "a"], [0.20, 0.201], None)
    assert marks[1] == drift.Versus(pytest.approx(0.005), False)


def test_the_combined_table_marks_a_difference_within_drift(tmp_path: Path) -> None:
    reports = load_reports(
        [
            _run(tmp_path, "uwsgi", 0.20, (0.100, 0.100)),
            _run(tmp_path, "apache", 0.21, (0.112, 0.112)),
            _run(tmp_path, "eventlet", 0.40, (0.100, 0.100)),
        ]
    )
    figures = combined.combined_rows(reports)
    assert figures.drift == pytest.approx(0.12)
    header, rows = combined_table(figures)
    column = list(header).index("vs fastest")
    cells = {row[list(header).index("mode")]: row[column] for row in rows}
    assert cells["uwsgi"] == "fastest"
    assert cells["apache"].startswith("+") and "(within drift 12%)" in cells["apache"]
    assert "within" not in cells["eventlet"]  # about twice as slow: a finding
    assert 80 <= int(cells["eventlet"].strip("+%")) <= 120
