"""A cluster run's tiers (:mod:`..figures.cluster_view`) in the report's server side.

Under a workload's route table the text and markdown outputs print a table
of the tiers (a row per node, the database, haproxy), a table of haproxy's
backend servers (its queue and connect times) and the saturation line; the
JSON's ``"cluster"`` object is :func:`.report_data.cluster_data`'s.
"""

from __future__ import annotations

from rally_keystone_perf.report.blocks.model import (
    AS_IS,
    Block,
    Lines,
    Only,
    Table,
    columns,
)
from rally_keystone_perf.report.blocks.saturation import saturation_line
from rally_keystone_perf.report.figures.cluster_view import (
    TierView,
    WorkloadClusterView,
)
from rally_keystone_perf.report.readers.haproxy_log import BackendTimes

TIER_COLUMNS = columns(
    "tier:text; requests; share %; server median ms; server p95 ms; CPU ms/request",
    "CPU use; peak RSS MB",
)
BACKEND_COLUMNS = columns(
    "haproxy to:text; requests; errors; queue median ms; queue p95 ms",
    "connect median ms; connect p95 ms",
)
NO_SERVER = "<NOSRV>"  # haproxy's server of a request no server could take
NO_SERVER_LABEL = "no server"  # (markdown would take <NOSRV> for a tag)
TIERS_HEADING = "cluster tiers (haproxy's health checks, GET /v3, not counted):"
HOST_HEADING = "tiers (this host's Keystone with its memcached, the database):"
TIERS_CAPTION = "tiers: each node, haproxy, memcached, the database"
BACKEND_CAPTION = "haproxy: its times to each node"


def _number(value: float | None, scale: float = 1.0, digits: int = 1) -> str:
    return "-" if value is None else f"{value * scale:.{digits}f}"


def cpu_use(tier: TierView) -> str:
    """``98% of 0.5 CPU`` with a quota, else ``1.23 CPUs``; n/a unsampled."""
    usage = tier.usage
    if usage is None or usage.busy_cores is None:
        return "n/a"
    if tier.quota_use is not None:
        return f"{tier.quota_use * 100:.0f}% of {tier.quota:g} CPU"
    return f"{usage.busy_cores:.2f} CPUs"


def tier_row(tier: TierView) -> list[str]:
    """A tier's cells: requests, share, server times, CPU, memory."""
    usage = tier.usage
    return [
        tier.tier,
        "-" if tier.requests is None else str(tier.requests),
        _number(tier.share, 100),
        *(_number(seconds, 1000) for seconds in (tier.median, tier.p95)),
        _number(tier.cpu_per_request, 1000, 2),
        cpu_use(tier),
        "n/a" if usage is None else f"{usage.peak_rss_mb:.1f}",
    ]


def backend_row(times: BackendTimes) -> list[str]:
    """A backend server's requests, errors and haproxy's timers (ms)."""
    return [
        NO_SERVER_LABEL if times.server == NO_SERVER else times.server,
        *(str(times.requests), str(times.errors)),
        *map(_number, (times.queue_median, times.queue_p95)),
        *map(_number, (times.connect_median, times.connect_p95)),
    ]


def blocks(view: WorkloadClusterView) -> list[Block]:
    """The tiers' table (a row per node, then the database's or each Galera
    member's, and haproxy's when sampled), haproxy's backend table and the
    saturation line."""
    alone = len(view.nodes) == 1 and view.haproxy is None and view.backends is None
    heading = HOST_HEADING if alone else TIERS_HEADING
    found: list[Block] = [
        Only(("table", "markdown"), [Lines([heading], AS_IS)]),
        Table(TIER_COLUMNS, [tier_row(tier) for tier in view.tiers()], TIERS_CAPTION),
    ]
    lines = []
    if view.backends:
        rows = [backend_row(times) for times in view.backends]
        found.append(Table(BACKEND_COLUMNS, rows, BACKEND_CAPTION))
    elif view.backends is not None:
        lines.append("haproxy: no request accepted inside the load window")
    if view.silent_closes:
        lines.append(silent_close_line(view.silent_closes))
    return [*found, Lines([*lines, saturation_line(view)], AS_IS)]


def silent_close_line(count: int) -> str:
    """Why ``count`` failed iterations are in no haproxy line."""
    return (
        f"haproxy: {count} failed iterations are in no log line: their "
        "connection was closed without an answer, as haproxy does, unlogged, "
        "when the reused connection to a node dies before the node answers, "
        "so that a client may retry (haproxy/haproxy#3414)"
    )
