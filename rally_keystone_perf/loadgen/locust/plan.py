"""A Rally task's workloads as Locust load plans, or a refusal naming why.

Rally stays the format of every task and result; Locust only spreads the
iterations over more hosts. Each workload's runner maps to Locust users:

``constant`` (``times``, ``concurrency``)
    ``concurrency`` users sharing a budget of exactly ``times`` iterations
    (:func:`split_budget` gives each worker its share).
``constant_for_duration`` (``duration``, ``concurrency``)
    ``concurrency`` users for ``duration`` seconds.
``rps`` (``times``, ``rps`` a number, ``max_concurrency``)
    ``times`` iterations started at ``rps`` per second all users together,
    by up to ``max_concurrency`` users (Rally's default: ``times``).
``keystone_perf_arrival_rate`` (``rate``, ``times`` or ``duration``,
    ``max_in_flight``, ``arrivals``, ``seed``)
    open-model load: the schedule's arrivals dealt in turn to the workers
    (:func:`..arrivals.shares`), each taken by an idle user of its worker
    or dropped; ``max_in_flight`` users in all, so at most that many
    iterations in flight (:mod:`.open_load`).

Only this suite's one-request scenarios (``KeystonePerf.*``) run there: the
workers call the same plugin code. Anything else (another runner, an
``rps`` ramp, another scenario) is refused before a server starts. Hooks
stay Rally's: its hook executor fires them in Rally's process.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rally_keystone_perf.loadgen import arrivals
from rally_keystone_perf.tasks.model import TaskFile, TaskFileError

SCENARIO_PREFIX = "KeystonePerf."
RUNNERS = ("constant", "constant_for_duration", "rps", arrivals.RUNNER)
DEFAULT_TIMEOUT = 600.0  # Rally's runners' per-iteration timeout


class PlanError(TaskFileError):
    """A workload the Locust engine cannot run; the message names what."""


@dataclass(frozen=True)
class LoadPlan:
    """How many users, for how many iterations or seconds, at what pace."""

    users: int
    times: int | None = None  # the exact iteration budget (constant, rps)
    duration: float | None = None  # seconds (constant_for_duration)
    rate: float | None = None  # iterations started per second, all users (rps)
    timeout: float = DEFAULT_TIMEOUT
    arrivals: str | None = None  # open model (constant, poisson); None: closed
    seed: int = 0  # of a poisson schedule


@dataclass(frozen=True)
class WorkloadPlan:
    """One workload of the task: what it runs and how Locust loads it."""

    scenario: str
    position: int
    args: dict[str, Any]
    contexts: dict[str, Any]
    sla: dict[str, Any]
    runner_type: str  # the task's own runner, for the report
    runner: dict[str, Any]
    load: LoadPlan
    description: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def _positive(where: str, config: Mapping[str, Any], key: str, default: Any) -> Any:
    value = config.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise PlanError(f"{where}: runner {key} must be a positive number")
    return value


def load_plan(where: str, kind: str, runner: Mapping[str, Any]) -> LoadPlan:
    """The Locust load of one Rally runner (its type and its arguments)."""
    if kind not in RUNNERS:
        raise PlanError(
            f"{where}: runner {kind!r} has no Locust mapping "
            f"(the Locust engine runs {', '.join(RUNNERS)})"
        )
    timeout = float(_positive(where, runner, "timeout", DEFAULT_TIMEOUT))
    if kind == "constant":
        users = int(_positive(where, runner, "concurrency", 1))
        times = int(_positive(where, runner, "times", 1))
        return LoadPlan(min(users, times), times=times, timeout=timeout)
    if kind == "constant_for_duration":
        users = int(_positive(where, runner, "concurrency", 1))
        duration = float(_positive(where, runner, "duration", None))
        return LoadPlan(users, duration=duration, timeout=timeout)
    if kind == arrivals.RUNNER:
        return _open_plan(where, runner, timeout)
    if isinstance(runner.get("rps"), Mapping):
        raise PlanError(
            f"{where}: runner rps with a ramp (start/end/step) has no Locust "
            "mapping: give rps a number"
        )
    times = int(_positive(where, runner, "times", 1))
    rate = float(_positive(where, runner, "rps", None))
    users = int(_positive(where, runner, "max_concurrency", times))
    return LoadPlan(min(users, times), times=times, rate=rate, timeout=timeout)


def _open_plan(where: str, runner: Mapping[str, Any], timeout: float) -> LoadPlan:
    """The arrival-rate runner's load: ``max_in_flight`` users in all."""
    _positive(where, runner, "rate", None)
    try:
        schedule = arrivals.schedule_of(runner)
    except ValueError as exc:
        raise PlanError(f"{where}: runner {arrivals.RUNNER}: {exc}") from None
    users = int(_positive(where, runner, "max_in_flight", None))
    times = duration = None
    if schedule.times is not None:
        times = int(_positive(where, runner, "times", None))
        users = min(users, times)
    else:
        duration = float(_positive(where, runner, "duration", None))
    return LoadPlan(
        users,
        times=times,
        duration=duration,
        rate=schedule.rate,
        timeout=timeout,
        arrivals=schedule.arrivals,
        seed=schedule.seed,
    )


def workload_plan(workload: Mapping[str, Any]) -> WorkloadPlan:
    """One workload of a loaded task (``TaskFile.workloads()``'s form)."""
    where = f"workload {workload['name']}[{workload['position']}]"
    if not workload["name"].startswith(SCENARIO_PREFIX):
        raise PlanError(
            f"{where}: the Locust engine runs this suite's {SCENARIO_PREFIX}* "
            "scenarios only (use --engine rally)"
        )
    kind = str(workload.get("runner_type", "serial"))
    runner = dict(workload.get("runner") or {})
    return WorkloadPlan(
        scenario=workload["name"],
        position=int(workload["position"]),
        args=dict(workload.get("args") or {}),
        contexts=dict(workload.get("contexts") or {}),
        sla=dict(workload.get("sla") or {}),
        runner_type=kind,
        runner=runner,
        load=load_plan(where, kind, runner),
        description=str(workload.get("description") or ""),
    )


def task_plans(task: TaskFile) -> list[WorkloadPlan]:
    """Every workload of ``task`` as a plan; the first refusal raises.

    :raises PlanError: with the task file's path and the workload named.
    """
    plans = []
    for workload in task.workloads():
        try:
            plans.append(workload_plan(workload))
        except PlanError as exc:
            raise PlanError(f"{task.path}: {exc}") from None
    if not plans:
        raise PlanError(f"{task.path}: the task has no workloads")
    return plans


def split_budget(times: int, users: Sequence[int]) -> list[int]:
    """``times`` iterations shared by workers running ``users`` users each,
    in proportion, exactly (the remainder to the workers with most users).

    A worker without users gets none.
    """
    total = sum(users)
    if total <= 0:
        raise ValueError("no user to run the iterations")
    shares = [times * count // total for count in users]
    left = times - sum(shares)
    order = sorted(range(len(users)), key=lambda k: (-users[k], k))
    for index in order[:left]:
        shares[index] += 1
    return shares
