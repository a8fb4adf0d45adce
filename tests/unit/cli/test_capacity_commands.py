"""Tests for rally_keystone_perf.cli.capacity_commands: refusals before a server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rally_keystone_perf import cli


def _task(tmp_path: Path, count: int = 1) -> Path:
    workload = {
        "scenario": {"KeystonePerf.list_projects": {}},
        "runner": {"constant": {"times": 1}},
        "contexts": {"keystone_perf_tokens": {}},
    }
    path = tmp_path / "t.json"
    subtasks = [{"title": "s", "workloads": [workload] * count}]
    path.write_text(json.dumps({"version": 2, "title": "t", "subtasks": subtasks}))
    return path


def test_a_bad_slo_is_named_by_the_parser(tmp_path: Path, capsys) -> None:
    argv = ["capacity", "--task", str(_task(tmp_path)), "--slo", "p95<100ms,p99<<1s"]
    with pytest.raises(SystemExit) as exit_info:
        cli.build_parser().parse_args(argv)
    assert exit_info.value.code == 1
    assert "'p99<<1s' does not parse" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "count", "named"),
    [
        (["--start-rate", "0"], 1, "the start rate must be above 0"),
        (["--step-seconds", "0"], 1, "--step-seconds must be above 0"),
        ([], 2, "a capacity search runs one workload, this task has 2"),
        (["--os-cloud", "mine"], 1, "--os-cloud: give --max-rate, the highest"),
        (
            ["--os-cloud", "mine", "--max-rate", "9", "--processes", "3"],
            1,
            "--processes: with --os-cloud nothing is started",
        ),
    ],
)
def test_bad_limits_and_tasks_exit_1_before_any_server(
    tmp_path: Path, capsys, extra: list[str], count: int, named: str
) -> None:
    task = _task(tmp_path, count)
    runs = tmp_path / "runs"
    argv = ["capacity", "--task", str(task), "--slo", "p95<1s", "--runs-dir", str(runs)]
    assert cli.main([*argv, *extra]) == 1
    assert named in capsys.readouterr().err
    assert not runs.exists()


def test_help_names_the_search(capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.build_parser().parse_args(["capacity", "--help"])
    assert exit_info.value.code == 0
    words = " ".join(capsys.readouterr().out.split())
    for option in ("--slo", "--start-rate", "--max-rate", "--repeats", "--mode"):
        assert option in words
