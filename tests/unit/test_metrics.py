"""Tests for rally_keystone_perf.metrics: the statistics the SLAs, the report
and the gate share, each against a figure worked out by hand."""

from __future__ import annotations

import subprocess
import sys

import pytest

from rally_keystone_perf import metrics


def test_the_total_adds_the_idle_time() -> None:
    assert metrics.iteration_total(0.25, 0.5) == 0.75


def test_the_load_window_spans_every_iteration() -> None:
    window = None
    for timestamp, duration in ((10.0, 1.0), (9.5, 0.2), (10.5, 2.0)):
        window = metrics.widen(window, metrics.iteration_span(timestamp, duration))
    assert window == (9.5, 12.5)
    assert metrics.widen(None, None) is None
    assert metrics.widen((1.0, 2.0), None) == (1.0, 2.0)


def test_a_rate_needs_time_to_have_passed() -> None:
    assert metrics.rate(30, 12.0) == 2.5
    assert metrics.rate(30, 0.0) is None
    assert metrics.rate(30, None) is None


@pytest.mark.parametrize(
    ("points", "fraction", "expected"),
    [
        ([1.0, 2.0, 3.0, 4.0, 5.0], 0.5, 3.0),
        ([1.0, 2.0, 3.0, 4.0], 0.5, 2.5),  # linear between the closest ranks
        ([1.0, 2.0, 3.0, 4.0, 5.0], 0.9, 4.6),
        ([], 0.5, None),
    ],
)
def test_percentiles_are_rallys(
    points: list[float], fraction: float, expected: float | None
) -> None:
    found = metrics.percentile(points, fraction)
    assert found == (None if expected is None else pytest.approx(expected))


def test_median_and_p95_of_unsorted_points() -> None:
    assert metrics.median_p95([3.0, 1.0, 2.0]) == (2.0, pytest.approx(2.9))
    assert metrics.median_p95([]) == (None, None)


def test_the_sla_plugins_load_no_report_module() -> None:
    """Rally's plugin loader imports the SLA plugins: none of the report."""
    code = (
        "import sys, rally_keystone_perf.plugins.sla.percentile, "
        "rally_keystone_perf.plugins.sla.throughput; "
        "print(sorted(m for m in sys.modules "
        "if m.startswith('rally_keystone_perf.report')))"
    )
    shown = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert shown.stdout.strip() == "[]"
