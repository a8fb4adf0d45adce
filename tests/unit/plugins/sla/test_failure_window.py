"""The failure_window SLA: failures only inside a window of the load."""

from __future__ import annotations

import jsonschema
import pytest

from rally_keystone_perf.plugins.sla.failure_window import FailureWindow
from tests.unit.report import factory as f


def _iteration(second: float, failed: bool, duration: float = 0.1) -> dict:
    return f.iteration(
        timestamp=1000.0 + second,
        duration=duration,
        atomics=[],
        error=("ConnectionError", "reset") if failed else None,
    )


@pytest.mark.parametrize(
    ("failed_at", "passes", "details"),
    [
        ([], True, "0 failed iteration(s), all within 20-30 s of the load"),
        ([20.5, 29.8], True, "2 failed iteration(s), all within 20-30 s"),
        ([21.0, 31.5], False, "1 of 2 failed iteration(s) outside 20-30 s, the "),
        ([5.0], False, "the first at 5.1 s"),
    ],
)
def test_failures_inside_the_window_pass(
    failed_at: list[float], passes: bool, details: str
) -> None:
    sla = FailureWindow({"from": 20, "to": 30})
    seconds = sorted({0.0, 10.0, 40.0, *failed_at})
    for second in reversed(seconds):  # out of order, as concurrent runners send
        sla.add_iteration(_iteration(second, second in failed_at))
    assert sla.success is passes
    assert details in sla.details()


def test_a_failure_counts_when_it_failed_not_when_it_started() -> None:
    sla = FailureWindow({"from": 20, "to": 30})
    sla.add_iteration(_iteration(0.0, False))
    sla.add_iteration(_iteration(18.6, True, duration=1.42))  # died at 20.02 s
    assert sla.success, sla.details()
    sla.add_iteration(_iteration(29.0, True, duration=1.5))  # failed at 30.5 s
    assert not sla.success and "the first at 30.5 s" in sla.details()


def test_merge_keeps_the_earliest_start() -> None:
    early, late = (
        FailureWindow({"from": 0, "to": 2}),
        FailureWindow({"from": 0, "to": 2}),
    )
    early.add_iteration(_iteration(0.0, False))
    late.add_iteration(_iteration(10.0, True))
    assert late.success  # alone, its failure is at 0 s of its own load
    assert not early.merge(late)  # 10 s after the merged start
    assert early.outside() == [pytest.approx(10.1)]


def test_the_schema_needs_both_bounds() -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"from": 20}, FailureWindow.CONFIG_SCHEMA)
    jsonschema.validate({"from": 20, "to": 30}, FailureWindow.CONFIG_SCHEMA)
