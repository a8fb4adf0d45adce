"""Trends in every format: a table per workload, a point per run.

Text and markdown (one table per trend: run, started, median, p95,
success, throughput, the gate's verdict against the run before), JSON (the
same figures, strict), HTML (each trend's table under a plot of its median
and p95 across the runs, self-contained like every page of the suite).
"""

from __future__ import annotations

import datetime
import textwrap
from collections.abc import Sequence
from typing import Any, TextIO

from rally_keystone_perf.report.figures.trends import Trend, TrendPoint
from rally_keystone_perf.report.writers import common
from rally_keystone_perf.report.writers.html import kit
from rally_keystone_perf.report.writers.html.charts import COLORS, Line, chart

HEADER = (
    "#",
    "run",
    "started (UTC)",
    "median (s)",
    "p95 (s)",
    "success",
    "throughput",
    "gate vs the run before",
)
LEFT = ("run", "started (UTC)", "gate vs the run before")
WIDTH = 120
NOTE = (
    "a point per run of the same workload (scenario, arguments, runner, "
    "contexts, SLA) on the same deployment, oldest first; the gate checks "
    "each run against the one before it"
)


def started(point: TrendPoint) -> str:
    """The start as ``2026-11-24 11:28:36`` (UTC), or ``-``."""
    if point.started is None:
        return "-"
    moment = datetime.datetime.fromtimestamp(point.started, datetime.UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def rows(trend: Trend) -> list[list[str]]:
    """The cells of ``trend``'s table, a row per point."""
    return [
        [
            str(number),
            point.run,
            started(point),
            common.format_number(point.median),
            common.format_number(point.p95),
            common.format_success(point.success),
            f"{point.throughput:.2f}/s" if point.throughput else "-",
            point.verdict,
        ]
        for number, point in enumerate(trend.points, 1)
    ]


def title(trend: Trend) -> str:
    """``KeystonePerf.create_token c4 on uwsgi p2xt1 (config 1a2b3c4d5e6f)``."""
    on = f" on {trend.deployment}" if trend.deployment else ""
    return f"{trend.name}{on} (config {trend.key})"


def write_text(trends: Sequence[Trend], stream: TextIO) -> None:
    """Each trend as a terminal table under its title."""
    parts = textwrap.wrap(NOTE, WIDTH)
    for trend in trends:
        table = common.text_table(HEADER, rows(trend), LEFT).get_string()
        parts += [title(trend), table]
    stream.write("\n".join(parts) + "\n")


def write_markdown(trends: Sequence[Trend], stream: TextIO) -> None:
    """Each trend as a markdown section."""
    parts = [common.md_cell(NOTE)]
    for trend in trends:
        parts += [f"### {common.md_cell(title(trend))}"]
        parts += [common.markdown_table(HEADER, rows(trend), LEFT)]
    stream.write("\n\n".join(parts) + "\n")


def document(trends: Sequence[Trend]) -> dict[str, Any]:
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


def write_json(trends: Sequence[Trend], stream: TextIO) -> None:
    """Write :func:`document`."""
    common.write_json(document(trends), stream)


def plot(trend: Trend) -> str:
    """The median and p95 against the run number."""
    numbered = list(enumerate(trend.points, 1))
    lines = [
        Line(
            name,
            [(float(n), value) for n, p in numbered if (value := get(p)) is not None],
            color,
        )
        for name, get, color in (
            ("median", lambda p: p.median, COLORS[0]),
            ("p95", lambda p: p.p95, COLORS[1]),
        )
    ]
    return chart(
        title(trend),
        "run (oldest first)",
        "duration (sec)",
        lines,
        x_ticks=[float(n) for n, _ in numbered],
        width=760,
    )


def html_page(trends: Sequence[Trend]) -> str:
    """Every trend's plot and table on one page."""
    body = [f'<p class="meta">{kit.esc(NOTE)}</p>']
    for trend in trends:
        body += [f"<h2>{kit.esc(title(trend))}</h2>", plot(trend)]
        body.append(kit.table("runs", list(HEADER), rows(trend), LEFT))
    return kit.page("trends", body)


def write_html(trends: Sequence[Trend], stream: TextIO) -> None:
    """Write :func:`html_page`."""
    stream.write(html_page(trends))
