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
run's 1 (:func:`.config.column`). When a row's load came from Locust, an
``engine`` column follows the configuration (``rally`` or ``locust, N
workers``), so the engines' rows of one task tell apart. The last column,
``bottleneck``, is the workload's bottleneck line (:mod:`.bottleneck`) when
its run folder has the server's files.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from rally_keystone_perf.report import concurrency
from rally_keystone_perf.report.bottleneck import workload_bottlenecks
from rally_keystone_perf.report.config import LoadedReport, column
from rally_keystone_perf.report.engines import engine_label
from rally_keystone_perf.report.stats import main_stats, throughput, total_row
from rally_keystone_perf.report.writers import registry
from rally_keystone_perf.report.writers.common import stats_cells, union_keys
from rally_keystone_perf.report.writers.text import COLUMNS

FIGURES = (
    "scenario",
    *(f"{name} (s)" for name in COLUMNS[1:7]),  # the durations
    *COLUMNS[7:],  # success, count
    "throughput (iter/s)",
    "peak in flight",
    "mean in flight",
    "rps reached",
    "setup (s)",
    "load (s)",
    "note",
    "bottleneck",
)
MISSING = "-"


def combined_rows(reports: Sequence[LoadedReport]) -> tuple[list[str], list[list[str]]]:
    """Header and rows: configuration columns, then the total's figures."""
    pairs = [(report, w) for report in reports for w in report.workloads]
    config = [report.columns(w) for report, w in pairs]
    bottlenecks = [line for report in reports for line in _bottlenecks(report)]
    keys = union_keys(config)
    engines = any(w.engine for _, w in pairs)
    rows = []
    for (_, workload), columns, busy in zip(pairs, config, bottlenecks, strict=True):
        rate = throughput(workload)
        load = concurrency.achieved(workload)
        rows.append(
            [
                *(column(columns, key, MISSING) for key in keys),
                *([engine_label(workload.engine)] if engines else []),
                workload.scenario_name,
                *stats_cells(total_row(main_stats(workload))),
                MISSING if rate is None else f"{rate:.2f}",
                *_load_cells(load),
                _seconds(workload.setup_duration),
                _seconds(workload.load_duration),
                concurrency.under_reached(load) or "",
                busy,
            ]
        )
    return [*keys, *(["engine"] if engines else []), *FIGURES], rows


def _bottlenecks(report: LoadedReport) -> list[str]:
    """Each workload's bottleneck line, without its ``bottleneck:`` word."""
    lines = workload_bottlenecks(report.path, report.workloads)
    return [MISSING if line is None else line for line in lines]


def _load_cells(load: concurrency.Achieved) -> list[str]:
    """Peak and mean in flight; for ``rps`` the rate reached of the one asked."""
    mean = MISSING if load.mean is None else f"{load.mean:.1f}"
    rps = MISSING
    if load.open_loop and load.rate is not None:
        asked = "" if load.asked_rate is None else f" of {load.asked_rate:g}"
        rps = f"{load.rate:.2f}{asked}"
    return [str(load.peak), mean, rps]


def _seconds(value: float | None) -> str:
    return MISSING if value is None else f"{value:.1f}"


def write_combined(reports: Sequence[LoadedReport], stream: TextIO, fmt: str) -> None:
    """Write the combined table in one of :data:`.writers.registry.COMBINED`.

    :raises ValueError: unknown format.
    """
    write = registry.writer(registry.COMBINED, fmt)
    write(combined_rows(reports), stream)
