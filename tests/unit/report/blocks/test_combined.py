"""The combined table (:mod:`rally_keystone_perf.report.blocks.combined`):
one table, markdown's ``mode`` column aligned left."""

from __future__ import annotations

import io

from rally_keystone_perf.report.blocks import combined as combined_blocks
from rally_keystone_perf.report.figures.combined import CombinedFigures, CombinedRow
from rally_keystone_perf.report.figures.concurrency import Achieved
from rally_keystone_perf.report.figures.stats import StatsRow
from rally_keystone_perf.report.writers import registry
from rally_keystone_perf.report.writers.render import cells_of


def combined_table(figures: CombinedFigures) -> tuple[list[str], list[list[str]]]:
    """The combined table's header and cells as written."""
    header, rows, _ = cells_of(combined_blocks.table(figures))
    return header, rows


def _figures() -> CombinedFigures:
    total = StatsRow("total", 0, 0.1, 0.25, 0.5, 0.2, 0.3, 0.4, 1.0, 10)
    load = Achieved("rps", 10, None, 3, 2.5, 10.0, 9.871)
    row = CombinedRow(
        {"mode": "uwsgi"},
        {},
        "KeystonePerf.create_token",
        total,
        4.0,
        load,
        1.0,
        2.5,
        "",
        None,
    )
    return CombinedFigures(["mode"], [row])


def test_the_rate_reached_of_the_one_asked_and_no_title() -> None:
    header, (row,) = combined_table(_figures())
    assert dict(zip(header, row, strict=True))["rps reached"] == "9.87 of 10"
    stream = io.StringIO()
    registry.writer(registry.COMBINED, "table")(_figures(), stream)
    assert stream.getvalue().startswith("+---")


def test_markdown_aligns_the_mode_left_and_text_right() -> None:
    stream = io.StringIO()
    registry.writer(registry.COMBINED, "markdown")(_figures(), stream)
    assert stream.getvalue().splitlines()[1].startswith("| --- | --- | ---: |")
    text = io.StringIO()
    registry.writer(registry.COMBINED, "table")(_figures(), text)
    assert "| uwsgi |" in text.getvalue()
