"""Tests for the keystone_perf_arrival_rate runner (a scenario that sleeps)."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from rally_keystone_perf.loadgen import arrivals
from rally_keystone_perf.plugins.runners.arrival_rate import ArrivalRateRunner
from rally_keystone_perf.tasks import check
from rally_keystone_perf.tasks.model import TaskFileError


class _Task(dict):  # type: ignore[type-arg]
    """What a runner reads of Rally's task object."""

    def result_has_valid_schema(self, result: dict[str, Any]) -> bool:
        return isinstance(result["duration"], float) and isinstance(
            result["timestamp"], float
        )


class _Sleeps:
    """A scenario whose request takes ``seconds`` (or until ``stall`` is set)."""

    seconds = 0.01
    stall: threading.Event | None = None

    def __init__(self, context: dict[str, Any]) -> None:
        self._output = {"additive": [], "complete": []}

    def run(self) -> None:
        if self.stall is not None:
            self.stall.wait(5)
        time.sleep(self.seconds)

    def idle_duration(self) -> float:
        return 0.0

    def atomic_actions(self) -> list[dict[str, Any]]:
        return []


def _run(config: dict[str, Any], scenario: type = _Sleeps) -> ArrivalRateRunner:
    runner = ArrivalRateRunner(_Task(uuid="t-1"), {"type": "x", **config}, 1)
    context = {"task": {"uuid": "t-1"}, "owner_id": "w"}
    runner._run_scenario(scenario, "run", context, {})
    return runner


def _records(runner: ArrivalRateRunner) -> list[dict[str, Any]]:
    found = [r for batch in runner.result_queue for r in batch]
    return sorted(found, key=lambda r: r["timestamp"])


def test_iterations_start_on_the_schedule() -> None:
    runner = _run({"rate": 100, "times": 20, "max_in_flight": 10})
    records = _records(runner)
    assert len(records) == 20 and not [r for r in records if r["error"]]
    starts = [r["timestamp"] for r in records]
    gaps = [b - a for a, b in zip(starts, starts[1:], strict=False)]
    assert gaps == pytest.approx([0.01] * 19, abs=1e-6)  # the intended times
    lags = [arrivals.scheduling_lag(r) for r in records]
    assert all(lag is not None and lag >= 0 for lag in lags)
    assert all(r["duration"] >= 0.01 for r in records)  # lag + service
    events = [e["value"] for e in runner.event_queue if e["type"] == "iteration"]
    assert sorted(events) == list(range(1, 21))


def test_an_iteration_due_at_the_cap_is_dropped_at_its_time() -> None:
    class Slow(_Sleeps):
        seconds = 0.3  # two in flight for the whole schedule of 0.09 s

    records = _records(_run({"rate": 100, "times": 10, "max_in_flight": 2}, Slow))
    assert len(records) == 10
    dropped = [r for r in records if r["error"]]
    assert len(dropped) >= 5
    assert {r["error"][0] for r in dropped} == {arrivals.DROPPED}
    assert all(r["duration"] == 0.0 for r in dropped)
    started = [r for r in records if not r["error"]]
    assert records[0] in started  # the first two start, the next wait for none


def test_a_stall_shows_as_queueing_not_as_a_few_slow_iterations() -> None:
    """50 a second while the scenario's server stalls its first 0.6 s: the
    iterations due then all wait for it (a closed-model load of 4 users
    would have sent 4 and waited)."""
    stall = threading.Event()

    class Stalled(_Sleeps):
        pass

    Stalled.stall = stall
    timer = threading.Timer(0.6, stall.set)
    timer.start()
    records = _records(_run({"rate": 50, "times": 30, "max_in_flight": 40}, Stalled))
    timer.join()
    slow = [r for r in records if r["duration"] >= 0.1]
    assert len(records) == 30 and not [r for r in records if r["error"]]
    # due in its first 0.45 s (of 0.55 in the stall), each waited >= 0.1 s
    assert len(slow) >= 18


def test_an_abort_ends_the_schedule_and_keeps_what_ran() -> None:
    runner = ArrivalRateRunner(
        _Task(uuid="t-1"),
        {"type": "x", "rate": 20, "duration": 60, "max_in_flight": 4},
        1,
    )
    threading.Timer(0.3, runner.abort).start()
    began = time.monotonic()
    runner._run_scenario(_Sleeps, "run", {"task": {"uuid": "t-1"}}, {})
    assert time.monotonic() - began < 5
    assert 2 <= len(_records(runner)) < 60 * 20


@pytest.mark.parametrize(
    ("config", "named"),
    [
        ({"rate": 0, "times": 3, "max_in_flight": 2}, "rate"),
        ({"rate": 5, "times": 3, "max_in_flight": 0}, "max_in_flight"),
        ({"rate": 5, "times": 3, "duration": 2, "max_in_flight": 2}, "duration"),
        ({"rate": 5, "max_in_flight": 2}, "times"),
        ({"rate": 5, "times": 3}, "max_in_flight"),
        ({"rate": 5, "times": 3, "max_in_flight": 2, "arrivals": "x"}, "arrivals"),
    ],
)
def test_the_schema_refuses_a_bad_config_naming_the_argument(
    config: dict[str, Any], named: str
) -> None:
    with pytest.raises(jsonschema.ValidationError) as caught:
        jsonschema.validate({"type": "x", **config}, ArrivalRateRunner.CONFIG_SCHEMA)
    assert named in str(caught.value)


def test_the_schema_takes_a_good_config() -> None:
    for config in (
        {"rate": 5, "times": 3, "max_in_flight": 2},
        {"rate": 0.5, "duration": 10, "max_in_flight": 1, "arrivals": "poisson"},
    ):
        jsonschema.validate({"type": "x", **config}, ArrivalRateRunner.CONFIG_SCHEMA)


def test_rally_checks_a_task_file_with_the_runner(tmp_path: Path) -> None:
    """Registered through the entry point, checked as ``rally task start``
    checks a task (format 2: no ``type`` in the runner's arguments)."""
    runner = {"keystone_perf_arrival_rate": {"rate": 20, "max_in_flight": 16}}
    workload = {"scenario": {"KeystonePerf.list_projects": {}}, "runner": runner}
    task = {"version": 2, "title": "t", "subtasks": [{"title": "s", **workload}]}
    path = tmp_path / "open.json"
    path.write_text(json.dumps(task))
    with pytest.raises(TaskFileError, match="not valid under any of the given"):
        check.validate_task(path)  # neither times nor duration
    runner["keystone_perf_arrival_rate"]["duration"] = 30
    path.write_text(json.dumps(task))
    assert check.validate_task(path) == 1
