"""The report's figures: every workload's statistics, computed once for every format."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rally_keystone_perf.report.figures.run_labels import LoadedReport
from rally_keystone_perf.report.figures.server_view import ServerView, server_view
from rally_keystone_perf.report.figures.stats import StatsRow, main_stats, throughput
from rally_keystone_perf.report.readers.rally_json import Workload


@dataclass(frozen=True)
class ReportEntry:
    """One workload of a report file with its statistics and columns."""

    workload: Workload
    columns: dict[str, str]
    rows: list[StatsRow]
    throughput: float | None


@dataclass(frozen=True)
class FileEntries:
    """One report file, its run-level config and its workloads' entries."""

    file: str
    config: dict[str, str]
    entries: list[ReportEntry]
    server: ServerView | None = None  # the run folder's server-side files


def report_entries(reports: Iterable[LoadedReport]) -> list[FileEntries]:
    """Compute every workload's statistics once, in file and workload order."""
    return [
        FileEntries(
            file=str(report.path),
            config=report.config,
            entries=[
                ReportEntry(
                    workload=workload,
                    columns=report.columns(workload),
                    rows=main_stats(workload),
                    throughput=throughput(workload),
                )
                for workload in report.workloads
            ],
            server=server_view(report.path, report.workloads),
        )
        for report in reports
    ]
