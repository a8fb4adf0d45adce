"""Tests for ``--engine`` (nothing starts: the launcher is refused)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rally_keystone_perf import cli
from rally_keystone_perf.cli import engine_options
from rally_keystone_perf.deploy import launcher
from tests.unit.rally_fakes import write_task


def _args(*argv: str) -> Any:
    return cli.build_parser().parse_args(["run", *argv])


def test_rally_is_the_default_engine() -> None:
    assert engine_options.locust_options(_args()) is None


def test_locust_options_from_arguments() -> None:
    options = engine_options.locust_options(
        _args(
            "--engine",
            "locust",
            "--workers",
            "3",
            "--web-ui",
            "--master-bind",
            "0.0.0.0",
        )
    )
    assert options is not None
    assert (options.workers, options.expect_workers) == (3, 0)
    assert (options.bind_host, options.web_ui) == (
        "0.0.0.0",
        engine_options.DEFAULT_WEB_UI,
    )


def test_workers_elsewhere_only_means_no_local_worker() -> None:
    options = engine_options.locust_options(
        _args("--engine", "locust", "--expect-workers", "2")
    )
    assert options is not None and (options.workers, options.expect_workers) == (0, 2)


def test_locust_options_need_the_locust_engine() -> None:
    with pytest.raises(ValueError, match="--workers, --web-ui need --engine locust"):
        engine_options.locust_options(_args("--workers", "2", "--web-ui"))


@pytest.mark.parametrize("argv", [["--workers", "0"], ["--web-ui", "8089"]])
def test_bad_engine_arguments_exit_1(argv: list[str], capsys: Any) -> None:
    with pytest.raises(SystemExit) as exit_:
        _args("--engine", "locust", *argv)
    assert exit_.value.code == 1


def test_a_workload_locust_cannot_run_is_refused_before_anything_starts(
    tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(launcher, "up", lambda *a, **k: pytest.fail("started"))
    task = write_task(
        tmp_path,
        {
            "scenario": {"KeystonePerf.create_token": {}},
            "runner": {"rps": {"times": 10, "rps": {"start": 1, "end": 5, "step": 1}}},
        },
    )
    argv = ["run", "--engine", "locust", "--task", str(task)]
    assert cli.main([*argv, "--runs-dir", str(tmp_path / "runs")]) == 1
    error = capsys.readouterr().err.splitlines()[-1]
    assert error.startswith(f"error: {task}: workload KeystonePerf.create_token[0]")
    assert "rps with a ramp" in error
    assert not (tmp_path / "runs").exists()


def test_worker_hosts_are_launch_options_and_the_engines() -> None:
    args = _args("--engine", "locust", "--worker-hosts", "netns:2")
    options = engine_options.locust_options(args)
    assert options is not None
    assert (options.workers, options.host_count) == (0, 2)
    from rally_keystone_perf.cli import common

    assert common.launch_options(args).client_hosts == 2


@pytest.mark.parametrize("text", ["2", "docker:2", "netns:0", "netns:x"])
def test_worker_hosts_must_be_netns_k(text: str) -> None:
    with pytest.raises(SystemExit):
        _args("--engine", "locust", "--worker-hosts", text)
