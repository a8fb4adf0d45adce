"""The server side of each workload (:mod:`..figures.server_view`) in every format.

The table and markdown outputs print it under each workload's table, the CSV
adds ``client_median`` ... ``client_peak_rss_mb`` columns and the JSON a
``"server"`` object per workload (see :mod:`.data`). The load generator's
CPU and memory (``logs/resources-client.csv``) come with it: the line
``client CPU: ... ms/iteration``, the ``client_*`` CSV columns and the
``"client"`` object beside ``"resources"``. A cluster run's tiers
(:mod:`.cluster`) follow in the table, markdown and JSON outputs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from rally_keystone_perf.report.figures.bottleneck import bottleneck_line
from rally_keystone_perf.report.figures.entries import FileEntries, ReportEntry
from rally_keystone_perf.report.figures.server_view import WorkloadServerView
from rally_keystone_perf.report.figures.stats import StatsRow
from rally_keystone_perf.report.readers.resources import ResourceUsage
from rally_keystone_perf.report.writers import cluster, tracing
from rally_keystone_perf.report.writers.common import (
    INDENT,
    NA,
    format_ms,
    markdown_table,
    md_cell,
    text_table,
)

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
# the terminal's route table fits 120 columns: the route under its action, and
# no client median (the statistics table above has it, in seconds)
TEXT_SERVER_COLUMNS = (
    "action, route",
    "requests",
    "per iteration",
    "failed",
    "server median",
    "server p95",
    "gap",
)
TEXT_LEFT_SERVER = ("action, route",)
SERVER_CSV_FIELDS = (
    "client_median",
    "server_median",
    "server_p95",
    "gap",
    "server_cpu_per_iteration",
    "server_busy_cores",
    "server_peak_rss_mb",
    "client_cpu_per_iteration",
    "client_busy_cores",
    "client_peak_rss_mb",
)
HEADING = "server side (inside the load window):"
TEXT_HEADING = (
    "server side (inside the load window; ms; gap: the client's median "
    "minus the server's):"
)


def workload_view(item: FileEntries, entry: ReportEntry) -> WorkloadServerView | None:
    """The server side of ``entry``, when its run folder has server files."""
    if item.server is None:
        return None
    for other, view in zip(item.entries, item.server.workloads, strict=True):
        if other is entry:
            return None if view.empty else view
    return None


def _per_iteration(count: int, iterations: int) -> str:
    """Requests per iteration (e.g. Keystone token validations per boot)."""
    return "n/a" if not iterations else f"{count / iterations:.2f}"


def server_rows(view: WorkloadServerView, iterations: int) -> list[list[str]]:
    """One row per atomic action, then one per route no action maps to.

    ``per iteration`` divides a route's requests by the workload's
    iterations: the Keystone requests each iteration caused, including those
    other services made on its behalf (token validations per server boot).
    """
    routes = {r.route: r for r in view.routes or []}
    rows = []
    for gap in view.actions or []:
        times = routes.get(gap.route) if gap.route else None
        count = times.count if times else 0
        rows.append(
            [
                gap.action,
                gap.route or "-",
                str(count),
                _per_iteration(count, iterations),
                str(times.failed if times else 0),
                format_ms(gap.client_median, missing=NA),
                format_ms(gap.server_median, missing=NA),
                format_ms(times.p95 if times else None, missing=NA),
                format_ms(gap.gap, 2, NA),
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
                    format_ms(times.median, missing=NA),
                    format_ms(times.p95, missing=NA),
                    "n/a",
                ]
            )
    return rows


def text_server_rows(view: WorkloadServerView, iterations: int) -> list[list[str]]:
    """:func:`server_rows` for a terminal: an action's route on a second
    line of its cell, without the client median."""
    rows = []
    for action, route, *counts, _client, server_median, p95, gap in server_rows(
        view, iterations
    ):
        label = route if action == "-" else f"{action}\n{INDENT}{route}"
        rows.append([label, *counts, server_median, p95, gap])
    return rows


def resources_line(item: FileEntries, view: WorkloadServerView) -> str | None:
    """Server CPU per iteration and peak memory in the load window."""
    usage = view.resources
    per_iteration = None if usage is None else usage.cpu_per_iteration
    return _usage_line(
        "server CPU",
        usage,
        item.server is not None and item.server.resources_csv is not None,
        "no resource sample near the load window",
        f"{'n/a' if per_iteration is None else f'{per_iteration:.4f}'} s/iteration",
        "",
    )


def client_line(item: FileEntries, view: WorkloadServerView) -> str | None:
    """The load generator's CPU per iteration and peak memory in the load window."""
    usage = view.client
    cpu = None if usage is None else usage.cpu_per_iteration
    return _usage_line(
        "client CPU",
        usage,
        item.server is not None and item.server.client_csv is not None,
        "no sample of Rally's processes in the load window",
        f"{format_ms(cpu, 2, NA)} ms/iteration",
        ": Rally's and what it started",
    )


def _usage_line(
    label: str,
    usage: ResourceUsage | None,
    sampled: bool,
    missing: str,
    per_iteration: str,
    whose: str,
) -> str | None:
    """``label: <per iteration> (<cores> cores busy), peak RSS: ...``; when
    the tree was ``sampled`` but not near the window, why not; else None."""
    if usage is None:
        return f"{label}: n/a ({missing})" if sampled else None
    cores = "n/a" if usage.busy_cores is None else f"{usage.busy_cores:.2f}"
    processes = f"{usage.peak_processes} processes{whose}"
    return (
        f"{label}: {per_iteration} ({cores} cores busy), "
        f"peak RSS: {usage.peak_rss_mb:.1f} MB ({processes})"
    )


def _parts(
    item: FileEntries,
    entry: ReportEntry,
    table: cluster.Table,
    line: Callable[[str], str],
    traced: bool = True,
    terminal: bool = False,
) -> list[str]:
    """Heading, route table, resource line, a cluster's tiers and (when
    ``traced``) the traced iterations (none without server files); the
    ``terminal``'s route table is :func:`text_server_rows`'."""
    view = workload_view(item, entry)
    if view is None:
        return []
    parts = [line(locked_line(view.locked))] if view.locked else []
    parts.append(TEXT_HEADING if terminal else HEADING)
    if view.actions is not None:
        iterations = len(entry.workload.iterations)
        parts.append(
            table(
                TEXT_SERVER_COLUMNS,
                text_server_rows(view, iterations),
                TEXT_LEFT_SERVER,
            )
            if terminal
            else table(SERVER_COLUMNS, server_rows(view, iterations), LEFT_SERVER)
        )
    server = item.server
    cpus = server.cpus if server is not None else None
    processes = server.processes if server is not None else None
    for text in (
        resources_line(item, view),
        client_line(item, view),
        bottleneck_line(view, cpus, processes),
    ):
        if text:
            parts.append(line(text))
    if view.cluster is not None:
        parts += cluster.parts(view.cluster, table, line)
    if traced and view.traces is not None:
        parts += tracing.parts(view.traces, table, line)
    return parts


def _text_table(
    header: Sequence[str], rows: list[list[str]], left: Sequence[str]
) -> str:
    return text_table(header, rows, left).get_string()


def locked_line(requests: int) -> str:
    """The requests SQLite refused in the load window, and why."""
    return (
        f"SQLite: database is locked ({requests} request{'s' * (requests != 1)}): "
        "a writer refused while another process wrote (before writers waited "
        "their turn)"
    )


def table_parts(item: FileEntries, entry: ReportEntry) -> list[str]:
    """The text parts under a workload's table (none without server files)."""
    return _parts(item, entry, _text_table, str, terminal=True)


def untraced_parts(
    item: FileEntries,
    entry: ReportEntry,
    table: cluster.Table,
    line: Callable[[str], str],
) -> list[str]:
    """The parts without the traced iterations (the HTML draws its own)."""
    return _parts(item, entry, table, line, traced=False)


def markdown_parts(item: FileEntries, entry: ReportEntry) -> list[str]:
    """The markdown parts of a workload's server side (none without server files)."""
    return _parts(item, entry, markdown_table, md_cell)


def csv_cells(item: FileEntries, entry: ReportEntry, row: StatsRow) -> list[Any]:
    """The server columns of one CSV row (action figures on its action's row)."""
    view = workload_view(item, entry)
    if view is None:
        return [None] * len(SERVER_CSV_FIELDS)
    routes = {r.route: r for r in view.routes or []}
    gap = next(
        (g for g in view.actions or [] if row.depth == 0 and g.action == row.name),
        None,
    )
    times = routes.get(gap.route) if gap and gap.route else None
    return [
        gap.client_median if gap else None,
        gap.server_median if gap else None,
        times.p95 if times else None,
        gap.gap if gap else None,
        *_usage_cells(view.resources),
        *_usage_cells(view.client),
    ]


def _usage_cells(usage: ResourceUsage | None) -> list[float | None]:
    """CPU per iteration, busy cores and peak RSS (MB) of a sampled tree."""
    if usage is None:
        return [None] * 3
    return [usage.cpu_per_iteration, usage.busy_cores, usage.peak_rss_mb]


def document(item: FileEntries, entry: ReportEntry) -> dict[str, Any]:
    """``{"server": {...}}`` for a workload's JSON object, or ``{}``."""
    view = workload_view(item, entry)
    if view is None:
        return {}
    return {
        "server": {
            "routes": None
            if view.routes is None
            else [dataclasses.asdict(times) for times in view.routes],
            "actions": None
            if view.actions is None
            else [dataclasses.asdict(gap) | {"gap": gap.gap} for gap in view.actions],
            "resources": cluster.usage_document(view.resources),
            "client": cluster.usage_document(view.client),
        }
        | ({} if view.cluster is None else {"cluster": cluster.document(view.cluster)})
        | ({} if view.traces is None else {"traces": tracing.document(view.traces)})
    }
