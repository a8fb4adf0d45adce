"""A capacity search's plots against the offered rate.

Three plots, every step a point (a repeated rate has several):

- the response time's p50, p95 and p99 of each step's judged half, with
  the SLO's percentile bounds as flat lines: where a percentile crosses
  its bound, the SLO is missed;
- the achieved rate against the offered one, the offered rate itself as
  the line a server that keeps up follows;
- each tier's CPU in busy cores (Keystone, the database, haproxy, the
  client): the tier that flattens near the machine's cores is the
  bottleneck.
"""

from __future__ import annotations

from collections.abc import Callable

from rally_keystone_perf.report.figures.capacity_curve import Curve, CurveRow
from rally_keystone_perf.report.writers.html.charts import COLORS, Line, chart

GRAY = "#9aa5b1"
Pick = Callable[[CurveRow], float | None]


def _points(curve: Curve, pick: Pick) -> list[tuple[float, float]]:
    """``(offered rate, pick(row))`` of each step that has a value."""
    return [
        (row.figures.offered, value)
        for row in curve.rows
        if (value := pick(row)) is not None
    ]


def _response(index: int) -> Pick:
    def pick(row: CurveRow) -> float | None:
        seconds = row.figures.response[index]
        return None if seconds is None else seconds * 1000

    return pick


def response_plot(curve: Curve) -> str:
    """Response p50/p95/p99 (ms) against the offered rate, with the SLO's bounds."""
    names = ("p50", "p95", "p99")
    lines = [
        Line(name, _points(curve, _response(i)), COLORS[i])
        for i, name in enumerate(names)
    ]
    rates = [row.figures.offered for row in curve.rows]
    for n, bound in enumerate(curve.objective.latency):
        flat = [(min(rates), bound.seconds * 1000), (max(rates), bound.seconds * 1000)]
        color = COLORS[(3 + n) % len(COLORS)]
        lines.append(Line(f"SLO {bound.text()}", flat, color, markers=False))
    return chart("response time vs offered rate", "offered/s", "ms", lines)


def rate_plot(curve: Curve) -> str:
    """The achieved rate against the offered one."""
    offered = _points(curve, lambda row: row.figures.offered)
    lines = [
        Line("achieved", _points(curve, lambda row: row.figures.achieved), COLORS[0]),
        Line("offered", offered, GRAY, markers=False),
    ]
    return chart("achieved vs offered rate", "offered/s", "per second", lines)


def cpu_plot(curve: Curve) -> str:
    """Each tier's busy cores against the offered rate (empty: no samples)."""
    tiers = list(dict.fromkeys(name for row in curve.rows for name, _ in row.tiers))

    def cores(tier: str) -> Pick:
        return lambda row: dict(row.tiers).get(tier)

    lines = [
        Line(tier, _points(curve, cores(tier)), COLORS[i % len(COLORS)])
        for i, tier in enumerate(tiers)
    ]
    return (
        chart("CPU vs offered rate", "offered/s", "busy cores", lines) if lines else ""
    )


def capacity_plots(curve: Curve) -> list[str]:
    """The plots that have points, in the order above."""
    drawn = [response_plot(curve), rate_plot(curve), cpu_plot(curve)]
    return [plot for plot in drawn if plot]
