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
    Block,
    Document,
    Heading,
    Lines,
    Only,
    Plot,
    Series,
    Table,
    columns,
    pick,
)
from rally_keystone_perf.report.figures.trends import Trend

COLUMNS = columns(
    "#; run:text; started (UTC):text:utc; median (s):seconds; p95 (s):seconds",
    "success:success; throughput:per second2; gate vs the run before:text",
)
NOTE = (
    "a point per run of the same workload (scenario, arguments, runner, "
    "contexts, SLA) on the same deployment, oldest first; the gate checks "
    "each run against the one before it"
)


def table(trend: Trend) -> Table:
    """``trend``'s table, a row per point."""
    rows = [
        [number, point.run, point.started, point.median, point.p95]
        + [point.success, point.throughput or None, point.verdict]
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
    ticks = [float(n) for n, _ in numbered]
    return Plot(
        title(trend), "run (oldest first)", "duration (sec)", series, ticks, width=760
    )


def data(trends: Sequence[Trend]) -> dict[str, Any]:
    """The trends as a JSON document."""
    return {
        "trends": [
            pick(trend, "workload=name deployment config=key")
            | {
                "points": [
                    pick(point, "run")
                    | {"report": str(point.report)}
                    | pick(point, "started median p95 success throughput gate=verdict")
                    for point in trend.points
                ]
            }
            for trend in trends
        ]
    }


def document(trends: Sequence[Trend]) -> Document:
    """The note, then each trend: its title, its plot (HTML), its table."""
    blocks: list[Block] = [Lines([NOTE], FLUSH, style="meta")]
    for trend in trends:
        blocks += [
            Only(("table", "markdown"), [Heading(title(trend))]),
            Only(("html",), [Heading(title(trend), 2)]),
            plot(trend),
            table(trend),
        ]
    return Document("trends", blocks, level=None, data=data(trends))
