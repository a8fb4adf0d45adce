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
