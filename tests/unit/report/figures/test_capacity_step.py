"""Tests for rally_keystone_perf.report.figures.capacity_step and
capacity_curve: a step's steady half judged, the curve and its knee."""

from __future__ import annotations

from pathlib import Path

import pytest

from rally_keystone_perf.loadgen import arrivals
from rally_keystone_perf.report.figures import capacity_curve, capacity_step, slo
from rally_keystone_perf.report.readers.rally_json import Workload, load_report
from tests.unit.report import factory as f

SLO = slo.parse_slo("p95<100ms,success>=99%")


def _step_report(
    path: Path, rate: float, service: float, drops: int = 0, late: int = 0
) -> Path:
    """A 10 s step at ``rate``: every iteration answered after ``service``
    seconds, the last ``drops`` arrivals dropped; the ``late`` arrivals
    before them answered after 0.8 s, past the step's end."""
    count = int(rate * 10)
    data = []
    for n in range(count):
        intended = 1000 + n / rate
        if n >= count - drops:
            data.append(arrivals.dropped_record(intended, 8))
            continue
        took = 0.8 if n >= count - drops - late else service
        action = [f.atomic("keystone.list_projects", intended, intended + took)]
        done = f.iteration(intended, took, atomics=action)
        data.append(arrivals.response_record(done, intended))
    runner = {"rate": rate, "duration": 10, "max_in_flight": 8}
    raw = f.workload(data, runner_type=arrivals.RUNNER, runner=runner)
    return f.write_report(path, [f.task([[raw]])])


def _workload(path: Path) -> Workload:
    (loaded,) = load_report(path)
    return loaded


def test_a_fast_step_meets_the_slo_at_its_rate(tmp_path: Path) -> None:
    figures = capacity_step.judge(
        _workload(_step_report(tmp_path / "r.json", 20, 0.05)), SLO
    )
    assert figures.judged == 100 and figures.failed == 0  # the second half only
    assert figures.achieved == pytest.approx(20, rel=0.05)
    assert figures.response[1] == pytest.approx(0.05)
    assert figures.misses == () and figures.step().sustained


def test_slow_answers_and_drops_miss_by_name(tmp_path: Path) -> None:
    report = _step_report(tmp_path / "r.json", 20, 0.2, drops=10)
    figures = capacity_step.judge(_workload(report), SLO)
    assert (figures.failed, figures.dropped) == (10, 10)
    assert figures.misses == ("p95<100ms: 200.0 ms", "success>=99%: 90.00%")
    assert not figures.step().sustained


def test_one_answer_past_the_windows_end_is_the_counts_grain(tmp_path: Path) -> None:
    # 3/s judged over 5 s: 15 answers due; one answered after the window
    # leaves 14 (2.8/s, 93%): within one answer, met; two late, missed
    lenient = slo.parse_slo("p95<1000ms,success>=99%")
    for late, met in ((1, True), (2, False)):
        report = _step_report(tmp_path / f"r{late}.json", 3, 0.05, late=late)
        figures = capacity_step.judge(_workload(report), lenient)
        assert figures.achieved == pytest.approx((15 - late) / 5)
        assert figures.window == 5 and figures.misses == ()
        assert figures.step().sustained is met


def test_a_closed_model_workload_is_not_a_step(tmp_path: Path) -> None:
    raw = f.workload([f.iteration(1000, 0.1)], runner_type="constant")
    path = f.write_report(tmp_path / "c.json", [f.task([[raw]])])
    with pytest.raises(ValueError, match="arrival-rate workload of a duration"):
        capacity_step.judge(_workload(path), SLO)


def test_the_curve_orders_steps_by_rate_and_finds_the_knee(tmp_path: Path) -> None:
    reports = [
        _step_report(tmp_path / "1.json", 10, 0.030),
        _step_report(tmp_path / "2.json", 40, 0.200),
        _step_report(tmp_path / "3.json", 20, 0.050),
        _step_report(tmp_path / "4.json", 30, 0.070),
    ]
    rows = [capacity_curve.curve_row(n, r, SLO) for n, r in enumerate(reports, 1)]
    curve = capacity_curve.capacity_curve(rows, SLO, 30, 40, "done", "rule")
    assert [r.figures.offered for r in curve.rows] == [10, 20, 30, 40]
    assert [r.number for r in curve.rows] == [1, 3, 4, 2]
    assert [r.met for r in curve.rows] == [True, True, True, False]
    assert curve.knee == 20  # 50 ms is within 2x of 30 ms; 70 ms is not
    at = curve.row_at(30)
    assert at is not None and at.number == 4 and at.tiers == ()
