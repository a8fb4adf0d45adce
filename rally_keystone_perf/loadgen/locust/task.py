"""A task file as ``--engine locust`` runs it: each runner handed to Locust.

The task Rally runs is the user's, rendered and parsed once
(:class:`~rally_keystone_perf.tasks.model.TaskFile`), written again in
Rally's task format v2 with one change per workload: its runner becomes
``keystone_perf_locust``, which keeps the original (``runner_type`` and
``runner``) and adds how the load is spread; the rest is written again as
:mod:`rally_keystone_perf.tasks.rewrite` writes any task.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rally_keystone_perf.loadgen.locust.plan import task_plans
from rally_keystone_perf.loadgen.locust.protocol import ENGINE_DIR
from rally_keystone_perf.loadgen.locust.protocol import LOCUST_RUNNER as RUNNER
from rally_keystone_perf.tasks import rewrite
from rally_keystone_perf.tasks.model import TaskFile

ENGINES = ("rally", "locust")
LOCUST_FOLDER = "locust-tasks"  # the run folder's rewritten task files


@dataclass(frozen=True)
class LocustOptions:
    """How the Locust engine spreads the load (the command line's options)."""

    workers: int = 1  # worker processes on this machine
    expect_workers: int = 0  # workers started on other hosts
    host_count: int = 0  # --worker-hosts netns:K: one worker in each of K hosts
    worker_hosts: tuple[str, ...] = ()  # those hosts' namespaces, once made
    bind_host: str = "127.0.0.1"  # where the master listens for workers
    bind_port: int = 0  # 0: any free port
    web_ui: str | None = None  # HOST:PORT of Locust's web UI

    def record(self) -> dict[str, Any]:
        """What a matrix records of the engine (resuming with another is refused)."""
        return {"engine": "locust", "workers": self.workers, "hosts": self.host_count}

    def on_hosts(self, client_network: dict[str, Any] | None) -> LocustOptions:
        """These options with the run's worker hosts (its ``client_network``):
        a worker in each namespace, the master on their bridge's address."""
        if not self.host_count or not client_network:
            return self
        return dataclasses.replace(
            self,
            worker_hosts=tuple(client_network["namespaces"]),
            bind_host=client_network["shared_address"],
        )

    def runner(self, runner_type: str, runner: dict[str, Any]) -> dict[str, Any]:
        """The ``keystone_perf_locust`` runner config around a task's runner."""
        config: dict[str, Any] = {
            "runner_type": runner_type,
            "runner": runner,
            "workers": self.workers,
            "worker_hosts": list(self.worker_hosts),
            "expect_workers": self.expect_workers,
            "bind_host": self.bind_host,
            "bind_port": self.bind_port,
        }
        if self.web_ui:
            config["web_ui"] = self.web_ui
        return config


def locust_document(
    task: TaskFile,
    options: LocustOptions | None,
    contexts: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """``task`` in Rally's format v2 (:func:`.rewrite.document`), each
    workload's runner handed to Locust (unless ``options`` is None) and
    ``contexts`` added to each workload.

    :raises PlanError: a workload the engine cannot run (checked first).
    """
    if options is None:
        return rewrite.document(task, contexts)
    task_plans(task)

    def runner_for(kind: str, config: dict[str, Any]) -> dict[str, Any]:
        assert options is not None
        return {RUNNER: options.runner(kind, config)}

    return rewrite.document(task, contexts, runner_for)


def write_locust_task(
    task: TaskFile,
    options: LocustOptions | None,
    folder: Path,
    contexts: Mapping[str, Any] | None = None,
) -> Path:
    """Write :func:`locust_document` as ``folder/<the task's name>.json``."""
    return rewrite.write(folder, task, locust_document(task, options, contexts))


def tags(options: LocustOptions | None) -> list[str]:
    """The Rally task tags that name the engine (none for Rally's own)."""
    return [] if options is None else ["engine:locust"]


def task_to_run(
    task: TaskFile,
    options: LocustOptions | None,
    run_root: Path,
    contexts: Mapping[str, Any] | None = None,
) -> Path:
    """The file Rally runs: the task itself, or its rewrite in the run with
    Locust's runners (``options``) and/or ``contexts`` added (``--trace``),
    or rendered with its ``--task-args``."""
    if options is None:
        return rewrite.task_to_run(task, run_root, contexts)
    return write_locust_task(task, options, run_root / LOCUST_FOLDER, contexts)


def engine_failures(results: Path) -> list[str]:
    """What went wrong in the Locust engine's workloads of a run's
    ``results`` (lost workers, a load that could not start); empty when
    nothing did or Rally's own runners ran."""
    problems = []
    for path in sorted((results / ENGINE_DIR).glob("*.json")):
        summary = json.loads(path.read_text())
        if summary.get("error"):
            problems.append(f"workload {path.stem}: {summary['error']}")
        problems += [
            f"workload {path.stem}: {lost}" for lost in summary.get("lost", [])
        ]
    return problems
