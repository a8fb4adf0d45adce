"""A study page's plots: each config's figures against concurrency, and a
cluster study's throughput against nodes, ours beside the seed's.

Only what was measured at two points or more is plotted: a study run at
one level has its tables only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rally_keystone_perf.report.figures.study import StudyRow
from rally_keystone_perf.report.writers.html.charts import COLORS, Line, chart
from rally_keystone_perf.studies.model import Study

Pick = Callable[[StudyRow], float | None]


def _ours(name: str) -> Pick:
    return lambda row: row.ours.figures.get(name) if row.ours else None


def _lines(
    rows: Sequence[StudyRow], labels: Sequence[str], x: Pick, y: Pick
) -> list[Line]:
    """A line per config of two points or more."""
    lines = []
    for index, label in enumerate(labels):
        points = _points([row for row in rows if row.seed.config == label], x, y)
        if len(points) >= 2:
            lines.append(Line(label, sorted(points), COLORS[index % len(COLORS)]))
    return lines


def level_plots(study: Study, rows: Sequence[StudyRow]) -> list[str]:
    """Ours: the total's avg and p95 and the throughput against concurrency,
    a line per config."""
    totals = [row for row in rows if not row.seed.action]
    labels = [config.label for config in study.configs]
    plots = []
    for name, unit in (("avg", "sec"), ("p95", "sec"), ("throughput", "iterations/s")):
        lines = _lines(
            totals, labels, lambda row: float(row.seed.concurrency), _ours(name)
        )
        if lines:
            plots.append(
                chart(
                    f"ours: {name} vs concurrency",
                    "concurrency",
                    f"{name} ({unit})",
                    lines,
                )
            )
    return [plot for plot in plots if plot]


def node_plots(study: Study, rows: Sequence[StudyRow]) -> list[str]:
    """Per action, the throughput against the node count of the configs of
    one mode, ours and the seed's, each relative to its fewest nodes' (the
    gain, comparable across hardware)."""
    nodes = {config.label: config.nodes for config in study.configs}
    modes = {config.label: config.mode for config in study.configs}
    clustered = {modes[label] for label, count in nodes.items() if count > 1}

    def x(row: StudyRow) -> float:
        return float(nodes[row.seed.config])

    plots = []
    for action in dict.fromkeys(row.seed.action for row in rows):
        for mode in sorted(clustered):
            chosen = [
                r
                for r in rows
                if r.seed.action == action and modes[r.seed.config] == mode
            ]
            ours = sorted(_points(chosen, x, _ours("throughput")))
            if len(ours) < 2:
                continue
            seed = sorted(
                _points(chosen, x, lambda r: r.seed.figures.get("throughput"))
            )
            lines = [Line(f"ours ({mode})", ours, COLORS[0])]
            lines.append(Line("seed", seed, COLORS[1]))
            title = f"{action or 'total'}: throughput vs nodes"
            plots.append(chart(title, "Keystone nodes", "per second", lines))
    return [plot for plot in plots if plot]


def _relative(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """``points`` sorted, each y over the first's: a gain comparable across
    hardware."""
    ordered = sorted(points)
    if not ordered or ordered[0][1] <= 0:
        return []
    first = ordered[0][1]
    return [(x, y / first) for x, y in ordered]


def _points(rows: Sequence[StudyRow], x: Pick, y: Pick) -> list[tuple[float, float]]:
    return [
        (px, py)
        for row in rows
        if (px := x(row)) is not None and (py := y(row)) is not None
    ]
