"""A workload's server side on the report page: the text format's tables
and lines (:mod:`..server`: routes, resources, bottleneck, a cluster's
tiers per node) as HTML and, on a traced run (``--trace``), the slowest
traced iterations' table and a waterfall of each
(:func:`.tracing.waterfall`)."""

from __future__ import annotations

from collections.abc import Sequence

from rally_keystone_perf.report.figures.entries import FileEntries, ReportEntry
from rally_keystone_perf.report.readers.tracing import WorkloadTraces
from rally_keystone_perf.report.writers import server, tracing
from rally_keystone_perf.report.writers.html.kit import esc, table
from rally_keystone_perf.report.writers.html.tracing import waterfall
from rally_keystone_perf.report.writers.server import workload_view

CAPTIONS = {  # a server-side table's caption by its first column
    "action": "server side (inside the load window)",
    "tier": "tiers: each node, haproxy, memcached, the database",
    "haproxy to": "haproxy: its times to each node",
}


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


def _table(header: Sequence[str], rows: list[list[str]], left: Sequence[str]) -> str:
    return table(CAPTIONS.get(header[0], "server side"), header, rows, left)


def _line(text: str) -> str:
    return f'<p class="summary">{esc(text)}</p>'


def server_parts(item: FileEntries, entry: ReportEntry) -> list[str]:
    """The server side: the route table, the resource and bottleneck lines,
    the tiers (each node of a cluster) and the traced iterations (none
    without server files)."""
    view = workload_view(item, entry)
    if view is None:
        return []
    parts = server.untraced_parts(item, entry, _table, _line)
    parts = [part for part in parts if part.startswith("<")]  # headings: captions
    if view.traces is not None:
        parts += traces_parts(view.traces)
    return parts
