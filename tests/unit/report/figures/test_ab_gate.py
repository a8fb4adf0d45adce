"""The gate on an A/B: B's median against A's, round by round."""

from __future__ import annotations

import random

from rally_keystone_perf.report.figures import ab, ab_gate
from rally_keystone_perf.report.figures.gate import ERROR, FAIL, PASS


def _workload(
    ratios: list[float], failures: int = 0, sla: bool = True
) -> ab.AbWorkload:
    pairs = []
    for n, ratio in enumerate(ratios, 1):
        a = ab.SideRound(1.0, 1.2, 4.0, 0.3, 40, 0)
        b = ab.SideRound(ratio, 1.2 * ratio, 4.0 / ratio, 0.3, 40, failures, sla)
        pairs.append(ab.RoundPair(n, "ab" if n % 2 else "ba", a, b))
    return ab.AbWorkload(0, "KeystonePerf.create_token", "constant", pairs)


def _statuses(workload: ab.AbWorkload, max_regression: float = 0.10) -> dict:
    result = ab_gate.gate([workload], max_regression, 0.05)
    return {check.criterion: check.status for check in result.checks}


def _noisy(center: float, spread: float, seed: int, rounds: int = 8) -> list[float]:
    rng = random.Random(seed)
    return [center * rng.gauss(1, spread) for _ in range(rounds)]


def test_b_much_slower_fails_the_median() -> None:
    statuses = _statuses(_workload(_noisy(1.3, 0.03, 1)))
    assert statuses == {"sla": PASS, "success rate": PASS, "median total": FAIL}


def test_a_real_but_tolerated_slowdown_passes() -> None:
    assert _statuses(_workload(_noisy(1.04, 0.01, 2)))["median total"] == PASS


def test_an_a_a_passes() -> None:
    for seed in range(20):
        assert _statuses(_workload(_noisy(1.0, 0.03, seed)))["median total"] == PASS


def test_rounds_that_disagree_are_an_error_not_a_pass() -> None:
    assert _statuses(_workload([0.6, 1.7, 0.8, 1.5]))["median total"] == ERROR
    assert _statuses(_workload([1.3]))["median total"] == ERROR


def test_b_failing_more_or_its_sla_fails() -> None:
    assert _statuses(_workload([1.0] * 8, failures=10))["success rate"] == FAIL
    assert _statuses(_workload([1.0] * 8, sla=False))["sla"] == FAIL


def test_the_medians_are_judged_together() -> None:
    """The more workloads, the wider each interval (Bonferroni)."""
    ratios = _noisy(1.12, 0.04, 7, rounds=4)
    one = ab_gate.gate([_workload(ratios)], 0.10, 0.05).checks[-1]
    many = ab_gate.gate([_workload(ratios)] * 10, 0.10, 0.05).checks[-1]
    assert one.message != many.message
