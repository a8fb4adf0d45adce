"""The scaling figures (:mod:`..figures.scaling`) as a table, text and markdown.

:func:`scaling_table` makes the cells (rates, milliseconds, the saturated
tier); a title, the table (:func:`.common.text_table` /
:func:`.common.markdown_table`) and a line saying what seed 001's figures
beside ours measured.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from rally_keystone_perf.report.figures.run_labels import NODES
from rally_keystone_perf.report.figures.scaling import (
    Measured,
    ScalingFigures,
    ScalingRow,
)
from rally_keystone_perf.report.writers.cluster import saturation_cell
from rally_keystone_perf.report.writers.common import markdown_table, text_table
from rally_keystone_perf.report.writers.text import CombinedTable

TITLE = "Throughput against Keystone nodes"  # markdown's heading
TEXT_TITLE = "throughput against Keystone nodes:"
SEED_NOTE = (
    "seed 001: token_authenticate and revocation_list_get per second, PKI "
    "tokens (API v3), 8-core Apache Keystone hosts behind haproxy on one "
    "PostgreSQL: compare the curves' shape, not their heights"
)
LEFT = ("saturated",)
FIGURES = (
    NODES,
    "concurrency",
    "tokens/s",
    "revocation listings/s",
    "token median ms",
    "token p95 ms",
    "saturated",
    "seed 001 tokens/s",
    "seed 001 revocations/s",
)
MISSING = "-"
UNREADABLE = "n/a (a log cannot be read)"


def _rate(found: Measured | None) -> str:
    return MISSING if found is None or found.rate is None else f"{found.rate:.1f}"


def _ms(value: float | None) -> str:
    return MISSING if value is None else f"{value * 1000:.1f}"


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


def row_cells(row: ScalingRow) -> list[str]:
    """The :data:`FIGURES` of one node count's row."""
    total = row.token_total
    return [
        row.nodes,
        _concurrency(row.token, row.listing),
        _rate(row.token),
        _rate(row.listing),
        MISSING if total is None else _ms(total.median),
        MISSING if total is None else _ms(total.p95),
        saturated(row),
        *((MISSING, MISSING) if row.seed is None else map(str, row.seed)),
    ]


def scaling_table(figures: ScalingFigures) -> CombinedTable:
    """Header and rows: the leading configuration columns, then :data:`FIGURES`."""
    rows = [
        [*(row.config.get(key, MISSING) for key in figures.leading), *row_cells(row)]
        for row in figures.rows
    ]
    return [*figures.leading, *FIGURES], rows


def _left(header: Sequence[str]) -> tuple[str, ...]:
    """The saturation column and the configuration columns leading the rows."""
    names = list(header)
    leading = names[: names.index("nodes")] if "nodes" in names else []
    return (*leading, *LEFT)


def write_table(table: CombinedTable, stream: TextIO) -> None:
    """Title, prettytable, seed note."""
    header, rows = table
    body = text_table(header, rows, _left(header)).get_string()
    stream.write(f"{TEXT_TITLE}\n{body}\n{SEED_NOTE}\n")


def write_markdown(table: CombinedTable, stream: TextIO) -> None:
    """A ``##`` heading, the markdown table, the seed note."""
    header, rows = table
    body = markdown_table(header, rows, _left(header))
    stream.write(f"## {TITLE}\n\n{body}\n\n{SEED_NOTE}.\n")
