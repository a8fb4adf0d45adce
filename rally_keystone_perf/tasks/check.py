"""Check a Rally task file before any server starts (syntax and plugin schemas)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rally_keystone_perf.tasks.model import TaskFile, TaskFileError


def validate(task: TaskFile) -> int:
    """Validate the task's syntax the way ``rally task start`` does first.

    Checks that every scenario, runner, context, SLA and hook exists, and
    their arguments against the plugins' schemas (the task format was checked
    by :meth:`TaskFile.load`). Platform and semantic checks need a live
    environment and are left to Rally. Returns the number of workloads.
    """
    from rally import exceptions, plugins  # costly: all of rally
    from rally.task import engine  # costly: all of rally

    plugins.load()
    checker = object.__new__(engine.TaskEngine)
    count = 0
    for workload in task.workloads():
        try:
            checker._validate_workload(workload, vtype="syntax")
        except exceptions.InvalidTaskConfig as exc:
            reason = " ".join(str(exc.kwargs.get("reason", exc)).split())
            raise TaskFileError(
                f"{task.path}: workload {workload['name']}[{workload['position']}]: "
                f"{reason}"
            ) from None
        count += 1
    if not count:
        raise TaskFileError(f"{task.path}: the task has no workloads")
    return count


def validate_task(path: Path, task_args: dict[str, Any] | None = None) -> int:
    """Load ``path`` and :func:`validate` it; the number of workloads."""
    return validate(TaskFile.load(path, task_args))
