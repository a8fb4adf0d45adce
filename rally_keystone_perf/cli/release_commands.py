"""``releases``: Keystone releases measured side by side in rounds taken in turns."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rally_keystone_perf import paths, stop_signals
from rally_keystone_perf.cli import arguments, launch_arguments
from rally_keystone_perf.cli.common import (
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    always_local,
    combined_exit,
    echo,
    launch_options,
    print_and_write,
)
from rally_keystone_perf.cli.study_commands import DEFAULT_ROUNDS, MIN_ROUNDS
from rally_keystone_perf.deploy import preflight
from rally_keystone_perf.deploy.builds import runtime
from rally_keystone_perf.deploy.options import Deployment, LaunchError, resolve
from rally_keystone_perf.report import pages
from rally_keystone_perf.report.figures.releases import ReleasesPage
from rally_keystone_perf.report.readers import instructions as instruction_counts
from rally_keystone_perf.report.writers import registry
from rally_keystone_perf.run import instructions
from rally_keystone_perf.run import releases as releases_run
from rally_keystone_perf.run import study_rounds as rounds_run
from rally_keystone_perf.tasks import check, generate
from rally_keystone_perf.tasks.model import TaskFile


def cmd_releases(args: argparse.Namespace) -> int:
    """Measure Keystone releases side by side: token create, token validate
    and project list, in rounds taken in turns.

    Each release (--releases; default: the first of each of the four newest
    Keystone series on PyPI) is installed once into a venv of its own, with
    the libraries PyPI offered on the day it was released there
    (--build-deps release, uv's --exclude-newer; --build-deps suite: the
    suite's own, so that only Keystone differs), then all are started side
    by side and measured in --rounds rounds, their order counterbalanced,
    with tasks/releases-<size>.json. Each release's figures (the mean of
    the rounds) and each release against the one before it (the median's
    ratio with its 95 percent interval and the drift) are printed and
    written to <release-dir>/releases.md, .html and .svg (the plot). A
    release that does not install or start is named with the reason and
    the others are still measured (exit 1). After the rounds, each release's
    instructions and SQL statements per request are counted (a replay of the
    task's workloads under callgrind, as ab --instructions counts) when
    valgrind and a C compiler are installed, and each pair is judged by them
    too; --instructions requires the counts, --no-instructions skips them.
    Ctrl-C or SIGTERM keeps the complete rounds; the same command resumes
    after them, and after the releases already counted.
    """
    if args.keystone_build:
        raise LaunchError("releases: each side is a release; drop --keystone-build")
    versions = args.releases or releases_run.latest_releases()
    task = TaskFile.load(args.task or paths.tasks_dir() / f"releases-{args.size}.json")
    check.validate(task)
    deployments, recorded = _deployments(args, versions, task)
    counting = _counting(args.instructions, deployments, task)
    echo(f"releases: {', '.join(versions)} ({args.build_deps} libraries)")
    ready, failures = releases_run.installed(deployments, echo)
    folder = args.release_dir or args.runs_dir / f"releases-{args.size}"
    plan = releases_run.Plan(folder, ready, [task], args.rounds, args.restart, recorded)
    result = releases_run.measure(plan, echo)
    result.failures[:0] = failures
    if counting and EXIT_INTERRUPTED not in result.codes:
        result.codes.append(_count(folder, ready, task))
    page = _page(args, versions, ready, result, folder if counting else None)
    _write(page, folder)
    if EXIT_INTERRUPTED in result.codes:
        echo("interrupted: run the same command again to resume")
        return stop_signals.exit_code(EXIT_INTERRUPTED)
    return max(combined_exit(result.codes), EXIT_ERROR if result.failures else 0)


def _counting(
    asked: bool | None, deployments: Mapping[str, Deployment], task: TaskFile
) -> bool:
    """Whether the releases are counted: refused when ``--instructions``
    asks for what cannot be counted; skipped, with the reason, when nobody
    asked and the tools (or the options) do not allow it."""
    if asked is False:
        return False
    try:
        instructions.check_countable(deployments, task.workloads())
    except LaunchError as exc:
        if asked:
            raise
        echo(f"instruction counts skipped: {exc} (--no-instructions silences this)")
        return False
    return True


def _count(folder: Path, ready: Mapping[str, Deployment], task: TaskFile) -> int:
    """Count every installed release after the rounds; the exit code (1 when
    a release's count failed: named on the page, the others kept)."""
    plan = releases_run.COUNT_PLAN
    try:
        found = instructions.count_releases(folder, ready, task.workloads(), echo, plan)
    except KeyboardInterrupt:
        echo("instruction counts interrupted; the rounds and counts made are kept")
        return EXIT_INTERRUPTED
    return EXIT_ERROR if found["failed"] else 0


def _deployments(
    args: argparse.Namespace, versions: Sequence[str], task: TaskFile
) -> tuple[dict[str, Deployment], dict[str, dict[str, Any]]]:
    """Each release's deployment, checked before anything is installed."""
    base = launch_options(args, [task])
    if base.clustered:
        raise LaunchError(
            "releases: every release is up at once, so one node each "
            "(clusters of several releases do not fit side by side)"
        )
    deployments, recorded = {}, {}
    for version in versions:
        options = dataclasses.replace(
            base,
            port=None,
            keystone_build=releases_run.build_spec(version),
            build_deps=args.build_deps,
        )
        deployments[version] = resolve(options, echo)
        check.check_deployment(task, deployments[version])
        recorded[version] = {
            "options": rounds_run.recorded_options(options),
            "tasks": rounds_run.recorded_tasks([task]),
        }
    first = next(iter(deployments.values()))
    preflight.check_requirements(preflight.requirements(first))
    return deployments, recorded


def _libraries(deployments: Mapping[str, Deployment]) -> str:
    """``27.0.0 as of 2025-04-02, ...`` from each installed build."""
    said = []
    for version, deployment in deployments.items():
        build = runtime.build(deployment.options)
        as_of = (build.info.get("libraries_as_of") if build else None) or ""
        said.append(f"{version}: {'as of ' + as_of[:10] if as_of else 'the suite'}")
    return "; ".join(said)


def _page(
    args: argparse.Namespace,
    versions: Sequence[str],
    ready: Mapping[str, Deployment],
    result: releases_run.ReleasesRun,
    counted: Path | None,
) -> ReleasesPage:
    """The page of the rounds done (none: only the releases left out), with
    the counts in ``counted`` when the releases were counted."""
    measured = list(result.state.configs) if result.state else []
    return pages.releases(
        args.size,
        next(iter(ready.values())).mode.name if ready else "-",
        versions,
        measured,
        result.state.reports() if result.state else [],
        args.rounds,
        result.failures,
        _libraries({v: ready[v] for v in measured}),
        instruction_counts.load(counted) if counted else None,
    )


def _write(page: ReleasesPage, folder: Path) -> None:
    """The page printed, and written as releases.md, .html and .svg."""
    formats = {"markdown": "md", "html": "html", "svg": "svg"}
    files = {fmt: folder / f"releases.{suffix}" for fmt, suffix in formats.items()}
    print_and_write(registry.RELEASES, page, files)


def add_releases_command(sub: Any) -> None:
    """``releases``' arguments."""
    parser = arguments.add_command(
        sub,
        "releases",
        cmd_releases,
        "Keystone releases side by side, in rounds taken in turns",
    )
    parser.add_argument(
        "--releases",
        type=arguments.checked(releases_run.release_list),
        default=None,
        metavar="X.Y.Z,...",
        help="the Keystone versions to measure, two or more (default: the "
        "first release of each of the four newest series on PyPI)",
    )
    parser.add_argument(
        "--size",
        choices=generate.SIZES,
        default="quick",
        help="tasks/releases-<size>.json: quick (about 33 minutes on 2 cores, "
        "counts included) "
        "or full (default: %(default)s)",
    )
    parser.add_argument(
        "--task",
        type=Path,
        default=None,
        help="another task file for every round (default: the size's)",
    )
    parser.add_argument(
        "--rounds",
        type=arguments.at_least(MIN_ROUNDS),
        default=DEFAULT_ROUNDS,
        help="rounds taken in turns (default: %(default)s)",
    )
    parser.add_argument(
        "--release-dir",
        type=Path,
        default=None,
        help="where the rounds, run folders and pages go "
        "(default: <runs-dir>/releases-<size>)",
    )
    parser.add_argument(
        "--restart", action="store_true", help="forget the rounds done so far"
    )
    parser.add_argument(
        "--instructions",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="after the rounds, count each release's instructions and SQL "
        "statements per request (callgrind; about 5 minutes a release at "
        "--size quick); --no-instructions skips it (default: counted when "
        "valgrind and a C compiler are installed)",
    )
    launch_arguments.add_launch_options(parser, with_mode=True)
    arguments.add_runs_dir(parser)
    parser.set_defaults(
        func=cmd_releases, build_deps="release", starts_local=always_local
    )
