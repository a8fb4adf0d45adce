"""The resource sampler's CSVs over a load window.

Each CSV (:mod:`rally_keystone_perf.layout.resources`) holds one process
tree's (or one cluster tier's) cumulative CPU seconds and total RSS, sampled
during the run; :func:`resource_usage` gives the CPU used inside a window and
the peak memory around it. Pure functions (reading files only).
"""

from __future__ import annotations

import bisect
import csv
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rally_keystone_perf.layout.resources import FIELDS
from rally_keystone_perf.report.readers.rally_json import ReportError

MB = 1024 * 1024


@dataclass(frozen=True)
class ResourceSample:
    """One row of ``resources.csv``."""

    timestamp: float
    cpu_seconds: float
    rss_bytes: int
    processes: int


@dataclass(frozen=True)
class ResourceUsage:
    """A sampled process tree during a workload's load window."""

    cpu_seconds: float  # CPU the tree used inside the window
    cpu_per_iteration: float | None
    busy_cores: float | None  # cpu_seconds / window length
    peak_rss_bytes: int
    peak_processes: int
    samples: int  # samples from the last before the window to the first after

    @property
    def peak_rss_mb(self) -> float:
        return self.peak_rss_bytes / MB


def read_resources(path: Path) -> list[ResourceSample]:
    """The well-formed rows of a ``resources.csv``, by time.

    :raises ReportError: the file cannot be read.
    """
    try:
        with open(path, newline="", encoding="utf-8") as stream:
            rows = list(csv.reader(stream))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise ReportError(f"{path}: cannot read resource samples: {exc}") from None
    samples = []
    for row in rows:
        if len(row) != len(FIELDS):
            continue  # a truncated last line
        try:
            sample = ResourceSample(
                float(row[0]), float(row[1]), int(row[2]), int(row[3])
            )
        except ValueError:
            continue  # the header
        if math.isfinite(sample.timestamp) and math.isfinite(sample.cpu_seconds):
            samples.append(sample)
    return sorted(samples, key=lambda s: s.timestamp)


def read_if_present(path: Path) -> list[ResourceSample] | None:
    """:func:`read_resources` of ``path``; None when there is no such file."""
    return read_resources(path) if path.is_file() else None


def _cpu_at(samples: Sequence[ResourceSample], times: list[float], t: float) -> float:
    """Cumulative CPU at ``t`` (inside the sampled span), linearly interpolated."""
    index = bisect.bisect_left(times, t)
    if index < len(samples) and times[index] == t:
        return samples[index].cpu_seconds
    before, after = samples[index - 1], samples[index]
    fraction = (t - before.timestamp) / (after.timestamp - before.timestamp)
    return before.cpu_seconds + fraction * (after.cpu_seconds - before.cpu_seconds)


def resource_usage(
    samples: Sequence[ResourceSample], start: float, end: float, iterations: int
) -> ResourceUsage | None:
    """CPU and peak memory of a process tree between ``start`` and ``end``.

    The CPU used is the interpolated cumulative CPU at the end minus at the
    start (the window is clipped to the sampled span); the peaks are over the
    samples from the last one at or before ``start`` to the first one at or
    after ``end``. None when no sample span overlaps the window.
    """
    if not samples:
        return None
    times = [s.timestamp for s in samples]
    lo, hi = max(start, times[0]), min(end, times[-1])
    if lo > hi:
        return None
    cpu = max(0.0, _cpu_at(samples, times, hi) - _cpu_at(samples, times, lo))
    first = max(0, bisect.bisect_right(times, start) - 1)
    last = min(len(samples) - 1, bisect.bisect_left(times, end))
    span = samples[first : last + 1]
    return ResourceUsage(
        cpu_seconds=cpu,
        cpu_per_iteration=cpu / iterations if iterations else None,
        busy_cores=cpu / (hi - lo) if hi > lo else None,
        peak_rss_bytes=max(s.rss_bytes for s in span),
        peak_processes=max(s.processes for s in span),
        samples=len(span),
    )
