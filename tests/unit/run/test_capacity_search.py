"""Tests for rally_keystone_perf.run.capacity_search on a simulated server."""

from __future__ import annotations

import math
import random

import pytest

from rally_keystone_perf.layout.capacity import Step
from rally_keystone_perf.run import capacity_search
from rally_keystone_perf.run.capacity_search import Limits

SLO_P95 = 0.100  # seconds


def queue(capacity: float, noise: float, seed: int = 1):
    """An M/M/1 server of ``capacity`` a second whose speed varies by
    ``noise`` (relative, normal) from step to step: its response p95 at
    rate r is ln(20) / (capacity - r), so p95 < 100 ms up to
    capacity - 10 ln(20)."""
    rng = random.Random(seed)

    def measure(rate: float) -> Step:
        speed = capacity * (1 + rng.gauss(0, noise))
        if rate >= speed:
            return Step(rate, speed, ("p95<100ms: overloaded",))
        p95 = math.log(20) / (speed - rate)
        return Step(rate, rate, () if p95 < SLO_P95 else (f"p95<100ms: {p95}",))

    return measure


def knee(capacity: float) -> float:
    return capacity - math.log(20) / SLO_P95


@pytest.mark.parametrize("capacity", [100.0, 300.0, 900.0])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_sustained_rate_is_found_within_5_percent(
    capacity: float, seed: int
) -> None:
    outcome = capacity_search.search(queue(capacity, 0.02, seed), Limits())
    assert outcome.sustained is not None and outcome.above is not None
    assert abs(outcome.sustained / knee(capacity) - 1) < 0.05, outcome
    assert outcome.above / outcome.sustained - 1 <= 0.03
    assert outcome.stopped == "the bracket is narrower than 3%"
    assert len(outcome.steps) <= Limits().max_steps


def test_no_rate_met_and_every_rate_met_are_said() -> None:
    none = capacity_search.search(queue(40.0, 0.0), Limits(start=50))
    assert none.sustained is None and none.above == 50
    assert none.stopped.startswith("no tested rate met the SLO")
    every = capacity_search.search(queue(900.0, 0.0), Limits(max_rate=100))
    assert (every.sustained, every.above) == (100, None)
    assert [s.offered for s in every.steps] == [5, 10, 20, 40, 80, 100]
    assert every.stopped == "every rate met the SLO up to the ceiling, 100/s"


def test_a_generator_that_falls_behind_stops_the_search() -> None:
    server = queue(900.0, 0.0)

    def measure(rate: float) -> Step:
        step = server(rate)
        return Step(step.offered, step.achieved, step.misses, rate > 150)

    outcome = capacity_search.search(measure, Limits())
    assert outcome.generator_limited and outcome.sustained == 80
    assert outcome.stopped.startswith("the load generator fell behind at 160.0/s")


def test_a_lag_behind_an_overloaded_server_is_a_missed_step() -> None:
    server = queue(100.0, 0.0)

    def measure(rate: float) -> Step:  # the server takes the generator's CPU
        step = server(rate)
        return Step(step.offered, step.achieved, step.misses, bool(step.misses))

    outcome = capacity_search.search(measure, Limits())
    assert not outcome.generator_limited
    assert outcome.stopped == "the bracket is narrower than 3%"
    assert abs(outcome.sustained / knee(100.0) - 1) < 0.05  # type: ignore[operator]


def test_a_lag_while_the_servers_cpu_is_busy_is_a_missed_step() -> None:
    """Near the limit, on a shared machine, the server's CPU delays the
    generator before the SLO is missed: the step is the server's, missed,
    and the search narrows on (a run here stopped at 10 of about 12/s)."""
    server = queue(100.0, 0.0)

    def measure(rate: float) -> Step:
        step = server(rate)
        busy = rate > 0.9 * knee(100.0)
        return Step(step.offered, step.achieved, step.misses, busy, busy)

    outcome = capacity_search.search(measure, Limits())
    assert not outcome.generator_limited
    assert outcome.stopped == "the bracket is narrower than 3%"


def test_the_rule_is_printed_and_bad_limits_refused() -> None:
    text = capacity_search.rule_text(Limits())
    assert "ramp from 5/s by x2 up to 2000/s" in text and "3 times" in text
    assert "95% of its offered rate or more (give or take one answer" in text
    with pytest.raises(ValueError, match="start rate"):
        Limits(start=0)
    with pytest.raises(ValueError, match="growth above 1"):
        Limits(growth=1)


def test_the_ramps_highest_rate_met_is_measured_again() -> None:
    server = queue(90.0, 0.0)  # p95 < 100 ms up to 60/s
    seen: list[float] = []

    def measure(rate: float) -> Step:  # 80/s met once, on a fast minute
        seen.append(rate)
        if rate == 80 and seen.count(80) == 1:
            return Step(rate, rate)
        return server(rate)

    outcome = capacity_search.search(measure, Limits())
    assert seen[:8] == [5, 10, 20, 40, 80, 160, 80, 80]
    assert outcome.sustained is not None and outcome.above is not None
    assert outcome.above <= 80 and abs(outcome.sustained / knee(90.0) - 1) < 0.05


def test_a_lone_rate_met_once_is_not_sustained() -> None:
    seen: list[float] = []

    def measure(rate: float) -> Step:  # only the very first step is met
        seen.append(rate)
        return Step(rate, rate, () if len(seen) == 1 else ("p95<100ms: 300 ms",))

    outcome = capacity_search.search(measure, Limits(start=5))
    assert seen == [5, 10, 5, 5]
    assert (outcome.sustained, outcome.above) == (None, 5)
    assert outcome.stopped == "no tested rate met the SLO (from 5/s, measured again)"


def test_the_ramp_ends_at_the_ceiling() -> None:
    limits = capacity_search.Limits(start=5, max_rate=30, growth=2)
    assert capacity_search.ramp_rates(limits) == [5, 10, 20, 30]
    assert capacity_search.ramp_rates(capacity_search.Limits(5, 5)) == [5]


def test_the_most_iterations_a_search_may_start() -> None:
    limits = capacity_search.Limits(start=5, max_rate=30, growth=2, max_steps=6)
    # the ramp (65/s of steps), then 2 more steps at the ceiling; 10 s each
    assert capacity_search.most_iterations(limits, 10) == (65 + 2 * 30) * 10
    few = capacity_search.Limits(start=5, max_rate=30, growth=2, max_steps=2)
    assert capacity_search.most_iterations(few, 10) == 150
