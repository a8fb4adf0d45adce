"""The neighbour that comes and goes: seeded, alternating, nothing left."""

from __future__ import annotations

import time

from benchmarks.neighbour import Neighbour


def test_it_switches_on_and_off_and_leaves_nothing_running() -> None:
    with Neighbour(7, shortest=0.05, longest=0.1) as neighbour:
        time.sleep(0.6)
        busy = neighbour._busy
    states = [on for _, on in neighbour.switches]
    assert len(states) >= 4
    assert all(a != b for a, b in zip(states, states[1:], strict=False))
    assert 0 < neighbour.on_share() < 1
    assert neighbour._busy is None
    if busy is not None:
        assert busy.poll() is not None


def test_the_same_seed_draws_the_same_schedule() -> None:
    first, second = Neighbour(3), Neighbour(3)
    draws = [(first._draw(), second._draw()) for _ in range(5)]
    assert all(a == b and 5 <= a <= 30 for a, b in draws)
    assert Neighbour(4)._draw() != Neighbour(3)._draw()
