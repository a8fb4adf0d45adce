"""main_stats must agree with Rally's own MainStatsTable on the same iterations.

And the report, the SLA plugins and the gate must use one definition of each
statistic (total, load window, throughput, percentile).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from rally.common import streaming_algorithms as streaming
from rally.task.processing import charts

from rally_keystone_perf import metrics
from rally_keystone_perf.plugins.sla.percentile import MaxDurationPercentile
from rally_keystone_perf.plugins.sla.throughput import MinThroughput
from rally_keystone_perf.report.figures import gate, stats, windows
from rally_keystone_perf.report.figures.stats import StatsRow, main_stats, throughput
from rally_keystone_perf.report.readers.rally_json import Workload, load_report
from tests.unit.report import factory as f

a = f.atomic
it = f.iteration


class _UnroundedTable(charts.MainStatsTable):
    """Rally's table with rounding disabled, for exact comparisons."""

    def _round(self, ins: Any, has_result: bool) -> Any:
        if isinstance(ins, streaming.StreamingAlgorithm):
            ins = ins.result()
        return "n/a" if not has_result or ins is None else ins


def _rally_rows(workload: Workload, table_cls: type = charts.MainStatsTable) -> list:
    """Rows of Rally's table fed the loaded iterations, as the exporter does."""
    table = table_cls({"total_iteration_count": len(workload.iterations)})
    for item in workload.iterations:
        table.add_iteration(
            {
                "timestamp": item.timestamp,
                "duration": item.duration,
                "idle_duration": item.idle_duration,
                "error": item.error,
                "atomic_actions": item.atomic_actions,
            }
        )
    return table.render()["rows"]


def _as_rally(row: StatsRow, rounded: bool = True) -> list:
    """Our row in Rally's row layout and formatting."""

    def num(value: float | None) -> Any:
        if value is None:
            return "n/a"
        return round(value, 3) if rounded else value

    name = row.name if not row.depth else f" {'-' * row.depth}> {row.name}"
    success = "n/a" if row.success is None else "%.1f%%" % (row.success * 100)
    figures = (row.min, row.median, row.p90, row.p95, row.max, row.avg)
    return [name, *(num(v) for v in figures), success, row.count]


def _load(tmp_path: Path, data: list[dict], **kwargs: Any) -> Workload:
    """Export one workload with Rally's exporter and load it back."""
    tasks = [f.task([[f.workload(data, **kwargs)]])]
    (workload,) = load_report(f.write_report(tmp_path / "r.json", tasks))
    return workload


def _assert_same_as_rally(workload: Workload) -> list[StatsRow]:
    rows = main_stats(workload)
    assert [_as_rally(r) for r in rows] == _rally_rows(workload)
    exact = [_as_rally(r, rounded=False) for r in rows]
    assert exact == _rally_rows(workload, _UnroundedTable)
    return rows


NESTED = [
    a(
        "keystone_v3.create_project",
        0.0,
        0.5,
        children=[
            a("keystone_v3.list_roles", 0.1, 0.2),
            a(
                "keystone_v3.add_role",
                0.2,
                0.4,
                children=[a("inner", 0.25, 0.3, children=[a("too_deep", 0.26, 0.27)])],
            ),
        ],
    ),
    a("keystone_v3.delete_project", 0.5, 0.7),
]

CASES: dict[str, list[dict]] = {
    "nested": [
        it(1.0, 0.7, 0.05, atomics=NESTED),
        it(2.0, 0.9, 0.0, atomics=NESTED),
        it(3.0, 0.71, 0.11, atomics=NESTED),
    ],
    "repeated": [
        it(1.0, 0.3, atomics=[a("get_token", 0, 0.1), a("get_token", 0.1, 0.25)]),
        it(2.0, 0.4, atomics=[a("get_token", 0, 0.1)] * 3),
        it(3.0, 0.3, atomics=[a("get_token", 0, 0.12), a("get_token", 0.2, 0.3)]),
    ],
    "failed": [
        it(1.0, 0.5, atomics=[a("auth", 0, 0.2), a("validate", 0.2, 0.4)]),
        # the last atomic failed: no <no-name-action> row
        it(
            2.0,
            0.3,
            atomics=[a("auth", 0, 0.1), a("validate", 0.1, 0.3, failed=True)],
            error=("KeystoneError", "validate failed"),
        ),
        # failed after the last atomic finished: <no-name-action> row
        it(
            3.0,
            0.6,
            atomics=[a("auth", 0, 0.2), a("validate", 0.2, 0.3)],
            error=("AssertionError", "bad token"),
        ),
        # failed before any atomic: only total is affected
        it(4.0, 0.01, error=("ConnectionError", "refused")),
    ],
    "late_atomic": [
        it(1.0, 0.2, atomics=[a("auth", 0, 0.2)]),
        it(2.0, 0.5, atomics=[a("auth", 0, 0.2), a("late", 0.2, 0.45)]),
    ],
    "nested_failure": [
        it(
            1.0,
            0.4,
            atomics=[a("outer", 0, 0.4, children=[a("in", 0, 0.1, failed=True)])],
            error=("RuntimeError", "x"),
        ),
        it(2.0, 0.4, atomics=[a("outer", 0, 0.4, children=[a("in", 0, 0.1)])]),
    ],
    "not_started_atomic": [
        it(1.0, 0.2, atomics=[a("never", None), a("auth", 0, 0.2)]),
    ],
    "single": [it(1.0, 0.123456, 0.5)],
    "empty": [],
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_rally_main_stats_table(tmp_path: Path, case: str) -> None:
    _assert_same_as_rally(_load(tmp_path, CASES[case]))


def _random_atomics(rng: random.Random, start: float, depth: int = 0) -> list[dict]:
    """A random tree of atomics, sometimes repeated, sometimes failed."""
    actions = []
    for _ in range(rng.randint(0, 3)):
        name = rng.choice(["auth", "validate", "list_users", "create_user"])
        end = start + rng.random()
        children = _random_atomics(rng, start, depth + 1) if depth < 3 else []
        actions.append(a(name, start, end, children, failed=rng.random() < 0.1))
        start = end
    return actions


@pytest.mark.parametrize("seed", range(5))
def test_matches_rally_on_random_workloads(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    data = []
    for i in range(rng.randint(1, 120)):
        failed = rng.random() < 0.2
        error = (rng.choice(["KeyError", "HttpError"]), "msg") if failed else None
        atomics = _random_atomics(rng, float(i))
        data.append(it(float(i), rng.random() * 3, rng.random(), atomics, error))
    _assert_same_as_rally(_load(tmp_path, data))


def test_rows_order_and_depth(tmp_path: Path) -> None:
    rows = main_stats(_load(tmp_path, CASES["nested"]))
    assert [(r.name, r.depth) for r in rows] == [
        ("keystone_v3.create_project", 0),
        ("keystone_v3.list_roles", 1),
        ("keystone_v3.add_role", 1),
        ("inner", 2),
        ("keystone_v3.delete_project", 0),
        ("total", 0),
        ("duration", 1),
        ("idle_duration", 1),
    ]


def test_repeated_and_failed_rows(tmp_path: Path) -> None:
    names = [r.name for r in main_stats(_load(tmp_path, CASES["repeated"]))]
    assert names[:2] == ["get_token (x2)", "get_token (x3)"]
    rows = {r.name: r for r in main_stats(_load(tmp_path, CASES["failed"]))}
    assert rows["<no-name-action>"].count == 1
    assert rows["<no-name-action>"].success == 0.0
    assert rows["validate"].success == pytest.approx(2 / 3)
    total = rows["total"]
    assert (total.count, total.success) == (4, 0.25)
    assert total.min == 0.01  # failed iterations count in the durations
    assert total.max == 0.6


def test_empty_workload_has_only_total(tmp_path: Path) -> None:
    rows = main_stats(_load(tmp_path, []))
    assert rows == [StatsRow("total", 0, *[None] * 7, count=0)]


def test_throughput(tmp_path: Path) -> None:
    workload = _load(tmp_path, CASES["failed"], load_duration=1.5)
    assert throughput(workload) == pytest.approx(1 / 1.5)
    assert throughput(_load(tmp_path, CASES["failed"], load_duration=0)) is None


def test_total_row_is_the_top_level_total() -> None:
    rows = [
        stats.StatsRow("a", 0, 1, 1, 1, 1, 1, 1, 1.0, 1),
        stats.StatsRow("total", 0, 2, 2, 2, 2, 2, 2, 0.5, 2),
        stats.StatsRow("duration", 1, 2, 2, 2, 2, 2, 2, 0.5, 2),
        stats.StatsRow("idle_duration", 1, 0, 0, 0, 0, 0, 0, 0.5, 2),
    ]
    assert stats.total_row(rows) is rows[1]


# --- one definition for the report, the SLAs and the gate -----------------------

# Recorded by the dead-worker functional test (uwsgi mode): 80 iterations of
# KeystonePerf.list_projects at concurrency 4, one failed when its worker was
# killed; exported by `rally task report --json` (Rally 5.1.1).
RECORDED = Path(__file__).parents[1] / "data" / "dead-worker-uwsgi.json"


def _recorded() -> tuple[Workload, dict[str, Any]]:
    """The recorded workload, loaded, and as Rally stored it."""
    (workload,) = load_report(RECORDED)
    (raw,) = json.loads(RECORDED.read_text())["tasks"][0]["subtasks"][0]["workloads"]
    return workload, raw


def _p95_of_the_total(workload: Workload, iterations: list[dict]) -> list:
    """The SLA's, the report's and the gate's p95 of the total, in this order."""
    criterion = MaxDurationPercentile({metrics.TOTAL: {"95": 1e9}})
    for item in iterations:  # what Rally hands the SLA during the run
        criterion.add_iteration(item)
    checks = gate.gate([workload], [workload]).checks
    (check,) = [c for c in checks if c.criterion == f"p95 {metrics.TOTAL}"]
    report = stats.total_row(main_stats(workload)).p95
    return [criterion.observed(metrics.TOTAL, 95), report, check.current]


def test_sla_report_and_gate_judge_the_same_total() -> None:
    workload, raw = _recorded()
    assert sum(1 for it in workload.iterations if it.error) == 1
    sla_p95, report_p95, gate_p95 = _p95_of_the_total(workload, raw["data"])
    assert sla_p95 == report_p95 == gate_p95
    # Rally's own table, stored in the file, has the same (rounded) figure
    assert (
        round(report_p95, 3)
        == raw["statistics"]["durations"]["total"]["data"]["95%ile"]
    )


def test_the_total_counts_idle_time_and_failures_everywhere(tmp_path: Path) -> None:
    data = [it(float(i), 0.1 + i / 100, i / 50) for i in range(30)]
    data[7] = it(7.0, 2.0, 0.5, error=("HttpError", "timeout"))
    workload = _load(tmp_path, data)
    sla_p95, report_p95, gate_p95 = _p95_of_the_total(workload, data)
    totals = sorted(item["duration"] + item["idle_duration"] for item in data)
    assert sla_p95 == report_p95 == gate_p95 == metrics.percentile(totals, 0.95)


def test_load_window_and_throughput_are_rallys() -> None:
    workload, raw = _recorded()
    start, end = windows.load_window(workload)
    assert end - start == workload.load_duration  # what Rally measured
    criterion = MinThroughput({"iterations_per_second": 0})
    for item in raw["data"]:
        criterion.add_iteration(item)
    assert criterion.throughput() == stats.throughput(workload)
