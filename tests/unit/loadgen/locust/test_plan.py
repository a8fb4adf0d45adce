"""Tests for rally_keystone_perf.loadgen.locust.plan: Rally runners as Locust loads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rally_keystone_perf import paths
from rally_keystone_perf.loadgen.locust import plan
from rally_keystone_perf.tasks.model import TaskFile


def _workload(runner: str, config: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "name": "KeystonePerf.list_projects",
        "position": 0,
        "runner_type": runner,
        "runner": config,
        "contexts": {"keystone_perf_tokens": {}},
        "sla": {"failure_rate": {"max": 0}},
        "hooks": [],
    } | extra


def test_constant_shares_an_exact_budget() -> None:
    found = plan.workload_plan(_workload("constant", {"times": 200, "concurrency": 4}))
    assert found.load == plan.LoadPlan(4, times=200)
    assert (found.runner_type, found.runner) == (
        "constant",
        {"times": 200, "concurrency": 4},
    )
    assert found.contexts == {"keystone_perf_tokens": {}}
    few = plan.workload_plan(_workload("constant", {"times": 2, "concurrency": 8}))
    assert few.load.users == 2  # Rally never runs more threads than iterations


def test_constant_for_duration_and_rps() -> None:
    timed = {"duration": 60, "concurrency": 16, "timeout": 30}
    assert plan.workload_plan(
        _workload("constant_for_duration", timed)
    ).load == plan.LoadPlan(16, duration=60.0, timeout=30.0)
    paced = plan.workload_plan(_workload("rps", {"times": 100, "rps": 5}))
    assert paced.load == plan.LoadPlan(100, times=100, rate=5.0)
    capped = {"times": 100, "rps": 5, "max_concurrency": 10}
    assert plan.workload_plan(_workload("rps", capped)).load.users == 10


def test_the_arrival_rate_runner_is_max_in_flight_users_and_its_schedule() -> None:
    timed = {"rate": 50, "duration": 10, "max_in_flight": 20, "arrivals": "poisson"}
    found = plan.workload_plan(_workload("keystone_perf_arrival_rate", timed))
    assert found.load == plan.LoadPlan(
        20, duration=10.0, rate=50.0, arrivals="poisson", seed=0
    )
    counted = {"rate": 5, "times": 8, "max_in_flight": 100, "seed": 3}
    few = plan.workload_plan(_workload("keystone_perf_arrival_rate", counted)).load
    assert (few.users, few.times, few.arrivals, few.seed) == (8, 8, "constant", 3)


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"rate": 0, "times": 5, "max_in_flight": 2}, "runner rate must be a positive"),
        ({"rate": 5, "times": 5, "max_in_flight": 0}, "max_in_flight must be a pos"),
        ({"rate": 5, "max_in_flight": 2}, "either times or duration"),
        ({"rate": 5, "times": 5, "duration": 2, "max_in_flight": 2}, "not both"),
    ],
)
def test_a_wrong_arrival_rate_runner_is_refused_by_name(
    config: dict[str, Any], message: str
) -> None:
    with pytest.raises(plan.PlanError, match=message):
        plan.workload_plan(_workload("keystone_perf_arrival_rate", config))


@pytest.mark.parametrize(
    ("workload", "message"),
    [
        (_workload("serial", {"times": 3}), "runner 'serial' has no Locust mapping"),
        (
            _workload("rps", {"times": 9, "rps": {"start": 1, "end": 5, "step": 1}}),
            "rps with a ramp",
        ),
        (_workload("constant", {"times": 0}), "runner times must be a positive"),
        (
            _workload(
                "constant",
                {},
                name="KeystoneBasic.authenticate_user_and_validate_token",
            ),
            "KeystonePerf.* scenarios only",
        ),
    ],
)
def test_what_has_no_mapping_is_refused_by_name(
    workload: dict[str, Any], message: str
) -> None:
    with pytest.raises(plan.PlanError, match=message) as err:
        plan.workload_plan(workload)
    assert str(err.value).startswith(f"workload {workload['name']}[0]: ")


def test_a_bundled_task_file_maps(tmp_path: Path) -> None:
    path = paths.tasks_dir() / "uwsgi" / "list-projects-c10-quick.json"
    (found,) = plan.task_plans(TaskFile.load(path))
    runner = json.loads(path.read_text())["subtasks"][0]["workloads"][0]["runner"]
    assert found.scenario == "KeystonePerf.list_projects"
    assert found.runner_type in runner


def test_a_refusal_names_the_task_file(tmp_path: Path) -> None:
    path = tmp_path / "serial.json"
    workload = {
        "scenario": {"KeystonePerf.list_projects": {}},
        "runner": {"serial": {}},
    }
    path.write_text(
        json.dumps(
            {
                "version": 2,
                "title": "t",
                "subtasks": [{"title": "s", "workloads": [workload]}],
            }
        )
    )
    with pytest.raises(plan.PlanError, match=f"^{path}: workload"):
        plan.task_plans(TaskFile.load(path))


@pytest.mark.parametrize("times", [1, 7, 200, 1001])
@pytest.mark.parametrize("users", [[1], [2, 2], [3, 1], [1, 0, 2], [5, 5, 5]])
def test_split_budget_is_exact_and_proportional(times: int, users: list[int]) -> None:
    shares = plan.split_budget(times, users)
    assert sum(shares) == times
    for share, count in zip(shares, users, strict=True):
        assert abs(share - times * count / sum(users)) < 1
        assert count or not share


def test_split_budget_needs_a_user() -> None:
    with pytest.raises(ValueError, match="no user"):
        plan.split_budget(10, [0, 0])


def test_hooks_stay_with_rally() -> None:
    hooked = _workload("constant", {}, hooks=[{"action": ["sys_call", "true"]}])
    assert plan.workload_plan(hooked).load.users == 1
