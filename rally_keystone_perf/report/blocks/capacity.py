"""The capacity curve (:mod:`rally_keystone_perf.report.figures.capacity_curve`)
as a document.

A table of the steps by offered rate (rates a second, times in ms, CPU in
busy cores per tier), then the conclusion: the sustained rate with the
lowest rate the search found not sustained (its uncertainty), the
sustained rate over the task file's own rate when it has one (a ``tasks
--from-log`` task's: how many times its cloud's busiest minute), the knee,
the bottleneck line at the sustained rate, the rule and why the search
stopped. The HTML page has the plots first, against the offered rate,
every step a point (a repeated rate has several):

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

from rally_keystone_perf.report.blocks.model import (
    AS_IS,
    Block,
    Document,
    Heading,
    Lines,
    Only,
    Plot,
    Series,
    Table,
    columns,
)
from rally_keystone_perf.report.figures.capacity_curve import (
    KNEE_FACTOR,
    Curve,
    CurveRow,
)

GRAY = "#9aa5b1"
COLUMNS = columns(
    "offered/s:rate; achieved/s:rate; p50 ms:ms; p95 ms:ms; p99 ms:ms",
    "dropped; failed; SLO:text; CPU (busy cores):text; probe s:fixed3; step",
)
Pick = Callable[[CurveRow], float | None]


def steps_table(curve: Curve) -> Table:
    """A row per step, by offered rate."""
    rows = [
        [row.figures.offered, row.figures.achieved, *row.figures.response]
        + [row.figures.dropped, row.figures.failed, "met" if row.met else "missed"]
        + [", ".join(f"{name} {cores:.2f}" for name, cores in row.tiers) or "-"]
        + [row.probe, row.number]
        for row in curve.rows
    ]
    return Table(COLUMNS, rows, "each step, by offered rate")


def conclusion(curve: Curve) -> list[str]:
    """The lines under the table."""
    if curve.sustained is None:
        lines = [f"sustained: none of the rates tried met {curve.objective.text()}"]
    elif curve.above is None:
        lines = [f"sustained: {curve.sustained:.1f}/s, every rate tried met it"]
    else:
        lines = [
            f"sustained: {curve.sustained:.1f}/s under {curve.objective.text()} "
            f"(not at {curve.above:.1f}/s: the true limit lies between)"
        ]
    if curve.task_rate and curve.sustained is not None:
        lines.append(
            f"the task's own rate: {curve.task_rate:.3g}/s; sustained is "
            f"{curve.sustained / curve.task_rate:.2g}x it"
        )
    knee = curve.knee
    if knee is not None:
        lines.append(
            f"knee: {knee:.1f}/s, the last rate whose p95 is within "
            f"{KNEE_FACTOR:g}x of the lowest rate's"
        )
    at = curve.row_at(curve.sustained) or curve.row_at(knee)
    if at is not None and at.bottleneck:
        lines.append(f"bottleneck at {at.figures.offered:.1f}/s: {at.bottleneck}")
    return [*lines, f"search: {curve.rule}", f"stopped: {curve.stopped}"]


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


def plots(curve: Curve) -> list[Plot]:
    """Response times with the SLO's bounds, the rates, each tier's CPU."""
    response = [
        Series(name, _points(curve, _response(i)))
        for i, name in enumerate(("p50", "p95", "p99"))
    ]
    rates = [row.figures.offered for row in curve.rows]
    for n, bound in enumerate(curve.objective.latency):
        flat = [(min(rates), bound.seconds * 1000), (max(rates), bound.seconds * 1000)]
        response.append(Series(f"SLO {bound.text()}", flat, 3 + n, markers=False))
    achieved = _points(curve, lambda row: row.figures.achieved)
    offered = _points(curve, lambda row: row.figures.offered)
    per_second = [Series("achieved", achieved), Series("offered", offered, GRAY, False)]
    tiers = dict.fromkeys(name for row in curve.rows for name, _ in row.tiers)
    cpu = [Series(tier, _points(curve, _cores(tier))) for tier in tiers]
    return [
        Plot("response time vs offered rate", "offered/s", "ms", response),
        Plot("achieved vs offered rate", "offered/s", "per second", per_second),
        Plot("CPU vs offered rate", "offered/s", "busy cores", cpu),
    ]


def _cores(tier: str) -> Pick:
    return lambda row: dict(row.tiers).get(tier)


def document(curve: Curve) -> Document:
    """The plots, the steps' table, the conclusion (a list in markdown)."""
    objective = curve.objective.text()
    title = f"capacity against {objective} (each step's second half)"
    blocks: list[Block] = [
        Only(("table",), [Heading(title)]),
        Only(("markdown",), [Heading(f"Capacity against {objective}", 2)]),
        *plots(curve),
        steps_table(curve),
        Lines(conclusion(curve), AS_IS, bullets=True),
    ]
    return Document(title, blocks, level=None)
