"""The combined table (:mod:`..figures.combined`) as cells: text and markdown.

Configuration columns (``-`` where a row has none, ``nodes`` 1 for a single
host: :func:`..figures.run_labels.column`), an ``engine`` column when a
row's load came from Locust, then :data:`FIGURES`: Rally's ``total``, the
throughput, the load reached, the setup and load seconds, the average
against the fastest row of the same workload (marked when within the
machine's drift: :mod:`..figures.drift`), a note and the bottleneck line.
"""

from __future__ import annotations

from rally_keystone_perf.report.figures import concurrency
from rally_keystone_perf.report.figures.combined import CombinedFigures, CombinedRow
from rally_keystone_perf.report.figures.run_labels import column
from rally_keystone_perf.report.readers.load_engine import engine_label
from rally_keystone_perf.report.writers.common import stats_cells
from rally_keystone_perf.report.writers.text import COLUMNS, CombinedTable

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
    "vs fastest",
    "note",
    "bottleneck",
)
MISSING = "-"


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


def _versus(row: CombinedRow, drift: float | None) -> str:
    """``fastest``, ``+35%`` or ``+3% (within drift 12%)``: the row's
    average against the fastest row of its workload."""
    if row.versus is None:
        return MISSING
    if row.versus.slower == 0:
        return "fastest"
    text = f"+{row.versus.slower:.0%}"
    if row.versus.within_drift and drift is not None:
        text += f" (within drift {drift:.0%})"
    return text


def _row(
    row: CombinedRow, keys: list[str], engines: bool, drift: float | None
) -> list[str]:
    return [
        *(column(row.columns, key, MISSING) for key in keys),
        *([engine_label(row.engine)] if engines else []),
        row.scenario,
        *stats_cells(row.total),
        MISSING if row.throughput is None else f"{row.throughput:.2f}",
        *_load_cells(row.achieved),
        _seconds(row.setup),
        _seconds(row.load),
        _versus(row, drift),
        row.note,
        MISSING if row.bottleneck is None else row.bottleneck,
    ]


def combined_table(figures: CombinedFigures) -> CombinedTable:
    """Header and rows: configuration columns, then the total's figures."""
    engines = figures.engines
    header = [*figures.keys, *(["engine"] if engines else []), *FIGURES]
    rows = [_row(row, figures.keys, engines, figures.drift) for row in figures.rows]
    return header, rows
