"""Tests for rally_keystone_perf.loadgen.arrivals (the open-model schedule)."""

from __future__ import annotations

import statistics

import pytest

from rally_keystone_perf.loadgen import arrivals


def test_constant_arrivals_are_evenly_spaced() -> None:
    assert arrivals.Schedule(rate=4, times=5).offsets() == [0, 0.25, 0.5, 0.75, 1.0]
    # as many as start within the duration: 0, 0.5, ... 2.5
    assert len(arrivals.Schedule(rate=2, duration=3).offsets()) == 6
    assert len(arrivals.Schedule(rate=3, duration=0.5).offsets()) == 2


def test_poisson_arrivals_keep_the_rate_and_are_reproducible() -> None:
    schedule = arrivals.Schedule(rate=50, times=5000, arrivals="poisson", seed=7)
    offsets = schedule.offsets()
    assert offsets == schedule.offsets()  # the same seed, the same schedule
    assert offsets != arrivals.Schedule(50, 5000, None, "poisson", 8).offsets()
    assert offsets == sorted(offsets) and offsets[0] == 0
    gaps = [b - a for a, b in zip(offsets, offsets[1:], strict=False)]
    assert statistics.mean(gaps) == pytest.approx(1 / 50, rel=0.05)
    # exponential gaps: the spread is the mean (constant spacing has none)
    assert statistics.stdev(gaps) == pytest.approx(1 / 50, rel=0.1)
    within = arrivals.Schedule(rate=50, duration=20, arrivals="poisson").offsets()
    assert max(within) < 20 and len(within) == pytest.approx(1000, rel=0.1)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"rate": 0, "times": 3}, "rate must be above 0"),
        ({"rate": -1, "times": 3}, "rate must be above 0"),
        ({"rate": 1, "times": 3, "duration": 2}, "either times or duration"),
        ({"rate": 1}, "either times or duration"),
        ({"rate": 1, "times": 3, "arrivals": "bursts"}, "arrivals must be"),
    ],
)
def test_a_bad_schedule_is_refused(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        arrivals.Schedule(**kwargs)


def test_shares_deal_every_iteration_once() -> None:
    offsets = arrivals.Schedule(rate=10, times=11).offsets()
    dealt = arrivals.shares(offsets, 3)
    assert [len(share) for share in dealt] == [4, 4, 3]
    merged = sorted(pair for share in dealt for pair in share)
    assert merged == list(enumerate(offsets))
    assert dealt[1][:2] == [(1, 0.1), (4, 0.4)]  # each share spans the load
    with pytest.raises(ValueError):
        arrivals.shares(offsets, 0)


def test_a_record_is_seen_from_its_intended_start() -> None:
    done = {
        "timestamp": 100.25,  # started 0.25 s late
        "duration": 0.5,
        "idle_duration": 0.0,
        "error": [],
        "output": {"additive": [], "complete": [{"title": "trace"}]},
        "atomic_actions": [{"name": "keystone.list_projects"}],
    }
    seen = arrivals.response_record(done, intended=100.0)
    assert seen["timestamp"] == 100.0
    assert seen["duration"] == pytest.approx(0.75)  # waited 0.25, served 0.5
    assert seen["atomic_actions"] == done["atomic_actions"]  # service time
    assert seen["output"]["complete"] == [{"title": "trace"}]
    assert arrivals.scheduling_lag(seen) == pytest.approx(0.25)
    assert done["duration"] == 0.5  # the runner's own record untouched
    early = arrivals.response_record({**done, "timestamp": 99.999}, intended=100.0)
    assert arrivals.scheduling_lag(early) == 0.0  # clocks' jitter, not a lag


def test_a_dropped_iteration_fails_at_its_intended_time() -> None:
    record = arrivals.dropped_record(100.0, cap=8)
    assert record["timestamp"] == 100.0 and record["duration"] == 0.0
    assert record["error"][0] == arrivals.DROPPED
    assert arrivals.was_dropped(record["error"])
    assert not arrivals.was_dropped([]) and not arrivals.was_dropped(["HTTP 500"])
    assert "8 iterations were in flight" in record["error"][1]
    assert arrivals.scheduling_lag(record) is None


@pytest.mark.parametrize(
    "record",
    [
        [],
        {"output": []},
        {"output": {"additive": {}}},
        {"output": {"additive": [{"title": arrivals.LAG_TITLE, "data": []}]}},
        {"output": {"additive": [{"title": arrivals.LAG_TITLE, "data": [["lag"]]}]}},
        {"output": {"additive": ["x"]}},
    ],
)
def test_a_malformed_record_has_no_lag(record: object) -> None:
    assert arrivals.scheduling_lag(record) is None
