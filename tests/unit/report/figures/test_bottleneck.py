"""The bottleneck line: the busiest tier and where the traced time went."""

from __future__ import annotations

from rally_keystone_perf.report.figures import cluster_view
from rally_keystone_perf.report.figures.bottleneck import (
    TierUse,
    bottleneck_line,
    server_busy,
)
from rally_keystone_perf.report.figures.server_view import WorkloadServerView
from rally_keystone_perf.report.readers import haproxy_log
from rally_keystone_perf.report.readers.resources import ResourceUsage
from rally_keystone_perf.report.readers.tracing import (
    CATEGORIES,
    Breakdown,
    WorkloadTraces,
)


def _usage(cores: float) -> ResourceUsage:
    return ResourceUsage(cores * 10, 0.01, cores, 100 << 20, 3, 5)


def _view(
    server: float | None, client: float | None, **more: object
) -> WorkloadServerView:
    return WorkloadServerView(
        None,
        None,
        _usage(server) if server is not None else None,
        client=_usage(client) if client is not None else None,
        **more,  # type: ignore[arg-type]
    )


def _traces(sql: float, rest: float) -> WorkloadTraces:
    seconds = dict.fromkeys(CATEGORIES, 0.0) | {"sql": sql, "rest": rest}
    median = Breakdown(sql + rest, seconds, 96, 166, 48)
    return WorkloadTraces("sample:0.1", 10, 10, [], median, 0.1)


def test_a_busy_keystone_is_named() -> None:
    line = bottleneck_line(_view(1.9, 0.05), 2)
    assert line == "bottleneck: Keystone CPU 95% of 2 cores"


def test_server_and_client_together_fill_the_machine() -> None:
    line = bottleneck_line(_view(1.2, 0.6), 2)
    assert line == (
        "bottleneck: the machine's 2 CPUs 90% busy (Keystone 1.20, client 0.60)"
    )


def test_no_busy_tier_says_each_use() -> None:
    line = bottleneck_line(_view(0.9, 0.1), 2)
    assert line == "bottleneck: none (CPU: Keystone 45%, client 5% of 2 cores)"


def test_a_traced_run_says_where_the_server_time_went() -> None:
    line = bottleneck_line(_view(1.9, 0.05, traces=_traces(0.061, 0.039)), 2)
    assert line == (
        "bottleneck: Keystone CPU 95% of 2 cores; server time 61% SQL, "
        "96 SQL statements, 48 of 166 cache gets missed"
    )


def test_a_node_at_its_quota() -> None:
    node = cluster_view.TierView("node1", 10, 1.0, 0.01, 0.02, _usage(0.48), 0.5, None)
    cluster = cluster_view.WorkloadClusterView(
        [node], None, None, None, cluster_view.Quotas(node=0.5), []
    )
    line = bottleneck_line(_view(None, 0.2, cluster=cluster), 2)
    assert line == "bottleneck: node1 CPU 96% of its 0.5-CPU quota"


def test_nothing_measured() -> None:
    assert bottleneck_line(_view(None, None), 2) is None
    assert bottleneck_line(_view(1.9, 0.1), None) is None  # no CPU count recorded


def _queued(p95: float | None) -> cluster_view.WorkloadClusterView:
    every = haproxy_log.BackendTimes(haproxy_log.ALL, 40, 0, 2.0, p95, 0.1, 0.2)
    return cluster_view.WorkloadClusterView(
        [], None, None, [every], cluster_view.Quotas(), []
    )


def test_requests_that_waited_in_haproxys_queue() -> None:
    line = bottleneck_line(_view(None, 0.2, cluster=_queued(12.0)), 2)
    assert line == (
        "bottleneck: haproxy queue p95 12 ms (median 2 ms): requests waited for a node"
    )
    quiet = bottleneck_line(_view(None, 0.2, cluster=_queued(0.0)), 2)
    assert quiet == "bottleneck: none (CPU: client 10% of 2 cores)"


def test_a_single_process_keystone_is_bounded_by_its_process() -> None:
    """keystone-all with one worker: one core of two busy is its limit."""
    line = bottleneck_line(_view(0.98, 0.05), 2, processes=1)
    assert line == "bottleneck: Keystone CPU 98% of its 1 process"
    quiet = bottleneck_line(_view(0.5, 0.05), 2, processes=1)
    assert quiet == (
        "bottleneck: none (CPU: Keystone 50% of its 1 process, client 2% of 2 cores)"
    )
    assert bottleneck_line(_view(0.98, 0.05), 2, processes=4) == (
        "bottleneck: none (CPU: Keystone 49%, client 2% of 2 cores)"
    )


def test_a_server_tier_busy_is_the_servers_cpu() -> None:
    keystone, client = TierUse("Keystone", 1.85, 2), TierUse("client", 0.05, 2)
    assert server_busy([keystone, client], 2)
    quiet = TierUse("Keystone", 0.7, 2)
    assert not server_busy([quiet, client], 2)
    # the machine busy, the client the half of it: the generator's own load
    assert not server_busy([quiet, TierUse("client", 0.9, 2)], 2)
    assert server_busy([TierUse("Keystone", 1.1, 2), TierUse("client", 0.6, 2)], 2)
    node = TierUse("node1", 0.95, 1, "quota")
    assert server_busy([node, TierUse("client", 0.1, 2)], 2)
    assert not server_busy([], None)
