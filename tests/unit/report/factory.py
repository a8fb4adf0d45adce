"""Builders of Rally-shaped task results for the report tests.

Reports are produced by Rally's own ``JSONExporter`` from task results in the
shape ``rally.api`` hands to exporters, so the fixtures match what
``rally task report UUID --json --out f.json`` writes.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from rally.plugins.task.exporters.json_exporter import JSONExporter
from rally.task.processing import charts

SCENARIO = "KeystoneBasic.authenticate_user_and_validate_token"
TRACEBACK = "Traceback (most recent call last):\n  SECRET_TRACEBACK_LINE\n"


def atomic(
    name: str,
    started_at: float | None,
    finished_at: float | None = None,
    children: list[dict] | None = None,
    failed: bool = False,
) -> dict[str, Any]:
    """One atomic action in Rally's 1.2 nested form."""
    action: dict[str, Any] = {
        "name": name,
        "started_at": started_at,
        "children": children or [],
    }
    if finished_at is not None:
        action["finished_at"] = finished_at
    if failed:
        action["failed"] = True
    return action


def iteration(
    timestamp: float,
    duration: float,
    idle_duration: float = 0.0,
    atomics: list[dict] | None = None,
    error: tuple[str, str] | None = None,
) -> dict[str, Any]:
    """One iteration entry of a workload's ``data`` list."""
    return {
        "timestamp": timestamp,
        "duration": duration,
        "idle_duration": idle_duration,
        "error": [error[0], error[1], TRACEBACK] if error else [],
        "output": {"additive": [], "complete": []},
        "atomic_actions": atomics or [],
    }


def workload(
    data: list[dict],
    *,
    name: str = SCENARIO,
    args: dict | None = None,
    runner_type: str = "constant",
    runner: dict | None = None,
    position: int = 0,
    load_duration: float = 2.0,
) -> dict[str, Any]:
    """A workload as stored in Rally's DB (input of the JSON exporter)."""
    durations = [it["duration"] for it in data]
    stats = charts.MainStatsTable({"total_iteration_count": len(data)})
    for it in data:
        stats.add_iteration(copy.deepcopy(it))
    return {
        "uuid": f"wl-{position}",
        "description": "",
        "runner_type": runner_type,
        "runner": runner if runner is not None else {"times": 4, "concurrency": 2},
        "hooks": [],
        "name": name,
        "args": args if args is not None else {},
        "min_duration": min(durations) if durations else None,
        "max_duration": max(durations) if durations else None,
        "start_time": data[0]["timestamp"] if data else None,
        "load_duration": load_duration,
        "full_duration": load_duration + 1.0,
        "statistics": {"durations": stats.to_dict()},
        "data": data,
        "failed_iteration_count": sum(1 for it in data if it["error"]),
        "total_iteration_count": len(data),
        "created_at": "2024-01-01T00:00:00",
        "updated_at": "2024-01-01T00:00:10",
        "contexts": {"users": {"tenants": 1, "users_per_tenant": 1}},
        "contexts_results": [],
        "position": position,
        "pass_sla": True,
        "sla_results": {"sla": []},
        "sla": {"failure_rate": {"max": 0}},
    }


def task(subtasks: list[list[dict]], uuid: str = "task-1") -> dict[str, Any]:
    """A task with one subtask per list of workloads."""
    stamp = {"created_at": "2024-01-01T00:00:00", "updated_at": "2024-01-01T00:01"}
    return {
        "uuid": uuid,
        "title": "keystone perf",
        "description": "",
        "status": "finished",
        "tags": ["seed", "uwsgi"],
        "env_uuid": "env-1",
        "env_name": "devstack",
        "pass_sla": True,
        **stamp,
        "subtasks": [
            {
                "uuid": f"sub-{i}",
                "title": f"subtask {i}",
                "description": "",
                "status": "finished",
                "sla": {},
                "workloads": workloads,
                **stamp,
            }
            for i, workloads in enumerate(subtasks)
        ],
    }


def report_text(tasks: list[dict]) -> str:
    """The JSON text Rally's exporter writes for ``tasks``."""
    return JSONExporter(tasks, output_destination=None).generate()["print"]


def write_report(path: Path, tasks: list[dict]) -> Path:
    """Write the exported report for ``tasks`` to ``path``."""
    path.write_text(report_text(tasks), encoding="utf-8")
    return path


def write_json(path: Path, document: Any) -> Path:
    """Write an arbitrary (possibly broken) document as JSON."""
    path.write_text(json.dumps(document), encoding="utf-8")
    return path
