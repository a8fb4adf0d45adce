"""The entry point: parse, dispatch, turn known failures into exit codes."""

from __future__ import annotations

from collections.abc import Sequence

from rally_keystone_perf import stop_signals
from rally_keystone_perf.cli.common import EXIT_ERROR, EXIT_INTERRUPTED, echo
from rally_keystone_perf.cli.parser import build_parser
from rally_keystone_perf.deploy import extras
from rally_keystone_perf.deploy.options import LaunchError
from rally_keystone_perf.report.readers.rally_json import ReportError
from rally_keystone_perf.run.capacity import CapacityError
from rally_keystone_perf.run.matrix import MatrixError
from rally_keystone_perf.run.rally_runner import RallyError
from rally_keystone_perf.tasks.model import TaskFileError


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: parse, dispatch, turn known failures into one-line errors."""
    args = build_parser().parse_args(argv)
    stop_signals.install()  # SIGTERM, SIGHUP: as Ctrl-C, exit 128 + signal
    starts_local = getattr(args, "starts_local", None)
    try:
        if starts_local is not None and starts_local(args):
            extras.require_local()  # before anything starts
        return stop_signals.exit_code(int(args.func(args)))
    except (
        CapacityError,
        LaunchError,
        MatrixError,
        RallyError,
        TaskFileError,
        ReportError,
        ValueError,
    ) as exc:
        echo(f"error: {exc}")
        return EXIT_ERROR
    except KeyboardInterrupt:
        echo("interrupted")
        return stop_signals.exit_code(EXIT_INTERRUPTED)
