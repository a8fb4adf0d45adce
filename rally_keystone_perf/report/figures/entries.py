"""The report's figures: every workload's statistics, computed once for every format."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rally_keystone_perf.report.figures.run_labels import LoadedReport
from rally_keystone_perf.report.figures.server_view import (
    ServerView,
    WorkloadServerView,
    server_view,
)
from rally_keystone_perf.report.figures.stats import StatsRow, main_stats, throughput
from rally_keystone_perf.report.readers.rally_json import Workload


@dataclass(frozen=True)
class ReportEntry:
    """One workload of a report file with its statistics, columns and
    server side (None: no server file says anything of it)."""

    workload: Workload
    columns: dict[str, str]
    rows: list[StatsRow]
    throughput: float | None
    server: WorkloadServerView | None = None


@dataclass(frozen=True)
class FileEntries:
    """One report file, its run-level config and its workloads' entries."""

    file: str
    config: dict[str, str]
    entries: list[ReportEntry]
    server: ServerView | None = None  # the run folder's server-side files


def report_entries(reports: Iterable[LoadedReport]) -> list[FileEntries]:
    """Compute every workload's statistics once, in file and workload order."""
    return [_file_entries(report) for report in reports]


def _file_entries(report: LoadedReport) -> FileEntries:
    """One report file's entries, each with its server side."""
    found = server_view(report.path, report.workloads, report.state)
    views: list[WorkloadServerView | None] = [None] * len(report.workloads)
    views = views if found is None else list(found.workloads)
    entries = [
        ReportEntry(
            workload=workload,
            columns=report.columns(workload),
            rows=main_stats(workload),
            throughput=throughput(workload),
            server=None if view is None or view.empty else view,
        )
        for workload, view in zip(report.workloads, views, strict=True)
    ]
    return FileEntries(str(report.path), report.config, entries, found)
