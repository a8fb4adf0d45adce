"""Tests for rally_keystone_perf.report.figures.gate (criteria, tests, matching)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rally_keystone_perf import metrics
from rally_keystone_perf.report.figures import gate as g
from rally_keystone_perf.report.figures import verdicts as v
from rally_keystone_perf.report.figures import worse
from rally_keystone_perf.report.readers.rally_json import Workload, load_report
from tests.unit.report import factory as f
from tests.unit.report import runs as r

NAME = "KeystonePerf.create_token c2"


def _load(tmp_path: Path, name: str, *workloads: dict) -> list[Workload]:
    path = f.write_report(tmp_path / f"{name}.json", [f.task([[w] for w in workloads])])
    return load_report(path)


def _check(result: g.GateResult, criterion: str, workload: str = NAME) -> g.Check:
    return next(
        c for c in result.checks if c.criterion == criterion and c.workload == workload
    )


def _statuses(result: g.GateResult) -> dict[str, str]:
    return {c.criterion: c.status for c in result.checks if c.workload == NAME}


def _with_sla(workload: dict[str, Any], success: bool) -> dict[str, Any]:
    detail = "Failure rate criteria 0.00% <= 10.00% <= 0.00% - " + (
        "Passed" if success else "Failed"
    )
    workload["sla_results"] = {
        "sla": [{"criterion": "failure_rate", "success": success, "detail": detail}]
    }
    workload["pass_sla"] = success
    return workload


def test_same_distribution_passes_every_latency_check(tmp_path: Path) -> None:
    base = _load(tmp_path, "a", r.workload(r.gauss(1, 0.5)))
    cur = _load(tmp_path, "b", r.workload(r.gauss(2, 0.5)))
    result = g.gate(base, cur)
    assert result.passed
    assert _statuses(result) == {
        "success rate": g.PASS,
        f"median {r.ACTION}": g.PASS,
        f"p95 {r.ACTION}": g.PASS,
        "median total": g.PASS,
        "p95 total": g.PASS,
    }


def test_twice_as_slow_fails_median_and_p95(tmp_path: Path) -> None:
    base = _load(tmp_path, "a", r.workload(r.gauss(1, 0.5)))
    cur = _load(tmp_path, "b", r.workload(r.gauss(2, 1.0)))
    result = g.gate(base, cur)
    assert not result.passed
    failed = {c.criterion for c in result.failures}
    assert failed == {
        f"median {r.ACTION}",
        f"p95 {r.ACTION}",
        "median total",
        "p95 total",
    }
    median = _check(result, f"median {r.ACTION}")
    assert median.change == pytest.approx(median.current / median.baseline - 1)
    assert 0.8 < median.change < 1.2
    assert median.p_value is not None and median.p_value < 1e-6
    assert "worse than the baseline by more than 10%" in median.message
    said = median.verdict  # the check is made of its typed verdict
    assert said is not None and said.call == v.SLOWER and said.estimate is not None
    assert said.estimate.p_value == median.p_value
    assert said.estimate.ratio == pytest.approx(1 + median.change)
    assert said.estimate.method == worse.METHODS["median"]


def test_a_passed_latency_check_says_no_difference_past_the_margin(
    tmp_path: Path,
) -> None:
    base = _load(tmp_path, "a", r.workload(r.gauss(1, 0.5)))
    cur = _load(tmp_path, "b", r.workload(r.gauss(2, 0.5)))
    said = _check(g.gate(base, cur, max_regression=0.2), "p95 total").verdict
    assert said is not None and said.call == v.NO_DIFFERENCE and said.bound == 0.2
    few = worse.latency_verdict("median", [1.0] * 4, [1.0] * 9, 0.1, 0.05)
    assert few.call == v.NOT_MEASURABLE and g.STATUS[few.call] == g.SKIP
    assert few.reason == "too few samples (4 vs 9, need 5)"


@pytest.mark.parametrize(
    ("slowdown", "threshold", "status"),
    [
        (1.05, 0.10, g.PASS),  # slower, but within the tolerance
        (1.30, 0.10, g.FAIL),  # beyond it
        (1.30, 0.50, g.PASS),  # a looser gate
        (1.05, 0.0, g.FAIL),  # no tolerance: any significant slowdown
    ],
)
def test_threshold_on_the_median(
    tmp_path: Path, slowdown: float, threshold: float, status: str
) -> None:
    base_points = r.gauss(1, 0.5, count=200)
    base = _load(tmp_path, "a", r.workload(base_points))
    cur = _load(tmp_path, "b", r.workload([p * slowdown for p in r.gauss(2, 0.5, 200)]))
    result = g.gate(base, cur, max_regression=threshold)
    assert _check(result, f"median {r.ACTION}").status == status


def test_false_alarms_are_rare(tmp_path: Path) -> None:
    # 60 seeded pairs from one distribution, one workload per pair
    pairs = range(1, 61)
    base = _load(
        tmp_path, "a", *(r.workload(r.gauss(2 * t, 0.5), concurrency=t) for t in pairs)
    )
    cur = _load(
        tmp_path,
        "b",
        *(r.workload(r.gauss(2 * t + 1, 0.5), concurrency=t) for t in pairs),
    )
    result = g.gate(base, cur, max_regression=0.0)
    latency = [c for c in result.checks if c.criterion.startswith(("median", "p95"))]
    assert len(latency) == 60 * 4
    # alpha 0.05 with no tolerance: about 5% false alarms expected, not more
    assert sum(c.status == g.FAIL for c in latency) <= 0.1 * len(latency)


def test_heavier_tail_fails_p95_only(tmp_path: Path) -> None:
    base_points = r.gauss(1, 0.5, count=200)
    tail = sorted(r.gauss(2, 0.5, count=200))
    slow_tail = tail[:180] + [p * 3 for p in tail[180:]]  # slowest 10% 3x slower
    base = _load(tmp_path, "a", r.workload(base_points))
    cur = _load(tmp_path, "b", r.workload(slow_tail))
    result = g.gate(base, cur)
    assert _check(result, f"median {r.ACTION}").status == g.PASS
    p95 = _check(result, f"p95 {r.ACTION}")
    assert p95.status == g.FAIL
    # the figures are the report's: Rally's percentile of the same samples
    assert p95.current == pytest.approx(metrics.median_p95(slow_tail)[1])


def test_bootstrap_is_deterministic() -> None:
    base, cur = r.gauss(1, 0.5), r.gauss(2, 0.55)
    assert worse.p95_p_value(base, cur, 0.1) == worse.p95_p_value(base, cur, 0.1)
    assert 0 < worse.p95_p_value(base, cur, 0.1) <= 1


def test_too_few_samples_is_skipped_not_passed(tmp_path: Path) -> None:
    base = _load(tmp_path, "a", r.workload([0.1, 0.1, 0.1, 0.1]))
    cur = _load(tmp_path, "b", r.workload([9.0, 9.0, 9.0, 9.0]))
    result = g.gate(base, cur)
    median = _check(result, f"median {r.ACTION}")
    assert median.status == g.SKIP
    assert "too few samples (4 vs 4, need 5)" in median.message
    assert result.passed  # nothing could be judged


@pytest.mark.parametrize(("errors", "status"), [(12, g.FAIL), (1, g.PASS)])
def test_success_rate(tmp_path: Path, errors: int, status: str) -> None:
    base = _load(tmp_path, "a", r.workload(r.gauss(1, 0.5)))
    cur = _load(tmp_path, "b", r.workload(r.gauss(2, 0.5), errors=range(errors)))
    check = _check(g.gate(base, cur), "success rate")
    assert check.status == status
    assert check.current == pytest.approx((50 - errors) / 50)
    assert check.baseline == 1.0
    assert f"{50 - errors}/50" in check.message


def test_better_success_rate_passes(tmp_path: Path) -> None:
    base = _load(tmp_path, "a", r.workload(r.gauss(1, 0.5), errors=range(20)))
    cur = _load(tmp_path, "b", r.workload(r.gauss(2, 0.5)))
    assert _check(g.gate(base, cur), "success rate").status == g.PASS


def test_failed_sla_of_the_current_run_fails(tmp_path: Path) -> None:
    base = _load(tmp_path, "a", _with_sla(r.workload(r.gauss(1, 0.5)), True))
    cur = _load(tmp_path, "b", _with_sla(r.workload(r.gauss(2, 0.5)), False))
    result = g.gate(base, cur)
    (failure,) = result.failures
    assert failure.criterion == "sla failure_rate"
    assert failure.message.endswith("- Failed")


def test_missing_and_new_workloads(tmp_path: Path) -> None:
    both = r.workload(r.gauss(1, 0.5), concurrency=2)
    base = _load(tmp_path, "a", both, r.workload(r.gauss(2, 0.5), concurrency=4))
    cur = _load(tmp_path, "b", both, r.workload(r.gauss(3, 0.5), concurrency=8))
    result = g.gate(base, cur)
    missing = _check(result, "present", "KeystonePerf.create_token c4")
    assert missing.status == g.FAIL
    assert _check(result, "baseline", "KeystonePerf.create_token c8").status == g.SKIP
    assert [c.criterion for c in result.failures] == ["present"]


def test_repeated_workloads_are_numbered(tmp_path: Path) -> None:
    w = r.workload(r.gauss(1, 0.5))
    result = g.gate(_load(tmp_path, "a", w, w), _load(tmp_path, "b", w, w))
    assert {c.workload for c in result.checks} == {NAME, f"{NAME} #2"}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_regression": -0.1}, "max regression"),
        ({"alpha": 1.0}, "alpha"),
    ],
)
def test_bad_settings(tmp_path: Path, kwargs: dict, message: str) -> None:
    runs = _load(tmp_path, "a", r.workload(r.gauss(1, 0.5)))
    with pytest.raises(ValueError, match=message):
        g.gate(runs, runs, **kwargs)


def test_nothing_in_common_or_nothing_to_check(tmp_path: Path) -> None:
    base = _load(tmp_path, "a", r.workload(r.gauss(1, 0.5), name="KeystonePerf.x"))
    cur = _load(tmp_path, "b", r.workload(r.gauss(2, 0.5)))
    with pytest.raises(ValueError, match="no workload in common"):
        g.gate(base, cur)
    with pytest.raises(ValueError, match="no workloads"):
        g.gate(base, [])


# --- achieved concurrency ------------------------------------------------------

C4 = "KeystonePerf.create_token c4"


def _lanes(tmp_path: Path, base_slots: int, cur_slots: int) -> tuple[list, list]:
    """Baseline and current at concurrency 4 whose runners reached the slots."""
    base = r.workload(r.gauss(1, 0.5), concurrency=4, slots=base_slots)
    cur = r.workload(r.gauss(2, 0.5), concurrency=4, slots=cur_slots)
    return _load(tmp_path, "a", base), _load(tmp_path, "b", cur)


def test_a_workload_that_reached_another_concurrency_is_refused(
    tmp_path: Path,
) -> None:
    result = g.gate(*_lanes(tmp_path, 4, 2))
    (check,) = [c for c in result.checks if c.workload == C4]  # no latency check
    assert (check.criterion, check.status) == ("achieved concurrency", g.ERROR)
    assert (check.baseline, check.current) == (4, 2)
    assert check.message.startswith(
        "not comparable: concurrency 2 vs 4 (peak iterations in flight, "
        "current vs baseline)"
    )
    assert "--allow-concurrency-mismatch" in check.message
    assert result.errors == [check]
    assert not result.failures
    assert not result.passed


def test_allow_concurrency_mismatch_compares_and_says_so(tmp_path: Path) -> None:
    base, cur = _lanes(tmp_path, 4, 2)
    result = g.gate(base, cur, allow_concurrency_mismatch=True)
    check = _check(result, "achieved concurrency", C4)
    assert check.status == g.PASS
    assert check.message == (
        "concurrency 2 vs 4 (peak iterations in flight, current vs baseline): "
        "compared anyway (--allow-concurrency-mismatch)"
    )
    assert _check(result, "median total", C4).status == g.PASS
    assert result.passed and not result.errors


def test_within_ten_percent_no_concurrency_check(tmp_path: Path) -> None:
    base = r.workload(r.gauss(1, 0.5), concurrency=10, slots=10)
    cur = r.workload(r.gauss(2, 0.5), concurrency=10, slots=9)
    result = g.gate(_load(tmp_path, "a", base), _load(tmp_path, "b", cur))
    assert "achieved concurrency" not in {c.criterion for c in result.checks}
    assert result.passed


def test_a_serial_runner_is_gated_as_concurrency_1(tmp_path: Path) -> None:
    def serial(samples: list[float]) -> dict[str, Any]:
        data = r.timed(samples)
        times = {"times": len(samples)}
        return f.workload(data, name=r.SCENARIO, runner_type="serial", runner=times)

    base = _load(tmp_path, "a", serial(r.gauss(1, 0.5)))
    cur = _load(tmp_path, "b", serial(r.gauss(2, 0.5)))
    result = g.gate(base, cur)
    assert result.passed
    assert {c.workload for c in result.checks} == {"KeystonePerf.create_token c1"}
