"""The argument parser: every subcommand and its own options.

Usage errors exit 1 (:class:`Parser`), so that 2 always means an SLA or the
gate failed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from rally_keystone_perf.cli import (
    ab_commands,
    arguments,
    capacity_commands,
    cloud_commands,
    deploy_commands,
    engine_options,
    launch_arguments,
    release_commands,
    report_commands,
    run_commands,
    study_commands,
)
from rally_keystone_perf.cli.common import (
    DEFAULT_TASK,
    EXIT_ERROR,
    always_local,
    local_unless_cloud,
)
from rally_keystone_perf.report.writers.registry import GATE_FORMATS
from rally_keystone_perf.tasks import generate

if TYPE_CHECKING:
    from typing import TypeAlias

    Subparsers: TypeAlias = "argparse._SubParsersAction[Parser]"


class Parser(argparse.ArgumentParser):
    """argparse with usage errors exiting 1, so that 2 always means "failed"."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_ERROR, f"{self.prog}: error: {message}\n")


def _add_up(sub: Subparsers) -> None:
    """``up``: start and leave running."""
    up = sub.add_parser(
        "up",
        help="start a local Keystone and leave it running",
        description=deploy_commands.cmd_up.__doc__,
    )
    launch_arguments.add_launch_options(up)
    arguments.add_runs_dir(up)
    up.set_defaults(func=deploy_commands.cmd_up, starts_local=always_local)


def _add_down_status(sub: Subparsers) -> None:
    """``down`` and ``status`` of a run folder."""
    for name, func in (
        ("down", deploy_commands.cmd_down),
        ("status", deploy_commands.cmd_status),
    ):
        p = sub.add_parser(name, help=func.__doc__, description=func.__doc__)
        p.add_argument(
            "--run",
            type=Path,
            default=None,
            help="run folder (default: <runs-dir>/current)",
        )
        arguments.add_runs_dir(p)
        p.set_defaults(func=func)


def _add_run(sub: Subparsers) -> None:
    """``run``: up, tasks, report, down."""
    run = sub.add_parser(
        "run",
        help="up, run Rally tasks, print the report, down",
        description=f"{run_commands.cmd_run.__doc__} Exit code follows rally "
        "task start.",
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
    launch_arguments.add_launch_options(run)
    engine_options.add_engine_options(run)
    cloud_commands.add_cloud_options(run, boot=True)
    arguments.add_runs_dir(run)
    run.set_defaults(func=run_commands.cmd_run, starts_local=local_unless_cloud)


def _add_matrix(sub: Subparsers) -> None:
    """``matrix``: task files across modes, resumable."""
    matrix_cmd = sub.add_parser(
        "matrix",
        help="run task files across deployment modes (resumable), one table",
        description=run_commands.cmd_matrix.__doc__,
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
    launch_arguments.add_launch_options(matrix_cmd, with_mode=False)
    engine_options.add_engine_options(matrix_cmd)
    cloud_commands.add_cloud_options(matrix_cmd)
    arguments.add_runs_dir(matrix_cmd)
    matrix_cmd.set_defaults(
        func=run_commands.cmd_matrix, starts_local=local_unless_cloud
    )


def _add_report(sub: Subparsers) -> None:
    """``report``: tables from Rally reports."""
    report = sub.add_parser(
        "report",
        help="print tables from Rally JSON reports",
        description=report_commands.cmd_report.__doc__,
    )
    report.add_argument(
        "results",
        nargs="+",
        type=Path,
        metavar="RESULTS",
        help="Rally JSON reports (rally task report --json) or run folders",
    )
    report.add_argument(
        "--combined",
        action="store_true",
        help="one table for all: a row per workload with its configuration "
        "columns and the total's figures (table or markdown)",
    )
    report.add_argument(
        "--trends",
        action="store_true",
        help="follow each workload across the runs (reports, run folders, or "
        "folders of runs: every */results/*.json under them) by time, with "
        "median, p95, success, throughput and the gate's verdict (table, "
        "markdown, json or html)",
    )
    report.add_argument(
        "--server-log",
        type=Path,
        metavar="FILE",
        help="a run against your own cloud (--os-cloud): an access log copied "
        "from its Keystone (Apache combined with %%D, haproxy's httplog, "
        "uwsgi's default), its lines of the run taken into the run folder "
        "for the server-side table",
    )
    arguments.add_output_options(report)
    report.set_defaults(func=report_commands.cmd_report)


def _add_compare(sub: Subparsers) -> None:
    """``compare``: runs against a baseline."""
    compare = sub.add_parser(
        "compare",
        help="compare runs with a baseline, with statistical verdicts",
        description=report_commands.cmd_compare.__doc__,
    )
    compare.add_argument(
        "baseline",
        type=Path,
        metavar="A",
        help="the baseline run: a Rally JSON report or a run folder",
    )
    compare.add_argument(
        "others",
        nargs="+",
        type=Path,
        metavar="B",
        help="runs to compare with the baseline (reports or run folders)",
    )
    compare.add_argument(
        "--alpha",
        type=arguments.alpha,
        default=0.05,
        help="significance level of the Mann-Whitney U test (default: %(default)s)",
    )
    arguments.add_mismatch_option(compare, 'default: its rows say "not comparable"')
    arguments.add_output_options(compare)
    compare.set_defaults(func=report_commands.cmd_compare)


def _add_gate(sub: Subparsers) -> None:
    """``gate``: fail on a regression."""
    gate_cmd = sub.add_parser(
        "gate",
        help="fail (exit 2) when a run regressed against a baseline",
        description=report_commands.cmd_gate.__doc__,
    )
    gate_cmd.add_argument(
        "current",
        metavar="CURRENT",
        help="the run under test: a Rally JSON report, a run folder or a task "
        "UUID; or an A/B folder (rally-keystone-perf ab), B gated against A",
    )
    gate_cmd.add_argument(
        "--baseline",
        default=None,
        metavar="BASELINE",
        help="the reference run: a Rally JSON report, a run folder or a task "
        "UUID (needed unless CURRENT is an A/B folder)",
    )
    gate_cmd.add_argument(
        "--max-regression",
        type=arguments.percentage,
        default=0.10,
        metavar="PERCENT",
        help="tolerated slowdown of a median or p95, e.g. 10%% (default: 10%%)",
    )
    gate_cmd.add_argument(
        "--max-instruction-increase",
        type=arguments.percentage,
        default=None,
        metavar="PERCENT",
        help="an A/B folder only: also fail a workload whose instructions per "
        "request (ab --instructions, counted under callgrind) on B exceed A's "
        "by more than this, e.g. 1%% (default: not judged)",
    )
    gate_cmd.add_argument(
        "--alpha",
        type=arguments.alpha,
        default=0.05,
        help="significance level of the tests (default: %(default)s)",
    )
    arguments.add_mismatch_option(gate_cmd, "default: the gate refuses it and exits 1")
    gate_cmd.add_argument(
        "--junit",
        type=Path,
        default=None,
        metavar="FILE",
        help="also write JUnit XML (a test case per workload and criterion)",
    )
    gate_cmd.add_argument(
        "--format",
        choices=GATE_FORMATS,
        default="table",
        help="output format (default: %(default)s)",
    )
    gate_cmd.add_argument(
        "--out", type=Path, default=None, metavar="FILE", help="write to FILE"
    )
    arguments.add_runs_dir(gate_cmd)
    gate_cmd.set_defaults(func=report_commands.cmd_gate)


def _add_tasks(sub: Subparsers) -> None:
    """``tasks``: check, regenerate or locate the bundled task files."""
    tasks = sub.add_parser(
        "tasks",
        help="check, regenerate or locate the bundled task files",
        description=run_commands.cmd_tasks.__doc__,
    )
    action = tasks.add_mutually_exclusive_group()
    action.add_argument("--check", action="store_true", help="compare (default)")
    action.add_argument("--write", action="store_true", help="regenerate")
    action.add_argument(
        "--path",
        action="store_true",
        help="print the tasks folder alone (for rally task start)",
    )
    tasks.add_argument(
        "--tasks-dir",
        type=Path,
        default=None,
        help="the tasks folder (default: the bundled one)",
    )
    tasks.set_defaults(func=run_commands.cmd_tasks)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = Parser(
        prog="rally-keystone-perf",
        description="Benchmark OpenStack Keystone with Rally against a real local "
        "Keystone. Exit codes: 0 ok, 1 error (bad arguments included), 2 SLA or "
        "gate failed, 3 not running (status), 130/143/129 stopped by "
        "Ctrl-C/SIGTERM/SIGHUP (partial results kept).",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    _add_up(sub)
    _add_down_status(sub)
    _add_run(sub)
    _add_matrix(sub)
    _add_report(sub)
    _add_compare(sub)
    _add_gate(sub)
    _add_tasks(sub)
    study_commands.add_study_command(sub)
    release_commands.add_releases_command(sub)
    ab_commands.add_ab_command(sub)
    capacity_commands.add_capacity_command(sub)
    engine_options.add_worker_command(sub)
    return parser
