"""The top of the report page: every workload in one table, each linking to
its section; for runs of one configuration at several levels, the latency
percentiles and throughput against concurrency; for a workload run on
clusters of several sizes, its latency and throughput against nodes."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rally_keystone_perf.report.blocks.compare import series_section
from rally_keystone_perf.report.blocks.compare_data import series_groups
from rally_keystone_perf.report.figures import compare as comparing
from rally_keystone_perf.report.figures.concurrency import runner_concurrency
from rally_keystone_perf.report.figures.entries import FileEntries
from rally_keystone_perf.report.figures.run_labels import NODES, run_label
from rally_keystone_perf.report.figures.stats import total_row
from rally_keystone_perf.report.writers.common import format_number, format_success
from rally_keystone_perf.report.writers.html.charts import COLORS, Line, chart
from rally_keystone_perf.report.writers.html.kit import table
from rally_keystone_perf.report.writers.render import html_body

COLUMNS = (
    "workload",
    "runner",
    "concurrency",
    "iterations",
    "success",
    "load duration (s)",
    "throughput (/s)",
    "SLA",
)
LEFT = ("workload", "runner", "SLA")


def anchor(file_index: int, workload_index: int) -> str:
    """The id of a workload's section."""
    return f"w{file_index + 1}-{workload_index + 1}"


def overview_table(files: Sequence[FileEntries]) -> str:
    """A row per workload of every file, linking to its section."""
    rows, links = [], []
    for f_index, item in enumerate(files):
        for w_index, entry in enumerate(item.entries):
            workload = entry.workload
            level = runner_concurrency(workload)
            rows.append(
                [
                    workload.scenario_name,
                    workload.runner_type,
                    "-" if level is None else str(level),
                    str(len(workload.iterations)),
                    format_success(total_row(entry.rows).success),
                    format_number(workload.load_duration),
                    format_number(entry.throughput),
                    "passed" if workload.pass_sla else "failed",
                ]
            )
            links.append(anchor(f_index, w_index))
    return table("overview", COLUMNS, rows, LEFT, links=links)


def level_sections(files: Sequence[FileEntries]) -> list[str]:
    """Latency and throughput against concurrency, for each configuration
    and scenario measured at two levels or more."""
    runs = [
        (
            run_label(item.config, Path(item.file).name),
            [entry.workload for entry in item.entries],
        )
        for item in files
    ]
    groups = series_groups(comparing.series(runs))
    if not groups:
        return []
    parts = ["<h2>latency vs concurrency</h2>"]
    for (config, scenario), rows in groups.items():
        parts += html_body([series_section(config, scenario, rows)])
    return parts


def _node_groups(
    files: Sequence[FileEntries],
) -> dict[tuple[str, str, object], dict[int, comparing.SeriesRow]]:
    """Workloads by (configuration but its node count, scenario,
    concurrency), each by its node count."""
    groups: dict[tuple[str, str, object], dict[int, comparing.SeriesRow]] = {}
    for item in files:
        rest = {key: value for key, value in item.config.items() if key != NODES}
        label = run_label(rest, Path(item.file).name)
        nodes = int(item.config.get(NODES, "1"))
        for entry in item.entries:
            row = comparing.series_row(label, entry.workload)
            key = (label, row.scenario, row.concurrency)
            groups.setdefault(key, {})[nodes] = row
    return {key: rows for key, rows in groups.items() if len(rows) >= 2}


def _against_nodes(
    by_nodes: dict[int, comparing.SeriesRow], name: str
) -> list[tuple[float, float]]:
    """``(nodes, figure)`` of every node count that has the figure."""
    found = [(float(n), getattr(row, name)) for n, row in sorted(by_nodes.items())]
    return [(n, value) for n, value in found if value is not None]


def _node_section(title: str, by_nodes: dict[int, comparing.SeriesRow]) -> list[str]:
    """A workload's table and plots against nodes."""
    header = ["nodes", "median (s)", "p95 (s)", "throughput (/s)", "success"]
    cells = [
        [str(n), format_number(r.median), format_number(r.p95)]
        + [format_number(r.throughput), format_success(r.success)]
        for n, r in sorted(by_nodes.items())
    ]
    ticks = [float(n) for n in sorted(by_nodes)]
    latency = [
        Line(name, _against_nodes(by_nodes, name), color)
        for name, color in (("median", COLORS[0]), ("p95", COLORS[2]))
    ]
    rate = [Line("throughput", _against_nodes(by_nodes, "throughput"), COLORS[3])]
    plots = [
        chart(
            f"{title}: latency vs nodes",
            "Keystone nodes",
            "sec",
            latency,
            x_ticks=ticks,
        ),
        chart(
            f"{title}: throughput vs nodes",
            "Keystone nodes",
            "iterations/s",
            rate,
            x_ticks=ticks,
        ),
    ]
    return [
        '<section class="series">',
        table(f"vs nodes: {title}", header, cells, ()),
        f'<div class="plots">{"".join(plot for plot in plots if plot)}</div>',
        "</section>",
    ]


def node_sections(files: Sequence[FileEntries]) -> list[str]:
    """Latency and throughput against Keystone nodes, for each workload run
    on clusters of two sizes or more (``matrix --nodes 1,2,3``)."""
    groups = _node_groups(files)
    if not groups:
        return []
    parts = ["<h2>latency and throughput vs nodes</h2>"]
    for (label, scenario, level), by_nodes in groups.items():
        parts += _node_section(f"{label}, {scenario} c{level}", by_nodes)
    return parts
