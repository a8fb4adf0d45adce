"""A study's cells: each config's task files, at the levels asked."""

from __future__ import annotations

from pathlib import Path

import pytest

from rally_keystone_perf import paths
from rally_keystone_perf.run import matrix
from rally_keystone_perf.run import study as study_run
from rally_keystone_perf.studies import seed000, seed003


def test_the_level_of_a_bundled_task_file() -> None:
    assert study_run.level(Path("create-token-c16-quick.json")) == 16
    assert study_run.level(Path("smoke.json")) is None


def test_seed_000_quick_runs_each_config_at_each_level() -> None:
    cells = study_run.study_cells(seed000.STUDY, "quick", paths.tasks_dir())
    assert {label: [c.mode for c in cs] for label, cs in cells.items()} == {
        "eventlet-1w": ["eventlet"] * 3,
        "eventlet-4w": ["eventlet"] * 3,
        "apache": ["apache"] * 3,
    }
    levels = [study_run.level(c.task) for c in cells["apache"]]
    assert levels == [4, 16, 32]


def test_levels_narrow_the_cells() -> None:
    cells = study_run.study_cells(seed003.STUDY, "quick", paths.tasks_dir(), [100])
    assert all(len(cs) == 1 for cs in cells.values())
    with pytest.raises(matrix.MatrixError, match="no task file at levels"):
        study_run.study_cells(seed000.STUDY, "quick", paths.tasks_dir(), [7])
