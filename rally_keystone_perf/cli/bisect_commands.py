"""``bisect``: the Keystone commit that made a request cost more."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path
from typing import Any

from rally_keystone_perf import paths, stop_signals
from rally_keystone_perf.cli import arguments, bisect_history, launch_arguments
from rally_keystone_perf.cli.ab_commands import DEFAULT_TASK
from rally_keystone_perf.cli.common import (
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    always_local,
    echo,
    launch_options,
    print_and_write,
)
from rally_keystone_perf.deploy.options import LaunchError, resolve
from rally_keystone_perf.layout.bisect import BISECT_FILE, ENDS_FAILED
from rally_keystone_perf.report.figures.bisect import bisect_page
from rally_keystone_perf.report.readers import bisect as bisect_reader
from rally_keystone_perf.report.writers import registry
from rally_keystone_perf.run import bisect, bisect_plan, instructions
from rally_keystone_perf.tasks import check
from rally_keystone_perf.tasks.model import TaskFile

CACHE = "bisect-cache"  # under --runs-dir: counts later bisects reuse


def cmd_bisect(args: argparse.Namespace) -> int:
    """Find the Keystone commit, or the library update, that made a request
    cost more.

    Over Keystone's commits: --repo (a Keystone git repository), --good and
    --bad; the first-parent history between them, each step a build of one
    commit's files (written out with git archive beside the builds, so that
    a shallow clone works too; the suite's libraries beside it unless
    --build-deps says otherwise). Over library updates: --keystone-build
    (one Keystone), --deps-good and --deps-bad (days after its release);
    each step a day, the build with the libraries PyPI had at its start
    (uv's --exclude-newer). Each step is counted in one process under
    callgrind as ab --instructions counts: instructions and SQL queries per
    request of each workload of --task (default: the gate's
    tasks/gate-tokens.json), or of its --action alone. Good and bad are
    counted first: when bad is within --threshold of good (and sends the
    same queries) there is nothing to find. Otherwise the search halves the
    range until it names the first step past the threshold whose parent is
    not: a commit's subject, date and files, or the libraries a day
    changed, its cost against the step before it, and the Python functions
    whose calls and lines changed most there (a native replay of both,
    traced). A step that does not build, or whose Keystone does not start,
    is skipped and named. Every step is printed as it is counted and kept
    in <bisect-dir>/bisect.json: Ctrl-C keeps them and the same command
    resumes; each count is also kept in <runs-dir>/bisect-cache for later
    bisects. The page is printed and written as bisect.md, bisect.html and
    bisect-page.json. Exit 0 when the search concluded (or --max-steps
    stopped it), 1 when good or bad could not be counted or the input is
    refused.
    """
    task = TaskFile.load(args.task or paths.tasks_dir() / DEFAULT_TASK)
    check.validate(task)
    workloads = chosen_workloads(task, args.action)
    options = dataclasses.replace(launch_options(args, [task]), port=None)
    kind, steps = bisect_history.steps(args)
    instructions.check_countable({"good": resolve(options)}, workloads)
    counts, minutes = bisect_plan.estimate(len(steps))
    bound = f", at most {args.max_steps} by --max-steps" if args.max_steps else ""
    echo(
        f"bisect: {len(steps) - 1} {kind} after {steps[0].id[:12]}: about "
        f"{counts} counts{bound}, about {minutes} minutes with nothing cached"
    )
    plan = bisect_plan.BisectPlan(
        args.bisect_dir or args.runs_dir,
        kind,
        args.repo,
        steps,
        options,
        workloads,
        args.threshold,
        args.max_steps,
        args.runs_dir / CACHE,
        bisect_plan.COUNT_PLAN,
    )
    if args.bisect_dir is None:
        folder = bisect_plan.default_folder(plan, args.runs_dir)
        plan = dataclasses.replace(plan, folder=folder)
    folder = plan.folder
    try:
        bisect.run_bisect(plan, echo, args.restart)
    except KeyboardInterrupt:
        echo("interrupted: the steps counted are kept; the same command resumes")
        _page(folder)
        return stop_signals.exit_code(EXIT_INTERRUPTED)
    return EXIT_ERROR if _page(folder) == ENDS_FAILED else 0


def chosen_workloads(task: TaskFile, action: str | None) -> list[dict[str, Any]]:
    """The task's workloads, or those of ``action`` alone
    (``validate_token``: ``KeystonePerf.validate_token``'s)."""
    every = list(task.workloads())
    if action is None:
        return every
    name = action if "." in action else f"KeystonePerf.{action}"
    found = [w for w in every if w["name"] == name]
    if not found:
        names = ", ".join(sorted({str(w["name"]) for w in every}))
        raise LaunchError(f"--action {action}: the task has no {name} (it has {names})")
    return found


def _page(folder: Path) -> str | None:
    """Print the page of the bisect in ``folder`` and write its files; its
    status (None: nothing counted yet)."""
    if not (folder / BISECT_FILE).is_file():
        return None
    page = bisect_page(bisect_reader.load(folder))
    # bisect.json is the steps' record: the page's JSON goes beside it
    names = {"markdown": "bisect.md", "html": "bisect.html", "json": "bisect-page.json"}
    files = {fmt: folder / name for fmt, name in names.items()}
    print_and_write(registry.BISECT, page, files)
    return page.status


def add_bisect_command(sub: Any) -> None:
    """``bisect``'s arguments."""
    parser = arguments.add_command(
        sub, "bisect", cmd_bisect, "the Keystone commit that made a request cost more"
    )
    bisect_history.add_history_options(parser)
    parser.add_argument(
        "--task",
        type=Path,
        default=None,
        help=f"the workloads each step counts (default: tasks/{DEFAULT_TASK})",
    )
    parser.add_argument(
        "--action",
        default=None,
        help="count this scenario of the task alone (validate_token, or "
        "KeystonePerf.validate_token)",
    )
    parser.add_argument(
        "--threshold",
        type=arguments.percentage,
        default=0.01,
        help="how far from good's instructions a step is past (default: 1%%)",
    )
    parser.add_argument(
        "--max-steps",
        type=arguments.at_least(1),
        default=None,
        help="count at most this many steps in this command (resumed after)",
    )
    parser.add_argument(
        "--bisect-dir",
        type=Path,
        default=None,
        help="where the steps and the page go (default: "
        "<runs-dir>/bisect-<good>-<bad>-<digest of the task, threshold and "
        "settings>)",
    )
    parser.add_argument(
        "--restart", action="store_true", help="forget the steps counted so far"
    )
    launch_arguments.add_launch_options(parser, with_mode=True)
    arguments.add_runs_dir(parser)
    parser.set_defaults(func=cmd_bisect, starts_local=always_local)
