"""Tests for benchmarks.stall_models: the queue check before the loads."""

from __future__ import annotations

from benchmarks import stall_models


def test_queues_that_hold_rate_times_stall_pass_and_others_are_named() -> None:
    held = stall_models.check_queues(rate=6.5, stall=2.0, backlog=100, cap=200)
    assert "rate x stall = 13 requests" in held and held.endswith("both hold it")
    small = stall_models.check_queues(rate=60.0, stall=2.0, backlog=100, cap=100)
    assert "TOO SMALL: SYN retries" in small
