"""``ab``: two Keystones measured in rounds taken in turns on one machine."""

from __future__ import annotations

import argparse
import copy
import dataclasses
import shlex
import sys
import time
from pathlib import Path
from typing import Any, NoReturn

from rally_keystone_perf import paths, stop_signals
from rally_keystone_perf.cli import (
    arguments,
    cloud_commands,
    launch_arguments,
)
from rally_keystone_perf.cli.common import (
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    combined_exit,
    echo,
    launch_options,
)
from rally_keystone_perf.deploy.builds import prepare, runtime
from rally_keystone_perf.deploy.options import Deployment, LaunchError, resolve
from rally_keystone_perf.layout import state_files
from rally_keystone_perf.report import api
from rally_keystone_perf.report.writers import registry
from rally_keystone_perf.run import ab, engines, instructions
from rally_keystone_perf.tasks import check
from rally_keystone_perf.tasks.model import TaskFile

DEFAULT_TASK = "gate-tokens.json"
DEFAULT_ROUNDS = 8
MIN_ROUNDS = 2


def rounds_count(text: str) -> int:
    """``--rounds``: at least :data:`MIN_ROUNDS`, or 0 (the counts alone)."""
    value = int(text)
    if value != 0 and value < MIN_ROUNDS:
        raise argparse.ArgumentTypeError(
            f"must be at least {MIN_ROUNDS} (or 0 with --instructions: the "
            f"counts alone), got {value}"
        )
    return value


rounds_count.__name__ = "int"  # argparse names the type in its errors


class _SideParser(argparse.ArgumentParser):
    """The launch options of one side (``--a``/``--b``); errors raise."""

    def error(self, message: str) -> NoReturn:
        raise LaunchError(f"{self.prog}: {message}")


def side_arguments(args: argparse.Namespace, side: str) -> argparse.Namespace:
    """The command's arguments with side ``side``'s own options over them."""
    parser = _SideParser(prog=f"--{side}", add_help=False)
    launch_arguments.add_launch_options(parser)
    cloud_commands.add_side_cloud_options(parser)
    text = getattr(args, side) or ""
    # argparse sets a default only where the namespace has no value yet: the
    # command's own options stay unless the side names them
    return parser.parse_args(shlex.split(text), namespace=copy.copy(args))


def _starts_local(args: argparse.Namespace) -> bool:
    """Whether either side is a Keystone this machine starts (or counts);
    ``--show`` starts nothing."""
    return args.show is None and any(
        not side_arguments(args, side).os_cloud for side in ab.SIDES
    )


# not recorded: each side gets a free port; where a build's venv is
NOT_RECORDED = ("host", "port", "keystone_venv", "build_cache")


def _recorded(deployment: Deployment) -> dict[str, Any]:
    """A side's options as run.json would say them: the profile's
    parallelism resolved, no address (each side gets a free port), the
    Keystone build's version beside its spec."""
    values = dataclasses.asdict(deployment.options)
    settings = deployment.settings
    values.update(
        processes=settings.processes,
        threads=settings.threads,
        listen_backlog=settings.listen_backlog,
    )
    built = runtime.build(deployment.options)
    if built is not None:
        values["keystone_build"] += f" ({built.info.get('version')})"
    return {k: v for k, v in values.items() if k not in NOT_RECORDED}


def _plan(args: argparse.Namespace, task: TaskFile) -> ab.AbPlan:
    """Both sides' deployments (or clouds), checked before anything starts."""
    deployments, options, sessions = {}, {}, {}
    for side in ab.SIDES:
        side_args = side_arguments(args, side)
        if side_args.os_cloud:  # someone else's Keystone: probed, not started
            _refuse_counting(args, side)
            echo(f"side {side.upper()}: cloud {side_args.os_cloud}")
            cloud = cloud_commands.cloud_side(side_args, task)
            options[side], sessions[side] = cloud.recorded, cloud.session
            continue
        launch = launch_options(side_args, [task])
        deployment = resolve(dataclasses.replace(launch, port=None), echo)
        check.check_deployment(task, deployment)
        # both sides' builds installed before either side starts
        deployments[side] = prepare.prepare(deployment, echo)
        options[side] = _recorded(deployments[side])
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return ab.AbPlan(
        folder=args.ab_dir or args.runs_dir / f"ab-{stamp}",
        task=task.path,
        deployments=deployments,
        options=options,
        rounds=args.rounds,
        max_seconds=None if args.max_minutes is None else args.max_minutes * 60,
        sessions=sessions,
    )


def _refuse_counting(args: argparse.Namespace, side: str) -> None:
    """``--instructions`` counts Keystones this machine runs, not a cloud."""
    if args.instructions:
        raise LaunchError(
            f"--instructions: side {side.upper()} is a cloud (--os-cloud); "
            "instructions are counted on a Keystone the suite runs here"
        )


def cmd_ab(args: argparse.Namespace) -> int:
    """Run an A/B (or print one with --show), then its rounds and verdicts."""
    if args.show is not None:
        api.write_ab(args.show, sys.stdout, args.format)
        return EXIT_OK
    if args.rounds == 0 and not args.instructions:
        raise LaunchError(
            "ab --rounds 0 measures nothing: it is for --instructions, the "
            "counts alone with no timed rounds"
        )
    task = TaskFile.load(args.task)
    count = check.validate(task)
    echo(f"{args.task}: {count} workload(s), syntax OK")
    plan = _plan(args, task)
    counting = None
    if args.instructions:  # refused, or its builds made, before anything starts
        instructions.check_countable(plan.deployments, task.workloads())
        counting = instructions.count_deployments(plan.deployments, echo)
    state = _timed_rounds(plan, task)
    counted = EXIT_OK
    if counting is not None and state.status == state_files.DONE:
        counted = _count(plan.folder, counting, task)
    if state.complete_rounds() or (counting is not None and counted == EXIT_OK):
        api.write_ab(plan.folder, sys.stdout, args.format)
    echo(f"A/B folder: {plan.folder}")
    if state.status == state_files.INTERRUPTED or counted == EXIT_INTERRUPTED:
        return stop_signals.exit_code(EXIT_INTERRUPTED)
    codes = [code for r in state.rounds for code in r.exit_codes.values()]
    return combined_exit([*codes, counted])


def _timed_rounds(plan: ab.AbPlan, task: TaskFile) -> ab.AbState:
    """The rounds (:func:`.ab.run_ab`), or none with ``--rounds 0``."""
    if plan.rounds == 0:
        echo(f"A/B in {plan.folder}: instruction counts alone, no timed rounds")
        return ab.counts_only(plan)
    echo(f"A/B in {plan.folder}: {plan.rounds} rounds, sides in turns")
    return ab.run_ab(
        plan, lambda run: engines.RallyEngine().task_to_run(task, run), echo
    )


def _count(folder: Path, deployments: dict[str, Deployment], task: TaskFile) -> int:
    """``--instructions``: count both sides after the rounds; the exit code
    (1 when a count failed, the rounds' figures kept either way)."""
    try:
        instructions.count_ab(folder, deployments, task.workloads(), echo)
    except KeyboardInterrupt:
        echo("instruction counts interrupted; the rounds are kept")
        return EXIT_INTERRUPTED
    except LaunchError as exc:
        echo(f"instruction counts failed: {exc}")
        return EXIT_ERROR
    return EXIT_OK


def _add_sides_and_rounds(parser: argparse.ArgumentParser) -> None:
    """``--a``, ``--b``, ``--rounds`` and ``--max-minutes``."""
    parser.add_argument(
        "--a",
        metavar="OPTIONS",
        default="",
        help="side A's launch options over the command's, quoted: e.g. "
        "--a '--processes 2' (default: none: the command's)",
    )
    parser.add_argument(
        "--b",
        metavar="OPTIONS",
        default="",
        help="side B's launch options over the command's, e.g. --b "
        "'--password-hash-rounds 6' (default: none: an A/A)",
    )
    parser.add_argument(
        "--rounds",
        type=rounds_count,
        default=DEFAULT_ROUNDS,
        help="rounds, each running the task on both sides (default: "
        "%(default)s); 0 with --instructions: the counts alone, no side "
        "started as a server and nothing timed",
    )
    parser.add_argument(
        "--max-minutes",
        type=float,
        default=None,
        help="start no round that would end past this many minutes (default: none)",
    )


def add_ab_command(sub: Any) -> None:
    """``ab``'s arguments."""
    parser = sub.add_parser(
        "ab",
        help="measure two Keystones in rounds taken in turns, with intervals",
        description="Measure two Keystones, A and B, in rounds taken in turns "
        "on this machine: both are started once (each in its run folder under "
        "the A/B folder, on its own port) and every round runs the task on each, "
        "in the order AB BA BA AB ...; then each workload's rounds and, per "
        "measure (median, throughput, server CPU per iteration), B's cost "
        "against A's with its 95% interval over the rounds and the verdict. "
        "A side is the command's launch options with its own --a/--b options "
        "over them, a Keystone build among them (--b '--keystone-build "
        "~/src/keystone': a change against the installed Keystone), or a "
        "cloud of clouds.yaml started by no one here (--a '--os-cloud prod': "
        "this machine's Keystone against yours; --os-cloud for both: an A/A "
        "of your cloud, its noise).",
    )
    parser.add_argument(
        "--task",
        type=Path,
        default=paths.tasks_dir() / DEFAULT_TASK,
        help="the Rally task file each round runs on each side "
        f"(default: tasks/{DEFAULT_TASK})",
    )
    _add_sides_and_rounds(parser)
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="after the rounds, count each side's Keystone instructions per "
        "request under callgrind (valgrind): one process, SQLite, bcrypt at 4 "
        "rounds unless --password-hash-rounds says otherwise; for sides that "
        "differ only by --keystone-build (about 2 minutes a side for the "
        "gate task); judged by gate --max-instruction-increase",
    )
    parser.add_argument(
        "--ab-dir",
        type=Path,
        default=None,
        help="folder of the A/B (default: <runs-dir>/ab-<timestamp>)",
    )
    parser.add_argument(
        "--show",
        type=Path,
        metavar="AB_DIR",
        default=None,
        help="print the A/B recorded in AB_DIR instead of running one",
    )
    parser.add_argument(
        "--format",
        choices=tuple(registry.AB),
        default="table",
        help="output format (default: %(default)s)",
    )
    launch_arguments.add_launch_options(parser)
    cloud_commands.add_cloud_options(parser, server_log=False)
    arguments.add_runs_dir(parser)
    parser.set_defaults(func=cmd_ab, starts_local=_starts_local)
