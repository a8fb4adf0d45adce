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
    checks = instructions.checks(labels, rows, instructions.CountLimits(0.01))
    assert [c.status for c in checks] == [PASS, FAIL, ERROR]
    assert checks[1].change == pytest.approx(0.02)
    assert "run the A/B with --instructions" in checks[2].message


def test_one_more_query_per_request_fails_at_zero(tmp_path: Path) -> None:
    write(tmp_path, [100.0, 200.0], [100.0, 200.0], ([3.0, 64.0], [3.0, 65.0]))
    rows = instructions.rows(reader.load(tmp_path))
    labels = [(0, "create"), (1, "validate")]
    checks = instructions.checks(labels, rows, instructions.CountLimits(statements=0))
    assert [(c.criterion, c.status) for c in checks] == [
        (instructions.STATEMENTS, PASS),
        (instructions.STATEMENTS, FAIL),
    ]
    assert (checks[1].baseline, checks[1].current, checks[1].change) == (64, 65, 1)
    assert "A 64, B 65 (+1; at most +0)" in checks[1].message
    lenient = instructions.CountLimits(statements=1)
    assert instructions.checks(labels, rows, lenient)[1].status == PASS


def test_transaction_control_is_not_judged(tmp_path: Path) -> None:
    """B's extra BEGIN/COMMIT pairs (130 against 128) are not a query more."""
    write(tmp_path, [100.0, 200.0], [100.0, 200.0], ([3.0, 64.0], [3.0, 64.0]))
    rows = instructions.rows(reader.load(tmp_path))
    rows[1].statements_b["transaction"] += 2  # type: ignore[index]
    (check,) = instructions.checks([(1, "v")], rows, instructions.CountLimits(None, 0))
    assert check.status == PASS and "A 129, B 131" in check.message


def test_counts_without_statements_are_an_error(tmp_path: Path) -> None:
    write(tmp_path, [100.0, 200.0], [100.0, 200.0])
    rows = instructions.rows(reader.load(tmp_path))
    limits = instructions.CountLimits(0.01, 0)
    checks = instructions.checks([(1, "validate")], rows, limits)
    assert [c.status for c in checks] == [PASS, ERROR]
    assert "statements not counted on both sides" in checks[1].message


def _side(per_request: float, spread: float, reads: float | None) -> reader.SideCount:
    statements = None if reads is None else {"read": reads, "transaction": 2.0}
    return reader.SideCount("KeystoneTokens.validate", per_request, spread, statements)


def test_compare_judges_the_ratio_past_the_larger_spread() -> None:
    found = instructions.compare(_side(100.0, 0.002, 64), _side(103.0, 0.03, 66), "")
    assert found.ratio == pytest.approx(1.03) and found.queries == 2
    assert found.verdict.call == "no difference"
    found = instructions.compare(_side(100.0, 0.002, 64), _side(103.0, 0.0, 64), "")
    assert found.verdict.call == "slower" and found.queries == 0


def test_compare_says_why_when_a_side_is_not_counted() -> None:
    found = instructions.compare(None, _side(103.0, 0.0, None), "count failed: x")
    assert found.ratio is None and found.queries is None
    assert found.verdict.reason == "count failed: x"
    found = instructions.compare(_side(100.0, 0.0, None), _side(103.0, 0.0, 64), "")
    assert found.ratio == pytest.approx(1.03) and found.queries is None
