"""A workload's server side on the report page: the bottleneck line and,
on a traced run (``--trace``), the slowest traced iterations' table and a
waterfall of each (:mod:`.waterfall`)."""

from __future__ import annotations

from rally_keystone_perf.report.bottleneck import bottleneck_line
from rally_keystone_perf.report.entries import FileEntries, ReportEntry
from rally_keystone_perf.report.traces import WorkloadTraces
from rally_keystone_perf.report.writers import traces
from rally_keystone_perf.report.writers.html.kit import esc, table
from rally_keystone_perf.report.writers.html.waterfall import waterfall
from rally_keystone_perf.report.writers.server import workload_view


def traces_parts(found: WorkloadTraces) -> list[str]:
    """The slowest traced iterations' table, its notes and their waterfalls."""
    rows = traces.rows(found)
    if not rows:
        return [f'<p class="summary">{esc(traces.heading(found))}</p>']
    parts = [table(traces.heading(found), traces.COLUMNS, rows, traces.LEFT)]
    parts += [f'<p class="meta">{esc(text)}</p>' for text in traces.notes(found)]
    plots = [svg for item in found.slowest if (svg := waterfall(item))]
    if plots:
        parts.append(f'<div class="plots">{"".join(plots)}</div>')
    return parts


def server_parts(item: FileEntries, entry: ReportEntry) -> list[str]:
    """The bottleneck line and the traced iterations (none without server
    files)."""
    view = workload_view(item, entry)
    if view is None:
        return []
    server = item.server
    cpus = server.cpus if server is not None else None
    line = bottleneck_line(view, cpus, server.processes if server else None)
    parts = [] if line is None else [f'<p class="summary">{esc(line)}</p>']
    if view.traces is not None:
        parts += traces_parts(view.traces)
    return parts
