"""The A/B's rounds: their order, the state file, interrupts and the budget."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rally_keystone_perf.layout import ab_state, state_files
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.run import ab, rally_runner
from tests.unit.run import fake_sides


def test_rounds_are_counterbalanced() -> None:
    orders = [ab.round_order(n) for n in range(1, 9)]
    assert orders == ["ab", "ba", "ba", "ab"] * 2
    firsts = [o[0] for o in orders]
    assert firsts.count("a") == firsts.count("b")


@pytest.fixture
def sides(monkeypatch) -> dict[str, Any]:
    return fake_sides.install(monkeypatch)


def _plan(tmp_path: Path, rounds: int = 4, **kwargs: Any) -> ab.AbPlan:
    fields: dict[str, Any] = {
        "deployments": {"a": None, "b": None},
        "options": {"a": {"processes": 2}, "b": {"processes": 1}},
        **kwargs,
    }
    return ab.AbPlan(
        folder=tmp_path / "ab", task=Path("task.json"), rounds=rounds, **fields
    )


def test_every_round_runs_both_sides_in_its_order(sides, tmp_path: Path) -> None:
    state = ab.run_ab(_plan(tmp_path), lambda run: Path("task.json"), lambda m: None)
    assert state.status == state_files.DONE
    assert sides["log"] == [
        "ab:a round:1", "ab:b round:1", "ab:b round:2", "ab:a round:2",
        "ab:b round:3", "ab:a round:3", "ab:a round:4", "ab:b round:4",
    ]  # fmt: skip
    assert sides["stopped"] == ["b", "a"]
    loaded = ab_state.AbState.load(tmp_path / "ab")
    assert [r.order for r in loaded.rounds] == ["ab", "ba", "ba", "ab"]
    assert len(loaded.complete_rounds()) == 4
    assert loaded.sides["b"]["options"] == {"processes": 1}
    assert loaded.sides["a"]["run"].endswith("ab/a/run")


def test_an_interrupt_keeps_the_complete_rounds(sides, tmp_path: Path) -> None:
    sides["interrupt_at"] = 4  # round 2's second side
    state = ab.run_ab(_plan(tmp_path), lambda run: Path("t"), lambda m: None)
    assert state.status == state_files.INTERRUPTED
    assert sides["stopped"] == ["b", "a"]
    loaded = ab_state.AbState.load(tmp_path / "ab")
    assert [r.round_no for r in loaded.complete_rounds()] == [1]
    assert loaded.rounds[1].exit_codes == {"b": 0, "a": rally_runner.EXIT_INTERRUPTED}


def test_no_round_starts_past_the_budget(sides, tmp_path: Path) -> None:
    ticks = iter(range(0, 1000, 10))
    plan = _plan(tmp_path, rounds=8, max_seconds=45)
    state = ab.run_ab(plan, lambda run: Path("t"), lambda m: None, lambda: next(ticks))
    assert state.status == state_files.DONE
    assert len(state.complete_rounds()) < 8


def test_a_side_with_a_session_starts_no_keystone(sides, tmp_path: Path) -> None:
    opened: list[str] = []

    @contextlib.contextmanager
    def cloud(folder: Path) -> Iterator[tuple]:
        run = RunDir(folder / "external")
        run.create()
        opened.append(folder.name)
        try:
            yield run, fake_sides.FakeRunner(run, sides)
        finally:
            opened.append("swept")

    plan = _plan(
        tmp_path,
        rounds=2,
        deployments={"b": None},
        options={"a": {"target": "http://k/v3 (external)"}, "b": {}},
        sessions={"a": cloud},
    )
    messages: list[str] = []
    state = ab.run_ab(plan, lambda run: Path("t"), messages.append)
    assert state.status == state_files.DONE and len(state.complete_rounds()) == 2
    assert opened == ["a", "swept"] and sides["stopped"] == ["b"]
    assert "side A: http://k/v3 (external)" in messages
    assert state.sides["a"]["run"].endswith("ab/a/external")


def test_counts_alone_start_no_side_and_record_no_round(sides, tmp_path: Path) -> None:
    state = ab.counts_only(_plan(tmp_path, rounds=0), clock=lambda: 5.0)
    assert state.status == state_files.DONE
    assert sides["log"] == [] and sides["stopped"] == []
    loaded = ab_state.AbState.load(tmp_path / "ab")
    assert loaded.rounds == [] and loaded.rounds_planned == 0
    assert loaded.sides == {
        "a": {"options": {"processes": 2}},
        "b": {"options": {"processes": 1}},
    }
    assert (loaded.started, loaded.finished) == (5.0, 5.0)
