"""A study's capacity rows and their ratios, for the study's page.

Per config: the seed's rate where it gave one, the sustained rate and the
lowest rate found not sustained (the true limit lies between), the knee,
the steps taken, the machine's speed probe over them and the bottleneck at
the sustained rate; then the ratios with the range the two brackets allow
(:mod:`..figures.study_capacity`). Text, markdown and HTML share the cells.
"""

from __future__ import annotations

from rally_keystone_perf.report.figures.study_capacity import CapacityPart, CapacityRow
from rally_keystone_perf.report.writers.common import markdown_table, text_table
from rally_keystone_perf.report.writers.html import kit

MISSING = "-"
LEFT = ("config", "bottleneck", "ratio", "verdict")


def _rate(value: float | None) -> str:
    return MISSING if value is None else f"{value:.1f}"


def _probes(row: CapacityRow) -> str:
    if row.probes is None:
        return MISSING
    low, high = row.probes
    return f"{low:.3f}" if low == high else f"{low:.3f}-{high:.3f}"


def rows_table(part: CapacityPart) -> tuple[list[str], list[list[str]]]:
    """Header and cells of the capacity rows (rates a second)."""
    seeded = any(row.seed_rate is not None for row in part.rows)
    header = ["config", *(["seed/s"] if seeded else [])]
    header += ["sustained/s", "not at/s", "knee/s", "steps", "probe s", "bottleneck"]
    cells = []
    for row in part.rows:
        line = [row.config, *([_rate(row.seed_rate)] if seeded else [])]
        line += [_rate(row.sustained), _rate(row.above), _rate(row.knee)]
        line += [str(row.steps), _probes(row), row.bottleneck or MISSING]
        cells.append(line)
    return header, cells


def ratios_table(part: CapacityPart) -> tuple[list[str], list[list[str]]]:
    """Header and cells of the capacity ratios (the faster's over the
    slower's; range: what the two brackets allow)."""
    header = ["ratio", "seed", "ours", "range", "verdict"]
    cells = []
    for row in part.ratios:
        seed = f"{row.seed:.2f}x" if row.seed is not None else row.seed_words
        ours = MISSING if row.ours is None else f"{row.ours:.2f}x"
        span = MISSING
        if row.low is not None and row.high is not None:
            span = f"{row.low:.2f}-{row.high:.2f}x"
        cells.append([row.name, seed or MISSING, ours, span, row.verdict])
    return header, cells


def heading(part: CapacityPart) -> str:
    """The section's title."""
    return (
        f"capacity: the highest rate of {part.unit} a second each config "
        f"sustains under {part.slo}"
    )


def notes(part: CapacityPart) -> list[str]:
    """How it was measured, and why a search stopped where it is not the
    bracket's width."""
    lines = [f"capacity measured {part.measured_in}"]
    lines += [
        f"{row.config}: stopped: {row.stopped}"
        for row in part.rows
        if not row.stopped.startswith("the bracket is narrower")
    ]
    return lines


def text_lines(part: CapacityPart) -> list[str]:
    """The section as text: heading, tables (each row's bottleneck on a
    line under the rows, as the closed-model tables have it), notes."""
    header, cells = rows_table(part)
    table = text_table(header[:-1], [line[:-1] for line in cells], LEFT)
    lines = ["", heading(part), table.get_string()]
    lines += [
        f"{line[0]}: bottleneck {line[-1]}" for line in cells if line[-1] != MISSING
    ]
    if part.ratios:
        lines += ["", text_table(*ratios_table(part), LEFT).get_string()]
    return [*lines, "", *notes(part), ""]


def markdown_parts(part: CapacityPart) -> list[str]:
    """The section as markdown paragraphs."""
    parts = [f"### {heading(part)}", markdown_table(*rows_table(part), LEFT)]
    if part.ratios:
        parts.append(markdown_table(*ratios_table(part), LEFT))
    return parts + notes(part)


def html_parts(part: CapacityPart) -> list[str]:
    """The section as HTML blocks."""
    blocks = [kit.table(heading(part), *rows_table(part), LEFT)]
    if part.ratios:
        blocks.append(kit.table("capacity ratios", *ratios_table(part), LEFT))
    return blocks + [f'<p class="summary">{kit.esc(line)}</p>' for line in notes(part)]
