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

A check is ``PASS``, ``FAIL``, ``ERROR`` (not comparable) or ``SKIP`` (fewer than
:data:`~rally_keystone_perf.report.figures.compare.MIN_SAMPLES` samples on a side,
or no baseline workload: nothing to judge, said so instead of passing
quietly).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rally_keystone_perf import metrics
from rally_keystone_perf.report.figures import stats
from rally_keystone_perf.report.figures.compare import (
    ALPHA,
    MIN_SAMPLES,
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
from rally_keystone_perf.report.readers.rally_json import Workload

PASS, FAIL, SKIP, ERROR = "PASS", "FAIL", "SKIP", "ERROR"
DEFAULT_MAX_REGRESSION = 0.10
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 20140826  # fixed: the same inputs always give the same verdict
_BOOTSTRAP_CHUNK = 200


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
    baseline: float | None
    current: float | None
    change: float | None
    p_value: float | None
    message: str


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
    if current is None or baseline is None or baseline <= 0:
        return None
    return current / baseline - 1


def median_p_value(
    baseline: Sequence[float], current: Sequence[float], max_regression: float
) -> float:
    """p of "current is no more than ``max_regression`` slower" (Mann-Whitney)."""
    from scipy.stats import mannwhitneyu  # costly: scipy.stats takes 1.5 s to import

    scaled = [value * (1 + max_regression) for value in baseline]
    result = mannwhitneyu(current, scaled, alternative="greater")
    return float(result.pvalue)


def p95_p_value(
    baseline: Sequence[float], current: Sequence[float], max_regression: float
) -> float:
    """Bootstrap p of "current p95 is no more than ``max_regression`` worse".

    Resamples both sides with replacement (seeded), and returns the share of
    resamples whose p95 ratio is at most ``1 + max_regression``. numpy's
    ``linear`` percentile is the interpolation Rally's ``percentile`` uses.
    """
    import numpy  # costly: numpy takes 0.2 s to import

    rng = numpy.random.default_rng(BOOTSTRAP_SEED)
    base = numpy.asarray(baseline, dtype=float)
    cur = numpy.asarray(current, dtype=float)
    limit = 1 + max_regression
    within = 0
    done = 0
    while done < BOOTSTRAP_RESAMPLES:
        size = min(_BOOTSTRAP_CHUNK, BOOTSTRAP_RESAMPLES - done)
        base_p95 = numpy.percentile(
            base[rng.integers(0, len(base), (size, len(base)))], 95, axis=1
        )
        cur_p95 = numpy.percentile(
            cur[rng.integers(0, len(cur), (size, len(cur)))], 95, axis=1
        )
        within += int(numpy.count_nonzero(cur_p95 <= base_p95 * limit))
        done += size
    # +1 on both sides: a bootstrap p-value is never exactly 0
    return (within + 1) / (BOOTSTRAP_RESAMPLES + 1)


def success_p_value(
    base_ok: int, base_total: int, cur_ok: int, cur_total: int
) -> float:
    """One-sided Fisher exact p of "current succeeds no less often"."""
    from scipy.stats import fisher_exact  # costly: scipy.stats takes 1.5 s to import

    table = [[base_ok, base_total - base_ok], [cur_ok, cur_total - cur_ok]]
    return float(fisher_exact(table, alternative="greater").pvalue)


def _percent(value: float) -> str:
    return f"{value * 100:+.1f}%"


def _latency_check(
    name: str,
    criterion: str,
    base_points: list[float],
    cur_points: list[float],
    max_regression: float,
    alpha: float,
) -> Check:
    """The median or p95 check of one action."""
    kind = criterion.split(" ", 1)[0]
    base_median, base_p95 = metrics.median_p95(base_points)
    cur_median, cur_p95 = metrics.median_p95(cur_points)
    base, cur = (base_median, cur_median) if kind == "median" else (base_p95, cur_p95)
    change = _change(cur, base)
    if len(base_points) < MIN_SAMPLES or len(cur_points) < MIN_SAMPLES:
        return Check(
            name,
            criterion,
            SKIP,
            base,
            cur,
            change,
            None,
            f"too few samples ({len(base_points)} vs {len(cur_points)}, "
            f"need {MIN_SAMPLES})",
        )
    test = median_p_value if kind == "median" else p95_p_value
    p_value = test(base_points, cur_points, max_regression)
    limit = f"{max_regression * 100:g}%"
    shown = "n/a" if change is None else _percent(change)
    if p_value < alpha:
        message = (
            f"{shown}: worse than the baseline by more than {limit} (p={p_value:.3g})"
        )
        status = FAIL
    else:
        message = f"{shown}: not shown to be more than {limit} worse (p={p_value:.3g})"
        status = PASS
    return Check(name, criterion, status, base, cur, change, p_value, message)


def _success_check(
    name: str, baseline: Workload, current: Workload, alpha: float
) -> Check:
    """Success-rate check: fails on a significant drop."""
    base_total, cur_total = len(baseline.iterations), len(current.iterations)
    base_ok = sum(1 for it in baseline.iterations if not it.error)
    cur_ok = sum(1 for it in current.iterations if not it.error)
    if not base_total or not cur_total:
        return Check(
            name, "success rate", SKIP, None, None, None, None, "no iterations"
        )
    base_rate, cur_rate = base_ok / base_total, cur_ok / cur_total
    p_value = success_p_value(base_ok, base_total, cur_ok, cur_total)
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
            None,
            None,
            None,
            None,
            str(result.get("detail", "")),
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
            checks.append(
                Check(
                    name,
                    "baseline",
                    SKIP,
                    None,
                    None,
                    None,
                    None,
                    "not in the baseline",
                )
            )
    for key in base_keyed.keys() - cur_keyed.keys():
        checks.append(
            Check(
                workload_name(key),
                "present",
                FAIL,
                None,
                None,
                None,
                None,
                "in the baseline but not in the current run",
            )
        )
    return GateResult(max_regression, alpha, checks)
