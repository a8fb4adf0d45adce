"""A study page's plots: each config's figures against concurrency, and a
cluster study's throughput against nodes, ours beside the seed's.

Only what was measured at two points or more is plotted: a study run at
one level has its tables only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rally_keystone_perf.report.blocks.model import Plot, Series
from rally_keystone_perf.report.figures.study import StudyRow
from rally_keystone_perf.studies.model import Study

Pick = Callable[[StudyRow], float | None]


def _ours(name: str) -> Pick:
    return lambda row: row.ours.figures.get(name) if row.ours else None


def _series(
    rows: Sequence[StudyRow], labels: Sequence[str], x: Pick, y: Pick
) -> list[Series]:
    """A line per config of two points or more, its color the config's."""
    found = []
    for index, label in enumerate(labels):
        points = _points([row for row in rows if row.seed.config == label], x, y)
        if len(points) >= 2:
            found.append(Series(label, sorted(points), index))
    return found


def level_plots(study: Study, rows: Sequence[StudyRow]) -> list[Plot]:
    """Ours: the total's avg and p95 and the throughput against concurrency,
    a line per config."""
    totals = [row for row in rows if not row.seed.action]
    labels = [config.label for config in study.configs]
    plots = []
    for name, unit in (("avg", "sec"), ("p95", "sec"), ("throughput", "iterations/s")):
        level = _series(
            totals, labels, lambda row: float(row.seed.concurrency), _ours(name)
        )
        if level:
            title = f"ours: {name} vs concurrency"
            plots.append(Plot(title, "concurrency", f"{name} ({unit})", level))
    return plots


def node_plots(study: Study, rows: Sequence[StudyRow]) -> list[Plot]:
    """Per action, the throughput against the node count of the configs of
    one mode, ours and the seed's."""
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
            series = [Series(f"ours ({mode})", ours), Series("seed", seed)]
            title = f"{action or 'total'}: throughput vs nodes"
            plots.append(Plot(title, "Keystone nodes", "per second", series))
    return plots


def _points(rows: Sequence[StudyRow], x: Pick, y: Pick) -> list[tuple[float, float]]:
    return [
        (px, py)
        for row in rows
        if (px := x(row)) is not None and (py := y(row)) is not None
    ]
