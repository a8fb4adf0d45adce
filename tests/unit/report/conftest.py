"""Fixtures of the report's tests: loaded reports."""

from __future__ import annotations

from pathlib import Path

import pytest

from rally_keystone_perf.report.figures import run_labels
from tests.unit.report import factory as f
from tests.unit.report import runs as r


@pytest.fixture
def reports(tmp_path: Path) -> list[run_labels.LoadedReport]:
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
    return run_labels.load_reports([tmp_path / "one", tmp_path / "two"])
