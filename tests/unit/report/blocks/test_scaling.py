"""Tests for rally_keystone_perf.report.blocks.scaling (the scaling table)."""

from __future__ import annotations

import io
from pathlib import Path

from rally_keystone_perf.report.blocks import scaling as writer
from rally_keystone_perf.report.blocks.scaling import FIGURES
from rally_keystone_perf.report.figures import scaling
from rally_keystone_perf.report.writers import registry
from rally_keystone_perf.report.writers.render import cells_of
from tests.unit.report import runs as r
from tests.unit.report import scaling_runs as s

NAMES = [column.name for column in FIGURES]


def scaling_table(
    figures: scaling.ScalingFigures,
) -> tuple[list[str], list[list[str]]]:
    """The scaling table's header and cells as written."""
    header, rows, _ = cells_of(writer.table(figures))
    return header, rows


def _write(figures: scaling.ScalingFigures, fmt: str) -> str:
    stream = io.StringIO()
    registry.writer(registry.SCALING, fmt)(figures, stream)
    return stream.getvalue()


def test_text(tmp_path: Path) -> None:
    out = _write(scaling.scaling_figures(s.matrix(tmp_path)), "table")
    lines = out.splitlines()
    assert lines[0] == "throughput against Keystone nodes:"
    assert lines[-1] == writer.SEED_NOTE
    cells = [c.strip() for c in lines[4].strip("|").split("|")]
    assert cells[:3] == ["1", "8", "2.0"]
    assert "| database (98% of its 0.5-CPU quota), nodes" in out  # left-aligned
    assert "|     1 |" in out  # numbers right-aligned


def test_markdown(tmp_path: Path) -> None:
    out = _write(scaling.scaling_figures(s.matrix(tmp_path)), "markdown")
    assert out.startswith("## Throughput against Keystone nodes\n\n| nodes |")
    assert out.endswith(f"\n\n{writer.SEED_NOTE}.\n")
    (table,) = r.md_tables(out)
    assert table[0] == NAMES
    assert table[1][NAMES.index("saturated")] == "---"
    assert table[1][0] == "---:"
    assert table[-1] == ["4", "8", "3.0", "-", "110.0", "110.0", "-", "140", "1000"]


def test_leading_configuration_columns_align_left() -> None:
    row = scaling.ScalingRow(
        {"mode": "uwsgi", "db": "mysql"}, "1", None, None, None, None, False, None
    )
    figures = scaling.ScalingFigures(["mode", "db"], [row])
    (table,) = r.md_tables(_write(figures, "markdown"))
    assert table[1][:3] == ["---", "---", "---:"]
    assert table[2] == ["uwsgi", "mysql", "1", *["-"] * (len(FIGURES) - 1)]
