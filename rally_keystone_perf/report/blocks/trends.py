"""Trends as a document: a table per workload, a point per run.

Each trend's table (run, started, median, p95, success, throughput, the
gate's verdict against the run before) under its title; the HTML page
(titled ``trends``) draws its median and p95 across the runs above it; the
JSON is the same figures, strict (:func:`data`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rally_keystone_perf.report.blocks.model import (
    FLUSH,
    TEXT,
    Block,
    Column,
    Document,
    Heading,
    Lines,
    Only,
    Plot,
    Series,
    Table,
)
from rally_keystone_perf.report.figures.trends import Trend

COLUMNS = (
    Column("#"),
    Column("run", TEXT),
    Column("started (UTC)", TEXT, "utc"),
    Column("median (s)", fmt="seconds"),
    Column("p95 (s)", fmt="seconds"),
    Column("success", fmt="success"),
    Column("throughput", fmt="per second2"),
    Column("gate vs the run before", TEXT),
)
NOTE = (
    "a point per run of the same workload (scenario, arguments, runner, "
    "contexts, SLA) on the same deployment, oldest first; the gate checks "
    "each run against the one before it"
)


def table(trend: Trend) -> Table:
    """``trend``'s table, a row per point."""
    rows = [
        [
            number,
            point.run,
            point.started,
            point.median,
            point.p95,
            point.success,
            point.throughput or None,
            point.verdict,
        ]
        for number, point in enumerate(trend.points, 1)
    ]
    return Table(COLUMNS, rows, "runs")


def title(trend: Trend) -> str:
    """``KeystonePerf.create_token c4 on uwsgi p2xt1 (config 1a2b3c4d5e6f)``."""
    on = f" on {trend.deployment}" if trend.deployment else ""
    return f"{trend.name}{on} (config {trend.key})"


def plot(trend: Trend) -> Plot:
    """The median and p95 against the run number."""
    numbered = list(enumerate(trend.points, 1))
    series = [
        Series(name, [(float(n), v) for n, p in numbered if (v := get(p)) is not None])
        for name, get in (("median", lambda p: p.median), ("p95", lambda p: p.p95))
    ]
    return Plot(
        title(trend),
        "run (oldest first)",
        "duration (sec)",
        series,
        x_ticks=[float(n) for n, _ in numbered],
        width=760,
    )


def data(trends: Sequence[Trend]) -> dict[str, Any]:
    """The trends as a JSON document."""
    return {
        "trends": [
            {
                "workload": trend.name,
                "deployment": trend.deployment,
                "config": trend.key,
                "points": [
                    {
                        "run": point.run,
                        "report": str(point.report),
                        "started": point.started,
                        "median": point.median,
                        "p95": point.p95,
                        "success": point.success,
                        "throughput": point.throughput,
                        "gate": point.verdict,
                    }
                    for point in trend.points
                ],
            }
            for trend in trends
        ]
    }


def document(trends: Sequence[Trend]) -> Document:
    """The note, then each trend: its title, its plot (HTML), its table."""
    blocks: list[Block] = [Lines([NOTE], FLUSH, style="meta")]
    for trend in trends:
        blocks += [
            Only(("table",), [Heading(title(trend))]),
            Only(("markdown",), [Heading(title(trend), 3)]),
            Only(("html",), [Heading(title(trend), 2)]),
            plot(trend),
            table(trend),
        ]
    return Document("trends", blocks, level=None, data=data(trends))
