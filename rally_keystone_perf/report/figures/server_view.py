"""The server's side of a run: its time per request and its CPU and memory.

A report written by ``rally-keystone-perf run`` lies in ``<run>/results/``;
the run folder may also hold

* ``logs/access.log``: the server's time of every request (see
  :mod:`..readers.access_log`). Per workload, the requests inside its load
  window (:func:`.windows.load_window`) give each route's count, median and
  p95 server time, and each atomic action's client median next to the server
  median of its route (:data:`rally_keystone_perf.client.atomics.ROUTES`)
  and the gap: what the client, the network and Rally add to the server's
  time.
* ``logs/resources.csv``: the server process tree's cumulative CPU seconds
  and total RSS, sampled during the run
  (:mod:`rally_keystone_perf.layout.resources`). Per
  workload, the CPU the server used during the load window per iteration
  (and as cores busy on average) and the peak RSS.
* ``traces/traces.jsonl.gz`` (``--trace``): where the slowest traced
  iterations' server time went (:mod:`..readers.tracing`).
* ``logs/resources-client.csv``: the same of the load generator (Rally's
  process and everything it started: its runner processes, or Locust's
  master and workers): the client's CPU per iteration, what issue 18's
  targets are about, and whether the client, not the server, was busy.

A cluster run (``--nodes N``) has no ``logs/access.log``: the route table
is of every node's requests together, and each workload gains the view of
its tiers (:mod:`.cluster_view`: per node, the database, haproxy).

Client and server medians are of successful work only: atomic actions that
did not fail, requests answered with a status below 400. Figures are in
seconds and bytes, unrounded; every function here is pure (reads files only).
"""

from __future__ import annotations

import collections
import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rally_keystone_perf.client import atomics
from rally_keystone_perf.layout.resources import CLIENT_TIER, RESOURCES_CSV, tier_csv
from rally_keystone_perf.layout.rundir import RunDir, RunState
from rally_keystone_perf.metrics import median_p95
from rally_keystone_perf.report.figures import cluster_view, windows
from rally_keystone_perf.report.readers import access_log, haproxy_log
from rally_keystone_perf.report.readers.access_log import read_requests
from rally_keystone_perf.report.readers.keystone_log import locked_times
from rally_keystone_perf.report.readers.rally_json import Workload
from rally_keystone_perf.report.readers.resources import (
    ResourceSample,
    ResourceUsage,
    read_if_present,
    read_resources,
    resource_usage,
)
from rally_keystone_perf.report.readers.run_folder import RESULTS, read_run_state
from rally_keystone_perf.report.readers.tracing import WorkloadTraces, trace_source


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
class WorkloadServerView:
    """The server side of one workload; a part is None when its file is absent."""

    routes: list[RouteTimes] | None  # most requests first
    actions: list[ActionGap] | None  # in order of first appearance
    resources: ResourceUsage | None
    cluster: cluster_view.WorkloadClusterView | None = None  # a cluster run's
    client: ResourceUsage | None = None  # the load generator's tree
    traces: WorkloadTraces | None = None  # --trace: the slowest traced iterations
    locked: int = 0  # requests SQLite refused ("database is locked", keystone.log)

    @property
    def empty(self) -> bool:
        return (
            self.traces is None
            and not self.routes
            and not self.actions
            and self.resources is None
            and self.cluster is None
            and self.client is None
            and not self.locked
        )


@dataclass(frozen=True)
class ServerView:
    """The server side of a report's workloads (same order as the workloads)."""

    run: Path
    access_log: Path | None
    resources_csv: Path | None
    workloads: list[WorkloadServerView]
    cluster: cluster_view.ClusterLogs | None = None  # a cluster run's files
    client_csv: Path | None = None  # the load generator's samples
    cpus: int | None = None  # the machine's, as run.json recorded them
    processes: int | None = None  # a single host's Keystone processes (run.json)


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


def route_times(requests: Iterable[access_log.ServerRequest]) -> list[RouteTimes]:
    """Count, failures, median and p95 server time per route, most requests first."""
    by_route: dict[str, list[access_log.ServerRequest]] = collections.defaultdict(list)
    for request in requests:
        by_route[request.route].append(request)
    result = []
    for route, seen in by_route.items():
        median, p95 = median_p95([r.server_time for r in seen if r.ok])
        failed = sum(1 for r in seen if not r.ok)
        result.append(RouteTimes(route, len(seen), failed, median, p95))
    return sorted(result, key=lambda r: (-r.count, r.route))


def action_gaps(workload: Workload, routes: Sequence[RouteTimes]) -> list[ActionGap]:
    """Each top-level atomic action's client median and its route's server
    median (no route for an action whose route another action of the
    workload shares: their requests cannot be told apart)."""
    seen = {r.route: r for r in routes}
    durations = client_durations(workload)
    shared = collections.Counter(atomics.ROUTES.get(name) for name in durations)
    gaps = []
    for name, points in durations.items():
        route = atomics.ROUTES.get(name)
        route = route if shared[route] == 1 else None
        times = seen.get(route) if route is not None else None
        client, _ = median_p95(points)
        gaps.append(ActionGap(name, route, client, times.median if times else None))
    return gaps


def workload_view(
    workload: Workload,
    requests: Sequence[access_log.ServerRequest] | None,
    samples: Sequence[ResourceSample] | None,
    cluster: cluster_view.ClusterLogs | None = None,
    client: Sequence[ResourceSample] | None = None,
    locked: Sequence[float] = (),
) -> WorkloadServerView:
    """The server side of one workload (requests and samples of the whole run;
    ``client``: the load generator's; ``locked``: when requests met a locked
    SQLite database)."""
    if not workload.iterations:
        return WorkloadServerView(None, None, None)
    start, end = windows.load_window(workload)
    iterations = len(workload.iterations)
    routes = actions = None
    if requests is not None:
        routes = route_times(access_log.within(requests, start, end))
        actions = action_gaps(workload, routes)
    usage = client_usage = None
    if samples is not None:
        usage = resource_usage(samples, start, end, iterations)
    if client is not None:
        client_usage = resource_usage(client, start, end, iterations)
    tiers = None
    if cluster is not None:
        closes = haproxy_log.silent_closes(workload.iterations)
        tiers = cluster_view.workload_view(cluster, (start, end), iterations, closes)
    refused = sum(1 for when in locked if start <= when <= end)
    return WorkloadServerView(
        routes, actions, usage, tiers, client_usage, locked=refused
    )


def _cluster(run: Path, state: RunState | None) -> cluster_view.ClusterLogs | None:
    """A cluster run's files; None for another run or a cluster without any."""
    if state is None:
        return None
    logs = cluster_view.read_cluster(RunDir(run), state)
    return None if logs is None or logs.empty else logs


def _processes(options: dict[str, Any]) -> int | None:
    """The Keystone processes a single host ran (None: a cluster, unknown)."""
    value = options.get("processes")
    if options.get("nodes", 1) != 1 or not isinstance(value, int):
        return None
    return value


def server_view(
    report_path: Path,
    workloads: Sequence[Workload],
    state: RunState | None = None,
) -> ServerView | None:
    """The server side of a report's workloads from its run folder's logs
    (``state``: its run.json, read here when not given).

    None when the report is not in a run folder's ``results/`` or the run has
    neither ``logs/access.log`` nor ``logs/resources.csv`` nor, for a
    cluster, any of its tiers' files, nor the client's samples, nor traces.

    :raises ReportError: one of them exists but cannot be read.
    """
    run = run_folder(report_path)
    if run is None:
        return None
    log_path = RunDir(run).access_log
    csv_path = RunDir(run).logs / RESOURCES_CSV
    client_path = RunDir(run).logs / tier_csv(CLIENT_TIER)
    has_log, has_csv = log_path.is_file(), csv_path.is_file()
    if state is None:
        state = read_run_state(report_path)
    cluster = _cluster(run, state)
    client = read_if_present(client_path)
    source = trace_source(run, state)
    keystone_log = RunDir(run).logs / "keystone.log"
    locked = locked_times(keystone_log) if keystone_log.is_file() else []
    if not (has_log or has_csv or cluster or client is not None or source or locked):
        return None
    requests = read_requests(log_path) if has_log else None
    if requests is None and cluster is not None:
        requests = cluster.all_requests()  # every node's
    samples = read_resources(csv_path) if has_csv else None
    views = [
        workload_view(w, requests, samples, cluster, client, locked) for w in workloads
    ]
    if source is not None:
        views = [
            dataclasses.replace(view, traces=source.of(workload))
            for view, workload in zip(views, workloads, strict=True)
        ]
    return ServerView(
        run=run,
        access_log=log_path if has_log else None,
        resources_csv=csv_path if has_csv else None,
        workloads=views,
        cluster=cluster,
        client_csv=client_path if client is not None else None,
        cpus=None if state is None else state.cpus,
        processes=None if state is None else _processes(state.options),
    )
