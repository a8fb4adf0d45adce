"""Tests for rally_keystone_perf.report.figures.combined (one row per workload)."""

from __future__ import annotations

import io
from pathlib import Path

from rally_keystone_perf import cli
from rally_keystone_perf.report.blocks.combined import FIGURES
from rally_keystone_perf.report.figures import combined, run_labels, stats
from rally_keystone_perf.report.readers.rally_json import load_report
from rally_keystone_perf.report.writers import registry
from tests.unit.report import runs as r
from tests.unit.report import traced
from tests.unit.report.blocks.test_combined import combined_table


def _reports(tmp_path: Path) -> list[run_labels.LoadedReport]:
    one = r.make_run(
        tmp_path, "one", [r.workload(r.gauss(1, 0.5), concurrency=4)], r.state()
    )
    state = r.state("apache", processes=5)
    state["options"]["cache"] = "memcached"
    state["keystone_cache"] = "memcached"
    two = r.make_run(
        tmp_path,
        "two",
        [r.workload(r.gauss(2, 0.2), concurrency=4), r.workload([0.3] * 6)],
        state,
    )
    return run_labels.load_reports([one, two])


def test_a_row_per_workload_with_the_same_columns(tmp_path: Path) -> None:
    reports = _reports(tmp_path)
    header, rows = combined_table(combined.combined_rows(reports))
    assert header[: len(r.CONFIG_KEYS)] == r.CONFIG_KEYS
    assert header[len(r.CONFIG_KEYS) :] == [column.name for column in FIGURES]
    assert len(rows) == 3
    assert all(len(row) == len(header) for row in rows)
    by_column = [dict(zip(header, row, strict=True)) for row in rows]
    assert [row["mode"] for row in by_column] == ["uwsgi", "apache", "apache"]
    assert [row["cache"] for row in by_column] == [
        "request-local",
        "memcached",
        "memcached",
    ]
    assert [row["concurrency"] for row in by_column] == ["4", "4", "2"]
    # the figures are the report's total row
    workload = load_report(reports[0].path)[0]
    total = stats.total_row(stats.main_stats(workload))
    assert by_column[0]["p95 (s)"] == str(round(total.p95, 3))
    assert by_column[0]["median (s)"] == str(round(total.median or 0, 3))
    assert by_column[0]["count"] == "50"


def test_an_engine_column_when_a_row_ran_on_locust(tmp_path: Path) -> None:
    locust = r.workload([0.1] * 4, concurrency=2)
    locust["runner"] = {
        "runner_type": "constant",
        "runner": locust["runner"],
        "workers": 0,
        "worker_hosts": ["ns1", "ns2"],
        "expect_workers": 1,
    }
    locust["runner_type"] = "keystone_perf_locust"
    report = r.make_run(tmp_path, "locust", [locust], r.state())
    reports = [*_reports(tmp_path), *run_labels.load_reports([report])]
    header, rows = combined_table(combined.combined_rows(reports))
    engine = header.index("engine")
    assert header[engine + 1] == "scenario"  # after the configuration
    assert [row[engine] for row in rows] == [
        "rally",
        "rally",
        "rally",
        "locust, 3 workers",
    ]
    assert dict(zip(header, rows[-1], strict=True))["concurrency"] == "2"
    assert (
        "engine"
        not in combined_table(combined.combined_rows(_reports(tmp_path / "b")))[0]
    )


def test_missing_columns_show_a_dash(tmp_path: Path) -> None:
    report = r.make_run(tmp_path, "tags", [r.workload([0.1] * 3)], None, tags=["x:1"])
    (reports,) = run_labels.load_reports([report])
    header, rows = combined_table(
        combined.combined_rows([*_reports(tmp_path), reports])
    )
    assert dict(zip(header, rows[-1], strict=True))["mode"] == "-"
    assert dict(zip(header, rows[-1], strict=True))["x"] == "1"


def test_single_host_rows_beside_cluster_rows(tmp_path: Path) -> None:
    cluster = r.state() | {"cpu_quota": {"version": "v2", "node": 0.25, "db": None}}
    cluster["options"] |= {"nodes": 2}
    paths = [
        r.make_run(tmp_path, "single", [r.workload([0.1] * 3)], r.state()),
        r.make_run(tmp_path, "cluster", [r.workload([0.1] * 3)], cluster),
        r.make_run(tmp_path, "tags", [r.workload([0.1] * 3)], None, tags=["x:1"]),
    ]
    header, rows = combined_table(
        combined.combined_rows(run_labels.load_reports(paths))
    )
    keys = ["nodes", "balance", "node cpus", "db cpus"]
    assert header[header.index("nodes") : header.index("nodes") + 4] == keys
    cells = [[dict(zip(header, row, strict=True))[k] for k in keys] for row in rows]
    assert cells == [
        ["1", "-", "-", "-"],
        ["2", "roundrobin", "0.25", "-"],
        ["-", "-", "-", "-"],  # not a run of ours: its node count is unknown
    ]


def test_writers(tmp_path: Path) -> None:
    reports = _reports(tmp_path)
    table, markdown = io.StringIO(), io.StringIO()
    registry.write(registry.COMBINED, combined.combined_rows(reports), table, "table")
    registry.write(
        registry.COMBINED, combined.combined_rows(reports), markdown, "markdown"
    )
    assert table.getvalue().count("KeystonePerf.create_token") == 3
    assert markdown.getvalue().startswith("| mode | profile |")


def test_cli_report_combined(tmp_path: Path, capsys) -> None:
    reports = _reports(tmp_path)
    argv = ["report", *(str(x.path) for x in reports), "--combined"]
    assert cli.main(argv) == 0
    assert capsys.readouterr().out.count("| KeystonePerf.create_token") == 3
    assert cli.main([*argv, "--format", "csv"]) == 1
    assert "--combined writes table or markdown only" in capsys.readouterr().err


def test_a_bottleneck_column_from_the_runs_server_files(tmp_path: Path) -> None:
    traced_report = traced.traced_run(tmp_path / "traced")
    plain = _reports(tmp_path / "plain")
    header, rows = combined_table(
        combined.combined_rows([*run_labels.load_reports([traced_report]), *plain])
    )
    assert header[-1] == "bottleneck"
    cells = [row[-1] for row in rows]
    # the traced run: no CPU sampled, its median traced iteration's largest share
    assert cells[0] == (
        "n/a; server time 45% other Keystone code, 2 SQL statements, "
        "1 of 1 cache gets missed"
    )
    assert cells[1:] == ["-", "-", "-"]  # no server files
