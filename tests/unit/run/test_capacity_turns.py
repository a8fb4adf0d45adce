"""Tests for rally_keystone_perf.run.capacity_turns: searches in turns, resumed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rally_keystone_perf.layout.capacity import Step
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.run import (
    capacity,
    capacity_search,
    capacity_steps,
    rally_runner,
    rounds,
)
from rally_keystone_perf.run import capacity_turns as turns
from rally_keystone_perf.run.matrix import MatrixError
from tests.unit.run.fake_sides import FakeRunner

PLAN = capacity_steps.StepPlan(
    {"name": "KeystonePerf.list_projects", "args": {}, "contexts": {}}, 10.0, 20
)
LIMITS = capacity_search.Limits(start=5, precision=0.05, repeats=1)
CAPACITY = {"apache": 13.0, "nginx": 21.0}  # each simulated server's rate
RECORD = {"slo": "p95<500ms", "task": "list-projects-c10-quick"}


@pytest.fixture(autouse=True)
def _probe(monkeypatch: pytest.MonkeyPatch) -> None:
    """The machine's speed probe (a subprocess of 0.5 s) read as 0.2 s."""
    monkeypatch.setattr(capacity.machine_probe, "probe", lambda: 0.2)


class ReportingRunner(FakeRunner):
    """A fake runner whose report names its side and its step's rate."""

    def start_task(self, task: Path, tags: list[str]) -> rally_runner.TaskOutcome:
        outcome = super().start_task(task, tags)
        assert outcome.report is not None
        rate = json.loads(task.read_text())["subtasks"][0]["workloads"][0]["runner"]
        side = self.run.root.parent.name
        outcome.report.parent.mkdir(parents=True, exist_ok=True)
        outcome.report.write_text(json.dumps({"side": side, **rate}))
        return outcome


def judge(report: Path) -> Step:
    """A server of ``CAPACITY[side]`` a second: it meets any rate up to it."""
    found = json.loads(report.read_text())
    rate = found["keystone_perf_arrival_rate"]["rate"]
    misses = () if rate <= CAPACITY[found["side"]] else ("p95<500ms: 900 ms",)
    return Step(rate, rate, misses)


def _sides(tmp_path: Path, seen: dict[str, Any]) -> dict[str, Any]:
    sides = {}
    for label in CAPACITY:
        run = RunDir(tmp_path / label / "run")
        run.create()
        sides[label] = (run, ReportingRunner(run, seen))
    return sides


def _searches(state: turns.CapacityState) -> dict[str, turns.Search]:
    return turns.resumed(list(CAPACITY), LIMITS, state, judge)


def _run(tmp_path: Path, seen: dict[str, Any]) -> tuple[bool, dict[str, turns.Search]]:
    state = turns.CapacityState.open(tmp_path, RECORD, restart=False)
    searches = _searches(state)
    plans = dict.fromkeys(CAPACITY, PLAN)
    lines: list[str] = []
    searching = turns.Searching(searches, plans, judge, state, lines.append)
    done = rounds.take_turns(searching, _sides(tmp_path, seen))
    seen["lines"] = lines
    return done, searches


def test_each_search_finds_its_servers_rate_taking_turns(tmp_path: Path) -> None:
    seen: dict[str, Any] = {"log": [], "interrupt_at": None}
    done, searches = _run(tmp_path, seen)
    assert done
    for label, rate in CAPACITY.items():
        outcome = searches[label].outcome
        assert outcome is not None
        assert outcome.sustained <= rate < outcome.above  # type: ignore[operator]
        assert outcome.above / outcome.sustained - 1 <= LIMITS.precision  # type: ignore[operator]
    steps = [line.split(":")[0] for line in seen["lines"] if "capacity step" in line]
    # turns while both search: A B, B A, B A, A B (as the rounds' order)
    a, b = "apache", "nginx"
    assert steps[:8] == [a, b, b, a, b, a, a, b]


def test_the_steps_are_recorded_and_a_resume_replays_them(tmp_path: Path) -> None:
    seen: dict[str, Any] = {"log": [], "interrupt_at": 5}
    done, cut = _run(tmp_path, seen)
    assert not done
    recorded = json.loads((tmp_path / turns.STATE_FILE).read_text())
    assert [s["label"] for s in recorded["steps"]] == [
        "apache",
        "nginx",
        "nginx",
        "apache",
    ]
    assert {s["probe"] for s in recorded["steps"]} == {0.2}
    again: dict[str, Any] = {"log": [], "interrupt_at": None}
    done, searches = _run(tmp_path, again)
    assert done
    whole: dict[str, Any] = {"log": [], "interrupt_at": None}
    _, fresh = _run(tmp_path / "fresh", whole)
    for label in CAPACITY:  # the resumed search ends where an uncut one does
        assert searches[label].outcome == fresh[label].outcome
    assert len(again["log"]) == len(whole["log"]) - 4  # the 4 steps done: not again


def test_a_replayed_search_at_its_end_needs_no_step(tmp_path: Path) -> None:
    _run(tmp_path, {"log": [], "interrupt_at": None})
    state = turns.CapacityState.open(tmp_path, RECORD, restart=False)
    assert all(search.done for search in _searches(state).values())


def test_steps_of_another_plan_are_refused(tmp_path: Path) -> None:
    _run(tmp_path, {"log": [], "interrupt_at": 3})
    with pytest.raises(MatrixError, match="another SLO.*--restart"):
        turns.CapacityState.open(tmp_path, {**RECORD, "slo": "p95<1s"}, restart=False)
    assert turns.CapacityState.open(tmp_path, {}, restart=True).steps == []


def test_a_recorded_step_its_search_does_not_ask_for_is_refused(tmp_path: Path) -> None:
    _run(tmp_path, {"log": [], "interrupt_at": 3})
    state = turns.CapacityState.open(tmp_path, RECORD, restart=False)
    state.steps[1]["rate"] = 7.0
    with pytest.raises(MatrixError, match="step 1 of nginx at 7/s"):
        _searches(state)


def test_a_missing_report_is_refused(tmp_path: Path) -> None:
    _run(tmp_path, {"log": [], "interrupt_at": 3})
    state = turns.CapacityState.open(tmp_path, RECORD, restart=False)
    Path(state.steps[0]["report"]).unlink()
    with pytest.raises(MatrixError, match="is gone"):
        _searches(state)


def test_steps_of_a_config_not_searched_now_are_kept_not_replayed(
    tmp_path: Path,
) -> None:
    _run(tmp_path, {"log": [], "interrupt_at": 3})
    state = turns.CapacityState.open(tmp_path, RECORD, restart=False)
    only = turns.resumed(["nginx"], LIMITS, state, judge)
    assert list(only) == ["nginx"] and len(only["nginx"].taken) == 1
    assert len(state.steps) == 2


def test_a_search_given_its_steps_ends_as_the_callback_search_does() -> None:
    search = turns.Search.start("apache", LIMITS)
    while not search.done:
        assert search.asked is not None
        rate = search.asked
        step = Step(rate, rate, () if rate <= 13 else ("slow",))
        search.give(capacity.StepRun(len(search.taken) + 1, rate, Path("r"), step))

    def measure(rate: float) -> Step:
        return Step(rate, rate, () if rate <= 13 else ("slow",))

    assert search.outcome == capacity_search.search(measure, LIMITS)
