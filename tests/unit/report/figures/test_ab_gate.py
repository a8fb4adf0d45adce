"""The gate on an A/B: B's median against A's, round by round."""

from __future__ import annotations

import random

from rally_keystone_perf.report.figures import ab, ab_gate
from rally_keystone_perf.report.figures.gate import ERROR, FAIL, PASS, SKIP, Check


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


def _busy(latency: list[float], cpu: list[float]) -> ab.AbWorkload:
    """B's rounds: its latency ratio and its server CPU ratio to A's."""
    pairs = []
    for n, (late, busy) in enumerate(zip(latency, cpu, strict=True), 1):
        a = ab.SideRound(1.0, 1.2, 4.0, 0.3, 40, 0)
        b = ab.SideRound(late, 1.2 * late, 4.0 / late, 0.3 * busy, 40, 0)
        pairs.append(ab.RoundPair(n, "ab" if n % 2 else "ba", a, b))
    return ab.AbWorkload(0, "KeystonePerf.validate_token", "constant", pairs)


def _judged(workload: ab.AbWorkload, on: tuple[str, ...]) -> dict[str, str]:
    result = ab_gate.gate([workload], 0.05, 0.05, on)
    return {check.criterion: check.status for check in result.checks}


def test_latency_that_disagrees_is_skipped_when_the_cpu_agrees() -> None:
    """A neighbour that comes and goes: latency ratios 0.6-1.7, the CPU's
    within 3%."""
    workload = _busy([0.6, 1.7, 0.8, 1.5, 0.7, 1.4], _noisy(1.0, 0.015, 3, 6))
    assert _judged(workload, ("median",))["median total"] == ERROR
    both = _judged(workload, ("median", "cpu"))
    assert both["median total"] == SKIP and both[ab_gate.SERVER_CPU] == PASS
    result = ab_gate.gate([workload], 0.05, 0.05, ("median", "cpu"))
    assert result.passed and not result.errors
    skipped = next(c for c in result.checks if c.status == SKIP)
    assert skipped.message.endswith("judged on the others")


def test_either_measure_slower_fails_and_neither_measurable_is_an_error() -> None:
    slower_cpu = _busy([0.6, 1.7, 0.8, 1.5, 0.7, 1.4], _noisy(1.12, 0.015, 4, 6))
    assert _judged(slower_cpu, ("median", "cpu"))[ab_gate.SERVER_CPU] == FAIL
    lost = _busy([0.6, 1.7, 0.8, 1.5], [0.5, 1.8, 0.7, 1.6])
    assert set(_judged(lost, ("median", "cpu")).values()) >= {ERROR}
    assert _judged(lost, ("median", "cpu"))["median total"] == ERROR


def test_the_cpu_alone_may_be_judged() -> None:
    workload = _busy(_noisy(1.3, 0.02, 5), _noisy(1.0, 0.01, 5))
    judged = _judged(workload, ("cpu",))
    assert "median total" not in judged and judged[ab_gate.SERVER_CPU] == PASS


def test_timed_checks_that_cannot_say_are_skipped_when_a_count_can() -> None:
    lost = _busy([0.6, 1.7, 0.8, 1.5], [0.5, 1.8, 0.7, 1.6])
    checks = ab_gate.gate([lost], 0.05, 0.05, ("median", "cpu")).checks
    label = lost.label
    counted = Check(label, "instructions/request", FAIL, 1e6, 1.1e6, 0.1)
    settled = ab_gate.settled_by_counts([*checks, counted], ("instructions/request",))
    said = {c.criterion: c for c in settled}
    assert said["median total"].status == SKIP
    assert said[ab_gate.SERVER_CPU].status == SKIP
    assert said["median total"].message.endswith("; judged on the counts")
    # a count that cannot say either settles nothing
    unsure = Check(label, "instructions/request", ERROR)
    kept = ab_gate.settled_by_counts([*checks, unsure], ("instructions/request",))
    assert {c.criterion: c.status for c in kept}["median total"] == ERROR
