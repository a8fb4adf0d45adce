"""Tests for rally_keystone_perf.report.figures.slo: the SLO text and its verdict."""

from __future__ import annotations

import pytest

from rally_keystone_perf.report.figures import slo


def test_clauses_parse_into_bounds_and_print_back() -> None:
    found = slo.parse_slo("p95<100ms, p99.9<=1.5s,success>=99.9%")
    assert found.latency == (
        slo.LatencyBound(0.95, 0.1),
        slo.LatencyBound(0.999, 1.5, inclusive=True),
    )
    assert found.success == slo.SuccessBound(0.999)
    assert found.text() == "p95<100ms,p99.9<=1500ms,success>=99.9%"
    assert slo.parse_slo("success>99%").latency == ()


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("", "an empty SLO"),
        ("p95<100", "'p95<100' does not parse"),
        ("p95>100ms", "'p95>100ms' does not parse"),
        ("p95<100ms,latency<1s", "'latency<1s' does not parse"),
        ("p0<1s", "between p1 and p99.99"),
        ("p95<0ms", "a time bound above 0"),
        ("success>=120%", "up to 100%"),
        ("p95<1s,p95<2s", "p95 is bounded twice"),
        ("success>=99%,success>=98%", "success is bounded twice"),
    ],
)
def test_a_bad_clause_is_named(text: str, named: str) -> None:
    with pytest.raises(slo.SloError, match=named):
        slo.parse_slo(text)


def test_misses_names_each_clause_missed() -> None:
    objective = slo.parse_slo("p50<100ms,success>=99%")
    fast = [0.01 * n for n in range(1, 11)]  # 10 to 100 ms, p50 55 ms
    assert slo.misses(objective, fast, failed=0) == []
    slow = [0.2] * 10
    assert slo.misses(objective, slow, failed=1) == [
        "p50<100ms: 200.0 ms",
        "success>=99%: 90.91%",
    ]
    assert slo.misses(objective, [], failed=3) == [
        "p50<100ms: none succeeded",
        "success>=99%: 0.00%",
    ]


def test_a_bound_met_exactly_passes_only_when_inclusive() -> None:
    at = [0.1] * 5
    assert slo.misses(slo.parse_slo("p50<100ms"), at, 0) == ["p50<100ms: 100.0 ms"]
    assert slo.misses(slo.parse_slo("p50<=100ms"), at, 0) == []
