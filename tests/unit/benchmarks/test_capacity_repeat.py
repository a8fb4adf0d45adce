"""Tests for benchmarks.capacity_repeat: reading capacity's output, the spread."""

from __future__ import annotations

import pytest

from benchmarks import capacity_repeat

OUT = """capacity against p95<500ms (each step's second half)
+-----------+------------+
| offered/s | achieved/s |
+-----------+------------+
|       5.0 |        5.0 | 1 |
|      10.0 |        9.9 | 2 |
+-----------+------------+
sustained: 5.0/s under p95<500ms (not at 10.0/s: the true limit lies between)
"""


def test_the_sustained_rate_the_rate_missed_and_the_steps() -> None:
    assert capacity_repeat.parse_output(OUT) == (5.0, 10.0, 2)
    every = "sustained: 20.0/s, every rate tried met it\n"
    assert capacity_repeat.parse_output(every) == (20.0, None, 0)
    none = "sustained: none of the rates tried met p95<1ms\n"
    assert capacity_repeat.parse_output(none) == (None, None, 0)


def test_the_spread_is_the_range_over_the_median() -> None:
    assert capacity_repeat.spread([10.0, 11.0, 12.0]) == pytest.approx(2 / 11)
    assert capacity_repeat.spread([10.0]) is None


def test_the_verdict_names_the_target_and_the_drift_taken_out() -> None:
    found = [capacity_repeat.Search(r, None, 5, 3.0, (0.2, 0.2)) for r in (20, 21)]
    assert "within the 15% target" in capacity_repeat.verdict(found)[0]
    apart = [
        capacity_repeat.Search(20, None, 5, 3.0, (0.2, 0.2), 0.3),
        capacity_repeat.Search(30, None, 5, 3.0, (0.2, 0.2), 0.2),
    ]
    first, scaled = capacity_repeat.verdict(apart)
    assert "outside the 15% target" in first
    assert scaled.startswith("spread of sustained x probe: 0% ")
