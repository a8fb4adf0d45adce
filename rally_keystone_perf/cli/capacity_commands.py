"""``capacity``: the highest arrival rate a local Keystone sustains under an SLO."""

from __future__ import annotations

import argparse
import sys
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from rally_keystone_perf.cli import (
    arguments,
    capacity_cloud,
    cloud_commands,
    launch_arguments,
)
from rally_keystone_perf.cli.common import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_SLA,
    echo,
    launch_options,
    local_unless_cloud,
)
from rally_keystone_perf.deploy.options import resolve
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.report.figures import capacity_curve, slo
from rally_keystone_perf.report.writers import registry as writers
from rally_keystone_perf.run import capacity, capacity_search, capacity_steps, session
from rally_keystone_perf.run.rally_runner import RallyRunner
from rally_keystone_perf.tasks import check
from rally_keystone_perf.tasks.model import TaskFile

RESULT_FILE = "capacity.md"  # in the run folder
PAGE_FILE = "capacity.html"  # the same with the plots


def _limits(args: argparse.Namespace) -> capacity_search.Limits:
    """The search's limits; :class:`ValueError` naming a bad one."""
    if args.step_seconds <= 0:
        raise ValueError(f"--step-seconds must be above 0, not {args.step_seconds:g}")
    return capacity_search.Limits(
        start=args.start_rate,
        max_rate=capacity_cloud.max_rate(args),
        growth=args.growth,
        precision=args.precision,
        repeats=args.repeats,
        max_steps=args.max_steps,
    )


def cmd_capacity(args: argparse.Namespace) -> int:
    """Search the highest rate a Keystone (started here, or --os-cloud) sustains
    under the SLO, print the curve.

    The task file's one workload runs once per step under the open-model
    runner (keystone_perf_arrival_rate) at the step's rate, for
    --step-seconds; only each step's second half is judged. The rate grows
    from --start-rate by --growth until a step misses the SLO (or its
    answers fall 5% short of the rate, or the load generator falls
    behind), then the bracket is halved, each middle rate measured
    --repeats times, until it is narrower than --precision. Prints each
    step, the sustained rate and the next rate tried (the uncertainty), the
    knee and the bottleneck; writes capacity.md and capacity.html (with
    the plots) in the run folder. Exit 0 with a sustained rate, 2 when no
    rate tried met the SLO, 130 on Ctrl-C (the steps done are printed).
    With --os-cloud NAME the search runs against your own Keystone instead
    (nothing started): --max-rate is then required, and the plan printed
    before any request shows the search's rates and the most iterations it
    may start (writes refused without --allow-writes; the sweep after).
    """
    objective: slo.Slo = args.slo  # parsed by argparse: a bad one exits 1
    limits = _limits(args)
    task = TaskFile.load(args.task, args.task_args)
    check.validate(task)
    plan = capacity_steps.StepPlan(
        capacity_steps.capacity_workload(task), args.step_seconds, args.max_in_flight
    )
    chosen = _session(args, task, plan, limits)
    echo(f"capacity: {capacity_search.rule_text(limits)}")
    steps: list[capacity.StepRun] = []
    outcome = capacity_search.Outcome(stopped="interrupted before the first step")
    code = EXIT_OK
    run_root: Path | None = None
    judged: dict[Path, capacity_curve.CurveRow] = {}
    try:
        with chosen as (run, rally):
            run_root = run.root
            judge = capacity_curve.keeping_judge(objective, judged)
            outcome, steps = capacity.run_search(rally, run, plan, limits, judge, echo)
    except capacity.SearchInterrupted as exc:
        steps, code = exc.steps, EXIT_INTERRUPTED
        outcome = capacity_search.partial(
            [s.step for s in steps], "interrupted (Ctrl-C or SIGTERM): the steps done"
        )
    except KeyboardInterrupt:
        code = EXIT_INTERRUPTED
    if steps:
        rows = capacity_curve.taken_rows(judged, steps)
        _print(rows, objective, outcome, limits, run_root, plan.task_rate)
    if code == EXIT_OK and outcome.sustained is None:
        code = EXIT_SLA  # no rate tried met the SLO: as a failed SLA
    return code


def _session(
    args: argparse.Namespace,
    task: TaskFile,
    plan: capacity_steps.StepPlan,
    limits: capacity_search.Limits,
) -> AbstractContextManager[tuple[RunDir, RallyRunner]]:
    """The cloud's (nothing started), or a local Keystone's."""
    if args.os_cloud:
        return capacity_cloud.cloud_session(args, task, plan, limits)
    deployment = resolve(launch_options(args, [task]), echo)
    check.check_deployment(task, deployment)
    return session.keystone_session(args.runs_dir, deployment, echo)


def _print(
    rows: list[capacity_curve.CurveRow],
    objective: slo.Slo,
    outcome: capacity_search.Outcome,
    limits: capacity_search.Limits,
    run_root: Path | None,
    task_rate: float | None,
) -> None:
    curve = capacity_curve.capacity_curve(
        rows,
        objective,
        outcome.sustained,
        outcome.above,
        outcome.stopped,
        capacity_search.rule_text(limits),
        task_rate,
    )
    writers.write(writers.CAPACITY, curve, sys.stdout)
    if run_root is not None:
        pages = {"markdown": run_root / RESULT_FILE, "html": run_root / PAGE_FILE}
        writers.write_files(writers.CAPACITY, curve, pages)
        echo(f"results: {run_root / RESULT_FILE}, {run_root / PAGE_FILE}")


def add_capacity_command(sub: Any) -> None:
    """``capacity``: its arguments."""
    parser = arguments.add_command(
        sub,
        "capacity",
        cmd_capacity,
        "the highest arrival rate a Keystone sustains under an SLO (a local "
        "one, or your cloud's with --os-cloud)",
    )
    parser.add_argument(
        "--task",
        type=Path,
        required=True,
        metavar="FILE",
        help="a Rally task file of one workload",
    )
    parser.add_argument(
        "--task-args",
        type=arguments.task_args,
        default={},
        metavar="JSON_OR_YAML",
        help="the task's Jinja2 arguments",
    )
    parser.add_argument(
        "--slo",
        type=arguments.checked(slo.parse_slo),
        required=True,
        metavar="CLAUSES",
        help="e.g. 'p95<100ms,success>=99.9%%' (a dropped iteration fails)",
    )
    _add_search_options(parser)
    launch_arguments.add_launch_options(parser)
    cloud_commands.add_cloud_options(parser, server_log=False)
    arguments.add_runs_dir(parser)
    parser.set_defaults(func=cmd_capacity, starts_local=local_unless_cloud)


def _add_search_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("the search")
    defaults = capacity_search.Limits()
    group.add_argument(
        "--start-rate",
        type=float,
        default=defaults.start,
        help="the first step's rate a second (default: %(default)s)",
    )
    group.add_argument(
        "--max-rate",
        type=float,
        help="the highest rate the search may try (default: "
        f"{defaults.max_rate:g}; required with --os-cloud, whose plan shows it)",
    )
    group.add_argument(
        "--growth",
        type=float,
        default=defaults.growth,
        help="each ramp step's rate over the last's (default: %(default)s)",
    )
    group.add_argument(
        "--precision",
        type=float,
        default=defaults.precision,
        help="stop when the bracket is narrower than this share (default: %(default)s)",
    )
    group.add_argument(
        "--repeats",
        type=arguments.at_least(1),
        default=defaults.repeats,
        help="steps at each middle rate; most decide (default: %(default)s)",
    )
    group.add_argument(
        "--max-steps",
        type=arguments.at_least(1),
        default=defaults.max_steps,
        help="steps at most (default: %(default)s)",
    )
    group.add_argument(
        "--step-seconds",
        type=float,
        default=20.0,
        help="each step's load; its second half is judged (default: %(default)s)",
    )
    group.add_argument(
        "--max-in-flight",
        type=arguments.at_least(1),
        default=200,
        help="the open-model runner's cap (default: %(default)s)",
    )
