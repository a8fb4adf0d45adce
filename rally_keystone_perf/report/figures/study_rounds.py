"""A study measured in rounds: its rows over the rounds, each ratio with its
interval and the machine's drift beside it.

Each complete round measured every config
(:mod:`rally_keystone_perf.run.study_rounds`). Per round and level a ratio
is taken between two configs measured minutes apart at most, as
:mod:`.study` takes it from one run (the slower's average over the faster's,
or the faster's throughput over the slower's); the estimate is the geometric
mean of the rounds' ratios and its interval the t-interval of
:func:`.verdicts.estimate` (the A/B's, on the same grounds: the round is the unit
of evidence).

The **drift** beside a ratio is how far the same config's figure moved
between rounds (the largest over the smallest round, minus one, the larger
of the two configs'): what a ratio of two configs measured in different
rounds could have been off by, which rounds taken in turns cancel.

A row of the table is the mean over the rounds of each round's figure (a
count: their sum; in flight: the largest; the bottleneck: the last
round's).
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from rally_keystone_perf.report.figures import study
from rally_keystone_perf.report.figures.study import Key, Measured, RatioRow
from rally_keystone_perf.report.figures.verdicts import CONFIDENCE, Estimate, estimate
from rally_keystone_perf.studies.model import Ratio, SeedRow
from rally_keystone_perf.studies.model import Study as StudyModel

Rounds = Sequence[Mapping[Key, Measured]]  # one mapping a complete round


def measured_rounds(reports: Sequence[Mapping[str, Path]]) -> list[dict[Key, Measured]]:
    """Each complete round's workloads (``reports``: a round's report by
    config), as :func:`rally_keystone_perf.report.figures.study.measured`."""
    return [study.measured({k: [v] for k, v in r.items()}) for r in reports]


def _mean(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.fmean(known) if known else None


def combined(per_round: Rounds) -> dict[Key, Measured]:
    """Each workload over the rounds: its figures' means (see the module)."""
    keys = {key for found in per_round for key in found}
    result = {}
    for key in keys:
        rows = [found[key] for found in per_round if key in found]
        figures = {
            name: _mean([row.figures.get(name) for row in rows])
            for name in rows[0].figures
        }
        figures["count"] = sum(row.figures.get("count") or 0.0 for row in rows)
        result[key] = dataclasses.replace(
            rows[-1],
            figures=figures,
            throughput=_mean([row.throughput for row in rows]),
            peak=max(row.peak for row in rows),
        )
    return result


@dataclass(frozen=True)
class RoundRatio:
    """A ratio at a level over the rounds: its estimate and the drift."""

    found: Estimate
    drift: float | None  # 0.12: a config's figure moved 12% between rounds
    failing: str = ""  # not comparable: a row mostly failed


def spread(values: Sequence[float | None]) -> float | None:
    """The largest of ``values`` over the smallest, minus one (None: fewer
    than two known)."""
    known = [v for v in values if v is not None and v > 0]
    if len(known) < 2:
        return None
    return max(known) / min(known) - 1


def round_ratio(ratio: Ratio, level: int, per_round: Rounds) -> RoundRatio | None:
    """``ratio`` at ``level`` over the rounds that measured both configs;
    None when none did."""
    keys = [(c, level, ratio.action) for c in (ratio.faster, ratio.slower)]
    pairs = [
        (r[keys[0]], r[keys[1]]) for r in per_round if keys[0] in r and keys[1] in r
    ]
    if not pairs:
        return None
    failing = "; ".join(sorted({f for p in pairs if (f := study.failing(*p))}))
    gains = [
        study.gain(ratio.figure, slow.figures[ratio.figure], fast.figures[ratio.figure])
        for fast, slow in pairs
    ]
    drifts = [
        spread([side.figures.get(ratio.figure) for side in sides])
        for sides in zip(*pairs, strict=True)
    ]
    known = [d for d in drifts if d is not None]
    return RoundRatio(
        estimate([g for g in gains if g is not None], CONFIDENCE),
        max(known) if known else None,
        failing,
    )


def interval_verdict(seed: float | None, found: Estimate, seed_words: str = "") -> str:
    """:func:`rally_keystone_perf.report.figures.study.verdict` of the
    estimate; undecided where the interval's ends have another gist
    (``holds`` at one end, ``not reproduced`` at the other)."""
    if found.low is None or found.high is None or found.ratio is None:
        plural = "" if found.rounds == 1 else "s"
        said = study.verdict(seed, found.ratio, seed_words)
        return f"{said} ({found.rounds} round{plural}: no interval)"
    ends = (found.low, found.high)
    return range_verdict(seed, found.ratio, ends, seed_words, "interval")


def range_verdict(
    seed: float | None,
    ours: float,
    ends: Sequence[float],
    seed_words: str,
    what: str,
) -> str:
    """The verdict of ``ours``, or ``undecided: the <what> allows holds and
    not reproduced`` when a ratio within the range ``ends`` has another gist
    (at its ends, at a threshold of :func:`.study.verdict` inside it, or
    between two: 0.5-1.2x straddles "very close"'s 0.9-1.1x)."""
    low, high = min(ends), max(ends)
    inside = [t for t in study.thresholds(seed) if low < t < high]
    points = sorted({low, high, *inside})
    points += [(a + b) / 2 for a, b in zip(points, points[1:], strict=False)]
    said = study.agreement(seed, ours, seed_words)
    at_ends = [study.agreement(seed, point, seed_words) for point in points]
    gists = sorted({found.gist for found in (said, *at_ends)})
    if len(gists) > 1:
        return f"undecided: the {what} allows {' and '.join(gists)}"
    return said.words


def ratio_rows(
    plan: StudyModel, per_round: Rounds, levels: Sequence[int]
) -> list[RatioRow]:
    """Each ratio at each level the seed compared: the seed's, ours over the
    rounds with its interval and drift, a verdict."""
    seed: dict[Key, SeedRow] = {
        (row.config, row.concurrency, row.action): row for row in plan.rows
    }
    rows = []
    for ratio in plan.ratios:
        for level in levels:
            keys = [(c, level, ratio.action) for c in (ratio.faster, ratio.slower)]
            if not any(key in seed for key in keys):
                continue
            theirs = study.seed_ratio(ratio, level, seed)
            row = RatioRow(ratio.name, level, theirs, ratio.seed_words, None, "")
            ours = round_ratio(ratio, level, per_round)
            if ours is None:
                rows.append(dataclasses.replace(row, verdict="not measured"))
            elif ours.failing:
                rows.append(dataclasses.replace(row, verdict=ours.failing))
            else:
                rows.append(
                    dataclasses.replace(
                        row,
                        ours=ours.found.ratio,
                        low=ours.found.low,
                        high=ours.found.high,
                        drift=ours.drift,
                        rounds=ours.found.rounds,
                        verdict=interval_verdict(theirs, ours.found, ratio.seed_words),
                    )
                )
    return rows
