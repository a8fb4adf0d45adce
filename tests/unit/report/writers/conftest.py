"""Fixtures of the writers' tests: loaded reports and a comparison to write."""

from __future__ import annotations

from pathlib import Path

import pytest

from rally_keystone_perf.report.figures import compare, run_labels
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


@pytest.fixture
def comparison_inputs(
    tmp_path: Path,
) -> tuple[compare.Comparison, list[compare.SeriesRow], list[run_labels.Run]]:
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
    return r.compare_inputs([tmp_path / "base", tmp_path / "slow"])
