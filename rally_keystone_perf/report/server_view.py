"""The server's side of a run: its time per request and its CPU and memory.

A report written by ``rally-keystone-perf run`` lies in ``<run>/results/``;
the run folder may also hold

* ``logs/access.log``: the server's time of every request (see
  :mod:`.access_log`). Per workload, the requests inside its load window
  (:func:`.windows.load_window`) give each route's count, median and p95
  server time, and each atomic action's client median next to the server
  median of its route (:data:`rally_keystone_perf.plugins.atomics.ROUTES`) and the
  gap: what the client, the network and Rally add to the server's time.
* ``logs/resources.csv``: the server process tree's cumulative CPU seconds
  and total RSS, sampled during the run (:mod:`..deploy.sampler`). Per
  workload, the CPU the server used during the load window per iteration
  (and as cores busy on average) and the peak RSS.

Client and server medians are of successful work only: atomic actions that
did not fail, requests answered with a status below 400. Figures are in
seconds and bytes, unrounded; every function here is pure (reads files only).
"""

from __future__ import annotations

import bisect
import collections
import csv
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rally_keystone_perf.deploy.rundir import RunDir
from rally_keystone_perf.deploy.sampler import FIELDS, RESOURCES_CSV
from rally_keystone_perf.plugins import atomics
from rally_keystone_perf.report import access_log, windows
from rally_keystone_perf.report.load import ReportError, Workload
from rally_keystone_perf.report.stats import median_p95

RESULTS = "results"
MB = 1024 * 1024


@dataclass(frozen=True)
class RouteTimes:
    """The requests of one route inside a workload's load window."""

    route: str
    count: int  # every request, whatever its status
    failed: int  # status 400 or above
    median: float | None  # seconds, successful requests; None when there are none
    p95: float | None


@dataclass(frozen=True)
class ActionGap:
    """An atomic action's client median next to its route's server median."""

    action: str
    route: str | None  # None: the action is not in atomics.ROUTES
    client_median: float | None  # seconds, successful calls
    server_median: float | None  # seconds; None when the route was not seen

    @property
    def gap(self) -> float | None:
        """Client median minus server median (seconds)."""
        if self.client_median is None or self.server_median is None:
            return None
        return self.client_median - self.server_median


@dataclass(frozen=True)
class ResourceSample:
    """One row of ``resources.csv``."""

    timestamp: float
    cpu_seconds: float
    rss_bytes: int
    processes: int


@dataclass(frozen=True)
class ResourceUsage:
    """The server process tree during a workload's load window."""

    cpu_seconds: float  # CPU the tree used inside the window
    cpu_per_iteration: float | None
    busy_cores: float | None  # cpu_seconds / window length
    peak_rss_bytes: int
    peak_processes: int
    samples: int  # samples from the last before the window to the first after

    @property
    def peak_rss_mb(self) -> float:
        return self.peak_rss_bytes / MB


@dataclass(frozen=True)
class WorkloadServerView:
    """The server side of one workload; a part is None when its file is absent."""

    routes: list[RouteTimes] | None  # most requests first
    actions: list[ActionGap] | None  # in order of first appearance
    resources: ResourceUsage | None

    @property
    def empty(self) -> bool:
        return not self.routes and not self.actions and self.resources is None


@dataclass(frozen=True)
class ServerView:
    """The server side of a report's workloads (same order as the workloads)."""

    run: Path
    access_log: Path | None
    resources_csv: Path | None
    workloads: list[WorkloadServerView]


def run_folder(report_path: Path) -> Path | None:
    """The run folder of a report in ``<run>/results/``, else None."""
    path = Path(report_path)
    if path.parent.name != RESULTS:
        return None
    return path.parent.parent


def client_durations(workload: Workload) -> dict[str, list[float]]:
    """Durations of every call of each top-level atomic action that did not fail.

    One sample per call (not merged per iteration), to compare with one
    server request each.
    """
    durations: dict[str, list[float]] = {}
    for iteration in workload.iterations:
        for action in iteration.atomic_actions:
            points = durations.setdefault(action["name"], [])
            started, finished = action.get("started_at"), action.get("finished_at")
            if started is None or finished is None or action.get("failed"):
                continue
            points.append(float(finished) - float(started))
    return durations


def _ok(request: access_log.ServerRequest) -> bool:
    return request.status < 400


def route_times(requests: Iterable[access_log.ServerRequest]) -> list[RouteTimes]:
    """Count, failures, median and p95 server time per route, most requests first."""
    by_route: dict[str, list[access_log.ServerRequest]] = collections.defaultdict(list)
    for request in requests:
        by_route[request.route].append(request)
    result = []
    for route, seen in by_route.items():
        median, p95 = median_p95([r.server_time for r in seen if _ok(r)])
        failed = sum(1 for r in seen if not _ok(r))
        result.append(RouteTimes(route, len(seen), failed, median, p95))
    return sorted(result, key=lambda r: (-r.count, r.route))


def action_gaps(workload: Workload, routes: Sequence[RouteTimes]) -> list[ActionGap]:
    """Each top-level atomic action's client median and its route's server median."""
    seen = {r.route: r for r in routes}
    gaps = []
    for name, points in client_durations(workload).items():
        route = atomics.ROUTES.get(name)
        times = seen.get(route) if route is not None else None
        client, _ = median_p95(points)
        gaps.append(ActionGap(name, route, client, times.median if times else None))
    return gaps


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


def read_requests(path: Path) -> list[access_log.ServerRequest]:
    """Every request of an access log.

    :raises ReportError: the file cannot be read.
    """
    try:
        return list(access_log.read(path))
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportError(f"{path}: cannot read access log: {exc}") from None


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
    """CPU and peak memory of the server between ``start`` and ``end``.

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


def workload_view(
    workload: Workload,
    requests: Sequence[access_log.ServerRequest] | None,
    samples: Sequence[ResourceSample] | None,
) -> WorkloadServerView:
    """The server side of one workload (requests and samples of the whole run)."""
    if not workload.iterations:
        return WorkloadServerView(None, None, None)
    start, end = windows.load_window(workload)
    routes = actions = None
    if requests is not None:
        routes = route_times(access_log.within(requests, start, end))
        actions = action_gaps(workload, routes)
    usage = None
    if samples is not None:
        usage = resource_usage(samples, start, end, len(workload.iterations))
    return WorkloadServerView(routes, actions, usage)


def server_view(report_path: Path, workloads: Sequence[Workload]) -> ServerView | None:
    """The server side of a report's workloads from its run folder's logs.

    None when the report is not in a run folder's ``results/`` or the run has
    neither ``logs/access.log`` nor ``logs/resources.csv``.

    :raises ReportError: one of them exists but cannot be read.
    """
    run = run_folder(report_path)
    if run is None:
        return None
    log_path = RunDir(run).access_log
    csv_path = RunDir(run).logs / RESOURCES_CSV
    has_log, has_csv = log_path.is_file(), csv_path.is_file()
    if not (has_log or has_csv):
        return None
    requests = read_requests(log_path) if has_log else None
    samples = read_resources(csv_path) if has_csv else None
    return ServerView(
        run=run,
        access_log=log_path if has_log else None,
        resources_csv=csv_path if has_csv else None,
        workloads=[workload_view(w, requests, samples) for w in workloads],
    )
