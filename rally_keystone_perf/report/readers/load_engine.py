"""Which engine sent a workload's load, and the task's own runner under it."""

from __future__ import annotations

from typing import Any

from rally_keystone_perf.loadgen.locust.protocol import LOCUST_RUNNER


def split_runner(runner_type: str, runner: Any) -> tuple[str, Any, dict[str, Any]]:
    """The task's runner type and config, and the engine that ran it.

    A workload the Locust engine ran has the ``keystone_perf_locust``
    runner around the task's own (``runner_type``, ``runner``): the report
    shows the task's runner, so a Locust run compares with a Rally run of
    the same task, and names the engine apart (``{"name": "locust",
    "workers": N, ...}``; empty for Rally's own runners).
    """
    if runner_type != LOCUST_RUNNER or not isinstance(runner, dict):
        return runner_type, runner, {}
    inner_type, inner = runner.get("runner_type"), runner.get("runner")
    if not isinstance(inner_type, str) or not isinstance(inner, dict):
        return runner_type, runner, {}
    spread = {k: v for k, v in runner.items() if k not in ("runner_type", "runner")}
    return inner_type, inner, {"name": "locust", **spread}


def engine_label(engine: dict[str, Any]) -> str:
    """``rally`` (Rally's own runners), or ``locust, N workers``: local,
    in namespaces and expected from other hosts together."""
    if not engine:
        return "rally"
    workers = (
        int(engine.get("workers") or 0)
        + len(engine.get("worker_hosts") or [])
        + int(engine.get("expect_workers") or 0)
    )
    return f"{engine.get('name', 'locust')}, {workers} workers"
