"""A task written again for Rally's own runners: rendered, contexts added."""

from __future__ import annotations

import json
from pathlib import Path

from rally_keystone_perf import paths
from rally_keystone_perf.tasks import rewrite
from rally_keystone_perf.tasks.model import TaskFile
from tests.unit.loadgen.locust.test_task import _task


def test_trace_context_is_added_and_rallys_runner_kept(tmp_path: Path) -> None:
    trace = {"keystone_perf_trace": {"sample": 0.5, "hmac_key_file": "/k"}}
    out = rewrite.task_to_run(_task(tmp_path), tmp_path / "run", trace)
    assert out.parent == tmp_path / "run" / rewrite.FOLDER
    (workload,) = json.loads(out.read_text())["subtasks"][0]["workloads"]
    assert workload["runner"] == {"constant": {"times": 200, "concurrency": 4}}
    assert workload["contexts"] == {"keystone_perf_tokens": {}, **trace}
    assert TaskFile.load(out).config  # Rally reads the rewrite


def test_without_engine_or_contexts_the_task_itself_runs(tmp_path: Path) -> None:
    task = _task(tmp_path)
    assert rewrite.task_to_run(task, tmp_path / "run") == task.path


def test_a_task_rendered_with_args_runs_as_rendered(tmp_path: Path) -> None:
    bundled = paths.tasks_dir() / "boot-server-c5-quick.json"
    task = TaskFile.load(bundled, {"image": "cirros", "network": "private"})
    out = rewrite.task_to_run(task, tmp_path / "run")
    assert out.parent == tmp_path / "run" / rewrite.FOLDER
    (workload,) = json.loads(out.read_text())["subtasks"][0]["workloads"]
    assert workload["scenario"]["KeystonePerf.boot_server"] == {
        "image": {"name": "cirros"},
        "flavor": {"name": "ram64"},
        "network": {"name": "private"},
    }
