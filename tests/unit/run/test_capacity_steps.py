"""Tests for rally_keystone_perf.run.capacity_steps: the step tasks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rally_keystone_perf.run import capacity_steps
from rally_keystone_perf.tasks.model import TaskFile, TaskFileError


def _task(tmp_path: Path, *workloads: dict) -> TaskFile:
    path = tmp_path / "t.json"
    document = {
        "version": 2,
        "title": "t",
        "subtasks": [{"title": "s", "workloads": list(workloads)}],
    }
    path.write_text(json.dumps(document))
    return TaskFile.load(path)


LIST = {
    "scenario": {"KeystonePerf.list_projects": {}},
    "runner": {"constant": {"times": 10, "concurrency": 2}},
    "contexts": {"keystone_perf_tokens": {}},
    "sla": {"failure_rate": {"max": 0}},
}


def test_a_step_is_the_workload_at_its_rate(tmp_path: Path) -> None:
    workload = capacity_steps.capacity_workload(_task(tmp_path, LIST))
    plan = capacity_steps.StepPlan(workload, 20.0, 50)
    path = capacity_steps.write_step(tmp_path / "steps", 3, plan, 12.5)
    assert path.name == "step-03-12.5.json"
    (subtask,) = json.loads(path.read_text())["subtasks"]
    (step,) = subtask["workloads"]
    assert step["scenario"] == {"KeystonePerf.list_projects": {}}
    assert step["runner"] == {
        "keystone_perf_arrival_rate": {
            "rate": 12.5,
            "duration": 20.0,
            "max_in_flight": 50,
        }
    }
    assert step["contexts"] == {"keystone_perf_tokens": {}}
    assert step["sla"] == {} and step["hooks"] == []
    TaskFile.load(path)  # Rally's own task format takes it


def test_the_task_s_own_rate_is_that_of_its_open_model_runner(
    tmp_path: Path,
) -> None:
    rated = {**LIST, "runner": {"keystone_perf_arrival_rate": {"rate": 4.35}}}
    plan = capacity_steps.StepPlan(
        capacity_steps.capacity_workload(_task(tmp_path, rated)), 20.0, 50
    )
    assert plan.task_rate == 4.35
    constant = capacity_steps.capacity_workload(_task(tmp_path, LIST))
    assert capacity_steps.StepPlan(constant, 20.0, 50).task_rate is None


def test_two_workloads_or_hooks_are_refused(tmp_path: Path) -> None:
    with pytest.raises(TaskFileError, match="runs one workload, this task has 2"):
        capacity_steps.capacity_workload(_task(tmp_path, LIST, LIST))
    hooked = dict(
        LIST,
        hooks=[
            {
                "action": {"sys_call": "true"},
                "trigger": {"event": {"unit": "iteration", "at": [1]}},
            }
        ],
    )
    with pytest.raises(TaskFileError, match="has hooks; a capacity search runs none"):
        capacity_steps.capacity_workload(_task(tmp_path, hooked))
