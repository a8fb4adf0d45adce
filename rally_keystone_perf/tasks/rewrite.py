"""A task file written again: rendered, its runners or contexts changed.

Rally runs the user's file as it is when nothing changes. ``--task-args``
(rendered once, :class:`~rally_keystone_perf.tasks.model.TaskFile`),
``--trace`` (a context added to every workload) and the Locust engine
(each runner handed to Locust: ``runner_for``) write it again, in Rally's
task format v2, under the run folder; scenario, arguments, the other
contexts, SLA and hooks are untouched, and the file keeps the original's
name, so its results do too.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from rally_keystone_perf.tasks.model import TaskFile

FOLDER = "tasks"  # in the run folder, the files rewritten for Rally's runners
# a workload's runner type and config -> the runner section Rally gets
RunnerFor = Callable[[str, dict[str, Any]], dict[str, Any]]


def _hook(hook: dict[str, Any]) -> dict[str, Any]:
    action, trigger = hook["action"], hook["trigger"]
    return {
        "description": hook.get("description", ""),
        "action": {action[0]: action[1]},
        "trigger": {trigger[0]: trigger[1]},
    }


def _workload(
    workload: dict[str, Any],
    contexts: Mapping[str, Any],
    runner_for: RunnerFor | None,
) -> dict[str, Any]:
    kind, config = workload["runner_type"], dict(workload["runner"])
    return {
        "description": workload.get("description") or "",
        "scenario": {workload["name"]: workload["args"]},
        "runner": runner_for(kind, config) if runner_for else {kind: config},
        "contexts": {**workload["contexts"], **contexts},
        "sla": workload["sla"],
        "hooks": [_hook(h) for h in workload.get("hooks") or []],
    }


def document(
    task: TaskFile,
    contexts: Mapping[str, Any] | None = None,
    runner_for: RunnerFor | None = None,
) -> dict[str, Any]:
    """``task`` in Rally's format v2, ``contexts`` added to each workload
    and each runner through ``runner_for`` when given."""
    config = task.config
    return {
        "version": 2,
        "title": config.title,
        "description": config.description,
        "tags": list(config.tags),
        "subtasks": [
            {
                "title": subtask["title"],
                "description": subtask.get("description", ""),
                "tags": list(subtask.get("tags", [])),
                "workloads": [
                    _workload(w, contexts or {}, runner_for)
                    for w in subtask["workloads"]
                ],
            }
            for subtask in config.subtasks
        ],
    }


def write(folder: Path, task: TaskFile, rewritten: dict[str, Any]) -> Path:
    """``rewritten`` as ``folder/<the task's name>.json``."""
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / f"{task.path.stem}.json"
    out.write_text(json.dumps(rewritten, indent=2) + "\n")
    return out


def task_to_run(
    task: TaskFile, run_root: Path, contexts: Mapping[str, Any] | None = None
) -> Path:
    """The file Rally's own runners run: the task itself, or its rewrite in
    the run (rendered with its ``--task-args``, ``contexts`` added)."""
    if not contexts and not task.task_args:
        return task.path
    return write(run_root / FOLDER, task, document(task, contexts))
