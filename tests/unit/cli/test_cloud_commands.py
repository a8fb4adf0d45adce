"""Tests for rally_keystone_perf.cli.cloud_commands (run --os-cloud)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from rally_keystone_perf import cli, paths
from rally_keystone_perf.cli import cloud_commands
from rally_keystone_perf.deploy.options import LaunchError
from rally_keystone_perf.deploy.own_cloud.probe import Probe
from rally_keystone_perf.deploy.own_cloud.target import CloudTarget
from rally_keystone_perf.run import engines
from rally_keystone_perf.tasks.model import TaskFile

TARGET = CloudTarget("mine", "http://keystone.test:5000", "alice", "demo", password="x")
SMOKE = "smoke.json"  # writes: creates users, revokes tokens
READ_ONLY = "uwsgi/list-projects-c10-quick.json"  # reads, as the admin
WITH_USERS = "uwsgi/validate-token-serial-quick.json"  # reads, with 4 users


class Probed(Exception):
    """Raised by the fake probe: the run got as far as a request."""


def _args(*argv: str) -> argparse.Namespace:
    return cli.build_parser().parse_args(["run", "--os-cloud", "mine", *argv])


def _tasks(name: str) -> list[TaskFile]:
    return [TaskFile.load(paths.tasks_dir() / name)]


def _one_user_listing(tmp_path: Path) -> TaskFile:
    """A task listing projects as one user: the cloud's own, nothing written."""
    workload = {
        "scenario": {"KeystonePerf.list_projects": {}},
        "runner": {"constant": {"times": 2, "concurrency": 1}},
        "contexts": {"users": {"tenants": 1, "users_per_tenant": 1}},
    }
    task = {
        "version": 2,
        "title": "t",
        "subtasks": [{"title": "s", "workloads": [workload]}],
    }
    path = tmp_path / "task.json"
    path.write_text(json.dumps(task))
    return TaskFile.load(path)


@pytest.fixture
def cloud(monkeypatch: pytest.MonkeyPatch, requests_mock) -> Iterator[list[tuple]]:
    """The cloud read without clouds.yaml; the probe's calls (it raises
    Probed), a prepare_run that must not be reached, and no HTTP at all."""
    probed: list[tuple] = []

    def fake_probe(*args: object) -> None:
        probed.append(args)
        raise Probed

    def no_run(*args: object) -> None:
        raise AssertionError("prepare_run called")

    monkeypatch.setattr(cloud_commands.target, "load_target", lambda name: TARGET)
    monkeypatch.setattr(cloud_commands.probe, "probe", fake_probe)
    monkeypatch.setattr(cloud_commands.own_cloud, "prepare_run", no_run)
    yield probed
    assert not requests_mock.called


def test_no_local_option_given() -> None:
    assert cloud_commands._local_options_given(_args()) == []


def test_local_options_given_are_named() -> None:
    args = _args("--processes", "4", "--db", "mysql", "--keep-running")
    given = cloud_commands._local_options_given(args)
    assert given == ["--processes", "--db", "--keep-running"]


def test_an_engine_option_is_a_local_option() -> None:
    assert "--engine" in cloud_commands._local_options_given(
        _args("--engine", "locust")
    )


def test_check_options_refuses_local_options() -> None:
    with pytest.raises(LaunchError, match="^--threads: with --os-cloud nothing"):
        cloud_commands.check_no_local_options(_args("--threads", "2"))


def test_check_options_accepts_the_cloud_options(tmp_path: Path) -> None:
    users = str(tmp_path / "users.json")
    cloud_commands.check_no_local_options(
        _args("--allow-writes", "--existing-users", users)
    )


def test_a_writing_task_without_allow_writes_is_refused(
    cloud: list[tuple], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cloud_commands.run_on_cloud(_args(), _tasks(SMOKE)) == 1
    assert cloud == []
    err = capsys.readouterr().err
    assert "target: cloud mine, http://keystone.test:5000; the plan:" in err
    assert "error: these tasks write to the cloud" in err
    assert "--allow-writes" in err.splitlines()[-1]


def test_a_writing_task_with_allow_writes_is_probed(cloud: list[tuple]) -> None:
    with pytest.raises(Probed):
        cloud_commands.run_on_cloud(_args("--allow-writes"), _tasks(SMOKE))
    ((target, admin_for, revocation_for),) = cloud
    assert target is TARGET
    assert "KeystonePerf.create_delete_user" in admin_for
    assert revocation_for == [
        "KeystonePerf.list_revocation_events",
        "KeystonePerf.revoke_token",
    ]


def test_a_read_only_task_needs_no_allow_writes(
    cloud: list[tuple], tmp_path: Path
) -> None:
    with pytest.raises(Probed):
        cloud_commands.run_on_cloud(_args(), [_one_user_listing(tmp_path)])
    assert cloud == [(TARGET, ["KeystonePerf.list_projects"], [])]


def test_a_task_wanting_users_writes_unless_they_are_given(
    cloud: list[tuple], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cloud_commands.run_on_cloud(_args(), _tasks(WITH_USERS)) == 1
    assert "creates: 4 user(s) and 1 project(s)" in capsys.readouterr().err


def test_existing_users_do_not_make_a_writing_task_read_only(
    cloud: list[tuple], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    users = tmp_path / "users.json"
    users.write_text(
        json.dumps([{"username": "u", "password": "p", "project_name": "q"}])
    )
    code = cloud_commands.run_on_cloud(
        _args("--existing-users", str(users)), _tasks(SMOKE)
    )
    assert code == 1 and cloud == []
    assert "users: the 1 existing users given (none created)" in capsys.readouterr().err


def test_local_options_are_refused_before_the_cloud_is_read(
    cloud: list[tuple], monkeypatch: pytest.MonkeyPatch
) -> None:
    def unread(name: str) -> None:
        raise AssertionError("load_target called")

    monkeypatch.setattr(cloud_commands.target, "load_target", unread)
    with pytest.raises(LaunchError, match="--processes"):
        cloud_commands.run_on_cloud(_args("--processes", "2"), _tasks(READ_ONLY))


@pytest.mark.parametrize(
    "extra", [["--modes", "uwsgi"], ["--nodes", "1,2"], ["--server-log", "x.log"]]
)
def test_matrix_on_a_cloud_refuses_modes_nodes_and_a_server_log(
    extra: list[str],
) -> None:
    args = cli.build_parser().parse_args(["matrix", "--os-cloud", "mine", *extra])
    with pytest.raises(LaunchError, match="no mode to start"):
        cloud_commands.matrix_on_cloud(args)


def test_namespaced_workers_are_refused_with_the_reason(cloud: list[tuple]) -> None:
    args = _args("--engine", "locust", "--worker-hosts", "netns:2")
    with pytest.raises(LaunchError, match="--worker-hosts: the namespaced workers"):
        cloud_commands.run_on_cloud(args, _tasks(READ_ONLY))
    assert cloud == []


def test_locust_workers_here_or_elsewhere_drive_a_cloud(
    cloud: list[tuple], tmp_path: Path
) -> None:
    args = _args(
        "--engine", "locust", "--expect-workers", "2", "--master-bind", "0.0.0.0"
    )
    engine = cloud_commands._engine_on_cloud(args, _tasks(READ_ONLY))
    assert isinstance(engine, engines.LocustEngine)
    options = engine.options
    assert (options.workers, options.expect_workers, options.bind_host) == (
        0,
        2,
        "0.0.0.0",
    )
    rally = cloud_commands._engine_on_cloud(_args(), _tasks(READ_ONLY))
    assert isinstance(rally, engines.RallyEngine)
    with pytest.raises(Probed):  # the engine's options pass the local check
        cloud_commands.run_on_cloud(
            _args("--engine", "locust", "--workers", "2"), [_one_user_listing(tmp_path)]
        )


def test_boot_names_need_a_cloud_and_become_task_args() -> None:
    local = cli.build_parser().parse_args(["run", "--image", "cirros"])
    with pytest.raises(LaunchError, match="--image: for --os-cloud"):
        cloud_commands.check_cloud_only_options(local)
    args = _args("--task-args", "{image: TestVM, flavor: m1}", "--image", "cirros")
    cloud_commands.check_cloud_only_options(args)
    assert cloud_commands.task_args(args) == {"image": "cirros", "flavor": "m1"}
    with pytest.raises(SystemExit):
        _args("--task-args", "[1, 2]")


def test_a_boot_task_is_checked_on_the_cloud_before_any_load(
    cloud: list[tuple], monkeypatch: pytest.MonkeyPatch
) -> None:
    found = Probe("http://keystone.test:5000/v3", "v3.14", ("admin",), "u", "p")
    monkeypatch.setattr(cloud_commands.probe, "probe", lambda *a: found)
    checked: list[tuple] = []

    def check_boots(*args: object) -> list[str]:
        checked.append(args)
        raise Probed

    monkeypatch.setattr(cloud_commands.compute, "check_boots", check_boots)
    args = _args("--allow-writes", "--image", "cirros", "--network", "private")
    boot = TaskFile.load(
        paths.tasks_dir() / "boot-server-c5-quick.json", cloud_commands.task_args(args)
    )
    with pytest.raises(Probed):
        cloud_commands.run_on_cloud(args, [boot])
    ((target, (spec,), users_created),) = checked
    assert target is TARGET and users_created
    assert spec.image == {"name": "cirros"} and spec.flavor == {"name": "ram64"}
    assert spec.networks == [{"name": "private"}]
