"""Tests for rally_keystone_perf.layout.capacity: a step's verdict."""

from __future__ import annotations

from rally_keystone_perf.layout.capacity import Step


def test_a_step_short_of_its_offered_rate_is_not_sustained() -> None:
    assert Step(100, 96).sustained and not Step(100, 94).sustained
    assert not Step(100, 100, ("p95",)).sustained
    # one answer's worth of rate (judged over 3 s: 1/3 a second) is the
    # count's grain: 14 answers of 15 due is met, 13 is not
    assert Step(5, 14 / 3, resolution=1 / 3).sustained
    assert not Step(5, 13 / 3, resolution=1 / 3).sustained
    assert not Step(5, 14 / 3).sustained


def test_a_lag_behind_a_busy_server_is_the_servers() -> None:
    assert Step(10, 10, (), True, True).sustained is False
    assert Step(10, 10, (), True, True).generator_bound is False
    assert Step(10, 10, (), True, False).generator_bound is True
