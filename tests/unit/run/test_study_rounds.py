"""A study in rounds: every config each round, interrupts, resuming."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from rally_keystone_perf.deploy.options import LaunchOptions
from rally_keystone_perf.layout import rounds_state, state_files
from rally_keystone_perf.run import rally_runner
from rally_keystone_perf.run import study_rounds as sr
from rally_keystone_perf.run.matrix import MatrixError
from rally_keystone_perf.tasks.model import TaskFile
from tests.unit.run import fake_sides

TASKS = Path(__file__).resolve().parents[3] / "tasks"
LABELS = ("one", "four", "apache")


@pytest.fixture
def sides(monkeypatch) -> dict[str, Any]:
    return fake_sides.install(monkeypatch)


def _configs() -> dict[str, dict[str, Any]]:
    return {k: {"options": {"mode": k}, "tasks": ["t.json"]} for k in LABELS}


def _plan(tmp_path: Path, rounds: int = 3) -> sr.RoundsPlan:
    task = TaskFile.load(TASKS / "eventlet" / "create-token-c4-quick.json")
    return sr.RoundsPlan(
        folder=tmp_path / "study",
        seed="000",
        deployments=dict.fromkeys(LABELS),
        tasks={k: [task] for k in LABELS},
        rounds=rounds,
        scale=0.5,
    )


def _state(
    tmp_path: Path, rounds: int = 3, restart: bool = False
) -> rounds_state.RoundsState:
    return sr.open_state(tmp_path / "study", _configs(), 0.5, rounds, restart)


def test_every_round_runs_every_config_in_its_turn(sides, tmp_path: Path) -> None:
    state = _state(tmp_path)
    codes = sr.run_rounds(_plan(tmp_path), state, lambda m: None)
    assert codes == [0] * 9 and state.status == state_files.DONE
    configs = [line.split()[1] for line in sides["log"]]
    assert configs == [
        "config:one", "config:four", "config:apache",
        "config:four", "config:apache", "config:one",
        "config:apache", "config:one", "config:four",
    ]  # fmt: skip
    assert sides["stopped"] == ["apache", "four", "one"]
    loaded = rounds_state.RoundsState.load(tmp_path / "study")
    assert len(loaded.complete_rounds()) == 3
    assert sorted(loaded.reports()[0]) == ["apache", "four", "one"]
    assert loaded.configs["four"]["runs"] == [str(tmp_path / "study/four/run")]
    task = json.loads(sides["tasks"][0].read_text())  # the round's, scaled
    assert task["subtasks"][0]["workloads"][0]["runner"]["constant"]["times"] == 50


def test_an_interrupt_keeps_the_complete_rounds(sides, tmp_path: Path) -> None:
    sides["interrupt_at"] = 5  # round 2's second config
    state = _state(tmp_path)
    codes = sr.run_rounds(_plan(tmp_path), state, lambda m: None)
    assert sr.EXIT_INTERRUPTED in codes and state.status == state_files.INTERRUPTED
    assert len(sides["stopped"]) == 3
    assert [r.round_no for r in state.complete_rounds()] == [1]
    assert state.rounds[1].exit_codes["apache"] == rally_runner.EXIT_INTERRUPTED


def test_the_same_command_resumes_after_the_last_complete_round(
    sides, tmp_path: Path
) -> None:
    sides["interrupt_at"] = 5
    sr.run_rounds(_plan(tmp_path), _state(tmp_path), lambda m: None)
    sides["log"].clear()
    sides["interrupt_at"] = None
    state = _state(tmp_path)
    assert [r.round_no for r in state.rounds] == [1]  # the partial one dropped
    messages: list[str] = []
    sr.run_rounds(_plan(tmp_path), state, messages.append)
    assert [line.split()[2] for line in sides["log"]] == ["round:2"] * 3 + [
        "round:3"
    ] * 3
    assert "resuming after round 1 of 3" in messages[0]
    assert len(state.complete_rounds()) == 3
    assert len(state.configs["one"]["runs"]) == 2  # started anew


def test_more_rounds_asked_later_add_to_those_done(sides, tmp_path: Path) -> None:
    sr.run_rounds(_plan(tmp_path, 2), _state(tmp_path, 2), lambda m: None)
    state = _state(tmp_path, 3)
    sr.run_rounds(_plan(tmp_path, 3), state, lambda m: None)
    assert [r.round_no for r in state.complete_rounds()] == [1, 2, 3]
    messages: list[str] = []
    assert sr.run_rounds(_plan(tmp_path, 3), _state(tmp_path, 3), messages.append) == []
    assert messages == [f"all 3 rounds are done (recorded in {state.path})"]


def test_rounds_of_other_options_are_refused(sides, tmp_path: Path) -> None:
    sr.run_rounds(_plan(tmp_path, 2), _state(tmp_path, 2), lambda m: None)
    changed = _configs()
    changed["four"]["options"] = {"mode": "four", "processes": 8}
    with pytest.raises(MatrixError, match="other configs, options or task files"):
        sr.open_state(tmp_path / "study", changed, 0.5, 2, restart=False)
    assert sr.open_state(tmp_path / "study", changed, 0.5, 2, restart=True).rounds == []


def test_a_broken_state_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "study").mkdir()
    (tmp_path / "study" / rounds_state.RoundsState.FILE).write_text("{")
    with pytest.raises(MatrixError, match="not a study's rounds"):
        _state(tmp_path)


def _seconds(text: str) -> int:
    minutes, seconds = re.fullmatch(r"(\d+)m(\d\d)s", text).groups()  # type: ignore[union-attr]
    return int(minutes) * 60 + int(seconds)


def test_progress_names_the_round_and_the_time_left(sides, tmp_path: Path) -> None:
    ticks = iter(range(0, 100_000, 60))  # a minute a reading of the clock
    messages: list[str] = []
    plan, state = _plan(tmp_path, 2), _state(tmp_path, 2)
    sr.run_rounds(plan, state, messages.append, lambda: next(ticks))
    progress = [m for m in messages if m.startswith("round ")]
    assert len(progress) == 6 and "left" not in progress[0]
    assert progress[0].startswith("round 1/2: one (elapsed ")
    last = re.fullmatch(
        r"round 2/2: one \(elapsed (\S+), about (\S+) left\)", progress[-1]
    )
    assert last is not None, progress[-1]
    elapsed, left = (_seconds(t) for t in last.groups())
    assert left == elapsed // 5  # 5 of the 6 tasks done: one more to go


def test_a_config_recorded_as_it_reads_back(tmp_path: Path) -> None:
    options = LaunchOptions(mode="apache", keystone_build="keystone==29.1.0")
    configs = {"apache": {"options": sr.recorded_options(options), "tasks": ["t"]}}
    state = sr.open_state(tmp_path, configs, 1.0, 2, restart=False)
    state.save()
    again = sr.open_state(tmp_path, configs, 1.0, 2, restart=False)  # no refusal
    assert again.configs["apache"]["options"]["keystone_build"] == "keystone==29.1.0"
    other = sr.recorded_options(LaunchOptions(mode="apache"))
    with pytest.raises(MatrixError):
        sr.open_state(
            tmp_path, {"apache": {"options": other, "tasks": ["t"]}}, 1.0, 2, False
        )
