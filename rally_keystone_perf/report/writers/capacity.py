"""The capacity curve (:mod:`..figures.capacity_curve`) as text, markdown or HTML.

A table of the steps by offered rate (rates a second, times in ms, CPU in
busy cores per tier), then the conclusion: the sustained rate with the
lowest rate the search found not sustained (its uncertainty), the knee,
the bottleneck line at the sustained rate, the rule and why the search
stopped. The HTML page adds the plots (:mod:`.html.capacity_plots`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from rally_keystone_perf.report.figures.capacity_curve import (
    KNEE_FACTOR,
    Curve,
    CurveRow,
)
from rally_keystone_perf.report.writers.common import (
    format_ms,
    markdown_table,
    text_table,
)
from rally_keystone_perf.report.writers.html import kit
from rally_keystone_perf.report.writers.html.capacity_plots import capacity_plots

HEADER = (
    "offered/s",
    "achieved/s",
    "p50 ms",
    "p95 ms",
    "p99 ms",
    "dropped",
    "failed",
    "SLO",
    "CPU (busy cores)",
    "probe s",
    "step",
)
LEFT = ("SLO", "CPU (busy cores)")


def row_cells(row: CurveRow) -> list[str]:
    """One step's cells, in :data:`HEADER`'s order."""
    figures = row.figures
    return [
        f"{figures.offered:.1f}",
        f"{figures.achieved:.1f}",
        *(format_ms(v) for v in figures.response),
        str(figures.dropped),
        str(figures.failed),
        "met" if row.met else "missed",
        ", ".join(f"{name} {cores:.2f}" for name, cores in row.tiers) or "-",
        "-" if row.probe is None else f"{row.probe:.3f}",
        str(row.number),
    ]


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
    knee = curve.knee
    if knee is not None:
        lines.append(
            f"knee: {knee:.1f}/s, the last rate whose p95 is within "
            f"{KNEE_FACTOR:g}x of the lowest rate's"
        )
    at = curve.row_at(curve.sustained) or curve.row_at(knee)
    if at is not None and at.bottleneck:
        lines.append(f"bottleneck at {at.figures.offered:.1f}/s: {at.bottleneck}")
    lines += [f"search: {curve.rule}", f"stopped: {curve.stopped}"]
    return lines


def write_table(curve: Curve, stream: TextIO) -> None:
    """Title, the steps' table, the conclusion."""
    rows = [row_cells(r) for r in curve.rows]
    body = text_table(HEADER, rows, LEFT).get_string()
    stream.write("\n".join([title(curve), body, *conclusion(curve)]) + "\n")


def title(curve: Curve) -> str:
    """The table's title."""
    return f"capacity against {curve.objective.text()} (each step's second half)"


def write_markdown(curve: Curve, stream: TextIO) -> None:
    """A ``##`` heading, the markdown table, the conclusion as a list."""
    rows = [row_cells(r) for r in curve.rows]
    body = markdown_table(HEADER, rows, LEFT)
    items = "\n".join(f"- {line}" for line in conclusion(curve))
    stream.write(f"## Capacity against {curve.objective.text()}\n\n{body}\n\n{items}\n")


def write_html(curve: Curve, stream: TextIO) -> None:
    """One self-contained page: the plots, the steps' table, the conclusion."""
    body = []
    plots = capacity_plots(curve)
    if plots:
        body.append(f'<div class="plots">{"".join(plots)}</div>')
    rows = [row_cells(r) for r in curve.rows]
    body.append(kit.table("each step, by offered rate", HEADER, rows, LEFT))
    body += [f'<p class="summary">{kit.esc(line)}</p>' for line in conclusion(curve)]
    stream.write(kit.page(title(curve), body))


def write_pages(curve: Curve, markdown: Path, html: Path) -> None:
    """The curve written as ``markdown`` and as the ``html`` page."""
    for path, write in ((markdown, write_markdown), (html, write_html)):
        with path.open("w", encoding="utf-8") as stream:
            write(curve, stream)
