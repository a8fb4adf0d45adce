"""Side-by-side comparison of runs, with a verdict the data can support.

Pure functions over loaded workloads. A run is ``(label, workloads)``; the
first run is the baseline. Workloads are matched across runs by scenario name
and runner concurrency (the n-th workload with the same pair in one run
matches the n-th in another). For every top-level action of
:func:`~rally_keystone_perf.report.figures.stats.main_stats` (``total`` included) each
run gets the median and 95th percentile of its per-iteration durations
(:func:`~rally_keystone_perf.report.figures.stats.action_samples`: an action's
successful calls, every iteration's ``total`` as Rally counts it), the
ratio of its median to the baseline's, and a verdict
(:class:`.verdicts.Verdict`) from a two-sided Mann-Whitney U test of its
durations against the baseline's (:func:`mann_whitney`), in words:

``faster`` / ``slower``
    p < alpha; the direction is the U statistic's (the run's durations tend to
    be lower / higher than the baseline's).
``not significant``
    p >= alpha: the data do not show a difference, whatever the ratio says.
``too few samples``
    fewer than :data:`MIN_SAMPLES` durations on either side.
``missing`` / ``no baseline``
    the run (or the baseline) has no such workload or action.
``not comparable: concurrency 266 vs 1000``
    the run's runner reached a load (peak iterations in flight; the rate for
    ``rps``, see :func:`.concurrency.offered_load`) more than 10% away from
    the baseline's: its durations were measured under another load, so no
    ratio or test is given, unless ``allow_concurrency_mismatch`` (the CLI's
    ``--allow-concurrency-mismatch``) compares it anyway. Either way the
    group's ``notes`` say so.

:func:`series` lists, for each configuration measured at several concurrency
levels, the ``total`` figures of Rally's statistics by concurrency.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from rally_keystone_perf import metrics
from rally_keystone_perf.report.figures import stats
from rally_keystone_perf.report.figures.concurrency import (
    ALLOW_FLAG,
    Achieved,
    achieved,
    mismatch,
    runner_concurrency,
)
from rally_keystone_perf.report.figures.run_labels import Run
from rally_keystone_perf.report.figures.verdicts import (
    FASTER,
    NO_DIFFERENCE,
    SLOWER,
    Estimate,
    Verdict,
    describe,
    not_measurable,
    ratio_of,
)
from rally_keystone_perf.report.readers.rally_json import Workload

ALPHA = 0.05
MIN_SAMPLES = 5
MANN_WHITNEY = "Mann-Whitney U test of the durations, two-sided"
TOO_FEW = "too few samples"
BASELINE = "baseline"
MISSING = "missing"
NO_BASELINE = "no baseline"
NOT_COMPARABLE = "not comparable"

RunInput = tuple[str, Sequence[Workload]]
Key = tuple[str, Any, int]  # scenario, concurrency, occurrence


@dataclass(frozen=True)
class RunResult:
    """One run's figures for one action of one matched workload.

    ``count`` is the number of samples; ``ratio`` is this run's median over
    the baseline's; ``judged`` its :class:`.verdicts.Verdict` (None: the
    baseline itself).
    """

    label: str
    count: int
    median: float | None
    p95: float | None
    ratio: float | None
    judged: Verdict | None

    @property
    def p_value(self) -> float | None:
        """The test's p-value (None: no test made)."""
        found = self.judged.estimate if self.judged else None
        return None if found is None else found.p_value

    @property
    def verdict(self) -> str:
        """The verdict in words (:func:`.verdicts.describe`)."""
        return BASELINE if self.judged is None else describe(self.judged, "")


@dataclass(frozen=True)
class ActionComparison:
    """Every run's :class:`RunResult` for one action, baseline first."""

    action: str
    results: list[RunResult]


@dataclass(frozen=True)
class ScenarioComparison:
    """The actions of workloads matched by scenario and concurrency.

    ``occurrence`` tells apart workloads of one run with the same scenario
    and concurrency (0 for the first). ``loads`` is each run's achieved load
    (None where the run lacks the workload), ``notes`` one line per run whose
    load differs from the baseline's.
    """

    scenario: str
    concurrency: Any
    occurrence: int
    actions: list[ActionComparison]
    loads: list[Achieved | None]
    notes: list[str]


@dataclass(frozen=True)
class Comparison:
    """The result of :func:`compare`: run labels (baseline first) and groups."""

    labels: list[str]
    alpha: float
    groups: list[ScenarioComparison]

    @property
    def baseline(self) -> str:
        """The label of the baseline run."""
        return self.labels[0]


@dataclass(frozen=True)
class SeriesRow:
    """Rally's ``total`` figures of one workload, a point of a series."""

    config: str
    scenario: str
    concurrency: Any
    median: float | None
    p90: float | None
    p95: float | None
    throughput: float | None
    success: float | None
    count: int


@dataclass(frozen=True)
class CompareResult:
    """What the compare writers write: the comparison, its series, its runs.

    ``runs`` only add their configurations and files to the output.
    """

    comparison: Comparison
    series: Sequence[SeriesRow] = ()
    runs: Sequence[Run] = ()


def concurrency(workload: Workload) -> Any:
    """The runner's ``concurrency`` (1 for ``serial``, None for runners without one)."""
    return runner_concurrency(workload)


def keyed_workloads(workloads: Sequence[Workload]) -> dict[Key, Workload]:
    """Workloads by (scenario, concurrency, occurrence), in run order."""
    seen: dict[tuple[str, Any], int] = {}
    keyed: dict[Key, Workload] = {}
    for workload in workloads:
        pair = (workload.scenario_name, concurrency(workload))
        occurrence = seen.get(pair, 0)
        seen[pair] = occurrence + 1
        keyed[(*pair, occurrence)] = workload
    return keyed


def mann_whitney(
    baseline: Sequence[float], other: Sequence[float], alpha: float = ALPHA
) -> Verdict:
    """Two-sided Mann-Whitney U verdict of ``other`` against ``baseline``,
    its estimate the ratio of their medians with the test's p-value.

    ``faster``/``slower`` only when p < ``alpha``; ``too few samples`` (no
    p-value) when either side has fewer than :data:`MIN_SAMPLES` values.
    """
    ratio = ratio_of(metrics.median_p95(other)[0], metrics.median_p95(baseline)[0])
    found = Estimate(
        ratio, None, None, min(len(baseline), len(other)), None, 1 - alpha, MANN_WHITNEY
    )
    if found.rounds < MIN_SAMPLES:
        return not_measurable(TOO_FEW, found)
    from scipy.stats import mannwhitneyu  # costly: scipy.stats takes 1.5 s to import

    result = mannwhitneyu(baseline, other, alternative="two-sided")
    p_value = float(result.pvalue)
    if math.isnan(p_value):  # identical constant samples: no difference shown
        return Verdict(NO_DIFFERENCE, found)
    found = replace(found, p_value=p_value)
    if p_value >= alpha:
        return Verdict(NO_DIFFERENCE, found)
    # U counts pairs where the baseline value is the larger one
    baseline_larger = float(result.statistic) > len(baseline) * len(other) / 2
    return Verdict(FASTER if baseline_larger else SLOWER, found)


def _action(
    action: str,
    labels: Sequence[str],
    samples: Sequence[dict[str, list[float]] | None],
    alpha: float,
    refusals: Sequence[str | None],
) -> ActionComparison:
    """Compare one action's samples of every run with the baseline's.

    A run with a refusal (its load differs from the baseline's) gets its own
    figures but no ratio, test or verdict.
    """
    base_points = samples[0].get(action) if samples[0] is not None else None
    base_median = None if base_points is None else metrics.median_p95(base_points)[0]
    results = []
    for index, (label, run_samples) in enumerate(zip(labels, samples, strict=True)):
        points = None if run_samples is None else run_samples.get(action)
        judged: Verdict | None
        if points is None:
            judged = not_measurable(MISSING)
            results.append(RunResult(label, 0, None, None, None, judged))
            continue
        median, p95 = metrics.median_p95(points)
        ratio = ratio_of(median, base_median)
        if refusals[index]:
            judged = not_measurable(f"{NOT_COMPARABLE}: {refusals[index]}")
            ratio = None
        elif index == 0:
            judged = None
        elif base_points is None:
            judged = not_measurable(NO_BASELINE)
        else:
            judged = mann_whitney(base_points, points, alpha)
        results.append(RunResult(label, len(points), median, p95, ratio, judged))
    return ActionComparison(action, results)


def _action_names(samples: Sequence[dict[str, list[float]] | None]) -> list[str]:
    """Action names in order of first appearance (baseline first), total last."""
    names: dict[str, None] = {}
    for run_samples in samples:
        for name in run_samples or {}:
            if name != metrics.TOTAL:
                names.setdefault(name)
    return [*names, metrics.TOTAL]


def _mismatches(loads: Sequence[Achieved | None]) -> list[str | None]:
    """Per run, how its achieved load differs from the baseline's (or None)."""
    base = loads[0]
    return [
        None if index == 0 or base is None or run is None else mismatch(base, run)
        for index, run in enumerate(loads)
    ]


def _notes(
    labels: Sequence[str], mismatches: Sequence[str | None], allow: bool
) -> list[str]:
    """One line per run whose load differs from the baseline's."""
    then = (
        f"compared anyway ({ALLOW_FLAG})"
        if allow
        else f"not compared ({ALLOW_FLAG} compares it)"
    )
    return [
        f"{label}: {NOT_COMPARABLE}: {found} (this run vs the baseline): {then}"
        for label, found in zip(labels, mismatches, strict=True)
        if found
    ]


def compare(
    runs: Sequence[RunInput],
    alpha: float = ALPHA,
    allow_concurrency_mismatch: bool = False,
) -> Comparison:
    """Compare each run's workloads with the baseline's (the first run's).

    A run whose achieved load differs from the baseline's by more than
    :data:`.concurrency.MISMATCH` (:func:`.concurrency.mismatch`) is marked
    ``not comparable`` instead of compared, unless
    ``allow_concurrency_mismatch``; the group's notes name it either way.

    :raises ValueError: fewer than two runs, duplicate labels or a bad alpha.
    """
    if len(runs) < 2:
        raise ValueError("compare needs at least two runs")
    labels = [label for label, _ in runs]
    if len(set(labels)) != len(labels):
        raise ValueError(f"run labels must be unique: {labels}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha}")
    keyed = [keyed_workloads(workloads) for _, workloads in runs]
    keys: dict[Key, None] = {}
    for run_keys in keyed:
        keys.update(dict.fromkeys(run_keys))
    groups = []
    for key in keys:
        samples = [
            stats.action_samples(run_keys[key]) if key in run_keys else None
            for run_keys in keyed
        ]
        loads = [
            achieved(run_keys[key]) if key in run_keys else None for run_keys in keyed
        ]
        mismatches = _mismatches(loads)
        refusals = [None] * len(loads) if allow_concurrency_mismatch else mismatches
        actions = [
            _action(name, labels, samples, alpha, refusals)
            for name in _action_names(samples)
        ]
        notes = _notes(labels, mismatches, allow_concurrency_mismatch)
        groups.append(ScenarioComparison(key[0], key[1], key[2], actions, loads, notes))
    return Comparison(labels, alpha, groups)


def _sort_key(value: Any) -> tuple[int, float, str]:
    """Order concurrency values numerically, non-numbers (None) last."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return (0, float(value), "")
    return (1, 0.0, str(value))


def series_row(config: str, workload: Workload) -> SeriesRow:
    """The series point of one workload (Rally's ``total`` row, throughput)."""
    total = stats.total_row(stats.main_stats(workload))
    return SeriesRow(
        config=config,
        scenario=workload.scenario_name,
        concurrency=concurrency(workload),
        median=total.median,
        p90=total.p90,
        p95=total.p95,
        throughput=stats.throughput(workload),
        success=total.success,
        count=total.count,
    )


def series(runs: Sequence[RunInput]) -> list[SeriesRow]:
    """Latency against concurrency for configurations measured at several levels.

    ``runs`` are ``(config, workloads)``; runs that share a config pool their
    workloads. For every (config, scenario) with at least two distinct
    concurrency levels, one row per workload sorted by concurrency; groups in
    order of first appearance.
    """
    groups: dict[tuple[str, str], list[Workload]] = {}
    for config, workloads in runs:
        for workload in workloads:
            groups.setdefault((config, workload.scenario_name), []).append(workload)
    rows: list[SeriesRow] = []
    for (config, _), workloads in groups.items():
        levels = {_sort_key(concurrency(w)) for w in workloads}
        if len(levels) < 2:
            continue
        ordered = sorted(workloads, key=lambda w: _sort_key(concurrency(w)))
        rows.extend(series_row(config, w) for w in ordered)
    return rows
