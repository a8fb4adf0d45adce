"""``run``, ``matrix`` and ``tasks``: task files run against local Keystones."""

from __future__ import annotations

import argparse
import dataclasses
import io
import sys
from pathlib import Path
from typing import Any

from rally_keystone_perf import paths
from rally_keystone_perf.cli import (
    arguments,
    cloud_commands,
    engine_options,
    launch_arguments,
    log_mix,
)
from rally_keystone_perf.cli.common import (
    DEFAULT_TASK,
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    combined_exit,
    echo,
    launch_options,
    local_unless_cloud,
    task_files,
)
from rally_keystone_perf.deploy import preflight
from rally_keystone_perf.deploy.options import LaunchError, LaunchOptions, resolve
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.report import api
from rally_keystone_perf.report.figures import combined, run_labels, scaling
from rally_keystone_perf.report.writers import registry
from rally_keystone_perf.run import engines, matrix, rally_runner, session
from rally_keystone_perf.tasks import check, generate
from rally_keystone_perf.tasks.model import TaskFile


def cmd_run(args: argparse.Namespace) -> int:
    """Start Keystone, run the tasks through Rally, print the report, stop."""
    cloud_commands.check_cloud_only_options(args)
    task_args = cloud_commands.task_args(args)
    tasks: list[TaskFile] = []
    for path in task_files(args):  # reject bad input before anything starts
        tasks.append(TaskFile.load(path, task_args))
        count = check.validate(tasks[-1])
        echo(f"{path}: {count} workload(s), syntax OK")
    if args.os_cloud:  # someone else's Keystone: nothing to start
        return cloud_commands.run_on_cloud(args, tasks)
    deployment = resolve(launch_options(args, tasks), echo)  # once, passed down
    for task in tasks:
        check.check_deployment(task, deployment)
    load_engine = engine_options.engine(args)
    load_engine.check(tasks)
    outcomes: list[rally_runner.TaskOutcome] = []
    run: RunDir | None = None
    try:
        with session.keystone_session(
            args.runs_dir, deployment, echo, args.keep_running
        ) as (run, runner):
            engines.run_task_files(
                runner, run, tasks, load_engine, [f"mode:{args.mode}"], outcomes, echo
            )
    except KeyboardInterrupt:
        if run is None:
            raise
        echo("interrupted")
        outcomes.append(rally_runner.TaskOutcome.cut_short())
    assert run is not None
    reports = [o.report for o in outcomes if o.report]
    if reports:
        api.report(reports, sys.stdout, "table")
        echo(f"results: {run.results}")
    codes = [o.exit_code for o in outcomes]
    return combined_exit([*codes, *engines.failure_codes(load_engine, run, echo)])


def _matrix_modes(args: argparse.Namespace, base: LaunchOptions) -> list[str]:
    """The modes ``--modes`` names that can start (all: those installed)."""
    if "all" in args.modes:
        names, missing = matrix.available_modes(base)
        for reason in missing:
            echo(f"skipping mode {reason}")
    else:
        names = list(dict.fromkeys(args.modes))
        for name in names:  # a named mode that cannot start is an error now
            preflight.check_requirements(
                preflight.requirements(resolve(dataclasses.replace(base, mode=name)))
            )
    if not names:
        raise LaunchError("no deployment mode can start on this machine")
    return names


def _write_matrix_tables(state: matrix.MatrixState, reports: list[Path]) -> None:
    """The combined table: markdown in the matrix folder, a table on stdout.

    Reports of more than one node count (``--nodes``) add the scaling table
    (:mod:`..report.figures.scaling`) after it, in both.
    """
    loaded = run_labels.load_reports(reports)
    table = combined.combined_rows(loaded)
    nodes = None
    if len(scaling.node_counts(loaded)) > 1:
        nodes = scaling.scaling_figures(loaded)
    markdown = io.StringIO()
    for stream, fmt in ((markdown, "markdown"), (sys.stdout, "table")):
        registry.write(registry.COMBINED, table, stream, fmt)
        if nodes is not None and nodes.rows:
            stream.write("\n")
            registry.write(registry.SCALING, nodes, stream, fmt)
    (state.folder / "combined.md").write_text(markdown.getvalue())


def cmd_matrix(args: argparse.Namespace) -> int:
    """Run bundled task files against each deployment mode, then one table.

    For each mode (default: every mode whose programs are installed) start a
    local Keystone, run its task files tasks/<mode>/<TASKS>-<SIZE>.json
    through Rally, stop it. Every cell's outcome is recorded in
    <matrix-dir>/matrix.json as it ends, so running the same command again
    resumes with the cells not done yet (--restart starts over). Progress
    names the cell, the time elapsed and an estimate of the time left. Ctrl-C
    aborts the running task (partial results kept), stops the servers and
    exits 130. The end is the combined table: one row per workload with its
    configuration columns, setup and load time (also written to
    <matrix-dir>/combined.md). With --nodes 1,2,3,4 every task file runs at
    each node count (a cluster behind haproxy; every cell on one MariaDB),
    and a second table follows: tokens/s and revocation listings/s against
    nodes, the token median and p95, the saturated tier, and seed 001's
    figures beside them. With --os-cloud NAME the task files run against
    your own cloud instead (no mode is started: the files of tasks/uwsgi/
    stand for every mode's), after the plan and the probe of run --os-cloud.
    """
    cloud_commands.check_cloud_only_options(args)
    if args.os_cloud:
        cells, state, codes = cloud_commands.matrix_on_cloud(args)
    else:
        cells, state, codes = _local_matrix(args)
    return _matrix_end(cells, state, codes)


def _local_matrix(
    args: argparse.Namespace,
) -> tuple[list[matrix.Cell], matrix.MatrixState, list[int]]:
    """The cells of the modes, each mode's Keystone started in turn."""
    if max(args.nodes) > 1 and args.db == "sqlite":  # one database for every row
        echo(
            "matrix --nodes: every cell on --db mysql (a cluster's nodes share "
            "one MariaDB; the single host's cells too, so that the rows compare)"
        )
        args.db = "mysql"
    base = launch_options(args)
    names = _matrix_modes(args, base)
    cells = matrix.plan(
        names, args.tasks, args.size, args.tasks_dir or paths.tasks_dir(), args.nodes
    )
    loaded: dict[Path, TaskFile] = {}
    for task in sorted({c.task for c in cells}):  # bad input: before any server
        loaded[task] = TaskFile.load(task)
        check.validate(loaded[task])
        check.check_deployment(loaded[task], resolve(base))
    for count in args.nodes:  # --nodes 9, or 2 on eventlet: before any server
        for name in names:
            preflight.check_cluster(
                resolve(dataclasses.replace(base, mode=name, nodes=count))
            )
    locust = engine_options.locust_options(args)
    load_engine = engines.engine_for(locust)
    load_engine.check(loaded.values())
    echo(f"matrix: {len(cells)} cells ({', '.join(names)}), all task files valid")
    folder = args.matrix_dir or args.runs_dir / f"matrix-{args.size}"
    shared = matrix.shared_options(base)
    if locust is not None:  # absent for Rally: older states still resume
        shared.update(locust.record())
    state = matrix.MatrixState.open(folder, shared, args.restart)

    def options_for(mode: str, nodes: int) -> LaunchOptions:
        tasks = [loaded[c.task] for c in cells if c.mode == mode]
        options = launch_options(args, tasks)
        return dataclasses.replace(options, mode=mode, nodes=nodes, port=None)

    codes: list[int] = []
    try:
        codes = matrix.run_matrix(
            cells, state, options_for, echo, engine=load_engine, tasks=loaded
        )
    except KeyboardInterrupt:
        echo("interrupted")
        codes.append(EXIT_INTERRUPTED)
    return cells, state, codes


def _matrix_end(
    cells: list[matrix.Cell], state: matrix.MatrixState, codes: list[int]
) -> int:
    """The combined table, the partial cells, what is left to resume."""
    reports = state.reports(cells)
    if reports:
        _write_matrix_tables(state, reports)
    for cell, partial in state.partial(cells):
        echo(f"partial results of the interrupted cell {cell.key}: {partial}")
    done = len(reports)
    echo(f"{done} of {len(cells)} cells done; state: {state.path}")
    if done < len(cells):
        echo("run the same command again to resume")
    return combined_exit(codes)


def cmd_tasks(args: argparse.Namespace) -> int:
    """Check (default) or regenerate the bundled task files under tasks/<mode>/,
    or print where they are.

    One file per mode, scenario, concurrency level of the seeds and size
    (quick or full), all from one table (rally_keystone_perf/tasks/generate.py).
    --check exits 1 listing every file that differs from the generator's
    output; --write rewrites them (a source checkout's, or --tasks-dir's: an
    install's copies are not rewritten); --path prints the folder alone, for
    rally task start "$(rally-keystone-perf tasks --path)/uwsgi/<file>.json";
    --from-log LOG writes a mix task of an access log.
    """
    if args.from_log is not None:
        return log_mix.cmd_from_log(args)

    tasks_dir = args.tasks_dir or paths.tasks_dir()
    if args.path:
        print(tasks_dir)
        return EXIT_OK
    if args.write and args.tasks_dir is None and paths.installed_copy():
        raise ValueError(
            f"{tasks_dir} is an install's copy of the task files: not rewritten "
            "(regenerate a checkout's, or give --tasks-dir DIR)"
        )
    if args.write:
        count = generate.write(tasks_dir)
        echo(f"wrote {count} task files under {tasks_dir}")
        return EXIT_OK
    problems = generate.check(tasks_dir)
    for problem in problems:
        print(problem)
    if problems:
        echo("regenerate with: rally-keystone-perf tasks --write")
        return EXIT_ERROR
    echo(f"{len(generate.generated())} task files under {tasks_dir} are up to date")
    return EXIT_OK


def _add_where_and_how(
    parser: argparse.ArgumentParser, with_mode: bool, boot: bool
) -> None:
    """What ``run`` and ``matrix`` share: the launch options, the engine,
    your own cloud instead (``--os-cloud``), the runs folder."""
    launch_arguments.add_launch_options(parser, with_mode=with_mode)
    engine_options.add_engine_options(parser)
    cloud_commands.add_cloud_options(parser, boot=boot)
    arguments.add_runs_dir(parser)


def add_run_command(sub: Any) -> None:
    """``run``: up, tasks, report, down."""
    run = sub.add_parser(
        "run",
        help="up, run Rally tasks, print the report, down",
        description=f"{cmd_run.__doc__} Exit code follows rally task start.",
    )
    run.add_argument(
        "--task",
        action="append",
        metavar="FILE",
        help=f"Rally task file; repeatable (default: tasks/{DEFAULT_TASK})",
    )
    run.add_argument(
        "--task-args",
        type=arguments.task_args,
        default={},
        metavar="JSON_OR_YAML",
        help="the tasks' Jinja2 arguments, as rally task start --task-args "
        'takes them: a mapping, e.g. \'{"image": "cirros"}\'',
    )
    run.add_argument(
        "--keep-running",
        action="store_true",
        help="leave Keystone running after the tasks",
    )
    _add_where_and_how(run, with_mode=True, boot=True)
    run.set_defaults(func=cmd_run, starts_local=local_unless_cloud)


def add_matrix_command(sub: Any) -> None:
    """``matrix``: task files across modes, resumable."""
    matrix_cmd = arguments.add_command(
        sub,
        "matrix",
        cmd_matrix,
        "run task files across deployment modes (resumable), one table",
    )
    matrix_cmd.add_argument(
        "--modes",
        type=arguments.mode_list,
        default=["all"],
        metavar="MODE,...",
        help="modes to run, comma-separated, or all (default: all, skipping "
        "modes whose programs are not installed)",
    )
    matrix_cmd.add_argument(
        "--tasks",
        default="create-token-c*",
        metavar="PATTERN",
        help="task files of each mode: tasks/<mode>/<PATTERN>-<size>.json, a "
        "glob (default: %(default)s, seed 000's levels)",
    )
    matrix_cmd.add_argument(
        "--size",
        choices=generate.SIZES,
        default="quick",
        help="quick (about a minute per file on 2 cores) or full (the seeds' "
        "times and context sizes) (default: %(default)s)",
    )
    matrix_cmd.add_argument(
        "--tasks-dir",
        type=Path,
        default=None,
        help="folder with one subfolder of task files per mode (default: the "
        "bundled tasks/)",
    )
    matrix_cmd.add_argument(
        "--matrix-dir",
        type=Path,
        default=None,
        help="where the state, run folders and combined table go "
        "(default: <runs-dir>/matrix-<size>)",
    )
    matrix_cmd.add_argument(
        "--restart",
        action="store_true",
        help="forget the cells done so far and start over",
    )
    _add_where_and_how(matrix_cmd, with_mode=False, boot=False)
    matrix_cmd.set_defaults(func=cmd_matrix, starts_local=local_unless_cloud)


def add_tasks_command(sub: Any) -> None:
    """``tasks``: check, regenerate or locate the bundled task files."""
    tasks = arguments.add_command(
        sub, "tasks", cmd_tasks, "check, regenerate or locate the bundled task files"
    )
    action = tasks.add_mutually_exclusive_group()
    action.add_argument("--check", action="store_true", help="compare (default)")
    action.add_argument("--write", action="store_true", help="regenerate")
    action.add_argument(
        "--path",
        action="store_true",
        help="print the tasks folder alone (for rally task start)",
    )
    log_mix.add_options(tasks, action)
    tasks.add_argument(
        "--tasks-dir",
        type=Path,
        default=None,
        help="the tasks folder (default: the bundled one)",
    )
    tasks.set_defaults(func=cmd_tasks)
