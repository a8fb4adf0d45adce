"""The load engines: what Rally runs, the tags, the engine's own failures."""

from __future__ import annotations

import json
from pathlib import Path

from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.loadgen.locust.task import LocustOptions
from rally_keystone_perf.run import engines
from tests.unit.loadgen.locust.test_task import _task


def _lost_workers(tmp_path: Path) -> RunDir:
    run = RunDir(tmp_path)
    folder = run.results / "engine"
    folder.mkdir(parents=True)
    (folder / "w1.json").write_text(json.dumps({"error": None, "lost": []}))
    (folder / "w2.json").write_text(
        json.dumps({"error": None, "lost": ["worker2 (pid 7) exited with -9"]})
    )
    (folder / "w3.json").write_text(json.dumps({"error": "no worker connected"}))
    return run


def test_the_locust_engine_names_each_lost_worker(tmp_path: Path) -> None:
    run = _lost_workers(tmp_path)
    engine = engines.engine_for(LocustOptions())
    assert engine.failures(run) == [
        "workload w2: worker2 (pid 7) exited with -9",
        "workload w3: no worker connected",
    ]
    said: list[str] = []
    assert engines.failure_codes(engine, run, said.append) == [1, 1]
    assert (
        said[0] == "error: locust engine: workload w2: worker2 (pid 7) exited with -9"
    )
    assert engine.tags() == ["engine:locust"]


def test_rallys_engine_reads_nothing_of_locusts(tmp_path: Path) -> None:
    run = _lost_workers(tmp_path)
    engine = engines.engine_for(None)
    assert engine.name == "rally" and engine.tags() == []
    assert (
        engine.failures(run) == [] and engines.failure_codes(engine, run, print) == []
    )
    task = _task(tmp_path)
    assert engine.task_to_run(task, run) == task.path  # untraced, no task args


def test_the_locust_engine_hands_each_runner_to_locust(tmp_path: Path) -> None:
    run = RunDir(tmp_path / "run")
    run.create()
    out = engines.LocustEngine(LocustOptions(workers=2)).task_to_run(
        _task(tmp_path), run
    )
    assert out.parent.name == "locust-tasks"
    (workload,) = json.loads(out.read_text())["subtasks"][0]["workloads"]
    assert list(workload["runner"]) == ["keystone_perf_locust"]
