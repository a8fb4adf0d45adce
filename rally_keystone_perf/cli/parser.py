"""The argument parser: every subcommand and its own options.

Usage errors exit 1 (:class:`Parser`), so that 2 always means an SLA or the
gate failed.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any, NoReturn

from rally_keystone_perf.cli import (
    ab_commands,
    bisect_commands,
    capacity_commands,
    deploy_commands,
    engine_options,
    release_commands,
    report_commands,
    run_commands,
    study_commands,
)
from rally_keystone_perf.cli.common import EXIT_ERROR

# every subcommand, registered one way: its module's add_*_command(sub),
# in the order --help lists them
COMMANDS: tuple[Callable[[Any], None], ...] = (
    deploy_commands.add_up_command,
    deploy_commands.add_down_status_commands,
    run_commands.add_run_command,
    run_commands.add_matrix_command,
    report_commands.add_report_command,
    report_commands.add_compare_command,
    report_commands.add_gate_command,
    run_commands.add_tasks_command,
    study_commands.add_study_command,
    release_commands.add_releases_command,
    ab_commands.add_ab_command,
    capacity_commands.add_capacity_command,
    bisect_commands.add_bisect_command,
    engine_options.add_worker_command,
)


class Parser(argparse.ArgumentParser):
    """argparse with usage errors exiting 1, so that 2 always means "failed"."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_ERROR, f"{self.prog}: error: {message}\n")


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

    for add in COMMANDS:
        add(sub)
    return parser
