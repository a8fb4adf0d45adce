"""The report page: a section per report file, one per workload."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from rally_keystone_perf.metrics import TOTAL
from rally_keystone_perf.report.blocks.numbers import format_number
from rally_keystone_perf.report.blocks.overview import (
    anchor,
    level_blocks,
    node_blocks,
    overview_table,
)
from rally_keystone_perf.report.blocks.report import title
from rally_keystone_perf.report.blocks.shape import (
    distribution_plots,
    durations_plot,
    failures,
    input_task,
    load_profile_plots,
)
from rally_keystone_perf.report.blocks.workload import (
    COLUMNS,
    THROUGHPUT,
    heading,
    load_lines,
    shown_rows,
    stats_table,
)
from rally_keystone_perf.report.figures.entries import FileEntries, ReportEntry
from rally_keystone_perf.report.figures.run_labels import config_warnings
from rally_keystone_perf.report.writers.html.kit import config_line, esc, page, table
from rally_keystone_perf.report.writers.html.server_side import server_parts
from rally_keystone_perf.report.writers.render import cells_of, html_body


def _row_attr(depth: int, name: str) -> str:
    """``<tr>`` attributes of a statistics row: nested rows' depth, the total."""
    if depth:
        return f' class="nested" data-depth="{depth}"'
    return ' class="total"' if name == TOTAL else ""


def _workload_section(item: FileEntries, entry: ReportEntry, anchor: str) -> list[str]:
    """Heading, table, summary, errors, plot and server side of one workload."""
    workload = entry.workload
    rows = shown_rows(entry.rows)
    attrs = [_row_attr(row.depth, row.name) for row in rows]
    depths = [row.depth for row in rows]
    body = table(
        heading(workload),
        [*COLUMNS, THROUGHPUT],
        cells_of(stats_table(entry, "html"))[1],
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
        *html_body([failures(workload)]),
    ]
    plots = [durations_plot(workload), *load_profile_plots(workload)]
    parts += html_body([*plots, *distribution_plots(workload)])
    parts += server_parts(item, entry)
    parts += [*html_body([input_task(workload)]), "</section>"]
    return parts


def report_page(files: Sequence[FileEntries]) -> str:
    """The report page: a section per file, one per workload."""
    count = sum(len(item.entries) for item in files)
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
    overview = [overview_table(files)] if count else []
    body += html_body([*overview, *level_blocks(files), *node_blocks(files)])
    return page(title(files), [*body, *sections])


def write_page(files: Sequence[FileEntries], stream: TextIO) -> None:
    """Write the report page of computed :func:`~...figures.entries.report_entries`."""
    stream.write(report_page(files))
