"""A cluster run's tiers (``--nodes N``) inside each workload's load window.

A cluster's run folder may hold (each optional)

* ``logs/nodeK/access.log``: node K's requests (the format of
  :mod:`.access_log`), without haproxy's health checks (``GET /v3`` every
  second on every node: not the workload's). Per node: requests served,
  its share of every node's, median and p95 server time of the successful.
* ``logs/resources-nodeK.csv``, ``resources-db.csv``,
  ``resources-haproxy.csv``: each tier's CPU and memory
  (:mod:`..deploy.sampler`). Per tier: CPU seconds per request, CPUs used
  (as a share of its quota when run.json's ``cpu_quota`` sets one), peak
  RSS.
* ``logs/haproxy-stdout.log``: haproxy's ``option httplog`` lines
  (:func:`..deploy.cluster.haproxy.parse_log_line`). Per backend server:
  requests, errors (status 500 or above, or -1: no answer), queue (``%Tw``)
  and connect (``%Tc``) median and p95.

and names the saturated tier: one whose CPU use is at least
:data:`SATURATED` of its quota. haproxy stamps each request with its local
time and no zone: the zone's offset is taken as the whole quarter hour that
lines haproxy's requests up with the nodes' (whose log has epoch times),
else this machine's. Times are in seconds except haproxy's, in its
milliseconds; every function here is pure (reads files only).
"""

from __future__ import annotations

import calendar
import collections
import dataclasses
import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rally_keystone_perf.deploy.cluster import haproxy
from rally_keystone_perf.deploy.rundir import RunDir, RunState
from rally_keystone_perf.deploy.sampler import DB_TIER, HAPROXY_TIER, tier_csv
from rally_keystone_perf.report import access_log
from rally_keystone_perf.report.load import ReportError
from rally_keystone_perf.report.resources import (
    ResourceSample,
    ResourceUsage,
    read_if_present,
    resource_usage,
)
from rally_keystone_perf.report.stats import Window, median_p95

HEALTH_CHECK = "GET /v3"  # haproxy's option httpchk, on every node every second
HAPROXY_LOG = "haproxy-stdout.log"
SATURATED = 0.9  # of a tier's CPU quota
DATABASE = "database"
NODES = "nodes"
ALL = "all"  # the row of every backend server together
ZONE_STEP = 900.0  # every time zone's offset is a whole quarter hour
_ACCEPTED = re.compile(
    r"(\d{1,2})/([A-Z][a-z]{2})/(\d{4}):(\d\d):(\d\d):(\d\d)(\.\d+)?"
)
_MONTHS = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()
_NODE = re.compile(r"node(\d+)")


@dataclass(frozen=True)
class Quotas:
    """The CPUs each node's and the database's cgroup may use (None: no quota)."""

    node: float | None = None
    db: float | None = None


@dataclass(frozen=True)
class Proxied:
    """One request haproxy logged, with when it was accepted (epoch s)."""

    accepted: float
    line: haproxy.LogLine


@dataclass(frozen=True)
class ClusterLogs:
    """A cluster run's server-side files, read once for every workload."""

    nodes: list[str]  # node1, node2, ...
    quotas: Quotas
    requests: dict[str, list[access_log.ServerRequest]]  # nodes with a log
    samples: dict[str, list[ResourceSample]]  # tiers with a CSV
    proxied: list[Proxied] | None  # None: no haproxy log

    @property
    def empty(self) -> bool:
        return not self.requests and not self.samples and self.proxied is None

    def all_requests(self) -> list[access_log.ServerRequest] | None:
        """Every node's requests together; None when no node has a log."""
        if not self.requests:
            return None
        return [r for node in self.nodes for r in self.requests.get(node, [])]


@dataclass(frozen=True)
class TierView:
    """A node, the database or haproxy inside a load window."""

    tier: str  # node1 ..., database, haproxy
    requests: int | None  # a node's served, haproxy's logged; None: not counted
    share: float | None  # a node's fraction of every node's requests
    median: float | None  # seconds, a node's successful requests
    p95: float | None
    usage: ResourceUsage | None  # None: no sample near the window
    quota: float | None  # CPUs; None: no quota
    cpu_per_request: float | None  # seconds; the database's per node request

    @property
    def quota_use(self) -> float | None:
        """CPUs used over the quota (1.0: all of it); None without either."""
        if self.quota is None or self.usage is None or self.usage.busy_cores is None:
            return None
        return self.usage.busy_cores / self.quota


@dataclass(frozen=True)
class BackendTimes:
    """haproxy's requests to one backend server (or ``all``) in a window."""

    server: str  # node1 ..., <NOSRV> (none could take it), all
    requests: int
    errors: int  # status 500 or above, or -1 (no answer)
    queue_median: float | None  # ms (%Tw), requests that reached a queue
    queue_p95: float | None
    connect_median: float | None  # ms (%Tc), requests that reached a server
    connect_p95: float | None


@dataclass(frozen=True)
class Saturated:
    """A tier at :data:`SATURATED` of its CPU quota or more."""

    tier: str  # database, nodes (on average) or one node
    use: float  # of its quota (1.0: all of it)
    quota: float  # CPUs (each node's, for nodes)


@dataclass(frozen=True)
class WorkloadClusterView:
    """The cluster's tiers during one workload's load window."""

    nodes: list[TierView]
    database: TierView | None  # None: no database samples
    haproxy: TierView | None  # None: no haproxy samples
    backends: list[BackendTimes] | None  # then ``all``; None: no haproxy log
    quotas: Quotas
    saturated: list[Saturated]  # most used first

    @property
    def judged(self) -> bool:
        """True when a tier with a quota was sampled (saturation is known)."""
        return any(t.quota_use is not None for t in [*self.nodes, self.database] if t)


def quotas(state: RunState) -> Quotas:
    """The CPU quotas of run.json's ``cpu_quota`` (deploy/cluster/cgroups.py);
    a missing key, or not a positive number, is no quota."""
    cpus = state.cpu_quota

    def cpu(value: Any) -> float | None:
        number = isinstance(value, int | float) and not isinstance(value, bool)
        return float(value) if number and value > 0 else None

    if not isinstance(cpus, dict):
        return Quotas()
    return Quotas(cpu(cpus.get("node")), cpu(cpus.get(DB_TIER)))


def node_names(cluster: dict[str, Any]) -> list[str]:
    """``node1`` ... one per node address run.json's cluster network lists."""
    addresses = (cluster.get("network") or {}).get("node_addresses") or []
    return [haproxy.node_name(index) for index in range(len(addresses))]


def accepted_naive(text: str) -> float | None:
    """haproxy's ``%tr`` (``23/Nov/2026:07:41:43.123``) read as if it were UTC."""
    match = _ACCEPTED.fullmatch(text)
    if match is None or match[2] not in _MONTHS:
        return None
    day, month, year = int(match[1]), _MONTHS.index(match[2]) + 1, int(match[3])
    fields = (year, month, day, int(match[4]), int(match[5]), int(match[6]))
    return calendar.timegm((*fields, 0, 0, 0)) + float(match[7] or 0)


def zone_offset(naive: Sequence[float], epoch: Sequence[float]) -> float:
    """Seconds from haproxy's local times (read as UTC) to epoch times.

    The whole quarter hours between the medians of haproxy's requests and
    the nodes' (the same requests, each seen by both); without either, this
    machine's zone at the first of haproxy's times.
    """
    later, earlier = median_p95(list(epoch))[0], median_p95(list(naive))[0]
    if later is not None and earlier is not None:
        return round((later - earlier) / ZONE_STEP) * ZONE_STEP
    if not naive:
        return 0.0
    first = time.gmtime(naive[0])
    return time.mktime((*first[:8], -1)) - calendar.timegm(first)


def read_proxied(
    path: Path, requests: Iterable[access_log.ServerRequest]
) -> list[Proxied]:
    """haproxy's logged requests, accepted times lined up with ``requests``'.

    :raises ReportError: the log cannot be read.
    """
    try:
        with open(path, encoding="utf-8") as stream:
            parsed = [haproxy.parse_log_line(line) for line in stream]
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportError(f"{path}: cannot read haproxy's log: {exc}") from None
    lines = []
    for line in parsed:
        naive = None if line is None else accepted_naive(line.accepted)
        if line is not None and naive is not None:
            lines.append((naive, line))
    starts = [r.start for r in requests]
    offset = zone_offset([naive for naive, _ in lines], starts)
    return [Proxied(naive + offset, line) for naive, line in lines]


def read_cluster(run: RunDir, state: RunState) -> ClusterLogs | None:
    """A cluster run's files; None when the run is not a cluster's.

    :raises ReportError: a file exists but cannot be read.
    """
    if not state.cluster:
        return None
    nodes = node_names(state.cluster)
    requests = {}
    for node in nodes:
        path = run.logs / node / run.access_log.name
        if path.is_file():
            every = access_log.read_requests(path)
            requests[node] = [r for r in every if r.route != HEALTH_CHECK]
    samples = {}
    for tier in [*nodes, DB_TIER, HAPROXY_TIER]:
        found = read_if_present(run.logs / tier_csv(tier))
        if found is not None:
            samples[tier] = found
    logs = ClusterLogs(nodes, quotas(state), requests, samples, None)
    log = run.logs / HAPROXY_LOG
    if not log.is_file():
        return logs
    return dataclasses.replace(
        logs, proxied=read_proxied(log, logs.all_requests() or [])
    )


def _usage(
    logs: ClusterLogs, tier: str, window: Window, iterations: int
) -> ResourceUsage | None:
    samples = logs.samples.get(tier)
    return None if samples is None else resource_usage(samples, *window, iterations)


def _per_request(usage: ResourceUsage | None, requests: int | None) -> float | None:
    if usage is None or not requests:
        return None
    return usage.cpu_seconds / requests


def node_views(logs: ClusterLogs, window: Window, iterations: int) -> list[TierView]:
    """One row per node: its requests inside ``window``, its CPU and memory."""
    inside = {
        node: access_log.within(served, *window)
        for node, served in logs.requests.items()
    }
    total = sum(len(served) for served in inside.values())
    views = []
    for node in logs.nodes:
        served = inside.get(node)
        count = None if served is None else len(served)
        median, p95 = median_p95([r.server_time for r in served or [] if r.ok])
        usage = _usage(logs, node, window, iterations)
        share = count / total if count is not None and total else None
        views.append(
            TierView(
                node,
                count,
                share,
                median,
                p95,
                usage,
                logs.quotas.node,
                _per_request(usage, count),
            )
        )
    return views


def _reached(values: Iterable[int]) -> tuple[float | None, float | None]:
    """Median and p95 of haproxy's timers that were reached (not -1)."""
    return median_p95([float(v) for v in values if v >= 0])


def _times(server: str, lines: Sequence[haproxy.LogLine]) -> BackendTimes:
    queue = _reached(line.queue_ms for line in lines)
    connect = _reached(line.connect_ms for line in lines)
    errors = sum(1 for line in lines if line.status >= 500 or line.status < 0)
    return BackendTimes(server, len(lines), errors, *queue, *connect)


def _server_order(server: str) -> tuple[int, int, str]:
    """node1, node2, ..., node10, then other names (haproxy's <NOSRV>)."""
    match = _NODE.fullmatch(server)
    return (0, int(match[1]), "") if match else (1, 0, server)


def backend_times(proxied: Iterable[Proxied], window: Window) -> list[BackendTimes]:
    """haproxy's requests accepted inside ``window`` per backend server, then all."""
    start, end = window
    inside = [p.line for p in proxied if start <= p.accepted <= end]
    by_server: dict[str, list[haproxy.LogLine]] = collections.defaultdict(list)
    for line in inside:
        by_server[line.server].append(line)
    rows = [
        _times(server, by_server[server])
        for server in sorted(by_server, key=_server_order)
    ]
    return [*rows, _times(ALL, inside)] if inside else []


def saturation(
    nodes: Sequence[TierView], database: TierView | None, limits: Quotas
) -> list[Saturated]:
    """The tiers at :data:`SATURATED` of their CPU quota or more, most used first.

    The nodes count as one tier when every node was sampled and their
    average use is; else each node that is counts on its own.
    """
    found = []
    if database and database.quota_use is not None and database.quota is not None:
        if database.quota_use >= SATURATED:
            found.append(Saturated(DATABASE, database.quota_use, database.quota))
    uses = [(n.tier, n.quota_use) for n in nodes if n.quota_use is not None]
    if uses and limits.node is not None:
        mean = sum(use for _, use in uses) / len(uses)
        if mean >= SATURATED and len(uses) == len(nodes):
            found.append(Saturated(NODES, mean, limits.node))
        else:
            found += [Saturated(t, u, limits.node) for t, u in uses if u >= SATURATED]
    return sorted(found, key=lambda s: -s.use)


def workload_view(
    logs: ClusterLogs, window: Window, iterations: int
) -> WorkloadClusterView:
    """The cluster's tiers during one workload's load ``window``."""
    nodes = node_views(logs, window, iterations)
    served = sum(n.requests or 0 for n in nodes)
    database = haproxy_view = None
    if DB_TIER in logs.samples:
        usage = _usage(logs, DB_TIER, window, iterations)
        per = _per_request(usage, served)
        database = TierView(
            DATABASE, None, None, None, None, usage, logs.quotas.db, per
        )
    backends = None
    if logs.proxied is not None:
        backends = backend_times(logs.proxied, window)
    if HAPROXY_TIER in logs.samples:
        usage = _usage(logs, HAPROXY_TIER, window, iterations)
        count = backends[-1].requests if backends else None
        per = _per_request(usage, count)
        haproxy_view = TierView(HAPROXY_TIER, count, None, None, None, usage, None, per)
    return WorkloadClusterView(
        nodes,
        database,
        haproxy_view,
        backends,
        logs.quotas,
        saturation(nodes, database, logs.quotas),
    )
