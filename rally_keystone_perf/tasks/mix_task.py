"""A ``KeystonePerf.mix`` task from a mix's weights and rate
(``rally-keystone-perf tasks --from-log``).

The task holds the operations' weights, an open-model runner
(``keystone_perf_arrival_rate``) at the rate asked, and the contexts the
weights need; nothing else from the log (no id, user name or address).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rally_keystone_perf.tasks.check import validate
from rally_keystone_perf.tasks.model import TaskFile

SCENARIO = "KeystonePerf.mix"
RUNNER = "keystone_perf_arrival_rate"
USERS = {"keystone_perf_users": {"tenants": 2, "users_per_tenant": 2}}
MAX_IN_FLIGHT = 200  # the open-model runner's cap, as capacity's default


def mix_task(
    weights: Mapping[str, int],
    rate: float,
    duration: float,
    contexts: Mapping[str, Any],
    description: str,
) -> dict[str, Any]:
    """The task's JSON: one workload of the mix at ``rate`` operations a
    second for ``duration`` seconds; ``contexts`` beside the users'."""
    workload = {
        "scenario": {SCENARIO: {"weights": dict(weights), "seed": 0}},
        "runner": {
            RUNNER: {
                "rate": round(rate, 3),
                "duration": duration,
                "max_in_flight": MAX_IN_FLIGHT,
            }
        },
        "contexts": {**USERS, **contexts},
        "sla": {"failure_rate": {"max": 0}},
    }
    title = f"{SCENARIO} at {rate:.3g}/s"
    return {
        "version": 2,
        "title": title,
        "description": description,
        "tags": ["mix", "from-log"],
        "subtasks": [{"title": title, "tags": ["mix"], "workloads": [workload]}],
    }


def checked(path: Path, task: dict[str, Any]) -> TaskFile:
    """The task as Rally reads it, to be written at ``path``: its format,
    and its plugins and their arguments (:func:`validate`).

    :raises TaskFileError: Rally refuses it.
    """
    found = TaskFile.of_document(path, task)
    validate(found)
    return found
