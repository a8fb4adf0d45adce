"""The load engines behind one interface: Rally's own runners, or Locust's.

Every command runs its task files through Rally
(:class:`rally_keystone_perf.run.rally_runner.RallyRunner`) whatever the
engine. The engine (:class:`Engine`) decides what Rally is given: the task
itself, or its rewrite in the run (:class:`RallyEngine`: rendered, with
``--trace``'s context; :class:`LocustEngine`: each runner handed to
Locust's master and workers), the tags that name the engine, and the
failures of its own (a Locust worker lost) that Rally's report cannot
show. The Rally engine touches nothing of Locust's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from rally_keystone_perf.deploy import preflight
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.loadgen.locust import task as locust_task
from rally_keystone_perf.loadgen.locust.plan import task_plans
from rally_keystone_perf.loadgen.locust.task import LocustOptions
from rally_keystone_perf.run.rally_runner import RallyRunner, TaskOutcome
from rally_keystone_perf.tasks import rewrite
from rally_keystone_perf.tasks import tracing as task_tracing
from rally_keystone_perf.tasks.model import TaskFile

EXIT_ERROR = 1
Echo = Callable[[str], None]


class Engine(Protocol):
    """What sends the load: its checks, the task Rally runs, its tags."""

    @property
    def name(self) -> str:
        """``rally`` or ``locust``, as ``--engine`` says it."""

    def check(self, tasks: Iterable[TaskFile]) -> None:
        """Refuse, before anything starts, what the engine cannot run."""

    def task_to_run(self, task: TaskFile, run: RunDir) -> Path:
        """The file Rally runs for ``task`` in ``run``."""

    def tags(self) -> list[str]:
        """The Rally task tags that name the engine."""

    def failures(self, run: RunDir) -> list[str]:
        """What went wrong in the engine itself during ``run``'s tasks."""


@dataclass(frozen=True)
class RallyEngine:
    """Rally's own runners, in this host's processes (the default)."""

    name: str = "rally"

    def check(self, tasks: Iterable[TaskFile]) -> None:
        """Rally runs any task file Rally accepts."""

    def task_to_run(self, task: TaskFile, run: RunDir) -> Path:
        """The task itself, or rendered and traced in the run."""
        contexts = task_tracing.client_contexts(run)
        return rewrite.task_to_run(task, run.root, contexts)

    def tags(self) -> list[str]:
        return []

    def failures(self, run: RunDir) -> list[str]:
        return []


@dataclass(frozen=True)
class LocustEngine:
    """Locust's master and workers (``--engine locust``): the same task
    files, scenarios and client, each runner handed to Locust."""

    options: LocustOptions
    name: str = "locust"

    def check(self, tasks: Iterable[TaskFile]) -> None:
        """Locust installed (its extra named), every workload one it runs.

        :raises LaunchError: Locust is not installed.
        :raises PlanError: a workload the engine cannot run.
        """
        preflight.check_choice_modules("locust")
        for task in tasks:
            task_plans(task)

    def task_to_run(self, task: TaskFile, run: RunDir) -> Path:
        """The task with its runners handed to Locust (on the run's worker
        hosts), and ``--trace``'s context, in the run."""
        options = self.options.on_hosts(run.state().client_network)
        contexts = task_tracing.client_contexts(run)
        return locust_task.task_to_run(task, options, run.root, contexts)

    def tags(self) -> list[str]:
        return locust_task.tags(self.options)

    def failures(self, run: RunDir) -> list[str]:
        """Lost workers, a load that could not start."""
        return locust_task.engine_failures(run.results)


def engine_for(options: LocustOptions | None) -> Engine:
    """The Locust engine with ``options``; Rally's own without."""
    return RallyEngine() if options is None else LocustEngine(options)


def run_task_files(
    runner: RallyRunner,
    run: RunDir,
    tasks: Iterable[TaskFile],
    engine: Engine,
    task_tags: Iterable[str],
    outcomes: list[TaskOutcome],
    echo: Echo,
) -> None:
    """Each task through Rally in its turn (in the engine's form), until one
    is interrupted; each outcome appended as it ends (kept on a Ctrl-C)."""
    for task in tasks:
        echo(f"running {task.path}")
        outcome = runner.start_task(
            engine.task_to_run(task, run), tags=[*task_tags, *engine.tags()]
        )
        outcomes.append(outcome)
        if outcome.interrupted:
            break


def failure_codes(engine: Engine, run: RunDir, echo: Echo) -> list[int]:
    """Exit 1 for each failure of the engine during ``run``, said."""
    problems = engine.failures(run)
    for problem in problems:
        echo(f"error: {engine.name} engine: {problem}")
    return [EXIT_ERROR for _ in problems]
