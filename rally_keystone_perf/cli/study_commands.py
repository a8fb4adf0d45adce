"""``study SEED``: run a seed's study and print its table beside the seed's."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rally_keystone_perf import paths, stop_signals
from rally_keystone_perf.cli import (
    arguments,
    launch_arguments,
    study_capacity,
    study_counting,
)
from rally_keystone_perf.cli.common import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    combined_exit,
    echo,
    launch_options,
    print_and_write,
)
from rally_keystone_perf.deploy import preflight
from rally_keystone_perf.deploy.options import LaunchOptions, resolve
from rally_keystone_perf.report import pages
from rally_keystone_perf.report.figures import study as study_report
from rally_keystone_perf.report.figures import study_rounds, study_visits
from rally_keystone_perf.report.figures.study_page import StudyPage
from rally_keystone_perf.report.writers import registry as writers
from rally_keystone_perf.run import study_matrix as study_run
from rally_keystone_perf.run import study_rounds as rounds_run
from rally_keystone_perf.run.matrix import MatrixError
from rally_keystone_perf.studies import registry
from rally_keystone_perf.studies.model import Config, Study
from rally_keystone_perf.tasks import check, generate
from rally_keystone_perf.tasks.model import TaskFile

DEFAULT_ROUNDS = 3
MIN_ROUNDS = 2


def _levels(text: str) -> list[int]:
    """argparse type of ``--levels``: concurrency levels, comma-separated."""
    try:
        levels = [int(word) for word in text.split(",") if word.strip()]
    except ValueError:
        levels = []
    if not levels or min(levels) < 1:
        raise argparse.ArgumentTypeError(
            f"not concurrency levels: {text!r} (e.g. 4,16)"
        )
    return list(dict.fromkeys(levels))


def _labels(text: str) -> list[str]:
    """argparse type of ``--configs``: config labels, comma-separated."""
    labels = [word.strip() for word in text.split(",") if word.strip()]
    if not labels:
        raise argparse.ArgumentTypeError(f"not config names: {text!r}")
    return list(dict.fromkeys(labels))


def _list() -> int:
    """``study --list``: every study, its configs and levels."""
    for study in registry.STUDIES.values():
        print(f"{study.seed}: {study.title}")
        print(f"    source: {study.source}")
        configs = ", ".join(c.label for c in study.configs)
        print(f"    configs: {configs}; levels: {study.levels()}")
        for size in generate.SIZES:
            for line in _task_lines(study, size):
                print(f"    {size}: {line}")
    return EXIT_OK


def _task_lines(study: Study, size: str) -> list[str]:
    """``tasks/<mode>/{a,b}-quick.json`` once per set of configs that share it."""
    files: dict[str, list[str]] = {}
    for config in study.configs:
        folder = "<mode>" if config.task_folder is None else config.task_folder
        patterns = ",".join(study.patterns_of(config, size))
        where = "/".join(part for part in ("tasks", folder) if part)
        files.setdefault(f"{where}/{{{patterns}}}-{size}.json", []).append(config.label)
    if len(files) == 1:
        return list(files)
    return [f"{path} ({', '.join(labels)})" for path, labels in files.items()]


def _study(seed: str, labels: Sequence[str] | None) -> Study:
    """The study of ``seed``, narrowed to the configs ``labels`` if given."""
    try:
        study = registry.study(seed)
        return study.narrowed(labels) if labels else study
    except KeyError as exc:
        raise MatrixError(str(exc.args[0])) from None


def _checked_tasks(
    cells: dict[str, list[Any]], study: Study, args: argparse.Namespace
) -> dict[Path, TaskFile]:
    """Every task file loaded and checked, every config's programs there:
    bad input and missing packages before any server starts."""
    loaded: dict[Path, TaskFile] = {}
    for label, chosen in cells.items():
        config = study.config(label)
        tasks = []
        for cell in chosen:
            if cell.task not in loaded:
                loaded[cell.task] = TaskFile.load(cell.task)
                check.validate(loaded[cell.task])
            tasks.append(loaded[cell.task])
        deployment = resolve(_options(args, config, tasks))
        preflight.check_requirements(preflight.requirements(deployment))
        for task in tasks:
            check.check_deployment(task, deployment)
    return loaded


def _options(
    args: argparse.Namespace, config: Config, tasks: Sequence[TaskFile]
) -> LaunchOptions:
    """The launch options of ``config``: the command's, with its mode and own."""
    base = launch_options(args, tasks)
    return dataclasses.replace(base, mode=config.mode, port=None, **config.options)


def _options_of(args: argparse.Namespace) -> study_capacity.OptionsFor:
    """:func:`_options` with the command's arguments bound."""
    return lambda config, tasks: _options(args, config, tasks)


def _starts_local(args: argparse.Namespace) -> bool:
    """A study starts its configs' Keystones; the list of studies starts
    nothing."""
    return not args.list and args.seed is not None


def cmd_study(args: argparse.Namespace) -> int:
    """Run a seed's study, then print the seed's table beside ours.

    Every deployment the seed compared (its mode and settings) is started
    once, all side by side, each in <study-dir>/<config>/, and measured in
    --rounds rounds taken in turns: each round runs every config's task
    files of --size (its levels as one task), the configs' order
    counterbalanced, so a ratio is taken within each round and the rounds
    give its interval (95 percent); the machine's drift (a config's figure between
    rounds) is printed beside it. A study of clusters (seed 001) runs each
    config as a matrix of its own in the order A B ... B A (every config
    but the middle one twice, the second time in <config>.visit-2/; one no
    ratio compares once), the
    drift between a config's two visits beside each ratio. Both resume: the
    same command again goes on after the last complete round (or cell).
    Then the seed's rows (typed in with their source) beside ours with the
    concurrency reached and the bottleneck measured, and the ratios
    comparable across hardware, printed and written to
    <study-dir>/study-<seed>.md and .html. Where a ratio's two configs
    differ only by what stays inside Keystone's process (seed 001's fernet
    vs JWS), both are counted after the timed part (instructions and SQL
    statements per request under callgrind, when valgrind and a C compiler
    are installed; --no-instructions skips it) and the instruction ratio
    is printed beside the time ratio. --levels and --configs narrow
    the study; --list describes every study. --capacity (studies 001 and
    003) adds a row per config: the highest arrival rate it sustains under
    the study's SLO (capacity's search), the searches' steps taken in turns
    with every config up at once (001: one config after the other), resumed
    as the rest.
    """
    if args.list or args.seed is None:
        return _list()
    study = _study(args.seed, args.configs)
    tasks_dir = args.tasks_dir or paths.tasks_dir()
    cells = study_run.study_cells(study, args.size, tasks_dir, args.levels)
    folder = args.study_dir or args.runs_dir / f"study-{study.seed}-{args.size}"
    searches = study_capacity.prepare(args, study, tasks_dir, folder)
    loaded = _checked_tasks(cells, study, args)
    if searches is not None:
        study_capacity.check_deployments(searches, study, _options_of(args))
    total = sum(len(c) for c in cells.values())
    echo(f"study {study.seed} ({args.size}): {total} cells, all task files valid")
    levels = sorted(
        {lv for cs in cells.values() for c in cs if (lv := study_run.level(c.task))}
    )
    tasks = {k: [loaded[c.task] for c in chosen] for k, chosen in cells.items()}
    counting = study_counting.prepare(
        args.instructions, study, tasks, _options_of(args)
    )
    if study.in_rounds:
        page, codes = _in_rounds(args, study, cells, loaded, folder, levels)
    else:
        page, codes = _one_after_another(args, study, cells, loaded, folder, levels)
    if counting is not None and EXIT_INTERRUPTED not in codes:
        codes.append(study_counting.count_configs(counting, folder))
    if counting is not None:
        counted = study_counting.page_counts(study, counting, folder)
        page = dataclasses.replace(page, counts=counted)
    if searches is not None and EXIT_INTERRUPTED not in codes:
        part, more = study_capacity.run_capacity(
            searches, study, _options_of(args), echo, args.restart
        )
        page, codes = dataclasses.replace(page, capacity=part), [*codes, *more]
    _write_page(page, study, folder)
    if EXIT_INTERRUPTED in codes:
        echo("interrupted: run the same command again to resume")
        return stop_signals.exit_code(EXIT_INTERRUPTED)
    return combined_exit(codes)


def _one_after_another(
    args: argparse.Namespace,
    study: Study,
    cells: dict[str, list[Any]],
    loaded: dict[Path, TaskFile],
    folder: Path,
    levels: list[int],
) -> tuple[StudyPage, list[int]]:
    """Each config as a matrix of its own, A B ... B A (clusters)."""

    def options_for(config: Config, tasks: Sequence[Path]) -> LaunchOptions:
        return _options(args, config, [loaded[t] for t in tasks])

    result = study_run.run_study(cells, study, folder, options_for, echo, args.restart)
    visits = [study_report.measured(visit) for visit in result.visits]
    page = StudyPage(
        study,
        args.size,
        study_report.study_rows(study, study_rounds.combined(visits), levels),
        study_visits.ratio_rows(study, visits, levels),
        measured_in="each config as a matrix of its own, in the order "
        "A B ... B A: every config but the middle one (and one no ratio "
        "compares) twice, a row the mean "
        "of its visits (configs of several node counts cannot all be up at "
        "once); no interval, the drift between a config's visits instead",
    )
    return page, result.codes


def _in_rounds(
    args: argparse.Namespace,
    study: Study,
    cells: dict[str, list[Any]],
    loaded: dict[Path, TaskFile],
    folder: Path,
    levels: list[int],
) -> tuple[StudyPage, list[int]]:
    """Every config up at once, measured in rounds taken in turns."""
    deployments, tasks, recorded = {}, {}, {}
    for label, chosen in cells.items():
        if not chosen:
            continue
        tasks[label] = [loaded[c.task] for c in chosen]
        options = _options(args, study.config(label), tasks[label])
        deployments[label] = resolve(options, echo)
        recorded[label] = {
            "options": rounds_run.recorded_options(options),
            "tasks": rounds_run.recorded_tasks(tasks[label]),
        }
    scale = study.round_scale.get(args.size, 1.0)
    state = rounds_run.open_state(folder, recorded, scale, args.rounds, args.restart)
    plan = rounds_run.RoundsPlan(
        folder, study.seed, deployments, tasks, args.rounds, scale
    )
    share = "" if scale == 1.0 else f", each round {scale:.0%} of a task file's load"
    echo(
        f"study {study.seed}: {len(deployments)} configs up at once, "
        f"{args.rounds} rounds taken in turns{share}"
    )
    codes = rounds_run.run_rounds(plan, state, echo)
    page = pages.study_in_rounds(
        study, args.size, levels, state.reports(), args.rounds, share
    )
    return page, codes


def _write_page(page: StudyPage, study: Study, folder: Path) -> None:
    """The page printed, and written as ``study-<seed>.md`` and ``.html``."""
    stem = folder / f"study-{study.seed}"
    files = {"markdown": stem.with_suffix(".md"), "html": stem.with_suffix(".html")}
    print_and_write(writers.STUDY, page, files)


def _add_what_to_run(parser: argparse.ArgumentParser) -> None:
    """``--size``, ``--levels``, ``--configs`` and ``--rounds``."""
    parser.add_argument(
        "--size",
        choices=generate.SIZES,
        default="quick",
        help="quick (under 25 minutes on 2 cores) or full (the seed's own size) "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--levels",
        type=_levels,
        default=None,
        metavar="N,...",
        help="only these concurrency levels of the study (default: all of the size)",
    )
    parser.add_argument(
        "--configs",
        type=_labels,
        default=None,
        metavar="NAME,...",
        help="only these of the study's configs, their rows and the ratios "
        "between them (see --list; default: all)",
    )
    parser.add_argument(
        "--rounds",
        type=arguments.at_least(MIN_ROUNDS),
        default=DEFAULT_ROUNDS,
        help="rounds taken in turns, every config up at once, each round "
        "running every config's task files: the ratios' intervals come from "
        "them (default: %(default)s; a study of clusters runs each config "
        "as a matrix, A B ... B A, and ignores it)",
    )
    parser.add_argument(
        "--instructions",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="after the timed part, count the instructions and SQL statements "
        "per request of the configs a ratio compares when they differ only by "
        "what stays inside Keystone's process (seed 001's fernet vs JWS; "
        "callgrind, about 2.5 minutes a config), printed beside the time "
        "ratio; --no-instructions skips it (default: counted when valgrind "
        "and a C compiler are installed)",
    )
    parser.add_argument(
        "--capacity",
        action="store_true",
        help="also search each config's capacity: the highest arrival rate "
        "it sustains under the study's SLO (studies 001 and 003; about 3 "
        "minutes a config here)",
    )


def add_study_command(sub: Any) -> None:
    """``study``'s arguments."""
    parser = arguments.add_command(
        sub, "study", cmd_study, "run a seed's study; its table beside the seed's"
    )
    parser.add_argument(
        "seed",
        nargs="?",
        default=None,
        metavar="SEED",
        help="000, 001, ... (see --list)",
    )
    parser.add_argument("--list", action="store_true", help="describe every study")
    _add_what_to_run(parser)
    parser.add_argument(
        "--tasks-dir",
        type=Path,
        default=None,
        help="folder with one subfolder of task files per mode (default: the "
        "bundled tasks/), as matrix --tasks-dir",
    )
    parser.add_argument(
        "--study-dir",
        type=Path,
        default=None,
        help="where the states, run folders and tables go "
        "(default: <runs-dir>/study-<seed>-<size>)",
    )
    parser.add_argument(
        "--restart", action="store_true", help="forget the cells or rounds done so far"
    )
    launch_arguments.add_launch_options(parser, with_mode=False)
    arguments.add_runs_dir(parser)
    parser.set_defaults(func=cmd_study, starts_local=_starts_local)
