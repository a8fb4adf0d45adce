"""A study's figures beside the seed's: the same rows, the ratios, the bottleneck.

Our row of a seed row is the workload of the study's config at the seed
row's concurrency, measured in this study's folder: its total's figures
(Rally's statistics), the throughput, the iterations it held in flight and
the bottleneck line (:mod:`.bottleneck`). A ratio (how much faster one
deployment is than another: the slower's average over the faster's) is
only ours when both rows were measured in this study's run (otherwise it
says "not measured") and both mostly succeeded: a row whose iterations
failed fast would pass for a fast one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from rally_keystone_perf.report import concurrency
from rally_keystone_perf.report.bottleneck import workload_bottlenecks
from rally_keystone_perf.report.config import load_reports
from rally_keystone_perf.report.stats import main_stats, throughput, total_row
from rally_keystone_perf.studies.model import Ratio, SeedRow, Study

SAME = 0.25  # ours within this share of the seed's ratio: the same gain
NO_GAIN = 1.1  # a ratio below this: no difference to speak of
MIN_SUCCESS = 0.9  # a row with fewer successful iterations has no ratio
Key = tuple[str, int]  # config label, concurrency


@dataclass(frozen=True)
class Measured:
    """One workload of the study: its config, level and figures."""

    config: str
    concurrency: int
    figures: dict[str, float | None]  # the total's: min, median, avg, ...
    throughput: float | None
    peak: int  # iterations in flight at most
    bottleneck: str | None


@dataclass(frozen=True)
class StudyRow:
    """A seed row and ours (None: not measured in this study)."""

    seed: SeedRow
    ours: Measured | None


@dataclass(frozen=True)
class RatioRow:
    """A ratio at one level: the seed's (or its words) and ours."""

    name: str
    concurrency: int
    seed: float | None
    seed_words: str
    ours: float | None
    verdict: str


def measured(reports: Mapping[str, Sequence[Path]]) -> dict[Key, Measured]:
    """Every workload of each config's reports by (config, concurrency)."""
    found: dict[Key, Measured] = {}
    for label, paths in reports.items():
        for report in load_reports(list(paths)):
            lines = workload_bottlenecks(report.path, report.workloads)
            for workload, line in zip(report.workloads, lines, strict=True):
                level = int(workload.runner.get("concurrency", 1))
                total = total_row(main_stats(workload))
                figures = {
                    "min": total.min,
                    "median": total.median,
                    "avg": total.avg,
                    "max": total.max,
                    "p90": total.p90,
                    "p95": total.p95,
                    "success": total.success,
                    "count": float(total.count),
                }
                peak = concurrency.achieved(workload).peak
                found[(label, level)] = Measured(
                    label, level, figures, throughput(workload), peak, line
                )
    return found


def study_rows(
    study: Study, ours: Mapping[Key, Measured], levels: Sequence[int]
) -> list[StudyRow]:
    """The seed's rows at ``levels``, each with ours, level by level."""
    chosen = [row for row in study.rows if row.concurrency in levels]
    chosen.sort(key=lambda row: row.concurrency)
    return [StudyRow(row, ours.get((row.config, row.concurrency))) for row in chosen]


def _avg_ratio(slower: float | None, faster: float | None) -> float | None:
    if slower is None or faster is None or faster <= 0:
        return None
    return slower / faster


def verdict(seed: float | None, ours: float | None, seed_words: str = "") -> str:
    """Whether our ratio shows the seed's gain (measured in the same run)."""
    if ours is None:
        return "not measured"
    if seed is None:
        if not seed_words:
            return ""
        close = abs(round(ours, 2) - 1) <= round(NO_GAIN - 1, 2)  # as printed
        return "holds: close here too" if close else f"differs: {ours:.2f}x here"
    if seed >= NO_GAIN and ours < NO_GAIN:
        return "not reproduced: no gain here"
    if abs(ours - seed) <= SAME * seed:
        return "holds"
    return "holds, smaller here" if ours < seed else "holds, larger here"


def ratio_rows(
    study: Study, ours: Mapping[Key, Measured], levels: Sequence[int]
) -> list[RatioRow]:
    """Each ratio at each level: the seed's (or its words), ours, a verdict."""
    seed = {(row.config, row.concurrency): row for row in study.rows}
    rows = []
    for ratio in study.ratios:
        for level in levels:
            rows.append(_ratio_row(ratio, level, seed, ours))
    return rows


def _ratio_row(
    ratio: Ratio,
    level: int,
    seed: Mapping[Key, SeedRow],
    ours: Mapping[Key, Measured],
) -> RatioRow:
    slow, fast = seed.get((ratio.slower, level)), seed.get((ratio.faster, level))
    theirs = None
    if slow is not None and fast is not None:
        theirs = _avg_ratio(slow.figures.get("avg"), fast.figures.get("avg"))
    slow_ours = ours.get((ratio.slower, level))
    fast_ours = ours.get((ratio.faster, level))
    row = RatioRow(ratio.name, level, theirs, ratio.seed_words, None, "not measured")
    if slow_ours is None or fast_ours is None:
        return row
    failing = _failing(slow_ours, fast_ours)
    if failing:  # fast failures would pass for fast answers
        return dataclasses.replace(row, verdict=failing)
    mine = _avg_ratio(slow_ours.figures["avg"], fast_ours.figures["avg"])
    return dataclasses.replace(
        row, ours=mine, verdict=verdict(theirs, mine, ratio.seed_words)
    )


def _failing(*rows: Measured) -> str:
    """``not comparable: nginx-stock 98% failed`` when a row mostly failed."""
    failed = [
        f"{row.config} {1 - (row.figures['success'] or 0.0):.0%} failed"
        for row in rows
        if (row.figures["success"] or 0.0) < MIN_SUCCESS
    ]
    return f"not comparable: {', '.join(failed)}" if failed else ""
