"""The machines of two runs, from their run.json's speed probes."""

from __future__ import annotations

import json
from pathlib import Path

from rally_keystone_perf.report.figures import machine
from rally_keystone_perf.report.figures.run_labels import Run
from rally_keystone_perf.report.readers.run_folder import read_run_state


def _run(tmp_path: Path, label: str, probe: float | None, steal: float = 0.0) -> Run:
    folder = tmp_path / label
    (folder / "results").mkdir(parents=True)
    state: dict = {"options": {}}
    if probe is not None:
        state["machine"] = {
            "probe_before": probe,
            "probe_after": probe * 1.01,
            "steal_seconds": 1.0,
            "steal_share": steal,
        }
    (folder / "run.json").write_text(json.dumps(state))
    report = folder / "results" / "task.json"
    states = [s for s in [read_run_state(report)] if s is not None]
    return Run(label, label, [report], {}, [], states)


def test_same_machine_no_warning(tmp_path: Path) -> None:
    lines = machine.machine_lines(
        [_run(tmp_path, "a", 0.16), _run(tmp_path, "b", 0.162)]
    )
    assert lines == [
        "machine of a: speed probe 160 ms before, 162 ms after its load; "
        "CPU stolen by the hypervisor 0.0%",
        "machine of b: speed probe 162 ms before, 164 ms after its load; "
        "CPU stolen by the hypervisor 0.0%",
    ]


def test_a_slower_machine_is_named_not_blamed_on_keystone(tmp_path: Path) -> None:
    lines = machine.machine_lines([_run(tmp_path, "a", 0.16), _run(tmp_path, "b", 0.2)])
    assert lines[-1].startswith("warning: the machine itself was 25% slower for b")
    assert "rally-keystone-perf ab" in lines[-1]


def test_steal_and_runs_without_probes(tmp_path: Path) -> None:
    lines = machine.machine_lines(
        [_run(tmp_path, "old", None), _run(tmp_path, "b", 0.16, steal=0.12)]
    )
    assert lines[-1] == "warning: the hypervisor took 12% of the CPUs during b's load"
    assert not any("old" in line for line in lines)
