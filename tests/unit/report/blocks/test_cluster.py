"""Tests for report.blocks.cluster: a cluster's tiers in the report formats.

The run folder is :mod:`tests.unit.report.cluster_runs`' (figures worked
out there).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
from pathlib import Path
from typing import Any

import pytest

from rally_keystone_perf.report import api
from rally_keystone_perf.report.blocks import cluster
from rally_keystone_perf.report.blocks.model import shown
from rally_keystone_perf.report.blocks.report_data import (
    SERVER_CSV_FIELDS,
    cluster_data,
)
from rally_keystone_perf.report.figures import cluster_view, run_labels
from rally_keystone_perf.report.writers.render import text_lines
from tests.unit.report import cluster_runs as c
from tests.unit.report import runs as r

MB = 1024 * 1024
QUOTAS = {"node": 0.25, "db": 0.5}
SATURATED = (
    "saturated: database (98% of its 0.5-CPU quota), nodes (95% of 0.25 CPU each)"
)


def _write(tmp_path: Path, fmt: str, cpus: Any = QUOTAS, **files: Any) -> str:
    c.make_cluster_run(tmp_path, cpus, **files)
    stream = io.StringIO()
    api.write_report(run_labels.load_reports([tmp_path / "run"]), stream, fmt)
    return stream.getvalue()


def _cells(out: str, first: str) -> list[str]:
    """The cells of the first text table row whose first cell is ``first``."""
    rows = [
        [cell.strip() for cell in line.strip("|").split("|")]
        for line in out.splitlines()
        if line.startswith("| ")
    ]
    return next(cells for cells in rows if cells[0] == first)


def test_table(tmp_path: Path) -> None:
    out = _write(tmp_path, "table")
    assert "cluster tiers (haproxy's health checks, GET /v3, not counted):" in out
    assert _cells(out, "node1") == [
        "node1",
        "3",
        "75.0",
        "150.0",
        "195.0",
        "192.50",
        "100% of 0.25 CPU",
        "200.0",
    ]
    assert _cells(out, "node2")[1:3] == ["1", "25.0"]
    assert _cells(out, "node2")[6] == "90% of 0.25 CPU"
    assert _cells(out, "database") == [
        "database",
        "-",
        "-",
        "-",
        "-",
        "282.97",
        "98% of 0.5 CPU",
        "310.0",
    ]
    assert _cells(out, "haproxy to")[1:3] == ["requests", "errors"]
    assert _cells(out, "haproxy") == [
        "haproxy",
        "5",
        "-",
        "-",
        "-",
        "9.24",
        "0.02 CPUs",
        "10.0",
    ]
    assert _cells(out, "no server") == ["no server", "1", "1", "-", "-", "-", "-"]
    assert _cells(out, "all") == ["all", "5", "2", "0.5", "3.5", "1.5", "2.0"]
    assert out.rstrip().endswith(SATURATED)
    assert "server CPU:" not in out  # no resources.csv: the tiers say it


def test_markdown(tmp_path: Path) -> None:
    out = _write(tmp_path, "markdown")
    assert (
        "| tier | requests | share % | server median ms | server p95 ms "
        "| CPU ms/request | CPU use | peak RSS MB |\n| --- | ---: |"
    ) in out
    assert (
        "| node1 | 3 | 75.0 | 150.0 | 195.0 | 192.50 | 100% of 0.25 CPU | 200.0 |"
        in out
    )
    assert "| node1 | 3 | 1 | 1.0 | 3.7 | 1.0 | 1.9 |" in out
    assert "| no server | 1 | 1 | - | - | - | - |" in out
    assert f"\n\n{SATURATED}\n" in out
    assert "<NOSRV>" not in out


def test_json(tmp_path: Path) -> None:
    document = json.loads(_write(tmp_path, "json"))
    (workload,) = document["reports"][0]["workloads"]
    cluster = workload["server"]["cluster"]
    node1, node2 = cluster["nodes"]
    assert (node1["tier"], node1["requests"], node1["share"]) == ("node1", 3, 0.75)
    assert node1["quota_use"] == pytest.approx(1.0)
    assert node1["usage"]["peak_rss_mb"] == 200.0
    assert node2["cpu_per_request"] == pytest.approx(0.51975)
    assert cluster["database"]["quota_use"] == pytest.approx(0.98)
    assert cluster["haproxy"]["quota"] is None
    assert cluster["backends"][-1] == {
        "server": "all",
        "requests": 5,
        "errors": 2,
        "queue_median": 0.5,
        "queue_p95": pytest.approx(3.55),
        "connect_median": 1.5,
        "connect_p95": 2.0,
    }
    assert cluster["backends"][2]["server"] == "<NOSRV>"
    assert cluster["quotas"] == {"node": 0.25, "db": 0.5}
    assert [s["tier"] for s in cluster["saturated"]] == ["database", "nodes"]
    assert cluster["saturation"] == SATURATED
    assert workload["server"]["resources"] is None


def test_csv_keeps_its_columns(tmp_path: Path) -> None:
    rows = list(csv.DictReader(io.StringIO(_write(tmp_path, "csv"))))
    assert set(SERVER_CSV_FIELDS) <= set(rows[0])
    token = next(row for row in rows if row["action"] == "keystone.create_token")
    assert float(token["server_median"]) == 0.1  # every node's requests
    assert token["server_cpu_per_iteration"] == ""


NODE2_AT_40 = c.SAMPLES | {"node2": f"999.0,0.0,{MB},1\n1003.0,0.4,{MB},1\n"}


@pytest.mark.parametrize(
    ("cpus", "samples", "line"),
    [
        (None, None, "no quotas: CPU shares shown"),
        (
            {"node": 1, "db": 2.0},
            None,
            "none saturated (no tier at 90% of its CPU quota)",
        ),
        (
            {"db": 2.0},
            None,
            "none saturated (no tier at 90% of its CPU quota); nodes: no quota",
        ),
        (
            {"node": 0.25, "db": 2},
            NODE2_AT_40,
            "saturated: node1 (100% of its 0.25-CPU quota)",
        ),
        (
            {"node": 0.25},
            {},
            "saturation: n/a (no CPU sample of a tier with a quota)",
        ),
    ],
)
def test_saturation_line(tmp_path: Path, cpus: Any, samples: Any, line: str) -> None:
    out = _write(tmp_path, "table", cpus, samples=samples)
    assert out.rstrip().splitlines()[-1] == line


def test_cpus_used_without_quotas(tmp_path: Path) -> None:
    out = _write(tmp_path, "table", None)
    assert _cells(out, "node2")[6] == "0.23 CPUs"
    assert _cells(out, "database")[6] == "0.49 CPUs"


def test_no_haproxy_request_inside_the_window(tmp_path: Path) -> None:
    early = c.HAPROXY_LOG.replace("02:16:4", "02:10:4")  # 6 minutes before
    out = _write(tmp_path, "table", haproxy_log=early)
    assert "haproxy: no request accepted inside the load window" in out
    assert "| haproxy to " not in out
    assert _cells(out, "haproxy")[1] == "-"


@pytest.mark.parametrize("fmt", ["table", "markdown", "json"])
def test_a_single_host_report_has_no_cluster_part(tmp_path: Path, fmt: str) -> None:
    r.make_run(tmp_path, "run", [r.workload([0.1, 0.2, 0.3])], r.state())
    logs = tmp_path / "run" / "logs"
    logs.mkdir()
    (logs / "access.log").write_text("1000000100 POST /v3/auth/tokens 201 90000 11\n")
    stream = io.StringIO()
    api.write_report(run_labels.load_reports([tmp_path / "run"]), stream, fmt)
    out = stream.getvalue()
    assert "server side" in out or '"server"' in out
    for mark in ("cluster", "haproxy", "saturat"):
        assert mark not in out


def _lines(view: cluster_view.WorkloadClusterView) -> list[str]:
    return text_lines(shown(cluster.blocks(view), "table"))


def test_failures_in_no_haproxy_line_are_explained() -> None:
    view = cluster_view.WorkloadClusterView(
        [], None, None, [], cluster_view.Quotas(), [], silent_closes=3
    )
    lines = _lines(view)
    assert lines[-2] == cluster.silent_close_line(3)
    assert lines[-2].startswith("haproxy: 3 failed iterations are in no log line")
    assert cluster_data(view)["silent_closes"] == 3
    quiet = dataclasses.replace(view, silent_closes=0)
    assert not [x for x in _lines(quiet) if "#3414" in x]


def test_a_single_host_s_tiers_have_their_own_heading() -> None:
    node = cluster_view.TierView("node1", 3, 1.0, 0.1, 0.2, None, 0.25, None)
    view = cluster_view.WorkloadClusterView(
        [node], None, None, None, cluster_view.Quotas(0.25), []
    )
    assert _lines(view)[0] == cluster.HOST_HEADING
    two = dataclasses.replace(view, nodes=[node, node])
    assert _lines(two)[0] == cluster.TIERS_HEADING
