"""The instruction-count benchmark's targets and the workloads it counts."""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks import instruction_counts as bench


def _figures(**changes: Any) -> dict[str, Any]:
    found = {
        "side_seconds": 105.0,
        "repeatability": {"idle": [239.1e6, 239.2e6], "loaded": [239.15e6, 239.1e6]},
        "detection": [1.021, 1.019, 1.020],
        "timed": "no difference larger than 3% detectable",
    }
    return found | changes


def test_every_target_met_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench.report(_figures()) is True
    out = capsys.readouterr().out
    assert "other core loaded: 239.150, 239.100; spread 0.021%" in out
    assert "detected 3 of 3" in out and "timed A/B" in out


@pytest.mark.parametrize(
    "changes",
    [
        {"detection": [1.021, 1.004]},  # one A/B not detected
        {"side_seconds": 301.0},
        {"repeatability": {"idle": [100.0, 102.0], "loaded": [101.0]}},
    ],
)
def test_a_missed_target_fails(changes: dict[str, Any]) -> None:
    assert bench.report(_figures(**changes)) is False


def test_the_gate_tasks_workloads_are_counted() -> None:
    specs = bench.gate_specs()
    assert [s["scenario"] for s in specs] == [
        "KeystonePerf.create_token",
        "KeystonePerf.validate_token",
    ]
    assert specs[1]["contexts"]["keystone_perf_tokens"]["tokens_per_user"] == 2
