"""A workload's server side on the report page: the text format's tables
and lines (:mod:`...blocks.server_side`: routes, resources, bottleneck, a
cluster's tiers per node) as HTML and, on a traced run (``--trace``), the slowest
traced iterations' table and a waterfall of each
(:func:`.tracing.waterfall`)."""

from __future__ import annotations

from rally_keystone_perf.report.blocks import server_side, tracing
from rally_keystone_perf.report.blocks.model import shown
from rally_keystone_perf.report.figures.entries import FileEntries, ReportEntry
from rally_keystone_perf.report.readers.tracing import WorkloadTraces
from rally_keystone_perf.report.writers.html.kit import esc, table
from rally_keystone_perf.report.writers.html.tracing import waterfall
from rally_keystone_perf.report.writers.render import html_body


def traces_parts(found: WorkloadTraces) -> list[str]:
    """The slowest traced iterations' table, its notes and their waterfalls."""
    rows = tracing.rows(found)
    if not rows:
        return [f'<p class="summary">{esc(tracing.heading(found))}</p>']
    parts = [table(tracing.heading(found), tracing.COLUMNS, rows, tracing.LEFT)]
    parts += [f'<p class="meta">{esc(text)}</p>' for text in tracing.notes(found)]
    plots = [svg for item in found.slowest if (svg := waterfall(item))]
    if plots:
        parts.append(f'<div class="plots">{"".join(plots)}</div>')
    return parts


def server_parts(item: FileEntries, entry: ReportEntry) -> list[str]:
    """The server side: the route table, the resource and bottleneck lines,
    the tiers (each node of a cluster) and the traced iterations (none
    without server files)."""
    view = entry.server
    if view is None:
        return []
    parts = html_body(shown(server_side.blocks(item.server, entry), "html"))
    if view.traces is not None:
        parts += traces_parts(view.traces)
    return parts
