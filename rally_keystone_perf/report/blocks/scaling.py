"""The scaling figures (:mod:`rally_keystone_perf.report.figures.scaling`) as
a document: a title, the table (the leading configuration columns, then
rates, milliseconds, the saturated tier, seed 001's figures) and a line
saying what seed 001's figures beside ours measured.
"""

from __future__ import annotations

from rally_keystone_perf.report.blocks.model import (
    AS_IS,
    TEXT,
    Cell,
    Column,
    Document,
    Heading,
    Lines,
    Only,
    Table,
)
from rally_keystone_perf.report.blocks.saturation import saturation_cell
from rally_keystone_perf.report.figures.run_labels import NODES
from rally_keystone_perf.report.figures.scaling import (
    Measured,
    ScalingFigures,
    ScalingRow,
)

TITLE = "Throughput against Keystone nodes"  # markdown's heading
TEXT_TITLE = "throughput against Keystone nodes:"
SEED_NOTE = (
    "seed 001: token_authenticate and revocation_list_get per second, PKI "
    "tokens (API v3), 8-core Apache Keystone hosts behind haproxy on one "
    "PostgreSQL: compare the curves' shape, not their heights"
)
FIGURES = (
    Column(NODES),
    Column("concurrency"),
    Column("tokens/s", fmt="rate"),
    Column("revocation listings/s", fmt="rate"),
    Column("token median ms", fmt="ms"),
    Column("token p95 ms", fmt="ms"),
    Column("saturated", TEXT),
    Column("seed 001 tokens/s"),
    Column("seed 001 revocations/s"),
)
MISSING = "-"
UNREADABLE = "n/a (a log cannot be read)"


def _concurrency(token: Measured | None, listing: Measured | None) -> str:
    """The token workload's concurrency, and the listing's when it differs."""
    ran = [m.columns.get("concurrency", MISSING) for m in (token, listing) if m]
    if len(set(ran)) == 2:
        return f"{ran[0]} (listings {ran[1]})"
    return ran[0] if ran else MISSING


def saturated(row: ScalingRow) -> str:
    """The saturated tier's cell; ``-`` without server data."""
    if row.unreadable:
        return UNREADABLE
    return MISSING if row.tiers is None else saturation_cell(row.tiers)


def _row(row: ScalingRow) -> list[Cell]:
    """The :data:`FIGURES` of one node count's row."""
    total = row.token_total
    return [
        row.nodes,
        _concurrency(row.token, row.listing),
        row.token.rate if row.token else None,
        row.listing.rate if row.listing else None,
        total.median if total else None,
        total.p95 if total else None,
        saturated(row),
        *((None, None) if row.seed is None else row.seed),
    ]


def table(figures: ScalingFigures) -> Table:
    """The leading configuration columns (aligned left), then :data:`FIGURES`."""
    columns = [Column(key, TEXT) for key in figures.leading] + list(FIGURES)
    rows = [
        [*(row.config.get(key, MISSING) for key in figures.leading), *_row(row)]
        for row in figures.rows
    ]
    return Table(columns, rows)


def document(figures: ScalingFigures) -> Document:
    """Title, table, seed note."""
    return Document(
        TITLE,
        [
            Only(("table",), [Heading(TEXT_TITLE)]),
            Only(("markdown",), [Heading(TITLE, 2)]),
            table(figures),
            Only(("table",), [Lines([SEED_NOTE], AS_IS)]),
            Only(("markdown",), [Lines([f"{SEED_NOTE}."])]),
        ],
        level=None,
    )
