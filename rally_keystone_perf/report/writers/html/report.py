"""The report page: a section per report file, one per workload."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from rally_keystone_perf.metrics import TOTAL
from rally_keystone_perf.report.figures.entries import FileEntries, ReportEntry
from rally_keystone_perf.report.figures.run_labels import config_warnings
from rally_keystone_perf.report.figures.stats import StatsRow
from rally_keystone_perf.report.readers.rally_json import Workload
from rally_keystone_perf.report.writers.common import format_number, stats_cells
from rally_keystone_perf.report.writers.html import shape
from rally_keystone_perf.report.writers.html.charts import (
    FAILED_COLOR,
    OK_COLOR,
    Line,
    chart,
)
from rally_keystone_perf.report.writers.html.kit import config_line, esc, page, table
from rally_keystone_perf.report.writers.html.overview import (
    anchor,
    level_sections,
    node_sections,
    overview_table,
)
from rally_keystone_perf.report.writers.html.server_side import server_parts
from rally_keystone_perf.report.writers.text import (
    COLUMNS,
    THROUGHPUT,
    heading,
    load_lines,
    shown_rows,
    throughput_cell,
)


def _report_rows(rows: list[StatsRow], entry: ReportEntry) -> list[list[str]]:
    """The ``table`` format's cells of one workload (action names unindented)."""
    rate = format_number(entry.throughput)
    return [[row.name, *stats_cells(row), throughput_cell(row, rate)] for row in rows]


def _row_attr(depth: int, name: str) -> str:
    """``<tr>`` attributes of a statistics row: nested rows' depth, the total."""
    if depth:
        return f' class="nested" data-depth="{depth}"'
    return ' class="total"' if name == TOTAL else ""


def durations_plot(workload: Workload) -> str:
    """Iteration durations against their start time (failed ones in red)."""
    if not workload.iterations:
        return ""
    start = min(it.timestamp for it in workload.iterations)
    failed = [
        (it.timestamp - start, it.duration) for it in workload.iterations if it.error
    ]
    ok = [
        (it.timestamp - start, it.duration)
        for it in workload.iterations
        if not it.error
    ]
    lines = [Line(f"successful ({len(ok)})", ok, OK_COLOR, scatter=True)]
    if failed:
        lines.append(Line(f"failed ({len(failed)})", failed, FAILED_COLOR, True))
    return chart(
        f"iteration durations: {workload.scenario_name}",
        "seconds since the first iteration started",
        "duration (sec)",
        lines,
        x_min=0.0,
        width=760,
    )


def _workload_section(item: FileEntries, entry: ReportEntry, anchor: str) -> list[str]:
    """Heading, table, summary, errors, plot and server side of one workload."""
    workload = entry.workload
    rows = shown_rows(entry.rows)
    attrs = [_row_attr(row.depth, row.name) for row in rows]
    depths = [row.depth for row in rows]
    body = table(
        heading(workload),
        [*COLUMNS, THROUGHPUT],
        _report_rows(rows, entry),
        row_attrs=attrs,
        indents=depths,
    )
    achieved, *note = load_lines(workload)
    parts = [
        f'<section class="workload" id="{anchor}">',
        body,
        config_line(entry.columns),
        f'<p class="summary">load duration: '
        f"{esc(format_number(workload.load_duration))} s, throughput: "
        f"{esc(format_number(entry.throughput))} iterations/s; "
        f"{len(workload.iterations)} iterations; SLA "
        f"{'passed' if workload.pass_sla else 'failed'}</p>",
        f'<p class="summary">{esc(achieved)}</p>',
        *(f'<p class="note">{esc(line)}</p>' for line in note),
        shape.failures_table(workload) or '<p class="summary">errors: none</p>',
    ]
    plots = [durations_plot(workload), *shape.load_profile_plots(workload)]
    plots += shape.distribution_plots(workload)
    if any(plots):
        parts.append(f'<div class="plots">{"".join(p for p in plots if p)}</div>')
    parts += server_parts(item, entry)
    parts += [shape.input_task(workload), "</section>"]
    return parts


def report_page(files: Sequence[FileEntries]) -> str:
    """The report page: a section per file, one per workload."""
    count = sum(len(item.entries) for item in files)
    title = f"rally-keystone-perf report ({count} workload{'' if count == 1 else 's'})"
    body: list[str] = []
    sections: list[str] = []
    for f_index, item in enumerate(files):
        sections.append(f"<h2>{esc(item.file)}</h2>")
        sections.append(config_line(item.config))
        sections += [
            f'<p class="note">{esc(w)}</p>' for w in config_warnings(item.config)
        ]
        if not item.entries:
            sections.append('<p class="meta">no workloads</p>')
        for w_index, entry in enumerate(item.entries):
            sections += _workload_section(item, entry, anchor(f_index, w_index))
    body.append(
        f'<p class="meta">{len(files)} report file(s). Figures are Rally\'s own '
        "statistics (failed iterations included); durations in seconds.</p>"
    )
    if count:
        body.append(overview_table(files))
    body += level_sections(files)
    body += node_sections(files)
    return page(title, [*body, *sections])


def write_page(files: Sequence[FileEntries], stream: TextIO) -> None:
    """Write the report page of computed :func:`~...figures.entries.report_entries`."""
    stream.write(report_page(files))
