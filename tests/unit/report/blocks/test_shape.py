"""Tests for report.blocks.shape: a workload's failures and input task."""

from __future__ import annotations

from pathlib import Path

from rally_keystone_perf.report.blocks import shape
from rally_keystone_perf.report.blocks.model import Details, Lines, Table
from rally_keystone_perf.report.readers.rally_json import load_report
from tests.unit.report import runs as r


def test_failures_a_table_or_a_line(tmp_path: Path) -> None:
    report = r.make_run(
        tmp_path,
        "one",
        [
            r.workload(r.gauss(1, 0.4, 30), errors=(3, 7)),
            r.workload(r.gauss(2, 0.2, 30), position=1),
        ],
        r.state(),
    )
    failing, fine = load_report(report)
    table = shape.failures(failing)
    assert isinstance(table, Table) and table.caption.startswith("failures: 2 of 30")
    assert table.columns[-1].style == "wrap"
    assert shape.failures(fine) == Lines(["errors: none"])
    task = shape.input_task(fine)
    assert isinstance(task, Details) and task.style == "task"
    assert task.summary.startswith("input task")
    durations = shape.durations_plot(failing)
    assert [s.scatter for s in durations.series] == [True, True]
    assert durations.x_min == 0.0
    plots = shape.distribution_plots(failing)
    assert plots[0].edges is not None and plots[1].y_max == 100.0
    assert len(shape.load_profile_plots(fine)) == 2


def test_the_input_task_never_shows_a_secret() -> None:
    asked = {
        "args": {"password": "s3cret", "name": "u", "admin_token": "gAAAA"},
        "contexts": {
            "keystone_perf_tokens": {"tokens_per_user": 5},
            "keystone_perf_trace": {"key_file": "/run/private/trace.key"},
            "existing": [{"user": {"Password": "p"}}],
        },
    }
    assert shape.redacted(asked) == {
        "args": {"password": "<redacted>", "name": "u", "admin_token": "<redacted>"},
        "contexts": {
            "keystone_perf_tokens": {"tokens_per_user": 5},
            "keystone_perf_trace": {"key_file": "/run/private/trace.key"},
            "existing": [{"user": {"Password": "<redacted>"}}],
        },
    }
