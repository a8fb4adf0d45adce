"""Tests for rally_keystone_perf.report.figures.scaling (throughput against nodes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rally_keystone_perf.report.blocks.scaling import (
    FIGURES,
    UNREADABLE,
    saturated,
)
from rally_keystone_perf.report.figures import run_labels, scaling
from rally_keystone_perf.report.writers import registry
from tests.unit.report import runs as r
from tests.unit.report import scaling_runs as s
from tests.unit.report.blocks.test_scaling import scaling_table

BOTH = "database (98% of its 0.5-CPU quota), nodes (95% of 0.25 CPU each)"
EXPECTED = [
    ["1", "8", "2.0", "3.0", "260.0", "395.0", "nodes (96% of 0.25 CPU each)"],
    ["2", "2 (listings 8)", "1.5", "5.0", "210.0", "300.0", BOTH],
    ["3", "8 (listings 16)", "4.0", "6.0", "110.0", "110.0", "-"],
    ["4", "8", "3.0", "-", "110.0", "110.0", "-"],
]
SEED = [["57", "330"], ["105", "560"], ["140", "800"], ["140", "1000"]]


def test_a_row_per_node_count_beside_seed_001(tmp_path: Path) -> None:
    reports = s.matrix(tmp_path)
    header, rows = scaling_table(
        scaling.scaling_figures(reports[::-1])
    )  # sorted by node count
    assert header == [column.name for column in FIGURES]
    assert rows == [[*row, *seed] for row, seed in zip(EXPECTED, SEED, strict=True)]
    assert scaling.node_counts(reports) == ["1", "2", "3", "4"]


def test_configurations_lead_the_rows_when_they_differ(tmp_path: Path) -> None:
    paths = []
    for mode in ("uwsgi", "apache"):
        for nodes, count in ((5, 4), (1, 2)):
            pool = {"projects": 1, "users_per_project": 8, "seconds": nodes + 0.5}
            run_state = s.state(nodes, mode) | {"user_pool": pool}
            paths += s.add_run(
                tmp_path, f"{mode}-{nodes}", run_state, [s.tokens([0.1] * count)], []
            )
    header, rows = scaling_table(
        scaling.scaling_figures(run_labels.load_reports(paths))
    )
    assert header == ["mode", *(column.name for column in FIGURES)]
    # the user pool's seconds differ in every run: not a configuration
    assert [row[:4] for row in rows] == [
        ["uwsgi", "1", "8", "1.0"],
        ["uwsgi", "5", "8", "2.0"],
        ["apache", "1", "8", "1.0"],
        ["apache", "5", "8", "2.0"],
    ]
    assert [row[-2:] for row in rows] == [["57", "330"], ["-", "-"]] * 2


def test_other_scenarios_make_no_row(tmp_path: Path) -> None:
    report = r.make_run(
        tmp_path, "other", [r.workload([0.1] * 3, name="KeystonePerf.list_projects")]
    )
    assert scaling_table(
        scaling.scaling_figures(run_labels.load_reports([report]))
    ) == (
        [column.name for column in FIGURES],
        [],
    )


def _saturated(loaded: run_labels.LoadedReport) -> str:
    """The saturated cell of the report's one token workload."""
    found = scaling.measured([loaded])
    return saturated(scaling.scaling_row({}, "1", found))


def test_a_single_host_without_quotas_or_samples(tmp_path: Path) -> None:
    report = s.add_run(tmp_path, "plain", r.state(), [s.tokens([0.1] * 2)], [])
    (loaded,) = run_labels.load_reports(report)
    assert _saturated(loaded) == "-"
    (tmp_path / "plain" / "logs").mkdir()
    (tmp_path / "plain" / "logs" / "resources.csv").write_text(s.HOST_SAMPLES)
    assert _saturated(loaded) == "no quotas"
    (tmp_path / "plain" / "logs" / "resources.csv").write_bytes(b"\xff\xfe")
    assert _saturated(loaded) == UNREADABLE


def test_an_unsaturated_quota(tmp_path: Path) -> None:
    run_state = s.state(1) | {"cpu_quota": {"version": "v2", "node": 1, "db": None}}
    report = s.add_run(tmp_path, "run", run_state, [s.tokens([0.1] * 2)], [])
    (tmp_path / "run" / "logs").mkdir()
    (tmp_path / "run" / "logs" / "resources.csv").write_text(s.HOST_SAMPLES)
    (loaded,) = run_labels.load_reports(report)
    assert _saturated(loaded) == (
        "none (no tier at 90% of its CPU quota); database: no quota"
    )


def test_unknown_format(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown format 'csv'"):
        registry.writer(registry.SCALING, "csv")
