from __future__ import annotations

import importlib.util
from typing import Any

import pytest

from rally_keystone_perf.deploy.options import LaunchError
from rally_keystone_perf.loadgen.locust import protocol
from rally_keystone_perf.plugins.runners import locust_engine
from rally_keystone_perf.plugins.runners.locust_engine import LocustRunner


class _Task(dict):  # type: ignore[type-arg]
    """What a runner reads of Rally's task object."""

    def result_has_valid_schema(self, result: dict[str, Any]) -> bool:
        return "duration" in result


class _Scenario:
    @staticmethod
    def get_name() -> str:
        return "KeystonePerf.list_projects"


CONFIG = {
    "runner_type": "constant",
    "runner": {"times": 10, "concurrency": 3},
    "workers": 2,
}


def _runner() -> LocustRunner:
    return LocustRunner(_Task(uuid="task-1"), dict(CONFIG), batch_size=1)


def test_the_setup_carries_the_load_and_a_lean_context() -> None:
    context = {
        "task": _Task(uuid="task-1"),
        "env": {"platforms": {"openstack": {"admin": {"password": "x"}}}},
        "admin": {"credential": {"auth_url": "http://127.0.0.1:5000"}},
        "owner_id": "w-1",
    }
    setup = _runner()._setup(_Scenario, context, {"a": 1})  # type: ignore[arg-type]
    assert (setup.users, setup.times, setup.workers) == (3, 10, 2)
    assert setup.context["task"] == {"uuid": "task-1"}
    assert "env" not in setup.context  # the env's own secrets stay with Rally
    assert setup.context["admin"] == context["admin"]
    assert (setup.module, setup.qualname) == (__name__, "_Scenario")


def test_a_config_without_any_worker_is_refused() -> None:
    config = {**CONFIG, "workers": 0}
    runner = LocustRunner(_Task(uuid="task-1"), config, batch_size=1)
    context = {"task": _Task(uuid="task-1"), "owner_id": "w-1"}
    with pytest.raises(ValueError, match="no worker"):
        runner._setup(_Scenario, context, {})  # type: ignore[arg-type]


def test_the_runner_without_locust_refuses_naming_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "locust" else real(name, *a),
    )
    started = []
    monkeypatch.setattr(locust_engine.subprocess, "Popen", started.append)
    context = {"task": _Task(uuid="task-1"), "owner_id": "w-1"}
    with pytest.raises(LaunchError, match=r"rally-keystone-perf\[locust\]"):
        _runner()._run_scenario(_Scenario, "run", context, {})
    assert started == []  # no master started


def test_record_lines_become_rally_results_and_iteration_events(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    logged: list[str] = []
    monkeypatch.setattr(locust_engine.LOG, "info", logged.append)
    runner = _runner()
    record = {
        "duration": 0.1,
        "timestamp": 1.0,
        "idle_duration": 0.0,
        "error": [],
        "output": {"additive": [], "complete": []},
        "atomic_actions": [],
        protocol.ITERATION_KEY: 7,
    }
    failed = record | {protocol.ITERATION_KEY: 8, "error": ["E", "boom", ""]}
    line = protocol.event_line("records", records=[record, failed]).strip()
    assert runner._line(line) is None
    assert runner._line("a log line of the master") is None
    assert list(runner.result_queue) == [[record], [failed]]  # batch_size 1
    assert [e["value"] for e in runner.event_queue] == [7, 8]
    # one progress line for the batch, as rally_runner's watcher reads it
    uuid = runner.task["uuid"]
    assert f"Task {uuid} | ITERATIONS: 2 END: 1 failed" in logged
    end = runner._line(protocol.event_line("end", error=None, lost=[]).strip())
    assert end == {"event": "end", "error": None, "lost": []}
