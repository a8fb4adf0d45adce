"""The top of the report page: every workload in one table, each linking to
its section; for runs of one configuration at several levels, the latency
percentiles and throughput against concurrency; for a workload run on
clusters of several sizes, its latency and throughput against nodes."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rally_keystone_perf.report.blocks.compare import series_section
from rally_keystone_perf.report.blocks.compare_data import series_groups
from rally_keystone_perf.report.blocks.model import (
    Block,
    Heading,
    Plot,
    Section,
    Series,
    Table,
    columns,
)
from rally_keystone_perf.report.figures import compare as comparing
from rally_keystone_perf.report.figures.concurrency import runner_concurrency
from rally_keystone_perf.report.figures.entries import FileEntries
from rally_keystone_perf.report.figures.run_labels import NODES, run_label
from rally_keystone_perf.report.figures.stats import total_row

COLUMNS = columns(
    "workload:text; runner:text; concurrency; iterations; success:success",
    "load duration (s):seconds; throughput (/s):seconds; SLA:text",
)
NODE_COLUMNS = columns(
    "nodes; median (s):seconds; p95 (s):seconds; throughput (/s):seconds",
    "success:success",
)
NODE_PLOTS = (  # title, y axis, (figure, palette color) of each line
    ("latency", "sec", (("median", 0), ("p95", 2))),
    ("throughput", "iterations/s", (("throughput", 3),)),
)


def anchor(file_index: int, workload_index: int) -> str:
    """The id of a workload's section."""
    return f"w{file_index + 1}-{workload_index + 1}"


def overview_table(files: Sequence[FileEntries]) -> Table:
    """A row per workload of every file, linking to its section."""
    rows, links = [], []
    for f_index, item in enumerate(files):
        for w_index, entry in enumerate(item.entries):
            workload = entry.workload
            rows.append(
                [workload.scenario_name, workload.runner_type]
                + [runner_concurrency(workload), len(workload.iterations)]
                + [total_row(entry.rows).success, workload.load_duration]
                + [entry.throughput, "passed" if workload.pass_sla else "failed"]
            )
            links.append(anchor(f_index, w_index))
    return Table(COLUMNS, rows, "overview", links=links)


def level_blocks(files: Sequence[FileEntries]) -> list[Block]:
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
    return [
        Heading("latency vs concurrency", 2),
        *(series_section(*key, rows) for key, rows in groups.items()),
    ]


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


def _node_section(title: str, by_nodes: dict[int, comparing.SeriesRow]) -> Section:
    """A workload's table and plots against nodes."""
    rows = [
        [n, r.median, r.p95, r.throughput, r.success]
        for n, r in sorted(by_nodes.items())
    ]
    ticks = [float(n) for n in sorted(by_nodes)]
    found: list[Block] = [Table(NODE_COLUMNS, rows, f"vs nodes: {title}")]
    for name, y_label, lines in NODE_PLOTS:
        series = [Series(s, _against_nodes(by_nodes, s), color) for s, color in lines]
        plot = f"{title}: {name} vs nodes"
        found.append(Plot(plot, "Keystone nodes", y_label, series, x_ticks=ticks))
    return Section("series", found)


def node_blocks(files: Sequence[FileEntries]) -> list[Block]:
    """Latency and throughput against Keystone nodes, for each workload run
    on clusters of two sizes or more (``matrix --nodes 1,2,3``)."""
    groups = _node_groups(files)
    if not groups:
        return []
    return [
        Heading("latency and throughput vs nodes", 2),
        *(
            _node_section(f"{label}, {scenario} c{level}", by_nodes)
            for (label, scenario, level), by_nodes in groups.items()
        ),
    ]
