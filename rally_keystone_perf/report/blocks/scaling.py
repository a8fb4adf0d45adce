"""The scaling figures (:mod:`rally_keystone_perf.report.figures.scaling`) as
a document: a title, the table (the leading configuration columns, then
rates, milliseconds, the saturated tier, seed 001's figures) and a line
saying what seed 001's figures beside ours measured.
"""

from __future__ import annotations

from rally_keystone_perf.report.blocks.model import (
    AS_IS,
    TEXT,
    Block,
    Cell,
    Column,
    Document,
    Heading,
    Lines,
    Only,
    Table,
    columns,
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
FIGURES = columns(
    f"{NODES}; concurrency; tokens/s:rate; revocation listings/s:rate",
    "token median ms:ms; token p95 ms:ms; saturated:text",
    "seed 001 tokens/s; seed 001 revocations/s",
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
        *(row.nodes, _concurrency(row.token, row.listing)),
        *(measured.rate if measured else None for measured in (row.token, row.listing)),
        *((total.median, total.p95) if total else (None, None)),
        saturated(row),
        *((None, None) if row.seed is None else row.seed),
    ]


def table(figures: ScalingFigures) -> Table:
    """The leading configuration columns (aligned left), then :data:`FIGURES`."""
    leading = [Column(key, TEXT) for key in figures.leading]
    rows = [
        [*(row.config.get(key, MISSING) for key in figures.leading), *_row(row)]
        for row in figures.rows
    ]
    return Table([*leading, *FIGURES], rows)


def document(figures: ScalingFigures) -> Document:
    """Title, table, seed note."""
    blocks: list[Block] = [
        Only(("table",), [Heading(TEXT_TITLE)]),
        Only(("markdown",), [Heading(TITLE, 2)]),
        table(figures),
        Only(("table",), [Lines([SEED_NOTE], AS_IS)]),
        Only(("markdown",), [Lines([f"{SEED_NOTE}."])]),
    ]
    return Document(TITLE, blocks, level=None)
