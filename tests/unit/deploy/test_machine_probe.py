"""The machine's speed probe and the CPU steal counter."""

from __future__ import annotations

from pathlib import Path

import pytest

from rally_keystone_perf.deploy import machine_probe


def test_the_probe_times_the_fixed_loop() -> None:
    seconds = machine_probe.probe(repeat=1)
    assert 0.001 < seconds < 60


def test_steal_is_the_eighth_field_of_the_cpu_line(tmp_path: Path) -> None:
    stat = tmp_path / "stat"
    stat.write_text("cpu  10 20 30 40 50 60 70 80 90 100\ncpu0 1 2 3 4 5 6 7 8\n")
    assert machine_probe.steal_ticks(stat) == 80
    stat.write_text("intr 1 2 3\n")
    assert machine_probe.steal_ticks(stat) is None
    assert machine_probe.steal_ticks(tmp_path / "missing") is None


def test_a_watch_records_both_probes_and_the_steal(monkeypatch) -> None:
    probes = iter([0.2, 0.25])
    ticks = iter([1000, 1100])
    monkeypatch.setattr(machine_probe, "probe", lambda: next(probes))
    monkeypatch.setattr(machine_probe, "steal_ticks", lambda: next(ticks))
    watch = machine_probe.MachineWatch.start()
    found = watch.finish()
    assert found["probe_before"] == 0.2 and found["probe_after"] == 0.25
    assert found["steal_seconds"] == pytest.approx(100 / 100)  # 100 Hz ticks
    assert found["steal_share"] is not None and found["steal_share"] > 0
