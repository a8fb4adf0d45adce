"""Rounds taken in turns: the counterbalanced order, the sides up and down."""

from __future__ import annotations

import itertools
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from rally_keystone_perf.run import rounds
from tests.unit.run import fake_sides


def test_two_sides_take_turns_ab_ba_ba_ab() -> None:
    orders = ["".join(rounds.balanced_order(n, "ab")) for n in range(1, 9)]
    assert orders == ["ab", "ba", "ba", "ab"] * 2


@pytest.mark.parametrize("count", [2, 3, 4, 5])
def test_every_side_holds_every_position_alike(count: int) -> None:
    sides = [f"s{i}" for i in range(count)]
    orders = [rounds.balanced_order(n, sides) for n in range(1, 2 * count + 1)]
    assert all(sorted(order) == sides for order in orders)
    for position in range(count):
        held = Counter(order[position] for order in orders)
        assert set(held.values()) == {2}, (position, held)
    # each side precedes each other side as often as it follows it
    before = Counter(
        (order[i], order[j])
        for order in orders
        for i, j in itertools.combinations(range(count), 2)
    )
    for x, y in itertools.permutations(sides, 2):
        assert before[(x, y)] == before[(y, x)]


def test_the_sides_come_up_in_order_and_all_stop(monkeypatch, tmp_path: Path) -> None:
    seen = fake_sides.install(monkeypatch)
    messages: list[str] = []
    deployments: dict[str, Any] = {"x": None, "y": None, "z": None}
    with rounds.open_sides(tmp_path, "xyz", deployments, {}, messages.append) as up:
        assert list(up) == ["x", "y", "z"]
        assert up["y"][0].root == tmp_path / "y" / "run"
    assert messages == ["starting side x", "starting side y", "starting side z"]
    assert seen["stopped"] == ["z", "y", "x"]
    assert seen["sampled_idle"] == [False] * 3  # each side watched in its turn only


def test_a_side_failing_to_start_stops_those_up(monkeypatch, tmp_path: Path) -> None:
    seen = fake_sides.install(monkeypatch)
    started = rounds.session.keystone_session

    def failing(runs: Path, deployment: Any, echo: Any, **options: Any) -> Any:
        if runs.name == "y":
            raise RuntimeError("y did not start")
        return started(runs, deployment, echo, **options)

    monkeypatch.setattr(rounds.session, "keystone_session", failing)
    with pytest.raises(RuntimeError, match="y did not start"):
        with rounds.open_sides(tmp_path, "xyz", dict.fromkeys("xyz"), {}, print):
            pass
    assert seen["stopped"] == ["x"]


class _Record:
    """A state file of rounds kept in memory; saves counted."""

    def __init__(self) -> None:
        self.status, self.rounds, self.saves, self.up = "", [], 0, {}

    def save(self) -> None:
        self.saves += 1

    def complete_rounds(self) -> list[Any]:
        return [r for r in self.rounds if len(r.reports) == 3]


class _Round:
    def __init__(self, round_no: int, order: list[str]) -> None:
        self.round_no, self.order = round_no, order
        self.reports: dict[str, str] = {}
        self.exit_codes: dict[str, int] = {}
        self.finished: float | None = None


def _engine(
    seen: dict[str, Any], tmp_path: Path, **turns: Any
) -> tuple[_Record, list[int], list[str]]:
    record, messages = _Record(), []

    def new_round(round_no: int, order: list[str], started: float) -> _Round:
        record.rounds.append(_Round(round_no, order))
        return record.rounds[-1]

    def sides_up(sides: Any, started: float) -> None:
        record.up = {side: run.root.parent.name for side, (run, _) in sides.items()}

    sides = ("x", "y", "z")
    count = turns.pop("count", 3)
    plan = rounds.Turns(tmp_path, sides, count, dict.fromkeys(sides), **turns)
    ticks = itertools.count(0, 10)
    codes = rounds.run_turns(
        plan,
        record,
        rounds.Hooks(new_round, sides_up),
        lambda side, n, run: (Path(f"{side}-{n}.json"), [f"{side}:{n}"]),
        messages.append,
        lambda: next(ticks),
    )
    return record, codes, messages


def test_the_engine_runs_every_side_each_round_in_turns(
    monkeypatch, tmp_path: Path
) -> None:
    seen = fake_sides.install(monkeypatch)
    record, codes, messages = _engine(seen, tmp_path, names={"x": "X"}, noun="side")
    assert record.status == "done" and codes == [0] * 9
    assert [r.order for r in record.rounds] == [
        ["x", "y", "z"], ["y", "z", "x"], ["z", "x", "y"]
    ]  # fmt: skip
    assert record.up == {"x": "x", "y": "y", "z": "z"}
    assert seen["log"][:3] == ["x:1", "y:1", "z:1"]
    assert record.saves >= 9 + 3  # after every task and every round
    assert messages[-9] == "round 1/3: side X (elapsed 30s)"  # 10 s a tick
    assert messages[-1].startswith("round 3/3: side y (elapsed ")
    assert messages[-1].endswith("about 21s left)")  # 170 s for 8 tasks
    assert sorted(seen["stopped"]) == ["x", "y", "z"]


def test_an_interrupt_keeps_the_complete_rounds_and_says_so(
    monkeypatch, tmp_path: Path
) -> None:
    seen = fake_sides.install(monkeypatch)
    seen["interrupt_at"] = 5
    record, codes, messages = _engine(seen, tmp_path)
    assert record.status == "interrupted"
    assert codes == [0, 0, 0, 0, rounds.EXIT_INTERRUPTED, rounds.EXIT_INTERRUPTED]
    assert messages[-1] == "interrupted: 1 complete rounds kept"
    assert sorted(seen["stopped"]) == ["x", "y", "z"]


def test_no_round_starts_past_the_budget(monkeypatch, tmp_path: Path) -> None:
    seen = fake_sides.install(monkeypatch)
    record, _, messages = _engine(seen, tmp_path, count=6, max_seconds=100)
    assert len(record.rounds) < 6 and record.status == "done"
    assert "time budget reached after" in messages[-1]


class _Countdown:
    """A mode whose sides each take ``left[side]`` steps, then drop out."""

    def __init__(self, left: dict[str, int], cut_at: int | None = None) -> None:
        self.left, self.cut_at = left, cut_at
        self.log: list[tuple[int, str]] = []
        self.turns: list[tuple[str, int, list[str]]] = []

    def sides_of(self, turn: int) -> list[str]:
        return [side for side, left in self.left.items() if left]

    def begin(self, turn: int, order: Any) -> None:
        self.turns.append(("begin", turn, list(order)))

    def step(self, turn: int, side: str, at: Any) -> bool:
        if len(self.log) == self.cut_at:
            return False
        self.log.append((turn, side))
        self.left[side] -= 1
        return True

    def end(self, turn: int) -> None:
        self.turns.append(("end", turn, []))


def test_a_mode_takes_turns_until_no_side_has_a_step() -> None:
    mode = _Countdown({"a": 3, "b": 1, "c": 2})
    up: dict[str, Any] = dict.fromkeys("abc")
    assert rounds.take_turns(mode, up)
    # turn 1: a b c; turn 2 (b done): rotated, c a; turn 3: a alone
    assert mode.log == [(1, "a"), (1, "b"), (1, "c"), (2, "c"), (2, "a"), (3, "a")]
    assert [t for t in mode.turns if t[0] == "begin"][-1] == ("begin", 3, ["a"])
    assert mode.turns[-1] == ("end", 3, [])


def test_only_the_sides_up_take_steps_and_a_cut_step_stops() -> None:
    alone = _Countdown({"a": 2, "b": 2})
    assert rounds.take_turns(alone, {"b": None})
    assert alone.log == [(1, "b"), (2, "b")] and alone.left == {"a": 2, "b": 0}
    cut = _Countdown({"a": 2, "b": 2}, cut_at=3)
    assert not rounds.take_turns(cut, dict.fromkeys("ab"))
    assert cut.log == [(1, "a"), (1, "b"), (2, "b")]
    assert ("end", 2, []) not in cut.turns
