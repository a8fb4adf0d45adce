"""``ab``'s plan: each side a deployment started here, or a cloud probed."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path

import pytest

from rally_keystone_perf import cli, paths
from rally_keystone_perf.cli import ab_commands, cloud_commands
from rally_keystone_perf.deploy.options import LaunchError
from rally_keystone_perf.deploy.own_cloud.probe import Probe
from rally_keystone_perf.deploy.own_cloud.target import CloudTarget
from rally_keystone_perf.tasks.model import TaskFile
from tests.unit.cli.test_cloud_commands import _one_user_listing

TARGET = CloudTarget("mine", "http://keystone.test:5000", "alice", "demo", password="x")
FOUND = Probe("http://keystone.test:5000/v3", "3.14", ("admin",), "u1", "p1")
WRITES = "smoke.json"


def _args(tmp_path: Path, *argv: str) -> argparse.Namespace:
    return cli.build_parser().parse_args(
        ["ab", "--ab-dir", str(tmp_path / "ab"), *argv]
    )


def _task(name: str) -> TaskFile:
    return TaskFile.load(paths.tasks_dir() / name)


@pytest.fixture
def cloud(monkeypatch: pytest.MonkeyPatch, requests_mock) -> Iterator[list[str]]:
    """The cloud read without clouds.yaml and probed without HTTP; the
    names of the clouds probed."""
    probed: list[str] = []

    def fake_probe(target: CloudTarget, *rest: object) -> Probe:
        probed.append(target.cloud)
        return FOUND

    monkeypatch.setattr(cloud_commands.target, "load_target", lambda name: TARGET)
    monkeypatch.setattr(cloud_commands.probe, "probe", fake_probe)
    yield probed
    assert not requests_mock.called


def test_a_cloud_side_is_probed_and_the_other_started_here(
    cloud: list[str], tmp_path: Path
) -> None:
    args = _args(tmp_path, "--a=--os-cloud mine", "--b=--processes 1")
    plan = ab_commands._plan(args, _one_user_listing(tmp_path))
    assert cloud == ["mine"]
    assert set(plan.sessions) == {"a"} and set(plan.deployments) == {"b"}
    assert plan.options["a"] == {
        "target": "http://keystone.test:5000/v3 (external)",
        "api": "3.14",
    }
    assert plan.options["b"]["processes"] == 1


def test_os_cloud_for_the_command_makes_both_sides_the_cloud(
    cloud: list[str], tmp_path: Path
) -> None:
    args = _args(tmp_path, "--os-cloud", "mine")
    plan = ab_commands._plan(args, _one_user_listing(tmp_path))
    assert cloud == ["mine", "mine"]
    assert set(plan.sessions) == {"a", "b"} and not plan.deployments


def test_a_cloud_side_with_a_local_option_is_refused(
    cloud: list[str], tmp_path: Path
) -> None:
    args = _args(tmp_path, "--a=--os-cloud mine --processes 2")
    with pytest.raises(LaunchError, match="--processes"):
        ab_commands._plan(args, _one_user_listing(tmp_path))
    assert cloud == []


def test_a_cloud_side_that_writes_needs_allow_writes(
    cloud: list[str], tmp_path: Path
) -> None:
    with pytest.raises(cloud_commands.Refused, match="--allow-writes"):
        ab_commands._plan(_args(tmp_path, "--b=--os-cloud mine"), _task(WRITES))
    assert cloud == []
    args = _args(tmp_path, "--b=--os-cloud mine", "--allow-writes")
    assert set(ab_commands._plan(args, _task(WRITES)).sessions) == {"b"}


def test_instructions_are_not_counted_on_a_cloud(
    cloud: list[str], tmp_path: Path
) -> None:
    args = _args(tmp_path, "--instructions", "--b=--os-cloud mine")
    with pytest.raises(LaunchError, match="--instructions: side B is a cloud"):
        ab_commands._plan(args, _one_user_listing(tmp_path))
    assert cloud == []


def test_one_round_is_refused_and_none_needs_the_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        _args(tmp_path, "--rounds", "1")
    assert "at least 2 (or 0 with --instructions" in capsys.readouterr().err
    assert _args(tmp_path, "--rounds", "0", "--instructions").rounds == 0
    with pytest.raises(LaunchError, match="--rounds 0 measures nothing"):
        ab_commands.cmd_ab(_args(tmp_path, "--rounds", "0"))
    assert not (tmp_path / "ab").exists()
