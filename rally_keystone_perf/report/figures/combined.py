"""One table across runs: a row per workload with its configuration columns.

The seed 000 shape: configuration (mode, profile, processes, threads, cache,
db, hash rounds, concurrency, times) followed by Rally's ``total`` figures
(min, avg, max, p90, p95, success, count), the throughput, and the seconds
the contexts' setup took (users creation...) apart from the load's, so rows
of different deployments line up. Beside the configured ``concurrency``
column, the concurrency the runner reached (peak and mean iterations in
flight, :mod:`.concurrency`), the ``rps`` runner's rate reached of the one
asked, and a note when either fell short. Columns are the union over all
rows; a row without a column shows ``-``, but for ``nodes`` a single-host
run's 1 (:func:`.run_labels.column`). When a row's load came from Locust, an
``engine`` column follows the configuration (``rally`` or ``locust, N
workers``), so the engines' rows of one task tell apart. The last column,
``bottleneck``, is the workload's bottleneck line (:mod:`.bottleneck`) when
its run folder has the server's files. Rows of the same workload are
compared with the fastest of them, the difference marked when it lies
within the machine's drift over the table's runs (:mod:`.drift`).

:func:`combined_rows` returns numbers (:class:`CombinedRow`);
:mod:`rally_keystone_perf.report.blocks.combined` makes the table.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rally_keystone_perf.report.figures import concurrency, drift
from rally_keystone_perf.report.figures.bottleneck import workload_bottlenecks
from rally_keystone_perf.report.figures.run_labels import LoadedReport, union_keys
from rally_keystone_perf.report.figures.stats import (
    StatsRow,
    main_stats,
    throughput,
    total_row,
)


@dataclass(frozen=True)
class CombinedRow:
    """One workload of one report: its configuration and its figures."""

    columns: dict[str, str]  # the configuration columns the report gives it
    engine: dict[str, Any]  # the engine that sent its load ({}: Rally's runner)
    scenario: str
    total: StatsRow  # Rally's ``total`` row
    throughput: float | None  # successful iterations per second
    achieved: concurrency.Achieved  # the load the runner reached
    setup: float | None  # seconds of the contexts' setup
    load: float | None  # seconds of the load
    note: str  # the concurrency it fell short of, or ""
    bottleneck: str | None  # the bottleneck line (None: no server files)
    versus: drift.Versus | None = None  # against its workload's fastest row


@dataclass(frozen=True)
class CombinedFigures:
    """The configuration keys of every row, in order, and the rows."""

    keys: list[str]
    rows: list[CombinedRow]
    drift: float | None = None  # the machine's, over the rows' runs

    @property
    def engines(self) -> bool:
        """Whether a row's load came from another engine than Rally's runner."""
        return any(row.engine for row in self.rows)


def combined_rows(reports: Sequence[LoadedReport]) -> CombinedFigures:
    """A row per workload of every report, in order."""
    rows = []
    for report in reports:
        lines = workload_bottlenecks(report.path, report.workloads)
        for workload, line in zip(report.workloads, lines, strict=True):
            achieved = concurrency.achieved(workload)
            rows.append(
                CombinedRow(
                    columns=report.columns(workload),
                    engine=workload.engine,
                    scenario=workload.scenario_name,
                    total=total_row(main_stats(workload)),
                    throughput=throughput(workload),
                    achieved=achieved,
                    setup=workload.setup_duration,
                    load=workload.load_duration,
                    note=concurrency.under_reached(achieved) or "",
                    bottleneck=line,
                )
            )
    moved = drift.table_drift(reports)
    marks = drift.versus_fastest(
        [drift.workload_key(row.scenario, row.columns) for row in rows],
        [row.total.avg for row in rows],
        moved,
    )
    rows = [dataclasses.replace(r, versus=m) for r, m in zip(rows, marks, strict=True)]
    return CombinedFigures(union_keys(row.columns for row in rows), rows, moved)
