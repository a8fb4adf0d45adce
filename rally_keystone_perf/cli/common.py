"""What the commands share: exit codes, defaults, options from arguments."""

from __future__ import annotations

import argparse
import dataclasses
import signal
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TextIO, TypeVar

from rally_keystone_perf import paths
from rally_keystone_perf.deploy.options import LaunchError, LaunchOptions
from rally_keystone_perf.deploy.user_pool import parse_size
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.report.readers.rally_json import ReportError
from rally_keystone_perf.report.writers import registry
from rally_keystone_perf.tasks.model import TaskFile

P = TypeVar("P")

EXIT_OK, EXIT_ERROR, EXIT_SLA, EXIT_NOT_RUNNING = 0, 1, 2, 3


def always_local(args: argparse.Namespace) -> bool:
    """A command that always starts a local Keystone (``starts_local``: the
    entry point refuses it, naming the extra, on the core install)."""
    return True


def local_unless_cloud(args: argparse.Namespace) -> bool:
    """A command that starts a local Keystone unless given ``--os-cloud``."""
    return not args.os_cloud


EXIT_INTERRUPTED = 130
# every command's exit codes and what each means (the docs' reference table)
EXIT_CODES = (
    (EXIT_OK, "done: the run finished and every SLA passed; the gate passed"),
    (
        EXIT_ERROR,
        "an error: bad arguments or input, a missing program, a busy port, a "
        "server that failed to start, a dead worker or node mid-run",
    ),
    (
        EXIT_SLA,
        "an SLA failed (``run``, ``matrix``, ``study``, ``rally task start``), "
        "the gate found a regression (``gate``), no rate tried met the SLO "
        "(``capacity``), or a benchmark missed its target",
    ),
    (EXIT_NOT_RUNNING, "``status``: no Keystone is running"),
    (128 + signal.SIGHUP, "stopped by SIGHUP (partial results kept)"),
    (EXIT_INTERRUPTED, "stopped by Ctrl-C, SIGINT (partial results kept)"),
    (128 + signal.SIGTERM, "stopped by SIGTERM (partial results kept)"),
)
DEFAULT_RUNS = Path("runs")
DEFAULT_TASK = "smoke.json"


def echo(message: str) -> None:
    """Progress and errors: one line on stderr (stdout is for results)."""
    print(message, file=sys.stderr, flush=True)


def user_pool_size(
    args: argparse.Namespace, tasks: Sequence[TaskFile]
) -> tuple[int, int] | None:
    """The pool size asked for: explicit, none, or auto from the tasks."""
    choice = args.user_pool
    if choice == "none":
        return None
    if choice != "auto":
        return parse_size(choice)
    sizes = [size for task in tasks for size in task.pooled_user_sizes()]
    if not sizes:
        return None
    return max(t for t, _ in sizes), max(u for _, u in sizes)


# LaunchOptions' fields no option sets as it is: computed (the user pool
# from the tasks, matrix's list of node counts, --worker-hosts' count) or
# set below the CLI (a build's venv, a template of keystone.conf)
_NOT_AS_GIVEN = frozenset(
    {"user_pool", "nodes", "client_hosts", "keystone_venv", "keystone_conf_template"}
)


def launch_options(
    args: argparse.Namespace, tasks: Sequence[TaskFile] = ()
) -> LaunchOptions:
    """The launch options of a command's arguments: every field of
    :class:`LaunchOptions` the command has an option of, as given (the
    dataclass's default for the others), the user pool sized for
    ``tasks``."""
    given = {
        field.name: getattr(args, field.name)
        for field in dataclasses.fields(LaunchOptions)
        if field.name not in _NOT_AS_GIVEN and hasattr(args, field.name)
    }
    return LaunchOptions(
        **given,
        user_pool=user_pool_size(args, tasks),
        # matrix --nodes is a list: its smallest count for the checks
        nodes=min(args.nodes) if isinstance(args.nodes, list) else args.nodes,
        # --engine locust --worker-hosts netns:K (run and matrix only)
        client_hosts=getattr(args, "worker_hosts", 0),
    )


def resolve_run(args: argparse.Namespace) -> RunDir:
    """The run folder of ``--run``, else ``<runs-dir>/current``; must exist."""
    target = args.run or args.runs_dir / "current"
    if not target.exists():
        raise LaunchError(
            f"no run folder at {target}; start one with: rally-keystone-perf up"
        )
    return RunDir(target.resolve())


def task_files(args: argparse.Namespace) -> list[Path]:
    """The ``--task`` files, else the bundled smoke task."""
    if args.task:
        return [Path(t) for t in args.task]
    return [paths.tasks_dir() / DEFAULT_TASK]


def combined_exit(exit_codes: Sequence[int]) -> int:
    """Interrupted beats error beats SLA failure beats success."""
    codes = set(exit_codes)
    for code in (EXIT_INTERRUPTED, EXIT_ERROR, EXIT_SLA):
        if code in codes:
            return code
    return EXIT_ERROR if codes - {EXIT_OK} else EXIT_OK


def write_output(text: str, out: Path | None) -> None:
    """Write finished output to ``out`` or stdout (nothing is written on error)."""
    if out is None:
        sys.stdout.write(text)
        return
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ReportError(f"{out}: cannot write: {exc.strerror}") from None


def print_and_write(
    kind: Mapping[str, Callable[[P, TextIO], None]],
    figures: P,
    files: Mapping[str, Path],
) -> None:
    """A page printed as a table, then written in each format of ``files``
    (format -> path; its folder made), each path said."""
    registry.write(kind, figures, sys.stdout)
    for path in files.values():
        path.parent.mkdir(parents=True, exist_ok=True)
    registry.write_files(kind, figures, files)
    for path in files.values():
        echo(f"written: {path}")
