"""A cluster run's tiers (``--nodes N``) inside each workload's load window.

A cluster's run folder may hold (each optional)

* ``logs/nodeK/access.log``: node K's requests (the format of
  :mod:`..readers.access_log`), without haproxy's health checks (``GET /v3``
  every second on every node: not the workload's). Per node: requests
  served, its share of every node's, median and p95 server time of the
  successful.
* ``logs/resources-nodeK.csv``, ``resources-db.csv``,
  ``resources-haproxy.csv``: each tier's CPU and memory
  (:mod:`rally_keystone_perf.layout.resources`). Per tier: CPU seconds per
  request, CPUs used (as a share of its quota when run.json's ``cpu_quota``
  sets one), peak RSS.
* ``logs/haproxy-stdout.log``: haproxy's requests per backend server
  (:mod:`..readers.haproxy_log`).

and names the saturated tier: one whose CPU use is at least
:data:`SATURATED` of its quota. Times are in seconds except haproxy's, in
its milliseconds; every function here is pure (reads files only).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rally_keystone_perf.layout import names
from rally_keystone_perf.layout.resources import (
    DB_TIER,
    GALERA_HAPROXY,
    HAPROXY_TIER,
    tier_csv,
)
from rally_keystone_perf.layout.rundir import RunDir, RunState
from rally_keystone_perf.metrics import Window, median_p95
from rally_keystone_perf.report.readers import access_log
from rally_keystone_perf.report.readers.haproxy_log import (
    HAPROXY_LOG,
    BackendTimes,
    Proxied,
    backend_times,
    read_proxied,
)
from rally_keystone_perf.report.readers.resources import (
    ResourceSample,
    ResourceUsage,
    read_if_present,
    resource_usage,
)

HEALTH_CHECK = "GET /v3"  # haproxy's option httpchk, on every node every second
SATURATED = 0.9  # of a tier's CPU quota
DATABASE = "database"
NODES = "nodes"


@dataclass(frozen=True)
class Quotas:
    """The CPUs each node's and the database's cgroup may use (None: no quota)."""

    node: float | None = None
    db: float | None = None


@dataclass(frozen=True)
class ClusterLogs:
    """A cluster run's server-side files, read once for every workload."""

    nodes: list[str]  # node1, node2, ...
    quotas: Quotas
    requests: dict[str, list[access_log.ServerRequest]]  # nodes with a log
    samples: dict[str, list[ResourceSample]]  # tiers with a CSV
    proxied: list[Proxied] | None  # None: no haproxy log
    members: list[str] = dataclasses.field(default_factory=list)  # galera1 ...

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
    # --db galera: each member (the database's quota each) and its haproxy
    members: list[TierView] = dataclasses.field(default_factory=list)
    database_proxy: TierView | None = None
    # failed iterations in no haproxy line (haproxy_log.silent_closes)
    silent_closes: int = 0

    def tiers(self) -> list[TierView]:
        """Every sampled tier: nodes, the database or its members, haproxy's."""
        every = [
            *self.nodes,
            self.database,
            *self.members,
            self.haproxy,
            self.database_proxy,
        ]
        return [tier for tier in every if tier is not None]

    @property
    def judged(self) -> bool:
        """True when a tier with a quota was sampled (saturation is known)."""
        return any(t.quota_use is not None for t in self.tiers())


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


def galera_members(cluster: dict[str, Any]) -> list[str]:
    """``galera1`` ... as run.json's cluster records them (``--db galera``)."""
    recorded = cluster.get("galera") or []
    return [str(m.get("name")) for m in recorded if isinstance(m, dict)]


def node_names(cluster: dict[str, Any]) -> list[str]:
    """``node1`` ... one per node address run.json's cluster network lists."""
    addresses = (cluster.get("network") or {}).get("node_addresses") or []
    return [names.node_name(index) for index in range(len(addresses))]


def _tier_samples(run: RunDir, tiers: Sequence[str]) -> dict[str, Any]:
    """Each tier's samples, of the tiers that have a CSV."""
    samples = {}
    for tier in tiers:
        found = read_if_present(run.logs / tier_csv(tier))
        if found is not None:
            samples[tier] = found
    return samples


def _read_host(run: RunDir, state: RunState) -> ClusterLogs:
    """A single host held to CPU quotas as a one-node cluster without haproxy:
    its server's requests as node1's, its tiers' samples (sampler.host_tiers)."""
    node = names.node_name(0)
    requests = {}
    if run.access_log.is_file():
        requests[node] = access_log.read_requests(run.access_log)
    samples = _tier_samples(run, [node, DB_TIER])
    return ClusterLogs([node], quotas(state), requests, samples, None)


def read_cluster(run: RunDir, state: RunState) -> ClusterLogs | None:
    """A cluster run's files (a single host's with CPU quotas: :func:`_read_host`);
    None when the run is neither.

    :raises ReportError: a file exists but cannot be read.
    """
    if not state.cluster:
        return _read_host(run, state) if state.cpu_quota else None
    nodes = node_names(state.cluster)
    requests = {}
    for node in nodes:
        path = run.logs / node / run.access_log.name
        if path.is_file():
            every = access_log.read_requests(path)
            requests[node] = [r for r in every if r.route != HEALTH_CHECK]
    members = galera_members(state.cluster)
    tiers = [*nodes, DB_TIER, *members, HAPROXY_TIER, GALERA_HAPROXY]
    samples = _tier_samples(run, tiers)
    logs = ClusterLogs(nodes, quotas(state), requests, samples, None, members)
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


def saturation(
    nodes: Sequence[TierView],
    database: TierView | None,
    limits: Quotas,
    members: Sequence[TierView] = (),
) -> list[Saturated]:
    """The tiers at :data:`SATURATED` of their CPU quota or more, most used first.

    The nodes count as one tier when every node was sampled and their
    average use is; else each node that is counts on its own. The database,
    or each Galera member, counts on its own.
    """
    found = []
    for db in [database, *members]:
        if db and db.quota_use is not None and db.quota is not None:
            if db.quota_use >= SATURATED:
                found.append(Saturated(db.tier, db.quota_use, db.quota))
    uses = [(n.tier, n.quota_use) for n in nodes if n.quota_use is not None]
    if uses and limits.node is not None:
        mean = sum(use for _, use in uses) / len(uses)
        if mean >= SATURATED and len(uses) == len(nodes):
            found.append(Saturated(NODES, mean, limits.node))
        else:
            found += [Saturated(t, u, limits.node) for t, u in uses if u >= SATURATED]
    return sorted(found, key=lambda s: -s.use)


def workload_view(
    logs: ClusterLogs, window: Window, iterations: int, silent_closes: int = 0
) -> WorkloadClusterView:
    """The cluster's tiers during one workload's load ``window``;
    ``silent_closes``: its failures haproxy closed without a log line."""
    nodes = node_views(logs, window, iterations)
    served = sum(n.requests or 0 for n in nodes)
    database = haproxy_view = None
    if DB_TIER in logs.samples:
        database = _database_view(logs, DB_TIER, window, (iterations, served))
        database = dataclasses.replace(database, tier=DATABASE)
    backends = None
    if logs.proxied is not None:
        backends = backend_times(logs.proxied, window)
    if HAPROXY_TIER in logs.samples:
        usage = _usage(logs, HAPROXY_TIER, window, iterations)
        count = backends[-1].requests if backends else None
        per = _per_request(usage, count)
        haproxy_view = TierView(HAPROXY_TIER, count, None, None, None, usage, None, per)
    members = [
        _database_view(logs, member, window, (iterations, served))
        for member in logs.members
        if member in logs.samples
    ]
    proxy = None
    if GALERA_HAPROXY in logs.samples:
        proxy = _database_view(logs, GALERA_HAPROXY, window, (iterations, served))
        proxy = dataclasses.replace(proxy, quota=None)
    return WorkloadClusterView(
        nodes,
        database,
        haproxy_view,
        backends,
        logs.quotas,
        saturation(nodes, database, logs.quotas, members),
        members,
        proxy,
        silent_closes,
    )


def _database_view(
    logs: ClusterLogs, tier: str, window: Window, counts: tuple[int, int]
) -> TierView:
    """A database tier's CPU and memory; its CPU per request the nodes served."""
    iterations, served = counts
    usage = _usage(logs, tier, window, iterations)
    per = _per_request(usage, served)
    return TierView(tier, None, None, None, None, usage, logs.quotas.db, per)
