"""Tests for report.cluster_view: a cluster run's tiers in each load window.

The run folder is :mod:`.cluster_runs`' (two nodes, the database, haproxy);
its figures are worked out there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rally_keystone_perf.layout.rundir import RunState
from rally_keystone_perf.report.figures import cluster_view, server_view
from rally_keystone_perf.report.figures.cluster_view import (
    Quotas,
    Saturated,
    TierView,
    WorkloadClusterView,
)
from rally_keystone_perf.report.figures.server_view import RouteTimes
from rally_keystone_perf.report.readers.haproxy_log import BackendTimes
from rally_keystone_perf.report.readers.rally_json import ReportError, load_report
from tests.unit.report import cluster_runs as c
from tests.unit.report import runs as r

MB = 1024 * 1024
QUOTAS = {"node": 0.25, "db": 0.5}


def _views(report: Path) -> tuple[server_view.ServerView, WorkloadClusterView]:
    view = server_view.server_view(report, load_report(report))
    assert view is not None
    (workload,) = view.workloads
    assert workload.cluster is not None
    return view, workload.cluster


def _tier(tier: TierView) -> tuple[Any, ...]:
    """A tier's figures, comparable with pytest.approx."""
    usage = tier.usage
    assert usage is not None
    return (
        tier.tier,
        tier.requests,
        tier.share,
        tier.median,
        tier.p95,
        tier.cpu_per_request,
        usage.cpu_seconds,
        usage.busy_cores,
        usage.peak_rss_bytes,
        tier.quota,
        tier.quota_use,
    )


def test_nodes_inside_the_load_window(tmp_path: Path) -> None:
    view, cluster = _views(c.make_cluster_run(tmp_path, QUOTAS))
    assert (view.access_log, view.resources_csv) == (None, None)
    assert view.cluster is not None and view.cluster.nodes == ["node1", "node2"]
    node1, node2 = cluster.nodes
    # 3 requests (health checks not counted; the 500 counted, not timed);
    # 0.25 CPU over the window's 2.31 s
    assert _tier(node1) == pytest.approx(
        ("node1", 3, 0.75, 0.15, 0.195, 0.5775 / 3, 0.5775, 0.25, 200 * MB, 0.25, 1.0)
    )
    assert _tier(node2) == pytest.approx(
        ("node2", 1, 0.25, 0.05, 0.05, 0.51975, 0.51975, 0.225, 90 * MB, 0.25, 0.9)
    )


def test_the_database_and_haproxy(tmp_path: Path) -> None:
    _, cluster = _views(c.make_cluster_run(tmp_path, QUOTAS))
    assert cluster.database is not None and cluster.haproxy is not None
    # the database's CPU per request the nodes served (4)
    assert _tier(cluster.database) == pytest.approx(
        ("database", None, None, None, None, 1.1319 / 4, 1.1319, 0.49)
        + (310 * MB, 0.5, 0.98)
    )
    # haproxy's requests: the 5 it accepted inside the window
    assert _tier(cluster.haproxy) == pytest.approx(
        ("haproxy", 5, None, None, None, 0.0462 / 5, 0.0462, 0.02, 10 * MB, None, None)
    )
    assert cluster.saturated == [
        Saturated("database", pytest.approx(0.98), 0.5),
        Saturated("nodes", pytest.approx(0.95), 0.25),
    ]
    assert cluster.judged


def test_galera_members_each_have_a_row_and_a_quota(tmp_path: Path) -> None:
    samples = dict(c.SAMPLES)
    del samples["db"]
    samples |= {  # the active member 0.49 CPU, a backup 0.1, their haproxy 0.01
        "galera1": samples_row(10.0, 11.96),
        "galera2": samples_row(5.0, 5.4),
        "haproxy-galera": samples_row(0.0, 0.04),
    }
    report = c.make_cluster_run(tmp_path, QUOTAS, samples)
    cluster = c.cluster_state(QUOTAS)["cluster"]
    cluster["galera"] = [{"name": "galera1"}, {"name": "galera2"}]
    c.rewrite_state(tmp_path, cluster=cluster, services={})  # after the run stopped
    _, cluster = _views(report)
    assert cluster.database is None
    first, second = cluster.members
    assert (first.tier, second.tier) == ("galera1", "galera2")
    assert first.quota == 0.5 and first.quota_use == pytest.approx(0.98)
    assert second.quota_use == pytest.approx(0.2)
    assert first.cpu_per_request == pytest.approx(1.1319 / 4)  # per node request
    proxy = cluster.database_proxy
    assert proxy is not None and proxy.quota is None
    assert [t.tier for t in cluster.tiers()][-4:] == [
        "galera1",
        "galera2",
        "haproxy",
        "haproxy-galera",
    ]
    assert cluster.saturated[0] == Saturated("galera1", pytest.approx(0.98), 0.5)


def samples_row(first: float, last: float) -> str:
    """A tier's CPU seconds at 999 and 1003 (its slope: (last - first) / 4)."""
    return f"999.0,{first},{300 * MB},1\n1003.0,{last},{310 * MB},1\n"


def test_haproxy_per_backend_server(tmp_path: Path) -> None:
    _, cluster = _views(c.make_cluster_run(tmp_path, QUOTAS))
    assert cluster.backends == [
        BackendTimes("node1", 3, 1, 1.0, pytest.approx(3.7), 1.0, pytest.approx(1.9)),
        BackendTimes("node2", 1, 0, 0.0, 0.0, 2.0, 2.0),
        BackendTimes("<NOSRV>", 1, 1, None, None, None, None),
        BackendTimes("all", 5, 2, 0.5, pytest.approx(3.55), 1.5, 2.0),
    ]


def test_the_route_table_is_every_nodes(tmp_path: Path) -> None:
    view, _ = _views(c.make_cluster_run(tmp_path, QUOTAS))
    assert view.workloads[0].routes == [
        RouteTimes("POST /v3/auth/tokens", 4, 1, 0.1, pytest.approx(0.19))
    ]
    assert view.workloads[0].resources is None


def test_one_node_saturated(tmp_path: Path) -> None:
    samples = c.SAMPLES | {"node2": f"999.0,0.0,{MB},1\n1003.0,0.4,{MB},1\n"}
    report = c.make_cluster_run(tmp_path, {"node": 0.25, "db": 2}, samples)
    _, cluster = _views(report)
    # node2 at 40%: the nodes' average (70%) is not, node1 (100%) is
    assert cluster.saturated == [Saturated("node1", pytest.approx(1.0), 0.25)]


@pytest.mark.parametrize(
    ("cpus", "judged"), [({"node": 1, "db": 2.0}, True), (None, False)]
)
def test_none_saturated(tmp_path: Path, cpus: Any, judged: bool) -> None:
    _, cluster = _views(c.make_cluster_run(tmp_path, cpus))
    assert cluster.saturated == []
    assert cluster.judged is judged


def test_missing_files(tmp_path: Path) -> None:
    samples = {"node1": c.SAMPLES["node1"]}
    _, cluster = _views(c.make_cluster_run(tmp_path, QUOTAS, samples, None))
    assert (cluster.database, cluster.haproxy, cluster.backends) == (None, None, None)
    assert cluster.nodes[1].usage is None and cluster.nodes[1].requests == 1
    # node2 not sampled: node1 is saturated, not the nodes
    assert cluster.saturated == [Saturated("node1", pytest.approx(1.0), 0.25)]
    assert cluster.judged


def test_a_cluster_without_any_file(tmp_path: Path) -> None:
    report = r.make_run(tmp_path, "run", [r.workload([0.1])], c.cluster_state(QUOTAS))
    assert server_view.server_view(report, load_report(report)) is None


def test_an_unreadable_haproxy_log_is_a_report_error(tmp_path: Path) -> None:
    report = c.make_cluster_run(tmp_path, QUOTAS)
    (tmp_path / "run" / "logs" / "haproxy-stdout.log").write_bytes(b"\xff\xfe")
    with pytest.raises(ReportError, match="cannot read haproxy's log"):
        server_view.server_view(report, load_report(report))


@pytest.mark.parametrize(
    ("cpu_quota", "quotas"),
    [
        ({"version": "v2", "node": 0.25, "db": 0.5}, Quotas(0.25, 0.5)),
        (None, Quotas()),
        ({"version": "v1", "node": None, "db": 2}, Quotas(None, 2.0)),
        ({"version": "v1", "node": "1", "db": True}, Quotas()),
        ({"version": "v1", "node": 0, "db": -1}, Quotas()),
    ],
)
def test_quotas(cpu_quota: dict | None, quotas: Quotas) -> None:
    state = RunState.from_json({"cluster": {"ports": []}, "cpu_quota": cpu_quota})
    assert cluster_view.quotas(state) == quotas


def test_a_single_host_with_quotas_is_a_one_node_view(tmp_path: Path) -> None:
    state = r.state() | {
        "cpu_quota": {"version": "v1", "node": 0.25, "db": 0.5, "groups": {}}
    }
    report = r.make_run(tmp_path, "run", [r.workload([0.1, 0.2, 0.3])], state)
    logs = tmp_path / "run" / "logs"
    logs.mkdir(exist_ok=True)
    posts = [line for line in c.NODE1_LOG.splitlines(True) if "POST" in line]
    (logs / "access.log").write_text("".join(posts))  # no haproxy, no GET /v3
    for tier in ("node1", "db"):
        (logs / f"resources-{tier}.csv").write_text(c.HEADER + c.SAMPLES[tier])
    _, view = _views(report)
    (node,) = view.nodes
    assert (node.tier, node.requests, node.quota) == ("node1", 3, 0.25)
    assert view.database is not None and view.database.quota == 0.5
    assert view.haproxy is None and view.backends is None
    assert [s.tier for s in view.saturated] == ["nodes", "database"]


def test_a_single_host_without_quotas_has_no_tiers(tmp_path: Path) -> None:
    report = r.make_run(tmp_path, "run", [r.workload([0.1])], r.state())
    logs = tmp_path / "run" / "logs"
    logs.mkdir(exist_ok=True)
    (logs / "access.log").write_text(c.NODE1_LOG)
    view = server_view.server_view(report, load_report(report))
    assert view is not None and view.workloads[0].cluster is None
