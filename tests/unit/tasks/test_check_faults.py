"""Tests for tasks.check.check_faults: a fault on a host the run has."""

from __future__ import annotations

from pathlib import Path

import pytest

from rally_keystone_perf import paths
from rally_keystone_perf.deploy.options import LaunchOptions, resolve
from rally_keystone_perf.tasks.check import check_deployment, check_faults
from rally_keystone_perf.tasks.model import TaskFile, TaskFileError
from tests.unit.rally_fakes import write_task


def _task(tmp_path: Path, target: str) -> TaskFile:
    hook = {
        "action": {"keystone_perf_fault": {"action": "kill", "target": target}},
        "trigger": {"event": {"unit": "time", "at": [5]}},
    }
    workload = {
        "scenario": {"KeystonePerf.create_token": {}},
        "runner": {"constant": {"times": 1}},
        "hooks": [hook],
    }
    return TaskFile.load(write_task(tmp_path, workload))


def test_a_node_beyond_the_runs_nodes_is_refused(tmp_path: Path) -> None:
    task = _task(tmp_path, "node3")
    check_faults(task, 3, "mysql")
    with pytest.raises(TaskFileError, match="acts on node3, and the run has 2 node"):
        check_faults(task, 2, "mysql")


def test_the_database_needs_a_server(tmp_path: Path) -> None:
    task = _task(tmp_path, "database")
    check_faults(task, 1, "postgresql")
    with pytest.raises(TaskFileError, match="--db sqlite has no server"):
        check_faults(task, 1, "sqlite")


def test_a_galera_member_needs_galera(tmp_path: Path) -> None:
    check_faults(_task(tmp_path, "galera3"), 1, "galera")
    check_faults(_task(tmp_path, "database"), 1, "galera")
    with pytest.raises(TaskFileError, match="acts on galera2, a member of --db"):
        check_faults(_task(tmp_path, "galera2"), 2, "mysql")
    with pytest.raises(TaskFileError, match="galera's 3, and the run has"):
        check_faults(_task(tmp_path, "galera4"), 2, "galera")


def test_a_cluster_on_sqlite_runs_on_mariadb(tmp_path: Path) -> None:
    task = _task(tmp_path, "database")
    check_deployment(task, resolve(LaunchOptions(nodes=2, db="sqlite")))  # -> mysql
    with pytest.raises(TaskFileError, match="has no server"):
        check_deployment(task, resolve(LaunchOptions(nodes=1, db="sqlite")))


def test_the_bundled_fault_task_needs_two_nodes() -> None:
    task = TaskFile.load(paths.tasks_dir() / "cluster-node-fault.json")
    check_deployment(task, resolve(LaunchOptions(nodes=2)))
    with pytest.raises(TaskFileError, match="run it with --nodes 2 or more"):
        check_deployment(task, resolve(LaunchOptions()))
