"""The top of the report page: every workload in one table, each linking to
its section, and, for runs of one configuration at several levels, the
latency percentiles and throughput against concurrency."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rally_keystone_perf.report import compare as comparing
from rally_keystone_perf.report.concurrency import runner_concurrency
from rally_keystone_perf.report.config import run_label
from rally_keystone_perf.report.entries import FileEntries
from rally_keystone_perf.report.stats import total_row
from rally_keystone_perf.report.writers.common import format_number, format_success
from rally_keystone_perf.report.writers.compare import series_groups
from rally_keystone_perf.report.writers.html.compare import series_section
from rally_keystone_perf.report.writers.html.kit import table

COLUMNS = (
    "workload",
    "runner",
    "concurrency",
    "iterations",
    "success",
    "load duration (s)",
    "throughput (/s)",
    "SLA",
)
LEFT = ("workload", "runner", "SLA")


def anchor(file_index: int, workload_index: int) -> str:
    """The id of a workload's section."""
    return f"w{file_index + 1}-{workload_index + 1}"


def overview_table(files: Sequence[FileEntries]) -> str:
    """A row per workload of every file, linking to its section."""
    rows, links = [], []
    for f_index, item in enumerate(files):
        for w_index, entry in enumerate(item.entries):
            workload = entry.workload
            level = runner_concurrency(workload)
            rows.append(
                [
                    workload.scenario_name,
                    workload.runner_type,
                    "-" if level is None else str(level),
                    str(len(workload.iterations)),
                    format_success(total_row(entry.rows).success),
                    format_number(workload.load_duration),
                    format_number(entry.throughput),
                    "passed" if workload.pass_sla else "failed",
                ]
            )
            links.append(anchor(f_index, w_index))
    return table("overview", COLUMNS, rows, LEFT, links=links)


def level_sections(files: Sequence[FileEntries]) -> list[str]:
    """Latency and throughput against concurrency, for each configuration
    and scenario measured at two levels or more."""
    runs = [
        (
            run_label(item.config, Path(item.file).name),
            [entry.workload for entry in item.entries],
        )
        for item in files
    ]
    groups = series_groups(comparing.series(runs))
    if not groups:
        return []
    parts = ["<h2>latency vs concurrency</h2>"]
    for (config, scenario), rows in groups.items():
        parts += series_section(config, scenario, rows)
    return parts
