"""Regression gate: a run's workloads against a baseline's, criterion by criterion.

Pure functions over loaded workloads. Workloads are matched like
:mod:`~rally_keystone_perf.report.figures.compare` matches them (scenario, runner
concurrency, occurrence). Each matched workload is checked on:

``present``
    every baseline workload must have run again (a workload that vanished,
    e.g. because its task crashed, must not pass silently).
``achieved concurrency`` (``achieved rate`` for ``rps``), only when it differs
    the peak of iterations in flight (why not the mean:
    :func:`.concurrency.offered_load`) more than 10% away from the baseline's:
    ``ERROR``, the comparison is refused (no success or latency check; the CLI
    exits 1, not 2), unless ``allow_concurrency_mismatch``: ``PASS`` saying so.
``sla <criterion>``
    every SLA Rally checked in the current run (``sla_results``) must pass.
``success rate``
    fails when the current run's share of successful iterations is lower than
    the baseline's with significance: one-sided Fisher exact test, p < alpha.
``median <action>`` and ``p95 <action>``, for every top-level atomic action
and ``total``
    fail when the current figure is worse than the baseline's by more than
    ``max_regression`` *with significance*. The null hypothesis is "at most
    ``max_regression`` worse": for the median, a one-sided Mann-Whitney U test
    of the current durations against the baseline durations scaled by
    ``1 + max_regression``; for the 95th percentile, a seeded bootstrap of the
    ratio of the two p95s (p = share of resamples where the ratio is at most
    ``1 + max_regression``). So a noisy run that only looks 12% slower passes
    a 10% gate, and a real 2x slowdown fails it. The durations are
    :func:`.stats.action_samples`: an action's successful calls, and the
    ``total`` of every iteration as Rally's table, the report and the
    ``max_duration_percentile`` SLA count it (their p95 is the gate's).

A latency check carries its :class:`.verdicts.Verdict`
(:func:`.worse.latency_verdict`): slower fails, no difference larger than
``max_regression`` passes, not measurable skips (:data:`STATUS`).
A check is ``PASS``, ``FAIL``, ``ERROR`` (not comparable) or ``SKIP`` (fewer than
:data:`~rally_keystone_perf.report.figures.compare.MIN_SAMPLES` samples on a side,
or no baseline workload: nothing to judge, said so instead of passing
quietly).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rally_keystone_perf.report.figures import stats, worse
from rally_keystone_perf.report.figures.compare import (
    ALPHA,
    Key,
    keyed_workloads,
)
from rally_keystone_perf.report.figures.concurrency import (
    ALLOW_FLAG,
    LOAD_FIGURES,
    achieved,
    mismatch,
    offered_load,
)
from rally_keystone_perf.report.figures.verdicts import (
    NO_DIFFERENCE,
    NOT_MEASURABLE,
    SLOWER,
    Verdict,
    ratio_of,
)
from rally_keystone_perf.report.readers.rally_json import Workload

PASS, FAIL, SKIP, ERROR = "PASS", "FAIL", "SKIP", "ERROR"
DEFAULT_MAX_REGRESSION = 0.10
STATUS = {SLOWER: FAIL, NO_DIFFERENCE: PASS, NOT_MEASURABLE: SKIP}  # by call


@dataclass(frozen=True)
class Check:
    """One criterion of one workload.

    ``baseline``/``current`` are the figures compared (seconds, or a success
    fraction), ``change`` is ``current / baseline - 1`` where that means
    something, ``p_value`` the test's p-value when a test was made.
    """

    workload: str
    criterion: str
    status: str
    baseline: float | None = None
    current: float | None = None
    change: float | None = None
    p_value: float | None = None
    message: str = ""
    verdict: Verdict | None = None  # a cost's check: what its test says


@dataclass(frozen=True)
class GateResult:
    """Every check, with the settings they were made with."""

    max_regression: float
    alpha: float
    checks: list[Check]

    @property
    def failures(self) -> list[Check]:
        """The checks that failed."""
        return [check for check in self.checks if check.status == FAIL]

    @property
    def errors(self) -> list[Check]:
        """The checks that refused a comparison (the workloads' loads differ)."""
        return [check for check in self.checks if check.status == ERROR]

    @property
    def passed(self) -> bool:
        """True when no check failed or refused a comparison."""
        return not self.failures and not self.errors


def workload_name(key: Key) -> str:
    """``scenario c<concurrency>`` (``#k`` for the k-th repeat)."""
    scenario, concurrency, occurrence = key
    name = f"{scenario} c{concurrency}" if concurrency is not None else scenario
    return f"{name} #{occurrence + 1}" if occurrence else name


def _change(current: float | None, baseline: float | None) -> float | None:
    """``current / baseline - 1`` (None: no ratio)."""
    ratio = ratio_of(current, baseline)
    return None if ratio is None else ratio - 1


def _percent(value: float) -> str:
    return f"{value * 100:+.1f}%"


def _latency_message(said: Verdict, max_regression: float) -> str:
    """The check's message: the change and what the test showed."""
    found = said.estimate
    if said.call == NOT_MEASURABLE or found is None or found.p_value is None:
        return said.reason
    limit = f"{max_regression * 100:g}%"
    shown = "n/a" if found.regression is None else _percent(found.regression)
    p_value = f"(p={found.p_value:.3g})"
    if said.call == SLOWER:
        return f"{shown}: worse than the baseline by more than {limit} {p_value}"
    return f"{shown}: not shown to be more than {limit} worse {p_value}"


def _latency_check(
    name: str,
    criterion: str,
    base_points: list[float],
    cur_points: list[float],
    max_regression: float,
    alpha: float,
) -> Check:
    """The median or p95 check of one action, from its verdict."""
    kind = criterion.split(" ", 1)[0]
    said = worse.latency_verdict(kind, base_points, cur_points, max_regression, alpha)
    base, cur = worse.compared(kind, base_points, cur_points)
    p_value = None if said.estimate is None else said.estimate.p_value
    message = _latency_message(said, max_regression)
    change = _change(cur, base)
    status = STATUS[said.call]
    return Check(name, criterion, status, base, cur, change, p_value, message, said)


def _success_check(
    name: str, baseline: Workload, current: Workload, alpha: float
) -> Check:
    """Success-rate check: fails on a significant drop."""
    base_total, cur_total = len(baseline.iterations), len(current.iterations)
    base_ok = sum(1 for it in baseline.iterations if not it.error)
    cur_ok = sum(1 for it in current.iterations if not it.error)
    if not base_total or not cur_total:
        return Check(name, "success rate", SKIP, message="no iterations")
    base_rate, cur_rate = base_ok / base_total, cur_ok / cur_total
    p_value = worse.success_p_value(base_ok, base_total, cur_ok, cur_total)
    figures = (
        f"{cur_ok}/{cur_total} ({cur_rate:.1%}) vs {base_ok}/{base_total} "
        f"({base_rate:.1%})"
    )
    if cur_rate < base_rate and p_value < alpha:
        status, verdict = FAIL, "significantly less reliable"
    else:
        status, verdict = PASS, "not significantly less reliable"
    return Check(
        name,
        "success rate",
        status,
        base_rate,
        cur_rate,
        cur_rate - base_rate,
        p_value,
        f"{figures}: {verdict} (p={p_value:.3g})",
    )


def _sla_checks(name: str, current: Workload) -> list[Check]:
    """One check per SLA criterion Rally evaluated on the current run."""
    return [
        Check(
            name,
            f"sla {result['criterion']}",
            PASS if result["success"] else FAIL,
            message=str(result.get("detail", "")),
        )
        for result in current.sla_results
    ]


def load_check(
    name: str, baseline: Workload, current: Workload, allow_mismatch: bool
) -> Check | None:
    """The achieved-load check of a matched workload; None when the loads match.

    ``ERROR`` (not comparable) when the current run's peak concurrency (rate
    for ``rps``) differs from the baseline's by more than 10%; ``PASS`` with
    a message saying so when ``allow_mismatch``.
    """
    base, cur = achieved(baseline), achieved(current)
    found = mismatch(base, cur)
    if found is None:
        return None
    kind, base_value = offered_load(base)
    _, cur_value = offered_load(cur)
    what = f"{LOAD_FIGURES[kind]}, current vs baseline"
    if allow_mismatch:
        status = PASS
        message = f"{found} ({what}): compared anyway ({ALLOW_FLAG})"
    else:
        status = ERROR
        message = (
            f"not comparable: {found} ({what}); the load generator reached "
            f"another load, so the latency checks were not made ({ALLOW_FLAG} "
            "makes them)"
        )
    return Check(
        name,
        f"achieved {kind}",
        status,
        base_value,
        cur_value,
        _change(cur_value, base_value),
        None,
        message,
    )


def _workload_checks(
    name: str,
    baseline: Workload,
    current: Workload,
    max_regression: float,
    alpha: float,
) -> list[Check]:
    checks = [_success_check(name, baseline, current, alpha)]
    base_samples = stats.action_samples(baseline)
    cur_samples = stats.action_samples(current)
    for action, base_points in base_samples.items():
        cur_points = cur_samples.get(action, [])
        for kind in ("median", "p95"):
            checks.append(
                _latency_check(
                    name,
                    f"{kind} {action}",
                    base_points,
                    cur_points,
                    max_regression,
                    alpha,
                )
            )
    return checks


def gate(
    baseline: Sequence[Workload],
    current: Sequence[Workload],
    max_regression: float = DEFAULT_MAX_REGRESSION,
    alpha: float = ALPHA,
    allow_concurrency_mismatch: bool = False,
) -> GateResult:
    """Check ``current`` against ``baseline`` (see the module docstring).

    :raises ValueError: no workload to check, no workload in common, or
        settings out of range.
    """
    if not 0 <= max_regression < 10:
        raise ValueError(
            f"max regression must be between 0 and 1000%, got {max_regression:g}"
        )
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha:g}")
    if not current:
        raise ValueError("the current run has no workloads")
    base_keyed = keyed_workloads(baseline)
    cur_keyed = keyed_workloads(current)
    if not base_keyed.keys() & cur_keyed.keys():
        raise ValueError(
            "the current run and the baseline have no workload in common "
            f"(current: {', '.join(map(workload_name, cur_keyed))}; baseline: "
            f"{', '.join(map(workload_name, base_keyed)) or 'none'})"
        )
    checks: list[Check] = []
    for key, work in cur_keyed.items():
        name = workload_name(key)
        checks.extend(_sla_checks(name, work))
        if key in base_keyed:
            base = base_keyed[key]
            refusal = load_check(name, base, work, allow_concurrency_mismatch)
            checks.extend([refusal] if refusal else [])
            if refusal is None or refusal.status != ERROR:
                checks.extend(_workload_checks(name, base, work, max_regression, alpha))
        else:
            checks.append(Check(name, "baseline", SKIP, message="not in the baseline"))
    for key in base_keyed.keys() - cur_keyed.keys():
        gone = "in the baseline but not in the current run"
        checks.append(Check(workload_name(key), "present", FAIL, message=gone))
    return GateResult(max_regression, alpha, checks)
