"""Fixtures of the writers' tests: a comparison to write."""

from __future__ import annotations

from pathlib import Path

import pytest

from rally_keystone_perf.report.figures import compare, run_labels
from tests.unit.report import runs as r


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
