"""A capacity search's task: the user's one workload, one step per rate.

``capacity --task FILE`` takes a task file of exactly one workload (its
scenario, arguments and contexts) and runs it once per step of the search,
each time under the ``keystone_perf_arrival_rate`` runner at the step's
offered rate for the step's seconds: the file's own runner and SLA are
replaced (the search judges each step against its SLO) and hooks are
refused (a fault on a timer would judge the fault, not the rate). Each
step's task is written in Rally's format v2 into the run folder, named by
its number and rate, so that its results are too.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rally_keystone_perf.loadgen import arrivals
from rally_keystone_perf.tasks.model import TaskFile, TaskFileError

FOLDER = "capacity-tasks"  # in the run folder


def capacity_workload(task: TaskFile) -> dict[str, Any]:
    """The task's one workload, checked for a search.

    :raises TaskFileError: naming the file and why it cannot be searched.
    """
    workloads = list(task.workloads())
    if len(workloads) != 1:
        raise TaskFileError(
            f"{task.path}: a capacity search runs one workload, this task has "
            f"{len(workloads)}: keep the one whose rate to find"
        )
    (workload,) = workloads
    if workload.get("hooks"):
        raise TaskFileError(
            f"{task.path}: workload {workload['name']} has hooks; a capacity "
            "search runs none (a fault on a timer would be judged, not the rate)"
        )
    return workload


@dataclass(frozen=True)
class StepPlan:
    """What every step runs: the workload, for how long, with what cap."""

    workload: dict[str, Any]
    seconds: float
    max_in_flight: int

    @property
    def task_rate(self) -> float | None:
        """The rate the task file's own open-model runner asks (that of a
        ``tasks --from-log`` task: its log's busiest minute, scaled), or
        None for another runner."""
        if self.workload["runner_type"] != arrivals.RUNNER:
            return None
        rate = self.workload["runner"].get("rate")
        return float(rate) if isinstance(rate, (int, float)) else None


def step_document(plan: StepPlan, rate: float) -> dict[str, Any]:
    """Rally's task (format v2) of one step: the workload at ``rate``."""
    workload = plan.workload
    runner = {
        "rate": rate,
        "duration": plan.seconds,
        "max_in_flight": plan.max_in_flight,
    }
    return {
        "version": 2,
        "title": f"capacity step at {rate:g}/s",
        "subtasks": [
            {
                "title": workload["name"],
                "workloads": [
                    {
                        "description": workload.get("description") or "",
                        "scenario": {workload["name"]: workload["args"]},
                        "runner": {arrivals.RUNNER: runner},
                        "contexts": workload["contexts"],
                        "sla": {},
                        "hooks": [],
                    }
                ],
            }
        ],
    }


def write_step(folder: Path, number: int, plan: StepPlan, rate: float) -> Path:
    """Write step ``number``'s task into ``folder``; its path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"step-{number:02d}-{rate:.1f}.json"
    path.write_text(json.dumps(step_document(plan, rate), indent=2) + "\n")
    return path
