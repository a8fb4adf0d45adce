"""A round's task: a config's levels as one task, each workload scaled."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rally_keystone_perf.tasks import rounds
from rally_keystone_perf.tasks.model import TaskFile, TaskFileError

TASKS = Path(__file__).resolve().parents[3] / "tasks"


def test_times_and_duration_are_scaled_up_to_a_whole() -> None:
    constant = {"constant": {"times": 100, "concurrency": 4}}
    assert rounds.scaled_runner(constant, 0.33) == {
        "constant": {"times": 33, "concurrency": 4}
    }
    assert constant["constant"]["times"] == 100  # not changed in place
    timed = {"constant_for_duration": {"duration": 20, "concurrency": 10}}
    assert rounds.scaled_runner(timed, 0.5)["constant_for_duration"]["duration"] == 10
    assert rounds.scaled_runner(timed, 0.01)["constant_for_duration"]["duration"] == 1


def test_every_user_still_sends_once() -> None:
    runner = {"constant": {"times": 40, "concurrency": 32}}
    assert rounds.scaled_runner(runner, 0.25)["constant"]["times"] == 32


def test_the_levels_become_one_task_in_their_order(tmp_path: Path) -> None:
    files = [TASKS / "eventlet" / f"create-token-c{n}-quick.json" for n in (4, 16)]
    path = rounds.write_round_task(
        [TaskFile.load(f) for f in files], tmp_path, "round-1", 0.5
    )
    document = json.loads(path.read_text())
    assert path == tmp_path / "round-1.json" and document["title"] == "round-1"
    workloads = [w for s in document["subtasks"] for w in s["workloads"]]
    assert [w["runner"]["constant"] for w in workloads] == [
        {"times": 50, "concurrency": 4},
        {"times": 50, "concurrency": 16},
    ]
    assert TaskFile.load(path).config.subtasks  # Rally's format takes it


def test_a_task_of_format_v1_is_refused(tmp_path: Path) -> None:
    old = tmp_path / "v1.json"
    runner = {"type": "constant", "times": 1}
    old.write_text(json.dumps({"KeystonePerf.create_token": [{"runner": runner}]}))
    with pytest.raises(TaskFileError, match="format v2"):
        rounds.round_document([TaskFile.load(old)], "r")
