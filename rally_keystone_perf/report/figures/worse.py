"""The two-run gate's tests: is the current run worse than its baseline
by more than a margin? (:mod:`.gate` makes its checks of them.)

``median``
    a one-sided Mann-Whitney U test of the current durations against the
    baseline's scaled by ``1 + max_regression`` (:func:`median_p_value`);
``p95``
    a seeded bootstrap of the ratio of the two p95s (:func:`p95_p_value`);
``success rate``
    a one-sided Fisher exact test (:func:`success_p_value`).

:func:`latency_verdict` makes a :class:`.verdicts.Verdict` of the first
two.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from rally_keystone_perf import metrics
from rally_keystone_perf.report.figures.compare import MIN_SAMPLES
from rally_keystone_perf.report.figures.verdicts import (
    NO_DIFFERENCE,
    SLOWER,
    Estimate,
    Verdict,
    not_measurable,
    ratio_of,
)

BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 20140826  # fixed: the same inputs always give the same verdict
_BOOTSTRAP_CHUNK = 200


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


METHODS = {
    "median": "Mann-Whitney U, one-sided, against the baseline x (1 + max regression)",
    "p95": "bootstrap of the p95s' ratio, one-sided, against 1 + max regression",
}


def compared(
    kind: str, base_points: Sequence[float], cur_points: Sequence[float]
) -> tuple[float | None, float | None]:
    """The baseline's and the current run's median or p95."""
    base_median, base_p95 = metrics.median_p95(base_points)
    cur_median, cur_p95 = metrics.median_p95(cur_points)
    return (base_median, cur_median) if kind == "median" else (base_p95, cur_p95)


def latency_verdict(
    kind: str,
    base_points: Sequence[float],
    cur_points: Sequence[float],
    max_regression: float,
    alpha: float,
) -> Verdict:
    """Is the current ``kind`` (median or p95) worse than the baseline's by
    more than ``max_regression``? Slower when its test says so at
    ``alpha``, else no difference larger than ``max_regression`` shown."""
    base, cur = compared(kind, base_points, cur_points)
    ratio = ratio_of(cur, base)
    samples = min(len(base_points), len(cur_points))
    found = Estimate(ratio, None, None, samples, None, 1 - alpha, METHODS[kind])
    if samples < MIN_SAMPLES:
        return not_measurable(
            f"too few samples ({len(base_points)} vs {len(cur_points)}, "
            f"need {MIN_SAMPLES})",
            found,
        )
    test = median_p_value if kind == "median" else p95_p_value
    found = replace(found, p_value=test(base_points, cur_points, max_regression))
    if found.p_value is not None and found.p_value < alpha:
        return Verdict(SLOWER, found)
    return Verdict(NO_DIFFERENCE, found, bound=max_regression)
