"""``run --os-cloud``: the bundled tasks against someone else's Keystone."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rally_keystone_perf import paths
from rally_keystone_perf.cli import arguments, engine_options, launch_arguments
from rally_keystone_perf.cli.common import (
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    combined_exit,
    echo,
)
from rally_keystone_perf.deploy.options import LaunchError, LaunchOptions
from rally_keystone_perf.deploy.own_cloud import compute, probe, target
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.report import api
from rally_keystone_perf.report.readers.rally_json import ReportError
from rally_keystone_perf.run import ab, engines, matrix, own_cloud, rally_runner
from rally_keystone_perf.tasks import check
from rally_keystone_perf.tasks import own_cloud as cloud_plan
from rally_keystone_perf.tasks.model import TaskFile

TAGS = ["target:external"]
# matrix --os-cloud: the bundled task files of one mode stand for all (the
# copies under tasks/<mode>/ differ by their mode: tag alone)
CLOUD_TASKS = "uwsgi"
# the engine options of run --os-cloud: Locust's workers here or elsewhere
# (--worker-hosts: refused by its own check, with its reason)
ENGINE_ON_CLOUD = frozenset(
    {"engine", "workers", "expect_workers", "master_bind", "web_ui", "worker_hosts"}
)


def _add_os_cloud(group: arguments.Group) -> None:
    group.add_argument(
        "--os-cloud",
        metavar="NAME",
        help="a cloud of clouds.yaml (and secure.yaml), read as the openstack "
        "client reads it; 'envvars': the OS_* environment. Nothing is started; "
        "OS_CLIENT_CONFIG_FILE is honoured, OS_CLOUD alone does not select it",
    )


def _add_existing_users(group: arguments.Group) -> None:
    group.add_argument(
        "--existing-users",
        type=Path,
        metavar="FILE",
        help="--os-cloud: existing test users (JSON or YAML: Rally's "
        "existing@openstack users) the tasks use instead of creating users",
    )


def add_side_cloud_options(parser: argparse.ArgumentParser) -> None:
    """What an A/B side's own options may name of a cloud (``--a '--os-cloud
    NAME'``)."""
    _add_os_cloud(parser)
    _add_existing_users(parser)


def _add_boot_names(group: arguments.Group) -> None:
    """``--image``, ``--flavor``, ``--network``: boot_server's task args."""
    for option, what in (
        ("--image", "image (Glance)"),
        ("--flavor", "flavor"),
        ("--network", "network (Neutron; default: none)"),
    ):
        group.add_argument(
            option,
            metavar="NAME",
            help=f"--os-cloud: the {what} the boot-server tasks boot with, "
            "found on the cloud before any load (the task arg of that name)",
        )


def add_cloud_options(
    parser: argparse.ArgumentParser, server_log: bool = True, boot: bool = False
) -> None:
    """``--os-cloud``, ``--allow-writes``, ``--allow-system-grant``,
    ``--existing-users`` (and
    ``--server-log``, but for ``ab``; ``--image``, ``--flavor`` and
    ``--network`` for ``run``)."""
    group = parser.add_argument_group(
        "your own cloud",
        "measure an existing Keystone instead of starting one (docs: "
        "Your own Keystone)",
    )
    _add_os_cloud(group)
    group.add_argument(
        "--allow-writes",
        action="store_true",
        help="--os-cloud: let tasks that create users or projects, or revoke "
        "tokens, run (the plan printed first says what and how many)",
    )
    group.add_argument(
        "--allow-system-grant",
        action="store_true",
        help="--os-cloud: let system-scope tasks grant their users a role on "
        "the system while they run (refused otherwise: such a role reads the "
        "whole cloud)",
    )
    _add_existing_users(group)
    if boot:
        _add_boot_names(group)
    if not server_log:
        return
    group.add_argument(
        "--server-log",
        type=Path,
        metavar="FILE",
        help="--os-cloud: the Keystone's access log, read after the tasks "
        "(Apache combined with %%D, haproxy's httplog, uwsgi's default): its "
        "lines of this run feed the server-side table (later: report RUN "
        "--server-log FILE)",
    )


def _local_options_given(
    args: argparse.Namespace, own: frozenset[str] = frozenset()
) -> list[str]:
    """The launch and engine options set away from their defaults (but the
    command's ``own``, which it checks itself)."""
    probe_parser = argparse.ArgumentParser(add_help=False)
    launch_arguments.add_launch_options(probe_parser)
    engine_options.add_engine_options(probe_parser)
    given = [
        action.option_strings[0]
        for action in probe_parser._actions
        if action.option_strings
        and action.dest not in own
        and getattr(args, action.dest, action.default) != action.default
    ]
    if getattr(args, "keep_running", False):
        given.append("--keep-running")
    return given


BOOT_NAMES = ("image", "flavor", "network")


def check_cloud_only_options(args: argparse.Namespace) -> None:
    """``--server-log`` (and ``run``'s ``--image``, ``--flavor`` and
    ``--network``) only with ``--os-cloud``: a local run has its own log,
    and its own Nova's names."""
    if args.server_log is not None and not args.os_cloud:
        raise LaunchError(
            "--server-log is for --os-cloud: the suite's own Keystone writes "
            "its access log into the run folder"
        )
    named = [f"--{n}" for n in BOOT_NAMES if getattr(args, n, None)]
    if named and not args.os_cloud:
        raise LaunchError(
            f"{', '.join(named)}: for --os-cloud; the suite's own Nova has its "
            "own (--task-args sets them all the same)"
        )


def task_args(args: argparse.Namespace) -> dict[str, Any]:
    """``--task-args`` with ``--image``, ``--flavor``, ``--network`` over it."""
    found = dict(getattr(args, "task_args", None) or {})
    found.update({n: getattr(args, n) for n in BOOT_NAMES if getattr(args, n, None)})
    return found


def check_no_local_options(
    args: argparse.Namespace, own: frozenset[str] = frozenset()
) -> None:
    given = _local_options_given(args, own)
    if given:
        raise LaunchError(
            f"{', '.join(given)}: with --os-cloud nothing is started, so the "
            "options of the suite's own Keystone and engines do not apply"
        )


class Refused(LaunchError):
    """The tasks write and ``--allow-writes`` was not given."""


@dataclass(frozen=True)
class Ready:
    """The cloud, its users, the plan and the probe: all before any load."""

    cloud: target.CloudTarget
    given: list[dict[str, str]]
    plan: cloud_plan.Plan
    found: probe.Probe


def prepare_target(
    args: argparse.Namespace, tasks: Sequence[TaskFile], more: Sequence[str] = ()
) -> Ready:
    """Read the cloud, print the plan, refuse writes not allowed, probe.

    :raises Refused: the tasks write and --allow-writes was not given.
    """
    cloud = target.load_target(args.os_cloud)
    given = target.load_users(args.existing_users) if args.existing_users else []
    plan = cloud_plan.build_plan(tasks, len(given), args.allow_system_grant)
    echo(f"target: cloud {cloud.cloud}, {cloud.auth_url}; the plan:")
    for line in [*plan.lines(), *more]:  # more: the command's own bounds
        echo(f"  {line}")
    if plan.writes and not args.allow_writes:
        raise Refused(
            "these tasks write to the cloud (above: what and how many); "
            "run them with --allow-writes, or pick read-only tasks"
        )
    found = probe.probe(cloud, plan.needing_admin(), plan.needing_revocation())
    echo(f"target answers: identity API {found.api_version} at {found.v3_url}")
    boots = [compute.boot_spec(name, kwargs) for name, kwargs in plan.boots()]
    for line in compute.check_boots(cloud, boots, not plan.existing_users):
        echo(f"  found on the cloud: {line}")
    return Ready(cloud, given, plan, found)


def _engine_on_cloud(
    args: argparse.Namespace, tasks: Sequence[TaskFile]
) -> engines.Engine:
    """Rally's runners, or Locust's workers here or on other hosts (each
    given the target with its workload by the master); not in namespaces."""
    if args.worker_hosts:
        raise LaunchError(
            "--worker-hosts: the namespaced workers reach only this machine's "
            "own Keystone (over a bridge on 198.18.0.0/15), not a cloud "
            "elsewhere; use --workers N here, or --expect-workers N and "
            "'rally-keystone-perf worker --master' on other hosts"
        )
    load_engine = engine_options.engine(args)
    load_engine.check(tasks)
    return load_engine


def run_on_cloud(args: argparse.Namespace, tasks: Sequence[TaskFile]) -> int:
    """The plan, the refusal or the probe, the tasks, the sweep, the report."""
    check_no_local_options(args, ENGINE_ON_CLOUD)
    load_engine = _engine_on_cloud(args, tasks)
    try:
        ready = prepare_target(args, tasks)
    except Refused as exc:
        echo(f"error: {exc}")
        return EXIT_ERROR
    run = own_cloud.prepare_run(
        args.runs_dir, ready.cloud, ready.found, ready.plan, ready.given
    )
    echo(f"run folder: {run.root}")
    outcomes = _run_tasks(run, ready, tasks, load_engine)
    codes = [o.exit_code for o in outcomes]
    codes += engines.failure_codes(load_engine, run, echo)
    if args.server_log is not None:
        codes.append(_server_log(run, args.server_log))
    reports = [o.report for o in outcomes if o.report]
    if reports:
        api.report(reports, sys.stdout, "table")
        echo(f"results: {run.results}")
    return combined_exit(codes)


@dataclass(frozen=True)
class CloudSide:
    """An A/B side that is a cloud: what ab.json records of it, and how a
    session on it starts (a run folder under the side's folder)."""

    recorded: dict[str, Any]
    session: ab.SideSession


def cloud_side(args: argparse.Namespace, task: TaskFile) -> CloudSide:
    """``ab``'s side on a cloud: options checked, plan printed (writes
    refused without --allow-writes), the target probed; nothing started.

    :raises LaunchError: a local option given to the side, a refusal, a
        cloud that cannot be read or does not answer.
    """
    check_no_local_options(args)
    ready = prepare_target(args, [task])

    def session(folder: Path) -> own_cloud.CloudRun:
        return own_cloud.cloud_run(
            folder, ready.cloud, ready.found, ready.plan, ready.given, echo
        )

    recorded = {
        "target": f"{ready.found.v3_url} (external)",
        "api": ready.found.api_version,
    }
    return CloudSide(recorded, session)


def _no_launch(mode: str, nodes: int) -> LaunchOptions:
    raise AssertionError("matrix --os-cloud starts no Keystone")


def matrix_on_cloud(
    args: argparse.Namespace,
) -> tuple[list[matrix.Cell], matrix.MatrixState, list[int]]:
    """``matrix --os-cloud``: the task files of :data:`CLOUD_TASKS`, in a run
    folder each, resumable as a local matrix."""
    check_no_local_options(args, frozenset({"nodes"}))  # matrix's --nodes: a list
    if args.modes != ["all"] or args.nodes != [1] or args.server_log:
        raise LaunchError(
            "--modes, --nodes and --server-log: with matrix --os-cloud there is "
            "no mode to start (report RUN --server-log takes a log afterwards)"
        )
    tasks_dir = args.tasks_dir or paths.tasks_dir()
    planned = matrix.plan([CLOUD_TASKS], args.tasks, args.size, tasks_dir)
    cells = [dataclasses.replace(c, mode=own_cloud.RUN_NAME) for c in planned]
    loaded = {c.task: TaskFile.load(c.task) for c in cells}
    for task in loaded.values():  # bad input: before the cloud is read
        check.validate(task)
    ready = prepare_target(args, list(loaded.values()))
    folder = args.matrix_dir or args.runs_dir / f"matrix-{args.size}-external"
    state = matrix.MatrixState.open(
        folder, {"target": ready.found.v3_url}, args.restart
    )

    def sessions(where: tuple[str, int]) -> own_cloud.CloudRun:
        return own_cloud.cloud_run(
            folder / "runs", ready.cloud, ready.found, ready.plan, ready.given, echo
        )

    codes: list[int] = []
    try:
        codes = matrix.run_matrix(cells, state, _no_launch, echo, sessions=sessions)
    except KeyboardInterrupt:
        codes.append(EXIT_INTERRUPTED)
    return cells, state, codes


def _server_log(run: RunDir, log: Path) -> int:
    """Take the copied log's lines of the run; exit 1 (results kept) if not."""
    try:
        for line in api.import_server_log(run.root, log):
            echo(line)
    except ReportError as exc:
        echo(f"error: {exc}")
        return EXIT_ERROR
    return EXIT_OK


def _run_tasks(
    run: RunDir,
    ready: Ready,
    tasks: Sequence[TaskFile],
    load_engine: engines.Engine,
) -> list[rally_runner.TaskOutcome]:
    outcomes: list[rally_runner.TaskOutcome] = []
    try:
        with own_cloud.cloud_session(run, ready.cloud, ready.plan, echo) as runner:
            engines.run_task_files(
                runner, run, tasks, load_engine, TAGS, outcomes, echo
            )
    except KeyboardInterrupt:
        echo("interrupted")
        outcomes.append(rally_runner.TaskOutcome.cut_short())
    return outcomes
