"""A workload's shape: distributions, load over time, failures grouped."""

from __future__ import annotations

import pytest

from rally_keystone_perf.metrics import TOTAL
from rally_keystone_perf.report.figures import shape
from rally_keystone_perf.report.readers.rally_json import Iteration, Workload


def _iteration(start: float, duration: float, error: list | None = None) -> Iteration:
    action = {
        "name": "keystone.create_token",
        "started_at": start,
        "finished_at": start + duration,
        "failed": bool(error),
    }
    return Iteration(start, duration, 0.0, error or [], [action])


def _workload(iterations: list[Iteration]) -> Workload:
    return Workload(
        task_uuid="t",
        task_title="title",
        tags=[],
        scenario_name="KeystonePerf.create_token",
        scenario_args={},
        runner_type="constant",
        runner={"times": len(iterations), "concurrency": 2},
        contexts={},
        sla={},
        pass_sla=True,
        load_duration=10.0,
        full_duration=11.0,
        start_time=100.0,
        iterations=iterations,
        position=0,
    )


WORKLOAD = _workload(
    [
        _iteration(100.0, 1.0),
        _iteration(100.5, 2.0),
        _iteration(
            101.0,
            0.5,
            [
                "Unauthorized",
                "The request you have made requires authentication. (HTTP 401)",
                "tb",
            ],
        ),
        _iteration(103.0, 1.0),
        _iteration(104.0, 0.2, ["Unauthorized", "again", "tb"]),
        _iteration(104.5, 0.1, ["ServiceUnavailable", "503", "tb"]),
    ]
)


def test_each_action_and_the_total_ok_and_failed_apart() -> None:
    found = shape.action_samples(WORKLOAD)
    assert list(found) == ["keystone.create_token", TOTAL]
    assert found[TOTAL].ok == [1.0, 2.0, 1.0]
    assert found[TOTAL].failed == [0.5, 0.2, 0.1]


def test_histogram_counts_every_sample_once() -> None:
    bins = shape.histogram(shape.action_samples(WORKLOAD)[TOTAL])
    assert bins is not None
    assert len(bins.edges) == len(bins.ok) + 1
    assert sum(bins.ok) == 3 and sum(bins.failed) == 3
    assert bins.edges[0] == 0.1 and bins.edges[-1] == pytest.approx(2.0)
    assert bins.ok[-1] == 1  # the longest lands in the last bin
    assert shape.histogram(shape.Samples()) is None


def test_cdf_reaches_100_percent_with_bounded_points() -> None:
    assert shape.cdf([3.0, 1.0, 2.0]) == [
        (1.0, pytest.approx(100 / 3)),
        (2.0, pytest.approx(200 / 3)),
        (3.0, 100.0),
    ]
    many = shape.cdf([float(i) for i in range(1000)])
    assert len(many) <= shape.MAX_CDF_POINTS + 1 and many[-1] == (999.0, 100.0)
    assert shape.cdf([]) == []


def test_in_flight_is_a_step_line_of_the_iterations() -> None:
    points = shape.in_flight(WORKLOAD)
    # at 101 the first ends as the third starts: never three at once
    assert max(level for _, level in points) == 2
    assert points[-1][1] == 0  # all ended
    assert points[0] == (0.0, 0.0)


def test_throughput_counts_successful_ends_per_second() -> None:
    points = shape.throughput_over_time(WORKLOAD)
    length = 104.6 - 100.0
    width = length / len(points)
    assert sum(rate * width for _, rate in points) == pytest.approx(3)


def test_failures_grouped_by_type_most_frequent_first() -> None:
    unauthorized, unavailable = shape.failure_groups(WORKLOAD)
    assert (unauthorized.kind, unauthorized.count) == ("Unauthorized", 2)
    assert (unauthorized.first, unauthorized.last) == (1.0, 4.0)
    assert unauthorized.example.endswith("(HTTP 401)")
    assert (unavailable.kind, unavailable.count) == ("ServiceUnavailable", 1)
    assert shape.failure_groups(_workload([])) == []
