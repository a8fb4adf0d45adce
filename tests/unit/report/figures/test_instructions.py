"""B/A of instructions per request, and the gate's check on it."""

from __future__ import annotations

from pathlib import Path

import pytest

from rally_keystone_perf.report.figures import instructions
from rally_keystone_perf.report.figures.gate import ERROR, FAIL, PASS
from rally_keystone_perf.report.readers import instructions as reader
from tests.unit.report.readers.test_instructions import write


def _rows(tmp_path: Path, a: list[float], b: list[float]):
    write(tmp_path, a, b)
    return instructions.rows(reader.load(tmp_path))


def test_ratio_per_workload(tmp_path: Path) -> None:
    rows = _rows(tmp_path, [100.0, 200.0], [101.0, 250.0])
    assert rows[0].ratio == pytest.approx(1.01)
    assert rows[1].ratio == pytest.approx(1.25)
    assert instructions.rows(None) == {}


def test_the_check_fails_past_the_threshold_only(tmp_path: Path) -> None:
    rows = _rows(tmp_path, [100.0, 200.0], [100.5, 204.0])
    labels = [(0, "create"), (1, "validate"), (2, "not counted")]
    checks = instructions.checks(labels, rows, 0.01)
    assert [c.status for c in checks] == [PASS, FAIL, ERROR]
    assert checks[1].change == pytest.approx(0.02)
    assert "run the A/B with --instructions" in checks[2].message
