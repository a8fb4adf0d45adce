"""A study's cells: each config's task files, at the levels asked."""

from __future__ import annotations

from pathlib import Path

import pytest

from rally_keystone_perf import paths
from rally_keystone_perf.run import matrix
from rally_keystone_perf.run import study_matrix as study_run
from rally_keystone_perf.studies import seed000, seed001, seed003, seed004


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


def test_a_serial_task_is_level_1() -> None:
    assert study_run.level(Path("validate-token-serial-quick.json")) == 1


def test_seed_001_each_config_its_own_task_files_and_nodes() -> None:
    cells = study_run.study_cells(seed001.STUDY, "quick", paths.tasks_dir())
    names = {label: [c.task.name for c in cs] for label, cs in cells.items()}
    assert names["fernet-ldap"] == [  # no user creation: LDAP is read-only
        "create-token-serial-quick.json",
        "validate-token-serial-quick.json",
    ]
    assert "create-delete-user-serial-quick.json" in names["fernet-sql"]
    assert {c.nodes for c in cells["apache-4n"]} == {4}
    assert [c.key for c in cells["apache-2n"]] == [
        "apache/2-nodes/create-token-throughput-c8-quick.json",
        "apache/2-nodes/list-revocation-events-throughput-c8-quick.json",
    ]


def test_seed_004_runs_the_task_files_in_tasks_itself() -> None:
    (cell,) = study_run.study_cells(seed004.STUDY, "quick", paths.tasks_dir())[
        seed004.NOVA
    ]
    assert (cell.mode, cell.task) == (
        "nova-fake",
        paths.tasks_dir() / "boot-server-c5-quick.json",
    )


def test_a_study_may_run_fewer_levels_than_its_files_by_default() -> None:
    quick = study_run.study_cells(seed003.STUDY, "quick", paths.tasks_dir())
    levels = {study_run.level(c.task) for cs in quick.values() for c in cs}
    assert levels == {10, 200}
    asked = study_run.study_cells(seed003.STUDY, "quick", paths.tasks_dir(), [1000])
    assert all([c.task.name for c in cs] == ["list-projects-c1000-quick.json"]
               for cs in asked.values())  # fmt: skip
