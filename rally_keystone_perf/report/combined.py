"""One table across runs: a row per workload with its configuration columns.

The seed 000 shape: configuration (mode, profile, processes, threads, cache,
db, hash rounds, concurrency, times) followed by Rally's ``total`` figures
(min, avg, max, p90, p95, success, count), the throughput, and the seconds
the contexts' setup took (users creation...) apart from the load's, so rows
of different deployments line up. Columns are the union over all rows; a row
without a column shows ``-``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from rally_keystone_perf.report.config import LoadedReport
from rally_keystone_perf.report.formats import markdown_table, union_keys
from rally_keystone_perf.report.render import COLUMNS, stats_cells
from rally_keystone_perf.report.stats import main_stats, throughput, total_row

FIGURES = ("scenario", *COLUMNS[1:], "throughput (iter/s)", "setup (s)", "load (s)")
MISSING = "-"


def combined_rows(reports: Sequence[LoadedReport]) -> tuple[list[str], list[list[str]]]:
    """Header and rows: configuration columns, then the total's figures."""
    pairs = [(report, w) for report in reports for w in report.workloads]
    config = [report.columns(w) for report, w in pairs]
    keys = union_keys(config)
    rows = []
    for (_, workload), columns in zip(pairs, config, strict=True):
        rate = throughput(workload)
        rows.append(
            [
                *(columns.get(key, MISSING) for key in keys),
                workload.scenario_name,
                *stats_cells(total_row(main_stats(workload))),
                MISSING if rate is None else f"{rate:.2f}",
                _seconds(workload.setup_duration),
                _seconds(workload.load_duration),
            ]
        )
    return [*keys, *FIGURES], rows


def _seconds(value: float | None) -> str:
    return MISSING if value is None else f"{value:.1f}"


def write_combined(reports: Sequence[LoadedReport], stream: TextIO, fmt: str) -> None:
    """Write the combined table as ``table`` (prettytable) or ``markdown``."""
    header, rows = combined_rows(reports)
    if fmt == "markdown":
        stream.write(markdown_table(header, rows, ("mode", "scenario")) + "\n")
        return
    from prettytable import PrettyTable

    table = PrettyTable(header)
    table.align = "r"
    table.align["scenario"] = "l"
    table.add_rows(rows)
    stream.write(table.get_string() + "\n")
