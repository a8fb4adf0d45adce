"""Write the report tables as text (prettytable), markdown, CSV or JSON.

``table`` and ``markdown`` round like Rally (see :mod:`.render`); ``csv`` and
``json`` keep every number unrounded (``repr`` of the float; empty cell /
``null`` for Rally's ``n/a``).

The report JSON document (schema version 1)::

    {"schema": "rally-keystone-perf/report", "version": 1,
     "reports": [{
       "file": "runs/.../results/smoke-1234abcd.json",
       "config": {"mode": "uwsgi", "processes": "2", ...},   # run-level, strings
       "workloads": [{
         "scenario": "KeystonePerf.create_token", "position": 0,
         "runner_type": "constant", "runner": {...},          # as in Rally's JSON
         "config": {..., "concurrency": "2", "times": "10"},  # the table's columns
         "load_duration": 1.5, "full_duration": 2.5,          # seconds
         "throughput": 6.6, "iterations": 10, "failed_iterations": 0,
         "achieved": {"asked_concurrency": 2, "peak_concurrency": 2,
                      "mean_concurrency": 1.9,          # time-weighted
                      "asked_rps": null, "rate": 6.7,   # iterations started/s
                      "under_reached": null},  # or "asked 2 concurrent, ..."
         "pass_sla": true,
         "errors": [{"type": "...", "message": "...", "count": 1}],
         "rows": [{"name": "keystone.create_token", "depth": 0,
                   "min": 0.1, "avg": 0.1, "max": 0.2, "median": 0.1,
                   "p90": 0.2, "p95": 0.2,                     # seconds or null
                   "success": 1.0,                             # fraction or null
                   "count": 10}, ...]}]}]}

When the report's run folder has ``logs/access.log`` or ``logs/resources.csv``
(see :mod:`.server_view`), each workload also has a ``"server"`` object::

    "server": {
      "routes": [{"route": "POST /v3/auth/tokens", "count": 10, "failed": 0,
                  "median": 0.1, "p95": 0.2}, ...],        # null: no access log
      "actions": [{"action": "keystone.create_token",
                   "route": "POST /v3/auth/tokens",         # null: not mapped
                   "client_median": 0.11, "server_median": 0.1,
                   "gap": 0.01}, ...],                      # seconds or null
      "resources": {"cpu_seconds": 2.0, "cpu_per_iteration": 0.2,
                    "busy_cores": 1.3, "peak_rss_bytes": 262144000,
                    "peak_rss_mb": 250.0, "peak_processes": 3,
                    "samples": 5}}                          # null: no samples

The table and markdown outputs print it under each workload's table, the CSV
adds ``client_median`` ... ``server_peak_rss_mb`` columns.

Rows are Rally's main statistics rows in Rally's order (nested rows follow
their parent with a larger ``depth``; ``total`` last). New keys may be added
within version 1; removing or changing the meaning of one raises the version.
"""

from __future__ import annotations

import csv
import dataclasses
import json
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from prettytable import PrettyTable

from rally_keystone_perf.report import FORMATS, concurrency, render
from rally_keystone_perf.report.config import LoadedReport, config_warnings
from rally_keystone_perf.report.load import Workload
from rally_keystone_perf.report.server_view import (
    ServerView,
    WorkloadServerView,
    server_view,
)
from rally_keystone_perf.report.stats import StatsRow, main_stats, throughput

SCHEMA_VERSION = 1
REPORT_SCHEMA = "rally-keystone-perf/report"
THROUGHPUT = "throughput (iter/s)"
ROW_FIELDS = ("min", "avg", "max", "median", "p90", "p95", "success", "count")


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


# --- shared helpers -----------------------------------------------------------


def check_format(fmt: str) -> None:
    """:raises ValueError: ``fmt`` is not one of :data:`FORMATS`."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")


def md_cell(value: object) -> str:
    """A markdown table cell: one line, pipes escaped."""
    return " ".join(str(value).split()).replace("|", "\\|")


def markdown_table(
    header: Sequence[str],
    rows: Iterable[Sequence[object]],
    left: Collection[str] = ("action",),
) -> str:
    """A GitHub markdown table; the columns named in ``left`` align left."""
    align = ["---" if name in left else "---:" for name in header]
    lines = [
        "| " + " | ".join(md_cell(cell) for cell in cells) + " |"
        for cells in (header, align, *rows)
    ]
    return "\n".join(lines)


def csv_value(value: Any) -> str:
    """A CSV cell: unrounded numbers, empty for None."""
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    return str(value)


def write_csv(stream: TextIO, header: Sequence[str], rows: Iterable[Sequence]) -> None:
    """Write a header and rows with the csv module (``\\n`` line ends)."""
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow(header)
    writer.writerows([csv_value(v) for v in row] for row in rows)


def write_json(document: dict[str, Any], stream: TextIO) -> None:
    """Write strict JSON (no NaN), indented, with a final newline."""
    json.dump(document, stream, indent=2, allow_nan=False)
    stream.write("\n")


def union_keys(mappings: Iterable[dict[str, str]]) -> list[str]:
    """Every key of ``mappings`` in order of first appearance."""
    keys: dict[str, None] = {}
    for mapping in mappings:
        keys.update(dict.fromkeys(mapping))
    return list(keys)


# --- server side (report.server_view) -------------------------------------------


SERVER_COLUMNS = (
    "action",
    "route",
    "requests",
    "per iteration",
    "failed",
    "client median ms",
    "server median ms",
    "server p95 ms",
    "gap ms",
)
LEFT_SERVER = ("action", "route")
SERVER_CSV_FIELDS = (
    "client_median",
    "server_median",
    "server_p95",
    "gap",
    "server_cpu_per_iteration",
    "server_busy_cores",
    "server_peak_rss_mb",
)


def _view(item: FileEntries, entry: ReportEntry) -> WorkloadServerView | None:
    """The server side of ``entry``, when its run folder has server files."""
    if item.server is None:
        return None
    for other, view in zip(item.entries, item.server.workloads, strict=True):
        if other is entry:
            return None if view.empty else view
    return None


def _ms(value: float | None, digits: int = 1) -> str:
    """Seconds as milliseconds, or ``n/a``."""
    return "n/a" if value is None else f"{value * 1000:.{digits}f}"


def _per_iteration(count: int, iterations: int) -> str:
    """Requests per iteration (e.g. Keystone token validations per boot)."""
    return "n/a" if not iterations else f"{count / iterations:.2f}"


def _server_rows(view: WorkloadServerView, iterations: int) -> list[list[str]]:
    """One row per atomic action, then one per route no action maps to.

    ``per iteration`` divides a route's requests by the workload's
    iterations: the Keystone requests each iteration caused, including those
    other services made on its behalf (token validations per server boot).
    """
    routes = {r.route: r for r in view.routes or []}
    rows = []
    for gap in view.actions or []:
        times = routes.get(gap.route) if gap.route else None
        rows.append(
            [
                gap.action,
                gap.route or "-",
                str(times.count if times else 0),
                _per_iteration(times.count if times else 0, iterations),
                str(times.failed if times else 0),
                _ms(gap.client_median),
                _ms(gap.server_median),
                _ms(times.p95 if times else None),
                _ms(gap.gap, 2),
            ]
        )
    mapped = {gap.route for gap in view.actions or []}
    for times in view.routes or []:
        if times.route not in mapped:
            rows.append(
                [
                    "-",
                    times.route,
                    str(times.count),
                    _per_iteration(times.count, iterations),
                    str(times.failed),
                    "n/a",
                    _ms(times.median),
                    _ms(times.p95),
                    "n/a",
                ]
            )
    return rows


def _resources_line(item: FileEntries, view: WorkloadServerView) -> str | None:
    """Server CPU per iteration and peak memory in the load window."""
    usage = view.resources
    if usage is None:
        if item.server is None or item.server.resources_csv is None:
            return None
        return "server CPU: n/a (no resource sample near the load window)"
    per_iteration = (
        "n/a" if usage.cpu_per_iteration is None else f"{usage.cpu_per_iteration:.4f}"
    )
    cores = "n/a" if usage.busy_cores is None else f"{usage.busy_cores:.2f}"
    return (
        f"server CPU: {per_iteration} s/iteration ({cores} cores busy), "
        f"peak RSS: {usage.peak_rss_mb:.1f} MB ({usage.peak_processes} processes)"
    )


def _table_server(item: FileEntries, entry: ReportEntry, stream: TextIO) -> None:
    """The server-side table and resource line under a workload's table."""
    view = _view(item, entry)
    if view is None:
        return
    lines = ["server side (inside the load window):"]
    if view.actions is not None:
        table = PrettyTable(list(SERVER_COLUMNS))
        table.align = "r"
        table.align["action"] = table.align["route"] = "l"
        table.add_rows(_server_rows(view, len(entry.workload.iterations)))
        lines.append(table.get_string())
    resources = _resources_line(item, view)
    if resources:
        lines.append(resources)
    stream.write("\n".join(lines) + "\n")


def _md_server(item: FileEntries, entry: ReportEntry) -> list[str]:
    """The markdown parts of a workload's server side (none without server files)."""
    view = _view(item, entry)
    if view is None:
        return []
    parts = ["server side (inside the load window):"]
    if view.actions is not None:
        rows = _server_rows(view, len(entry.workload.iterations))
        parts.append(markdown_table(SERVER_COLUMNS, rows, LEFT_SERVER))
    resources = _resources_line(item, view)
    if resources:
        parts.append(md_cell(resources))
    return parts


def _csv_server(item: FileEntries, entry: ReportEntry, row: StatsRow) -> list[Any]:
    """The server columns of one CSV row (action figures on its action's row)."""
    view = _view(item, entry)
    if view is None:
        return [None] * len(SERVER_CSV_FIELDS)
    routes = {r.route: r for r in view.routes or []}
    gap = next(
        (g for g in view.actions or [] if row.depth == 0 and g.action == row.name),
        None,
    )
    times = routes.get(gap.route) if gap and gap.route else None
    usage = view.resources
    return [
        gap.client_median if gap else None,
        gap.server_median if gap else None,
        times.p95 if times else None,
        gap.gap if gap else None,
        usage.cpu_per_iteration if usage else None,
        usage.busy_cores if usage else None,
        usage.peak_rss_mb if usage else None,
    ]


def _server_document(item: FileEntries, entry: ReportEntry) -> dict[str, Any]:
    """``{"server": {...}}`` for a workload's JSON object, or ``{}``."""
    view = _view(item, entry)
    if view is None:
        return {}
    usage = view.resources
    return {
        "server": {
            "routes": None
            if view.routes is None
            else [dataclasses.asdict(times) for times in view.routes],
            "actions": None
            if view.actions is None
            else [dataclasses.asdict(gap) | {"gap": gap.gap} for gap in view.actions],
            "resources": None
            if usage is None
            else dataclasses.asdict(usage) | {"peak_rss_mb": usage.peak_rss_mb},
        }
    }


# --- report ---------------------------------------------------------------------


def _rate(value: float | None) -> str:
    """Throughput rounded like the durations."""
    return render.format_number(value)


def _table(files: Sequence[FileEntries], stream: TextIO) -> None:
    """A ``report:`` line per file, then its workloads' prettytable tables."""
    for index, item in enumerate(files):
        if index:
            stream.write("\n")
        stream.write(f"report: {item.file}\n")
        for warning in config_warnings(item.config):
            stream.write(f"{warning}\n")
        if not item.entries:
            stream.write("no workloads\n")
        for number, entry in enumerate(item.entries):
            if number:
                stream.write("\n")
            extra = {THROUGHPUT: _rate(entry.throughput), **entry.columns}
            render.render_workload(entry.workload, entry.rows, stream, extra)
            _table_server(item, entry, stream)


def _md_rows(entry: ReportEntry) -> list[list[str]]:
    """Table rows of one workload (nested rows as Rally's ``-> name``)."""
    extra = [_rate(entry.throughput), *entry.columns.values()]
    return [
        [
            f"{'-' * row.depth}> {row.name}" if row.depth else row.name,
            *render.stats_cells(row),
            *extra,
        ]
        for row in entry.rows
    ]


def _md_workload(entry: ReportEntry) -> list[str]:
    """Heading, table and summary paragraphs of one workload."""
    header = [*render.COLUMNS, THROUGHPUT, *entry.columns]
    summary = render.error_summary(entry.workload)
    parts = [
        f"### {md_cell(render.heading(entry.workload))}",
        markdown_table(header, _md_rows(entry)),
        f"load duration: {render.format_number(entry.workload.load_duration)} s, "
        f"throughput: {_rate(entry.throughput)} iterations/s; " + md_cell(summary[0]),
    ]
    achieved, *note = render.load_lines(entry.workload)
    parts += [md_cell(achieved), *(f"**{md_cell(line)}**" for line in note)]
    if len(summary) > 1:
        parts.append("\n".join(f"- {md_cell(line)}" for line in summary[1:]))
    return parts


def _markdown(files: Sequence[FileEntries], stream: TextIO) -> None:
    """One section per file, one table per workload."""
    parts: list[str] = []
    for item in files:
        parts.append(f"## {md_cell(item.file)}")
        parts += [f"**{md_cell(line)}**" for line in config_warnings(item.config)]
        if not item.entries:
            parts.append("no workloads")
        for entry in item.entries:
            parts += _md_workload(entry)
            parts += _md_server(item, entry)
    stream.write("\n\n".join(parts) + "\n")


def _csv(files: Sequence[FileEntries], stream: TextIO) -> None:
    """One CSV row per statistics row; config columns are the union over files."""
    config_keys = union_keys(e.columns for item in files for e in item.entries)
    header = [
        "file",
        "scenario",
        "position",
        "runner",
        *config_keys,
        "load_duration",
        "throughput",
        *concurrency.FIELDS,
        "action",
        "depth",
        *ROW_FIELDS,
    ]
    server = any(item.server is not None for item in files)
    if server:
        header += SERVER_CSV_FIELDS
    rows = (
        [
            item.file,
            entry.workload.scenario_name,
            entry.workload.position,
            entry.workload.runner_type,
            *(entry.columns.get(key, "") for key in config_keys),
            entry.workload.load_duration,
            entry.throughput,
            *load,
            row.name,
            row.depth,
            *(getattr(row, name) for name in ROW_FIELDS),
            *(_csv_server(item, entry, row) if server else []),
        ]
        for item in files
        for entry in item.entries
        for load in [concurrency.fields(concurrency.achieved(entry.workload)).values()]
        for row in entry.rows
    )
    write_csv(stream, header, rows)


def _workload_document(entry: ReportEntry) -> dict[str, Any]:
    """The JSON object of one workload."""
    workload = entry.workload
    return {
        "scenario": workload.scenario_name,
        "position": workload.position,
        "runner_type": workload.runner_type,
        "runner": workload.runner,
        "config": entry.columns,
        "load_duration": workload.load_duration,
        "full_duration": workload.full_duration,
        "throughput": entry.throughput,
        "iterations": len(workload.iterations),
        "failed_iterations": sum(1 for it in workload.iterations if it.error),
        "achieved": concurrency.fields(concurrency.achieved(workload)),
        "pass_sla": workload.pass_sla,
        "errors": [
            {"type": kind, "message": message, "count": count}
            for kind, message, count in render.error_counts(workload)
        ],
        "rows": [
            {"name": row.name, "depth": row.depth}
            | {name: getattr(row, name) for name in ROW_FIELDS}
            for row in entry.rows
        ],
    }


def report_document(files: Sequence[FileEntries]) -> dict[str, Any]:
    """The versioned JSON document of a report (see the module docstring)."""
    return {
        "schema": REPORT_SCHEMA,
        "version": SCHEMA_VERSION,
        "reports": [
            {
                "file": item.file,
                "config": item.config,
                "workloads": [
                    _workload_document(entry) | _server_document(item, entry)
                    for entry in item.entries
                ],
            }
            for item in files
        ],
    }


def write_entries(files: Sequence[FileEntries], stream: TextIO, fmt: str) -> None:
    """Write computed :func:`report_entries` in format ``fmt``.

    :raises ValueError: unknown format.
    """
    check_format(fmt)
    if fmt == "table":
        _table(files, stream)
    elif fmt == "markdown":
        _markdown(files, stream)
    elif fmt == "csv":
        _csv(files, stream)
    elif fmt == "html":
        from rally_keystone_perf.report import html  # imports this module

        html.write_entries(files, stream)
    else:
        write_json(report_document(files), stream)


def write_report(reports: Sequence[LoadedReport], stream: TextIO, fmt: str) -> None:
    """Write the statistics of every workload of ``reports`` in format ``fmt``.

    :raises ValueError: unknown format.
    """
    check_format(fmt)
    write_entries(report_entries(reports), stream, fmt)
