from __future__ import annotations

import json
from pathlib import Path

import pytest

from rally_keystone_perf.loadgen.locust import task as locust_task
from rally_keystone_perf.loadgen.locust.plan import PlanError
from rally_keystone_perf.tasks.model import TaskFile

HOOK = {
    "description": "kill node 2",
    "action": {"keystone_perf_fault": {"action": "kill", "target": "node2"}},
    "trigger": {"event": {"unit": "time", "at": [20]}},
}


def _task(tmp_path: Path, scenario: str = "KeystonePerf.list_projects") -> TaskFile:
    document = {
        "version": 2,
        "title": "t",
        "tags": ["x"],
        "subtasks": [
            {
                "title": "s",
                "workloads": [
                    {
                        "scenario": {scenario: {"a": 1}},
                        "runner": {"constant": {"times": 200, "concurrency": 4}},
                        "contexts": {"keystone_perf_tokens": {}},
                        "sla": {"failure_rate": {"max": 0}},
                        "hooks": [HOOK],
                    }
                ],
            }
        ],
    }
    path = tmp_path / "list-projects.json"
    path.write_text(json.dumps(document))
    return TaskFile.load(path)


def test_only_the_runner_changes_and_it_keeps_the_tasks_own(tmp_path: Path) -> None:
    options = locust_task.LocustOptions(workers=2, web_ui="127.0.0.1:8089")
    document = locust_task.locust_document(_task(tmp_path), options)
    workload = document["subtasks"][0]["workloads"][0]
    assert workload["scenario"] == {"KeystonePerf.list_projects": {"a": 1}}
    assert workload["contexts"] == {"keystone_perf_tokens": {}}
    assert workload["sla"] == {"failure_rate": {"max": 0}}
    assert workload["hooks"] == [HOOK]
    runner = workload["runner"]["keystone_perf_locust"]
    assert runner["runner_type"] == "constant"
    assert runner["runner"] == {"times": 200, "concurrency": 4}
    assert (runner["workers"], runner["web_ui"]) == (2, "127.0.0.1:8089")
    assert document["tags"] == ["x"]


def test_the_written_task_keeps_its_name_and_rally_reads_it(tmp_path: Path) -> None:
    out = locust_task.write_locust_task(
        _task(tmp_path), locust_task.LocustOptions(), tmp_path / "locust-tasks"
    )
    assert out.name == "list-projects.json"
    again = TaskFile.load(out)
    workload = next(again.workloads())
    assert workload["runner_type"] == "keystone_perf_locust"


def test_a_workload_without_mapping_is_refused_before_writing(tmp_path: Path) -> None:
    task = _task(tmp_path, scenario="KeystoneBasic.create_user")
    with pytest.raises(PlanError, match="KeystonePerf"):
        locust_task.write_locust_task(
            task, locust_task.LocustOptions(), tmp_path / "out"
        )
    assert not (tmp_path / "out" / "list-projects.json").exists()


def test_worker_hosts_come_from_the_runs_network() -> None:
    options = locust_task.LocustOptions(workers=0, host_count=2)
    network = {"namespaces": ["ksp1c1", "ksp1c2"], "shared_address": "198.18.3.1"}
    placed = options.on_hosts(network)
    assert placed.worker_hosts == ("ksp1c1", "ksp1c2")
    assert placed.bind_host == "198.18.3.1"
    assert placed.runner("constant", {})["worker_hosts"] == ["ksp1c1", "ksp1c2"]
    assert locust_task.LocustOptions().on_hosts(network).worker_hosts == ()
