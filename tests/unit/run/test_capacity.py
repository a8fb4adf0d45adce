"""Tests for rally_keystone_perf.run.capacity: steps run and judged in turn."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import pytest

from rally_keystone_perf.layout.capacity import Step
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.run import capacity, capacity_search, capacity_steps
from rally_keystone_perf.run.rally_runner import RallyRunner
from tests.unit.run.fake_sides import FakeRunner

PLAN = capacity_steps.StepPlan(
    {"name": "KeystonePerf.list_projects", "args": {}, "contexts": {}}, 10.0, 20
)
LIMITS = capacity_search.Limits(start=10, precision=0.2, repeats=1)


@pytest.fixture(autouse=True)
def _probe(monkeypatch: pytest.MonkeyPatch) -> None:
    """The machine's speed probe (a subprocess of 0.5 s) read as 0.2 s."""
    monkeypatch.setattr(capacity.machine_probe, "probe", lambda: 0.2)


def _search(tmp_path: Path, seen: dict[str, Any], capacity_rate: float):
    run = RunDir(tmp_path)
    rally = cast(RallyRunner, FakeRunner(run, seen))

    def judge(report: Path) -> Step:
        (task,) = seen["tasks"][-1:]
        step = json.loads(task.read_text())["subtasks"][0]["workloads"][0]
        rate = step["runner"]["keystone_perf_arrival_rate"]["rate"]
        misses = () if rate <= capacity_rate else ("p95<100ms: 300 ms",)
        return Step(rate, rate, misses)

    lines: list[str] = []
    found = capacity.run_search(rally, run, PLAN, LIMITS, judge, lines.append)
    return found, lines


def test_each_step_is_a_task_whose_report_is_judged(tmp_path: Path) -> None:
    seen: dict[str, Any] = {"log": [], "interrupt_at": None}
    (outcome, steps), lines = _search(tmp_path, seen, capacity_rate=27)
    assert [s.rate for s in steps][:3] == [10, 20, 40]
    assert 20 <= outcome.sustained <= 27 < outcome.above  # type: ignore[operator]
    assert seen["log"] == ["capacity"] * len(steps)
    assert [t.name for t in seen["tasks"]][:2] == [
        "step-01-10.0.json",
        "step-02-20.0.json",
    ]
    assert lines[0] == "capacity step 1: 10.0/s for 10 s (machine speed probe 0.200 s)"
    assert lines[1] == "  met: 10.0/s answered of 10.0/s offered"
    assert "  missed: 40.0/s answered of 40.0/s offered; p95<100ms: 300 ms" in lines


def test_an_interrupt_keeps_the_steps_done(tmp_path: Path) -> None:
    seen: dict[str, Any] = {"log": [], "interrupt_at": 3}
    with pytest.raises(capacity.SearchInterrupted) as stopped:
        _search(tmp_path, seen, capacity_rate=27)
    assert [s.rate for s in stopped.value.steps] == [10, 20]


def test_each_steps_probe_is_kept_in_run_json(tmp_path: Path) -> None:
    seen: dict[str, Any] = {"log": [], "interrupt_at": None}
    (_, steps), _ = _search(tmp_path, seen, capacity_rate=27)
    recorded = RunDir(tmp_path).state().capacity_steps or []
    assert [r["rate"] for r in recorded] == [s.rate for s in steps]
    assert {r["probe"] for r in recorded} == {0.2}


def test_a_probe_that_fails_is_said_and_the_step_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken() -> float:
        raise OSError("no python")

    monkeypatch.setattr(capacity.machine_probe, "probe", broken)
    seen: dict[str, Any] = {"log": [], "interrupt_at": None}
    (_, steps), lines = _search(tmp_path, seen, capacity_rate=27)
    assert lines[0] == "machine probe skipped: OSError no python"
    assert lines[1] == "capacity step 1: 10.0/s for 10 s"
    assert steps[0].probe is None
