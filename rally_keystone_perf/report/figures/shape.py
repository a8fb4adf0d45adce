"""A workload's shape for the report page: each action's durations as a
histogram and a CDF, the load over time, and its failures grouped.

Pure functions over a loaded workload. An action's samples are each call
of a top-level atomic action (failed calls apart, so the page can mark
them) and each iteration's total (Rally's: its duration plus its idle
time, failed iterations marked). The load over time is measured from the
iterations themselves: how many were in flight at each moment, and how
many ended successfully in each slice of the load.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from rally_keystone_perf.metrics import TOTAL, iteration_total
from rally_keystone_perf.report.readers.rally_json import Workload

MAX_BINS = 24
MAX_CDF_POINTS = 200
PROFILE_SLICES = 40  # the throughput's slices of the load, at most
PER_SLICE = 5  # iterations a slice, at least: fewer make a comb, not a rate
MAX_MESSAGE = 300  # an example message's characters


@dataclass
class Samples:
    """One action's durations (seconds): its successful and failed calls."""

    ok: list[float] = field(default_factory=list)
    failed: list[float] = field(default_factory=list)


@dataclass(frozen=True)
class Histogram:
    """Counts of successful and failed samples per bin (``edges``: bins + 1)."""

    edges: list[float]
    ok: list[int]
    failed: list[int]


@dataclass(frozen=True)
class FailureGroup:
    """The failed iterations of one error type."""

    kind: str
    count: int
    first: float  # seconds since the load started
    last: float
    example: str  # the first one's message


def action_samples(workload: Workload) -> dict[str, Samples]:
    """Each top-level atomic action's calls and the total, in order of first
    appearance (the total last)."""
    found: dict[str, Samples] = {}
    total = Samples()
    for iteration in workload.iterations:
        for action in iteration.atomic_actions:
            start, end = action.get("started_at"), action.get("finished_at")
            if start is None or end is None:
                continue  # an action that never ended has no duration
            samples = found.setdefault(str(action.get("name")), Samples())
            bucket = samples.failed if action.get("failed") else samples.ok
            bucket.append(float(end) - float(start))
        duration = iteration_total(iteration.duration, iteration.idle_duration)
        (total.failed if iteration.error else total.ok).append(duration)
    found[TOTAL] = total
    return found


def histogram(samples: Samples) -> Histogram | None:
    """Equal-width bins from the shortest to the longest sample (None: none)."""
    values = samples.ok + samples.failed
    if not values:
        return None
    low, high = min(values), max(values)
    count = max(1, min(MAX_BINS, math.ceil(math.sqrt(len(values)))))
    width = (high - low) / count or 1e-9
    edges = [low + width * i for i in range(count + 1)]

    def counts(points: Sequence[float]) -> list[int]:
        bins = [0] * count
        for value in points:
            bins[min(count - 1, int((value - low) / width))] += 1
        return bins

    return Histogram(edges, counts(samples.ok), counts(samples.failed))


def cdf(values: Sequence[float]) -> list[tuple[float, float]]:
    """``(duration, percent of samples at most that long)``, at most
    :data:`MAX_CDF_POINTS` points (evenly spaced ranks, the last kept)."""
    ordered = sorted(values)
    n = len(ordered)
    if n == 0:
        return []
    step = max(1, math.ceil(n / MAX_CDF_POINTS))
    ranks = [*range(0, n - 1, step), n - 1]
    return [(ordered[i], 100.0 * (i + 1) / n) for i in ranks]


def _spans(workload: Workload) -> list[tuple[float, float, bool]]:
    """Each iteration's (start, end, succeeded)."""
    return [
        (it.timestamp, it.timestamp + it.duration, not it.error)
        for it in workload.iterations
    ]


def in_flight(workload: Workload) -> list[tuple[float, float]]:
    """``(seconds since the first start, iterations in flight)`` at every
    start and end: a step line."""
    spans = _spans(workload)
    if not spans:
        return []
    origin = min(start for start, _, _ in spans)
    events = sorted(
        [(start, 1) for start, _, _ in spans] + [(end, -1) for _, end, _ in spans],
        key=lambda event: (event[0], event[1]),  # an end before a start
    )
    points, level = [(0.0, 0.0)], 0
    for moment, change in events:
        points.append((moment - origin, float(level)))
        level += change
        points.append((moment - origin, float(level)))
    return points


def throughput_over_time(workload: Workload) -> list[tuple[float, float]]:
    """``(middle of the slice, successful iterations per second ending in
    it)`` over up to :data:`PROFILE_SLICES` slices (of
    :data:`PER_SLICE` iterations or more) from the first start to the last
    end."""
    spans = _spans(workload)
    if not spans:
        return []
    origin = min(start for start, _, _ in spans)
    length = max(end for _, end, _ in spans) - origin
    if length <= 0:
        return []
    slices = max(1, min(PROFILE_SLICES, len(spans) // PER_SLICE))
    width = length / slices
    ended = [0] * slices
    for _, end, ok in spans:
        if ok:
            ended[min(slices - 1, int((end - origin) / width))] += 1
    return [((i + 0.5) * width, count / width) for i, count in enumerate(ended)]


def failure_groups(workload: Workload) -> list[FailureGroup]:
    """The failed iterations by error type, the most frequent first."""
    if not workload.iterations:
        return []
    origin = min(it.timestamp for it in workload.iterations)
    groups: dict[str, list[tuple[float, str]]] = {}
    for it in sorted(workload.iterations, key=lambda it: it.timestamp):
        if it.error:
            kind = str(it.error[0]) if it.error else "unknown"
            message = " ".join(str(it.error[1]).split()) if len(it.error) > 1 else ""
            groups.setdefault(kind, []).append((it.timestamp - origin, message))
    found = [
        FailureGroup(
            kind, len(items), items[0][0], items[-1][0], items[0][1][:MAX_MESSAGE]
        )
        for kind, items in groups.items()
    ]
    return sorted(found, key=lambda group: -group.count)
