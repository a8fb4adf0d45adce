"""The comparison page: a table per matched workload, then every series."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from rally_keystone_perf.report.figures.compare import (
    CompareResult,
    ScenarioComparison,
    SeriesRow,
)
from rally_keystone_perf.report.writers.compare import (
    COMPARE_COLUMNS,
    SERIES_COLUMNS,
    TEXT_COLUMNS,
    group_rows,
    group_title,
    intro,
    series_groups,
    series_rows,
    series_title,
)
from rally_keystone_perf.report.writers.html.charts import COLORS, Line, chart, finite
from rally_keystone_perf.report.writers.html.kit import config_line, esc, page, table

SERIES_PLOT_WIDTH = 420  # three side by side
VERDICT_CLASSES = {
    "baseline": "v-baseline",
    "faster": "v-faster",
    "slower": "v-slower",
    "not significant": "v-ns",
}


def _compare_section(group: ScenarioComparison) -> list[str]:
    """Heading and table of one matched workload."""
    rows = group_rows(group)
    attrs = [' class="first-run"' if row[0] else "" for row in rows]
    verdict = COMPARE_COLUMNS.index("verdict")
    classes = [[""] * verdict + [VERDICT_CLASSES.get(row[verdict], "")] for row in rows]
    return [
        '<section class="group">',
        table(group_title(group), COMPARE_COLUMNS, rows, TEXT_COLUMNS, attrs, classes),
        *(f'<p class="note">{esc(note)}</p>' for note in group.notes),
        "</section>",
    ]


def series_plots(rows: Sequence[SeriesRow]) -> list[str]:
    """Latency percentiles, throughput and success rate against concurrency."""
    levels = [row.concurrency for row in rows if finite(row.concurrency)]

    def points(field: str, scale: float = 1.0) -> list[tuple[float, float]]:
        return [
            (row.concurrency, getattr(row, field) * scale)
            for row in rows
            if finite(row.concurrency) and finite(getattr(row, field))
        ]

    latency = [
        Line("median", points("median"), COLORS[0]),
        Line("90 percentile", points("p90"), COLORS[1]),
        Line("95 percentile", points("p95"), COLORS[2]),
    ]
    plots = [
        chart(
            "latency (total) vs concurrency",
            "concurrency",
            "seconds",
            latency,
            x_ticks=levels,
            width=SERIES_PLOT_WIDTH,
        ),
        chart(
            "throughput vs concurrency",
            "concurrency",
            "iterations/s",
            [Line("throughput", points("throughput"), COLORS[3])],
            x_ticks=levels,
            width=SERIES_PLOT_WIDTH,
        ),
        chart(
            "success rate vs concurrency",
            "concurrency",
            "success (%)",
            [Line("success", points("success", 100.0), COLORS[4])],
            x_ticks=levels,
            y_max=100.0,
            width=SERIES_PLOT_WIDTH,
        ),
    ]
    return [plot for plot in plots if plot]


def series_section(config: str, scenario: str, rows: Sequence[SeriesRow]) -> list[str]:
    """Table and plots of one latency-vs-concurrency series."""
    parts = [
        '<section class="series">',
        table(series_title(config, scenario), SERIES_COLUMNS, series_rows(rows), ()),
    ]
    plots = series_plots(rows)
    if plots:
        parts.append('<div class="plots">' + "\n".join(plots) + "</div>")
    parts.append("</section>")
    return parts


def compare_page(result: CompareResult) -> str:
    """The comparison page: intro, a table per matched workload, the series."""
    comparison, runs = result.comparison, result.runs
    title = f"rally-keystone-perf compare (baseline {comparison.baseline})"
    body = [f'<p class="meta">{esc(intro(comparison, runs)[0])}</p>']
    if runs:
        items = "".join(
            f"<li><b>{esc(run.label)}</b>: "
            f"{esc(', '.join(str(path) for path in run.paths))}"
            f"{config_line(run.config)}</li>"
            for run in runs
        )
        body.append(f"<h2>runs</h2><ul>{items}</ul>")
    body.append("<h2>comparison</h2>")
    if not comparison.groups:
        body.append('<p class="meta">no workloads to compare</p>')
    for group in comparison.groups:
        body += _compare_section(group)
    groups = series_groups(result.series)
    if groups:
        body.append("<h2>latency vs concurrency</h2>")
        for (config, scenario), rows in groups.items():
            body += series_section(config, scenario, rows)
    return page(title, body)


def write_page(result: CompareResult, stream: TextIO) -> None:
    """Write the comparison page."""
    stream.write(compare_page(result))
