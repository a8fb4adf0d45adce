"""A round's task: a deployment's task files as one Rally task, each
workload's load scaled to what one round of a study runs.

A study measured in rounds runs each of its configs once a round; one Rally
task a config and round (its levels as the subtasks of one task) instead
of one a level saves Rally's start, its environment check and its export
per level (on 2026-11-26 a config's round of study 003 spent about 50 s
beyond its load: Rally, the users context's users, the export). The
workloads stay in the files' order, so a report's n-th workload is the
n-th level's.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rally_keystone_perf.tasks.model import TaskFile, TaskFileError

# runner arguments that size a workload's load: scaled per round
SIZED = ("times", "duration")


def scaled_runner(runner: dict[str, Any], scale: float) -> dict[str, Any]:
    """``runner`` (``{"constant": {"times": 100, ...}}``) with its ``times``
    or ``duration`` times ``scale``, rounded up, at least 1 (and ``times``
    at least the concurrency, so that every user sends)."""
    scaled = copy.deepcopy(runner)
    for arguments in scaled.values():
        if not isinstance(arguments, dict):
            continue
        for key in SIZED:
            if key in arguments:
                value = max(1, math.ceil(arguments[key] * scale))
                if key == "times":
                    value = max(value, int(arguments.get("concurrency", 1)))
                arguments[key] = value
    return scaled


def round_document(
    tasks: Sequence[TaskFile], title: str, scale: float = 1.0
) -> dict[str, Any]:
    """One task (format v2) with every subtask of ``tasks`` in order, each
    workload's runner scaled by ``scale``.

    :raises TaskFileError: a file not in Rally's task format v2.
    """
    subtasks = []
    for task in tasks:
        document = task.document
        if not isinstance(document, dict) or document.get("version") != 2:
            raise TaskFileError(
                f"{task.path}: a study's rounds take task files of format v2 "
                '("version": 2, "subtasks": [...])'
            )
        for subtask in document.get("subtasks", []):
            subtask = copy.deepcopy(subtask)
            for workload in subtask.get("workloads", []):
                workload["runner"] = scaled_runner(workload["runner"], scale)
            subtasks.append(subtask)
    return {"version": 2, "title": title, "subtasks": subtasks}


def write_round_task(
    tasks: Sequence[TaskFile], folder: Path, name: str, scale: float = 1.0
) -> Path:
    """:func:`round_document` written as ``<folder>/<name>.json``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.json"
    document = round_document(tasks, name, scale)
    path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    return path
