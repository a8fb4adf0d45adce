"""Tests for tasks.check.check_identity: what a read-only LDAP must refuse."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rally_keystone_perf import paths
from rally_keystone_perf.tasks.check import IDENTITY_WRITERS, check_identity
from rally_keystone_perf.tasks.model import TaskFile, TaskFileError
from tests.unit.rally_fakes import write_task


def _task(tmp_path: Path, scenario: str, contexts: dict[str, Any]) -> TaskFile:
    path = write_task(
        tmp_path,
        {
            "scenario": {scenario: {}},
            "runner": {"constant": {"times": 1}},
            "contexts": contexts,
        },
    )
    return TaskFile.load(path)


def test_a_user_writer_is_refused_on_ldap_only(tmp_path: Path) -> None:
    task = _task(tmp_path, "KeystonePerf.create_delete_user", {})
    check_identity(task, "sql")
    with pytest.raises(TaskFileError, match="creates users, and Keystone's LDAP"):
        check_identity(task, "ldap")


def test_rallys_users_context_is_refused_on_ldap(tmp_path: Path) -> None:
    task = _task(tmp_path, "KeystonePerf.list_projects", {"users": {"tenants": 1}})
    with pytest.raises(TaskFileError, match="Rally's users context creates users"):
        check_identity(task, "ldap")


def test_readers_with_the_pool_pass_on_ldap(tmp_path: Path) -> None:
    task = _task(
        tmp_path,
        "KeystonePerf.create_token",
        {"keystone_perf_users": {"tenants": 1, "users_per_tenant": 1}},
    )
    check_identity(task, "ldap")


def test_every_writer_named_is_a_real_scenario() -> None:
    from rally import plugins
    from rally.task import scenario

    plugins.load()
    known = {p.get_name() for p in scenario.Scenario.get_all()}
    assert IDENTITY_WRITERS <= known


def test_the_bundled_token_tasks_run_on_ldap() -> None:
    for path in sorted(paths.tasks_dir().glob("uwsgi/create-token-*.json")):
        check_identity(TaskFile.load(path), "ldap")
