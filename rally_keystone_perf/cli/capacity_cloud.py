"""``capacity --os-cloud``: the search against someone else's Keystone.

The safety rails of ``run --os-cloud`` (:mod:`.cloud_commands`): no local
option, the plan printed before any request (writes refused without
``--allow-writes``), the target probed, and the sweep on the way out. The
plan is that of the search's highest step, ``--max-rate`` for
``--step-seconds``, and the search's bound follows it: the rates it may
reach and the most iterations it may start. ``--max-rate`` is required:
the local default (2000 a second) is no rate to aim at a cloud in use.
"""

from __future__ import annotations

import argparse
from contextlib import AbstractContextManager

from rally_keystone_perf.cli import cloud_commands
from rally_keystone_perf.cli.common import echo
from rally_keystone_perf.deploy.options import LaunchError
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.run import capacity_search, capacity_steps, own_cloud
from rally_keystone_perf.run.rally_runner import RallyRunner
from rally_keystone_perf.tasks.model import TaskFile

# capacity's own options, which check_no_local_options must not count
OWN = frozenset({"max_in_flight"})


def max_rate(args: argparse.Namespace) -> float:
    """``--max-rate``: as given, else the local default; required on a cloud.

    :raises LaunchError: ``--os-cloud`` without ``--max-rate``.
    """
    if args.max_rate is not None:
        return float(args.max_rate)
    if args.os_cloud:
        raise LaunchError(
            "--os-cloud: give --max-rate, the highest rate a second the search "
            "may offer your cloud (the plan printed first shows what it may do)"
        )
    return capacity_search.Limits().max_rate


def bound_lines(limits: capacity_search.Limits, seconds: float) -> list[str]:
    """The search's load on the target, at most."""
    rates = capacity_search.ramp_rates(limits)
    ramp = ", ".join(f"{rate:g}" for rate in rates[: limits.max_steps])
    return [
        f"capacity search: steps of {seconds:g} s, the ramp at {ramp} a second, "
        f"never above {limits.max_rate:g} a second (--max-rate)",
        f"  at most {limits.max_steps} steps: at most "
        f"{capacity_search.most_iterations(limits, seconds):,} iterations in all",
    ]


def cloud_session(
    args: argparse.Namespace,
    task: TaskFile,
    plan: capacity_steps.StepPlan,
    limits: capacity_search.Limits,
) -> AbstractContextManager[tuple[RunDir, RallyRunner]]:
    """The plan and the bound printed, writes refused or allowed, the target
    probed; the run folder and Rally on the cloud (swept on the way out).

    :raises LaunchError: a local option, a refusal, a cloud that cannot be
        read or does not answer.
    """
    cloud_commands.check_no_local_options(args, OWN)
    top = capacity_steps.step_document(plan, limits.max_rate)
    highest = TaskFile.of_document(task.path, top, dict(task.task_args))
    bounds = bound_lines(limits, plan.seconds)
    ready = cloud_commands.prepare_target(args, [highest], bounds)
    return own_cloud.cloud_run(
        args.runs_dir, ready.cloud, ready.found, ready.plan, ready.given, echo
    )
