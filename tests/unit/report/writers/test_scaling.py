"""Tests for rally_keystone_perf.report.writers.scaling (the scaling table)."""

from __future__ import annotations

import io
from pathlib import Path

from rally_keystone_perf.report.figures import scaling
from rally_keystone_perf.report.writers import registry
from rally_keystone_perf.report.writers import scaling as writer
from rally_keystone_perf.report.writers.scaling import (
    FIGURES,
    scaling_table,
)
from tests.unit.report import runs as r
from tests.unit.report import scaling_runs as s


def _write(table: tuple, fmt: str) -> str:
    stream = io.StringIO()
    registry.writer(registry.SCALING, fmt)(table, stream)
    return stream.getvalue()


def test_text(tmp_path: Path) -> None:
    out = _write(scaling_table(scaling.scaling_figures(s.matrix(tmp_path))), "table")
    lines = out.splitlines()
    assert lines[0] == "throughput against Keystone nodes:"
    assert lines[-1] == writer.SEED_NOTE
    cells = [c.strip() for c in lines[4].strip("|").split("|")]
    assert cells[:3] == ["1", "8", "2.0"]
    assert "| database (98% of its 0.5-CPU quota), nodes" in out  # left-aligned
    assert "|     1 |" in out  # numbers right-aligned


def test_markdown(tmp_path: Path) -> None:
    out = _write(scaling_table(scaling.scaling_figures(s.matrix(tmp_path))), "markdown")
    assert out.startswith("## Throughput against Keystone nodes\n\n| nodes |")
    assert out.endswith(f"\n\n{writer.SEED_NOTE}.\n")
    (table,) = r.md_tables(out)
    assert table[0] == list(FIGURES)
    assert table[1][FIGURES.index("saturated")] == "---"
    assert table[1][0] == "---:"
    assert table[-1] == ["4", "8", "3.0", "-", "110.0", "110.0", "-", "140", "1000"]


def test_leading_configuration_columns_align_left() -> None:
    header = ["mode", "db", *FIGURES]
    row = ["uwsgi", "mysql", "1", *["-"] * (len(FIGURES) - 1)]
    (table,) = r.md_tables(_write((header, [row]), "markdown"))
    assert table[1][:3] == ["---", "---", "---:"]
