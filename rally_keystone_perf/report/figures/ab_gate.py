"""The gate on an A/B: did B (the change) make Keystone slower than A?

Per workload of the A/B (:mod:`.ab`):

``median total``
    FAIL when B's cost over A (the median of the iterations' total, round
    by round) is estimated above ``1 + max_regression`` *and* its interval
    lies wholly above no change; the intervals are made at ``1 - alpha/m``
    for the ``m`` workloads judged (Bonferroni), so the gate's family-wise
    false-alarm rate stays at ``alpha`` whatever the task's size. ERROR
    (exit 1: nothing found, nothing cleared) when the rounds cannot say:
    fewer than 2, or an interval reaching past 25% either way.
``server CPU/iteration`` (with ``cpu`` among the measures judged)
    the same rule on the server's CPU seconds per iteration, measured in
    the same rounds: a neighbour that comes and goes moves the latency of
    a round far more than the CPU Keystone spends on it. When both are
    judged, a workload FAILs when either is slower past the tolerance; one
    whose rounds cannot say is SKIPped when the other can, and ERROR only
    when neither can, nor a count of the workload judged beside them
    (:func:`settled_by_counts`). The two are not corrected against each other (the
    intervals stay at ``1 - alpha/m`` for the ``m`` workloads): they
    measure one cost twice, and a FAIL needs its estimate past the
    tolerance too. How often an A/A then fails is what
    ``benchmarks.ab_calibration`` measures: correcting for both halved the
    detections of a +10% build beside a neighbour that came and went.
``success rate``
    FAIL when B's iterations failed significantly more often than A's over
    all rounds (one-sided Fisher exact test at ``alpha``).
``sla``
    FAIL when an SLA of the task failed in one of B's rounds.

Each check fills the same :class:`.gate.Check` as a two-run gate, so the
gate's formats and JUnit XML are one: ``baseline`` is A's figure and
``current`` B's (the geometric mean of their rounds' medians).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

from rally_keystone_perf.report.figures import ab, verdicts, worse
from rally_keystone_perf.report.figures.gate import (
    ERROR,
    FAIL,
    PASS,
    SKIP,
    Check,
    GateResult,
)

MEDIAN_TOTAL = "median total"
SERVER_CPU = "server CPU/iteration"
# what --gate-on names: the timed measures judged in rounds, then the counts
TIMED = {"median": (ab.MEDIAN, MEDIAN_TOTAL), "cpu": (ab.SERVER_CPU, SERVER_CPU)}
GATE_ON = (*TIMED, "instructions", "statements")
DEFAULT_ON = ("median",)


def _geomean(values: Sequence[float | None]) -> float | None:
    logs = [math.log(v) for v in values if v]
    return math.exp(sum(logs) / len(logs)) if logs else None


def timed_check(
    workload: ab.AbWorkload, on: str, max_regression: float, confidence: float
) -> Check:
    """One timed measure's check (``on``: a key of :data:`TIMED`)."""
    measure, criterion = TIMED[on]
    found = workload.estimate(measure, confidence)
    base = _geomean([p.a.value(measure) for p in workload.pairs])
    current = _geomean([p.b.value(measure) for p in workload.pairs])
    said = verdicts.judge(found)
    if not said.measurable:
        status = ERROR
    elif said.call == verdicts.SLOWER and (found.regression or 0) > max_regression:
        status = FAIL
    else:
        status = PASS
    change = None if found.ratio is None else found.ratio - 1
    message = verdicts.describe(said)
    return Check(
        workload.label, criterion, status, base, current, change, None, message, said
    )


def _either(checks: list[Check]) -> list[Check]:
    """Timed checks of one workload judged together: one that cannot say is
    skipped when another can (an ERROR only when none can)."""
    if all(c.status == ERROR for c in checks):
        return checks
    return [
        dataclasses.replace(
            c, status=SKIP, message=f"{c.message}; judged on the others"
        )
        if c.status == ERROR
        else c
        for c in checks
    ]


def settled_by_counts(checks: Sequence[Check], counted: Sequence[str]) -> list[Check]:
    """A workload's timed checks that cannot say (ERROR) SKIPped when a
    count of it (a check whose criterion is among ``counted``) can: the
    counts judge it where the rounds disagree."""
    judged = {
        c.workload for c in checks if c.criterion in counted and c.status != ERROR
    }
    timed = {criterion for _, criterion in TIMED.values()}
    return [
        dataclasses.replace(
            c, status=SKIP, message=f"{c.message}; judged on the counts"
        )
        if c.criterion in timed and c.status == ERROR and c.workload in judged
        else c
        for c in checks
    ]


def success_check(workload: ab.AbWorkload, alpha: float) -> Check:
    """B's iterations failing more often than A's, over every round."""
    a_total = sum(p.a.iterations for p in workload.pairs)
    b_total = sum(p.b.iterations for p in workload.pairs)
    a_ok = a_total - sum(p.a.failures for p in workload.pairs)
    b_ok = b_total - sum(p.b.failures for p in workload.pairs)
    base = a_ok / a_total if a_total else None
    current = b_ok / b_total if b_total else None
    p_value = None
    status = PASS
    if a_total and b_total and b_ok < b_total:
        p_value = worse.success_p_value(a_ok, a_total, b_ok, b_total)
        status = FAIL if p_value < alpha else PASS
    message = f"A {a_ok}/{a_total}, B {b_ok}/{b_total} succeeded"
    return Check(
        workload.label, "success rate", status, base, current, None, p_value, message
    )


def sla_check(workload: ab.AbWorkload) -> Check:
    """An SLA failing in one of B's rounds."""
    failed = [p.round_no for p in workload.pairs if not p.b.sla_passed]
    status = FAIL if failed else PASS
    message = f"failed in B's rounds {failed}" if failed else "passed in every round"
    return Check(workload.label, "sla", status, message=message)


def gate(
    workloads: Sequence[ab.AbWorkload],
    max_regression: float,
    alpha: float,
    on: Sequence[str] = DEFAULT_ON,
) -> GateResult:
    """Every workload's checks, its timed measures among ``on`` judged
    together (Bonferroni over the workloads)."""
    timed = [name for name in on if name in TIMED]
    confidence = verdicts.judged(len(workloads), alpha)
    checks = []
    for workload in workloads:
        checks += [sla_check(workload), success_check(workload, alpha)]
        checks += _either(
            [timed_check(workload, name, max_regression, confidence) for name in timed]
        )
    return GateResult(max_regression, alpha, checks)
