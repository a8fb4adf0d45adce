"""A study's capacity rows and their ratios, a section of the study's page
(:mod:`rally_keystone_perf.report.blocks.study`).

Per config: the seed's rate where it gave one, the sustained rate and the
lowest rate found not sustained (the true limit lies between), the knee,
the steps taken, the machine's speed probe over them and the bottleneck at
the sustained rate; then the ratios with the range the two brackets allow
(:mod:`rally_keystone_perf.report.figures.study_capacity`). The terminal
has each row's bottleneck on a line under the rows, as the closed-model
tables have it.
"""

from __future__ import annotations

from rally_keystone_perf.report.blocks.model import (
    TEXT,
    Blank,
    Block,
    Cell,
    Column,
    Heading,
    Lines,
    Only,
    Table,
    columns,
)
from rally_keystone_perf.report.figures.study import RatioRow
from rally_keystone_perf.report.figures.study_capacity import CapacityPart

MISSING = "-"
TERMINAL = ("table",)
RATIO_COLUMNS = columns(
    "ratio:text; seed:ratio; ours:ratio; range:interval; verdict:text"
)


def rows_table(part: CapacityPart) -> Table:
    """The capacity rows (rates a second), captioned by :func:`heading`."""
    seeded = any(row.seed_rate is not None for row in part.rows)
    columns = [Column("config", TEXT), *([Column("seed/s", fmt="rate")] * seeded)]
    columns += [Column(name, fmt="rate") for name in ("sustained/s", "not at/s")]
    columns += [Column("knee/s", fmt="rate"), Column("steps")]
    columns += [Column("probe s", fmt="span"), Column("bottleneck", TEXT)]
    rows = [
        [row.config, *([row.seed_rate] if seeded else [])]
        + [row.sustained, row.above, row.knee, row.steps, row.probes]
        + [row.bottleneck or MISSING]
        for row in part.rows
    ]
    return Table(columns, rows, heading(part))


def ratios_table(part: CapacityPart) -> Table:
    """The capacity ratios (the faster's over the slower's; range: what the
    two brackets allow)."""
    rows = [
        [row.name, seed_cell(row), row.ours, (row.low, row.high), row.verdict]
        for row in part.ratios
    ]
    return Table(RATIO_COLUMNS, rows, "capacity ratios")


def seed_cell(row: RatioRow) -> Cell:
    """A ratio's seed cell (the study's ratios too): its figure, else its
    words, else ``-``."""
    return row.seed if row.seed is not None else row.seed_words or MISSING


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


def blocks(part: CapacityPart) -> list[Block]:
    """The section: heading, tables, notes."""
    table = rows_table(part)
    bottlenecks = [
        f"{row[0]}: bottleneck {row[-1]}" for row in table.rows if row[-1] != MISSING
    ]
    terminal = Table(table.columns[:-1], [row[:-1] for row in table.rows])
    found: list[Block] = [
        Only(TERMINAL, [Blank(), Lines([heading(part)]), terminal, Lines(bottlenecks)]),
        Only(("markdown",), [Heading(heading(part))]),
        Only(("markdown", "html"), [table]),
    ]
    if part.ratios:
        found += [Only(TERMINAL, [Blank()]), ratios_table(part)]
    blank = Only(TERMINAL, [Blank()])
    return [*found, blank, Lines(notes(part)), blank]
