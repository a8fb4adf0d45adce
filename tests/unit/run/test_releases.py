"""Keystone releases in rounds: which releases, those left out, the rounds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rally_keystone_perf.deploy.options import LaunchError, LaunchOptions, resolve
from rally_keystone_perf.run import releases
from rally_keystone_perf.run.matrix import MatrixError
from rally_keystone_perf.tasks.model import TaskFile
from tests.unit.run import fake_sides

FILES = [
    "keystone-26.0.0-py3-none-any.whl",
    "keystone-27.0.0-py3-none-any.whl",
    "keystone-27.0.1-py3-none-any.whl",
    "keystone-28.0.0.tar.gz",
    "keystone-29.0.0.0rc1-py3-none-any.whl",  # a candidate: not a release
    "keystone-29.1.0-py3-none-any.whl",  # no 29.0.0 on this page
    "keystone-30.0.0-py3-none-any.whl",
    "keystone-31.0.0-py3-none-any.whl",
]


def _page(url: str) -> dict[str, Any]:
    return {"files": [{"filename": name} for name in FILES]}


def test_the_latest_releases_are_the_newest_series_first_releases() -> None:
    assert releases.latest_releases(4, _page) == [
        "27.0.0",
        "28.0.0",
        "30.0.0",
        "31.0.0",
    ]
    assert releases.latest_releases(2, _page) == ["30.0.0", "31.0.0"]


def test_pypi_not_answering_asks_for_the_releases() -> None:
    def down(url: str) -> dict[str, Any]:
        raise OSError("timed out")

    with pytest.raises(LaunchError, match="--releases 27.0.0,28.0.0"):
        releases.latest_releases(4, down)


def test_releases_given_are_put_in_version_order() -> None:
    assert releases.release_list("30.0.0, 27.0.0,28.1.0") == [
        "27.0.0",
        "28.1.0",
        "30.0.0",
    ]
    with pytest.raises(ValueError, match="two releases or more"):
        releases.release_list("30.0.0,30.0.0")
    with pytest.raises(ValueError, match="not a Keystone version"):
        releases.release_list("27.0.0,latest")


def test_a_release_that_does_not_install_is_left_out_with_the_reason(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def prepare(deployment: Any, echo: Any) -> Any:
        if deployment.options.keystone_build == "keystone==28.0.0":
            raise LaunchError("installing Keystone build keystone==28.0.0 failed")
        return deployment

    monkeypatch.setattr(releases.prepare, "prepare", prepare)
    deployments = {
        v: resolve(LaunchOptions(keystone_build=releases.build_spec(v)))
        for v in ("27.0.0", "28.0.0", "29.0.0")
    }
    said: list[str] = []
    ready, failures = releases.installed(deployments, said.append)
    assert list(ready) == ["27.0.0", "29.0.0"]
    assert failures == [
        releases.Failure(
            "28.0.0", "install", "installing Keystone build keystone==28.0.0 failed"
        )
    ]
    assert said == ["release 28.0.0 left out: it does not install"]


def _plan(tmp_path: Path, versions: list[str], rounds: int = 2) -> releases.Plan:
    task = tmp_path / "t.json"
    task.write_text(
        '{"version": 2, "title": "t", "subtasks": [{"title": "s", "workloads": '
        '[{"scenario": {"KeystonePerf.list_projects": {}}, '
        '"runner": {"constant": {"times": 2, "concurrency": 4}}}]}]}'
    )
    recorded = {v: {"options": {"v": v}, "tasks": ["t.json"]} for v in versions}
    deployments = {v: resolve(LaunchOptions()) for v in versions}
    return releases.Plan(
        tmp_path / "r", deployments, [TaskFile.load(task)], rounds, False, recorded
    )


def test_a_release_that_does_not_start_is_left_out_and_the_others_measured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = fake_sides.install(monkeypatch)
    seen["fail_start"] = {"28.0.0"}
    said: list[str] = []
    found = releases.measure(
        _plan(tmp_path, ["27.0.0", "28.0.0", "29.0.0"]), said.append
    )
    assert [f.release for f in found.failures] == ["28.0.0"]
    assert "28.0.0 did not start" in found.failures[0].reason
    assert "release 28.0.0 left out: its Keystone does not start" in said
    assert found.state is not None and list(found.state.configs) == ["27.0.0", "29.0.0"]
    assert len(seen["log"]) == 4  # 2 rounds x 2 releases
    assert seen["stopped"] == ["27.0.0", "29.0.0", "27.0.0"]  # 27 up, then 29 and 27


def test_fewer_than_two_releases_left_is_an_error_naming_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = fake_sides.install(monkeypatch)
    seen["fail_start"] = {"28.0.0"}
    with pytest.raises(MatrixError, match=r"left out: 28.0.0\); 28.0.0 \(start\)"):
        releases.measure(_plan(tmp_path, ["27.0.0", "28.0.0"]), print)
