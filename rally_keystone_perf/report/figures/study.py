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

from rally_keystone_perf.metrics import TOTAL as TOTAL_ROW
from rally_keystone_perf.report.figures import concurrency
from rally_keystone_perf.report.figures.bottleneck import workload_bottlenecks
from rally_keystone_perf.report.figures.run_labels import load_reports
from rally_keystone_perf.report.figures.stats import StatsRow, main_stats, throughput
from rally_keystone_perf.studies.model import FIGURES, TOTAL, Ratio, SeedRow, Study

SAME = 0.25  # ours within this share of the seed's ratio: the same gain
NO_GAIN = 1.1  # a ratio below this: no difference to speak of
MIN_SUCCESS = 0.9  # a row with fewer successful iterations has no ratio
Key = tuple[str, int, str]  # config label, concurrency, action ("": total)


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
    low: float | None = None  # ours' interval, when measured in rounds
    high: float | None = None
    drift: float | None = None  # a config's figure between rounds
    rounds: int | None = None  # the rounds ours is from (None: one run)


def _figures(row: StatsRow, rate: float | None) -> dict[str, float | None]:
    """A statistics row's figures by :data:`FIGURES` name."""
    values = {name: getattr(row, name, None) for name in FIGURES}
    return {**values, "count": float(row.count), "throughput": rate}


def measured(reports: Mapping[str, Sequence[Path]]) -> dict[Key, Measured]:
    """Every workload of each config's reports by (config, concurrency,
    action): its total's row (action ``""``) and each top-level atomic
    action's (``keystone.create_user``), all with the workload's throughput.
    """
    found: dict[Key, Measured] = {}
    for label, paths in reports.items():
        for report in load_reports(list(paths)):
            lines = workload_bottlenecks(report.path, report.workloads)
            for workload, line in zip(report.workloads, lines, strict=True):
                level = int(workload.runner.get("concurrency", 1))
                rate = throughput(workload)
                peak = concurrency.achieved(workload).peak
                for row in main_stats(workload):
                    if row.depth:
                        continue
                    action = TOTAL if row.name == TOTAL_ROW else row.name
                    found[(label, level, action)] = Measured(
                        label, level, _figures(row, rate), rate, peak, line
                    )
    return found


def study_rows(
    study: Study, ours: Mapping[Key, Measured], levels: Sequence[int]
) -> list[StudyRow]:
    """The seed's rows at ``levels``, each with ours, level by level."""
    chosen = [row for row in study.rows if row.concurrency in levels]
    chosen.sort(key=lambda row: row.concurrency)
    return [StudyRow(row, ours.get(_key(row))) for row in chosen]


def _key(row: SeedRow) -> Key:
    return row.config, row.concurrency, row.action


def gain(figure: str, slower: float | None, faster: float | None) -> float | None:
    """How much faster: the slower's avg over the faster's, or the faster's
    throughput over the slower's."""
    if figure == "throughput":
        slower, faster = faster, slower
    if slower is None or faster is None or faster <= 0:
        return None
    return slower / faster


@dataclass(frozen=True)
class Agreement:
    """What our ratio says of the seed's: its ``gist`` (``holds``, ``not
    reproduced``, ``differs``, ``not measured``, or "" when the seed gave
    nothing to compare) and the ``words`` the page prints."""

    gist: str
    words: str


def agreement(
    seed: float | None, ours: float | None, seed_words: str = ""
) -> Agreement:
    """Whether our ratio shows the seed's gain (measured in the same run)."""
    if ours is None:
        return Agreement("not measured", "not measured")
    if seed is None:
        if not seed_words:
            return Agreement("", "")
        close = abs(round(ours, 2) - 1) <= round(NO_GAIN - 1, 2)  # as printed
        if close:
            return Agreement("holds", "holds: close here too")
        return Agreement("differs", f"differs: {ours:.2f}x here")
    if seed >= NO_GAIN and ours < NO_GAIN:
        return Agreement("not reproduced", "not reproduced: no gain here")
    if seed < NO_GAIN:  # the seed saw none (seed 001: 4 nodes vs 3)
        if ours >= NO_GAIN:
            return Agreement("differs", "differs: a gain here")
        return Agreement("holds", "holds: no gain here either")
    if abs(ours - seed) <= SAME * seed:
        return Agreement("holds", "holds")
    return Agreement("holds", f"holds, {'smaller' if ours < seed else 'larger'} here")


def verdict(seed: float | None, ours: float | None, seed_words: str = "") -> str:
    """:func:`agreement`'s words."""
    return agreement(seed, ours, seed_words).words


def thresholds(seed: float | None) -> list[float]:
    """The ratios where :func:`verdict` may change its words."""
    if seed is None:
        return [2 - NO_GAIN, 1.0, NO_GAIN]
    return [NO_GAIN, seed * (1 - SAME), seed, seed * (1 + SAME)]


def ratio_rows(
    study: Study, ours: Mapping[Key, Measured], levels: Sequence[int]
) -> list[RatioRow]:
    """Each ratio at each level: the seed's (or its words), ours, a verdict."""
    seed = {_key(row): row for row in study.rows}
    rows = []
    for ratio in study.ratios:
        for level in levels:
            keys = [(c, level, ratio.action) for c in (ratio.faster, ratio.slower)]
            if any(key in seed for key in keys):  # the seed compared them there
                rows.append(_ratio_row(ratio, level, seed, ours))
    return rows


def seed_ratio(ratio: Ratio, level: int, seed: Mapping[Key, SeedRow]) -> float | None:
    """The seed's gain of ``ratio`` at ``level`` (None: it gave no figure)."""
    slow = seed.get((ratio.slower, level, ratio.action))
    fast = seed.get((ratio.faster, level, ratio.action))
    if slow is None or fast is None:
        return None
    return gain(
        ratio.figure, slow.figures.get(ratio.figure), fast.figures.get(ratio.figure)
    )


def _ratio_row(
    ratio: Ratio,
    level: int,
    seed: Mapping[Key, SeedRow],
    ours: Mapping[Key, Measured],
) -> RatioRow:
    theirs = seed_ratio(ratio, level, seed)
    slow_ours = ours.get((ratio.slower, level, ratio.action))
    fast_ours = ours.get((ratio.faster, level, ratio.action))
    row = RatioRow(ratio.name, level, theirs, ratio.seed_words, None, "not measured")
    if slow_ours is None or fast_ours is None:
        return row
    problem = failing(slow_ours, fast_ours)
    if problem:  # fast failures would pass for fast answers
        return dataclasses.replace(row, verdict=problem)
    mine = gain(
        ratio.figure,
        slow_ours.figures[ratio.figure],
        fast_ours.figures[ratio.figure],
    )
    return dataclasses.replace(
        row, ours=mine, verdict=verdict(theirs, mine, ratio.seed_words)
    )


def failing(*rows: Measured) -> str:
    """``not comparable: nginx-stock 98% failed`` when a row mostly failed."""
    failed = [
        f"{row.config} {1 - (row.figures['success'] or 0.0):.0%} failed"
        for row in rows
        if (row.figures["success"] or 0.0) < MIN_SUCCESS
    ]
    return f"not comparable: {', '.join(failed)}" if failed else ""
