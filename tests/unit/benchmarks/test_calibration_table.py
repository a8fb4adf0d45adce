"""The gate calibration's table: each gate's failures and refusals."""

from __future__ import annotations

from benchmarks import calibration_table


def test_each_gate_counts_its_failures_and_refusals() -> None:
    entries = [
        {"gate_failed": True, "gates": {"median": "ERROR", "median,cpu": "PASS"}},
        {"gate_failed": False, "gates": {"median": "PASS", "median,cpu": "FAIL"}},
    ]
    assert calibration_table._not_passed(entries, "median") == "0+1 of 2"
    assert calibration_table._not_passed(entries, "median,cpu") == "1+0 of 2"
    assert calibration_table._not_passed(entries, "cpu") == "-"  # not gated so
    # the counted gate only where the A/B's folder held counts
    assert calibration_table._not_passed(entries, calibration_table.COUNTED) == "-"
    older = [{"gate_failed": True}, {"gate_failed": False}]
    assert calibration_table._not_passed(older, "median") == "1+0 of 2"
