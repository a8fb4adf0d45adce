"""The bottleneck line of a workload: which tier was busy, from measurements.

Each tier's busy cores in the load window (the sampled process trees:
Keystone, or each node and the database of a cluster, and the load
generator) over the CPUs it may use (its cgroup quota, else the machine's)
name the busiest; tiers without a quota share the machine, so their sum is
checked against its CPUs too. Requests that waited in haproxy's queue (its
log's ``%Tw``, p95 of 1 ms or more) name haproxy's queue. A traced run adds
where the server's time went (:mod:`..readers.tracing`): the median traced
iteration's largest category, its SQL statements and its cache misses (a get
that neither the request's memo nor the shared cache answered). No tier at
80% of its CPUs and no queue: ``none`` with each use.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rally_keystone_perf.report.figures.server_view import (
    WorkloadServerView,
    server_view,
)
from rally_keystone_perf.report.readers.haproxy_log import ALL
from rally_keystone_perf.report.readers.rally_json import Workload
from rally_keystone_perf.report.readers.tracing import Breakdown

PREFIX = "bottleneck: "
CLIENT = "client"  # the load generator's tier
BUSY = 0.8  # a tier using this share of its CPUs is busy
QUEUED_MS = 1.0  # haproxy's queue time (p95) that names its queue
CATEGORY_WORDS = {
    "sql": "SQL",
    "cache": "cache lookups",
    "policy": "policy checks",
    "password": "password hashing",
    "token": "token encoding",
    "rest": "other Keystone code",
}


@dataclass(frozen=True)
class TierUse:
    """A tier's busy cores against the CPUs it may use."""

    name: str
    cores: float
    capacity: float
    # what bounds it: its cgroup's quota, its processes (fewer than the
    # machine's CPUs: a Python process runs on one core at most) or the
    # machine it shares with the other unbounded tiers
    limit: str = "machine"  # quota, processes, machine

    @property
    def quota(self) -> bool:
        """Bounded by its own limit, not by the shared machine's CPUs."""
        return self.limit != "machine"

    @property
    def use(self) -> float:
        return self.cores / self.capacity

    def whose(self) -> str:
        """``its 1-CPU quota``, ``its 1 process``, ``2 cores``."""
        if self.limit == "quota":
            return f"its {self.capacity:g}-CPU quota"
        if self.limit == "processes":
            plural = "" if self.capacity == 1 else "es"
            return f"its {self.capacity:g} process{plural}"
        return f"{self.capacity:g} cores"

    def text(self) -> str:
        return f"{self.name} CPU {self.use:.0%} of {self.whose()}"


def tier_uses(
    view: WorkloadServerView, cpus: int | None, processes: int | None = None
) -> list[TierUse]:
    """Every sampled tier's use, the server's first; a single host's
    Keystone with fewer ``processes`` than ``cpus`` is bounded by them."""
    found: list[tuple[str, float | None, float | None]] = []  # name, cores, quota
    if view.cluster is not None:
        tiers = [*view.cluster.nodes, *view.cluster.members]
        tiers += [t for t in (view.cluster.database,) if t is not None]
        found += [
            (t.tier, t.usage.busy_cores if t.usage else None, t.quota) for t in tiers
        ]
    elif view.resources is not None:
        found.append(("Keystone", view.resources.busy_cores, None))
    if view.client is not None:
        found.append((CLIENT, view.client.busy_cores, None))
    uses = []
    for name, cores, quota in found:
        if cores is None or not (quota or cpus):
            continue
        if quota:
            uses.append(TierUse(name, cores, quota, "quota"))
        elif name == "Keystone" and processes and cpus and processes < cpus:
            uses.append(TierUse(name, cores, float(processes), "processes"))
        else:
            uses.append(TierUse(name, cores, float(cpus or 0)))
    return uses


def server_busy(uses: Sequence[TierUse], cpus: int | None) -> bool:
    """Whether a server tier took the CPU: one at :data:`BUSY` of its CPUs,
    or the shared machine that busy with the client using under half of it
    (a load generator's lag is then the servers' doing, not its own)."""
    servers = [u for u in uses if u.name != CLIENT]
    if any(u.use >= BUSY for u in servers):
        return True
    shared = [u for u in uses if not u.quota]
    machine = sum(u.cores for u in shared)
    client = sum(u.cores for u in shared if u.name == CLIENT)
    return bool(cpus) and machine >= BUSY * (cpus or 0) and client < machine / 2


def server_time_words(median: Breakdown) -> str:
    """The largest share of a traced iteration's server time, with counts."""
    if median.server <= 0:
        return ""
    category = max(median.seconds, key=lambda c: median.seconds[c])
    share = median.seconds[category] / median.server
    misses = (
        f", {median.cache_misses:g} of {median.cache_gets:g} cache gets missed"
        if median.cache_misses
        else ""
    )
    return (
        f"server time {share:.0%} {CATEGORY_WORDS[category]}, "
        f"{median.sql_count:g} SQL statements{misses}"
    )


def queue_words(view: WorkloadServerView) -> str:
    """``haproxy queue p95 X ms`` when requests waited there (else empty)."""
    backends = view.cluster.backends if view.cluster is not None else None
    every = [b for b in backends or [] if b.server == ALL]
    if not every or every[0].queue_p95 is None or every[0].queue_p95 < QUEUED_MS:
        return ""
    times = every[0]
    return (
        f"haproxy queue p95 {times.queue_p95:g} ms (median "
        f"{times.queue_median:g} ms): requests waited for a node"
    )


def bottleneck_line(
    view: WorkloadServerView, cpus: int | None, processes: int | None = None
) -> str | None:
    """``bottleneck: ...`` or ``no tier busy: ...``; None with no figure
    (``processes``: a single host's Keystone processes, see :func:`tier_uses`)."""
    uses = sorted(tier_uses(view, cpus, processes), key=lambda u: u.use, reverse=True)
    parts = []
    shared = [u for u in uses if not u.quota]
    machine = sum(u.cores for u in shared)
    if cpus and len(shared) > 1 and machine / cpus >= BUSY > max(u.use for u in shared):
        each = ", ".join(f"{u.name} {u.cores:.2f}" for u in shared)
        parts.append(f"the machine's {cpus} CPUs {machine / cpus:.0%} busy ({each})")
    elif uses and uses[0].use >= BUSY:
        parts.append(uses[0].text())
    parts += [queue] if (queue := queue_words(view)) else []
    traced = view.traces.median if view.traces is not None else None
    words = server_time_words(traced) if traced is not None else ""
    if parts:
        return PREFIX + "; ".join([*parts, *([words] if words else [])])
    if not uses and not words:
        return None
    busy = f"none ({_compact(uses)})" if uses else "n/a"
    return PREFIX + "; ".join(p for p in (busy, words) if p)


def _compact(uses: list[TierUse]) -> str:
    """``CPU: Keystone 46%, client 1% of 2 cores`` (quotas said per tier)."""
    shared = [u for u in uses if not u.quota]
    texts = [f"{u.name} {u.use:.0%} of {u.whose()}" for u in uses if u.quota]
    if shared:
        each = ", ".join(f"{u.name} {u.use:.0%}" for u in shared)
        texts.append(f"{each} of {shared[0].capacity:g} cores")
    return "CPU: " + ", ".join(texts)


def workload_bottlenecks(
    report: Path, workloads: Sequence[Workload]
) -> list[str | None]:
    """Each workload's bottleneck line without ``bottleneck:`` (None: the run
    folder has no server files, or nothing was measured)."""
    view = server_view(report, workloads)
    if view is None:
        return [None] * len(workloads)
    lines = [bottleneck_line(w, view.cpus, view.processes) for w in view.workloads]
    return [None if line is None else line.removeprefix(PREFIX) for line in lines]
