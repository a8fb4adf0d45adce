"""The combined table (:mod:`rally_keystone_perf.report.figures.combined`)
as a document: one table, a row per workload of every report.

Configuration columns (``-`` where a row has none, ``nodes`` 1 for a single
host: :func:`rally_keystone_perf.report.figures.run_labels.column`), an
``engine`` column when a row's load came from Locust, then
:data:`FIGURES`: Rally's ``total``, the throughput, the load reached, the
setup and load seconds, the average against the fastest row of the same
workload (marked when within the machine's drift:
:mod:`rally_keystone_perf.report.figures.drift`), a note and the bottleneck
line. No title: the table alone, markdown's ``mode`` column aligned left.
"""

from __future__ import annotations

import dataclasses

from rally_keystone_perf.report.blocks.model import (
    TEXT,
    Cell,
    Column,
    Document,
    Only,
    Table,
    Value,
    columns,
)
from rally_keystone_perf.report.figures.combined import CombinedFigures, CombinedRow
from rally_keystone_perf.report.figures.run_labels import column
from rally_keystone_perf.report.readers.load_engine import engine_label

DURATIONS = ("min", "median", "p90", "p95", "max", "avg")
FIGURES = columns(
    "scenario:text",
    *(f"{name} (s):seconds" for name in DURATIONS),
    "success:success; count:count; throughput (iter/s):fixed2; peak in flight",
    "mean in flight:rate; rps reached:reached; setup (s):rate; load (s):rate",
    "vs fastest; note:text; bottleneck",
)
MISSING = "-"


def _versus(row: CombinedRow, drift: float | None) -> str:
    """``fastest``, ``+35%`` or ``+3% (within drift 12%)``: the row's
    average against the fastest row of its workload."""
    if row.versus is None:
        return MISSING
    if row.versus.slower == 0:
        return "fastest"
    text = f"+{row.versus.slower:.0%}"
    if row.versus.within_drift and drift is not None:
        text += f" (within drift {drift:.0%})"
    return text


def _row(
    row: CombinedRow, keys: list[str], engines: bool, drift: float | None
) -> list[Cell]:
    load, total = row.achieved, row.total
    reached = load.open_loop and load.rate is not None
    return [
        *(column(row.columns, key, MISSING) for key in keys),
        *([engine_label(row.engine)] if engines else []),
        row.scenario,
        *(getattr(total, name) for name in DURATIONS),
        *(total.success, total.count, row.throughput, load.peak, load.mean),
        Value((load.rate, load.asked_rate), "reached") if reached else MISSING,
        *(row.setup, row.load, _versus(row, drift), row.note),
        MISSING if row.bottleneck is None else row.bottleneck,
    ]


def table(figures: CombinedFigures) -> Table:
    """Configuration columns, then the total's figures."""
    engines = figures.engines
    found = [Column(key) for key in figures.keys]
    found += [Column("engine")] * engines + list(FIGURES)
    rows = [_row(row, figures.keys, engines, figures.drift) for row in figures.rows]
    return Table(found, rows)


def document(figures: CombinedFigures) -> Document:
    """The table; in markdown the ``mode`` column aligned left."""
    found = table(figures)
    left = [
        dataclasses.replace(c, kind=TEXT) if c.name == "mode" else c
        for c in found.columns
    ]
    markdown = dataclasses.replace(found, columns=left)
    blocks = [Only(("table",), [found]), Only(("markdown",), [markdown])]
    return Document("combined", blocks, level=None)
