"""``tasks --from-log LOG``: a mix task from an operator's access log.

The log is read (:mod:`rally_keystone_perf.report.readers.request_log`),
its requests mapped to the mix's operations
(:mod:`rally_keystone_perf.report.figures.traffic_mix`), and the task
written (:mod:`rally_keystone_perf.tasks.mix_task`): the operations'
weights and the busiest minute's rate (times ``--scale``) as an open-model
runner. What was recognised, and what was not, is said on stderr.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rally_keystone_perf.cli.common import EXIT_OK, echo
from rally_keystone_perf.report.figures import traffic_mix
from rally_keystone_perf.report.readers import request_log
from rally_keystone_perf.tasks import mix_task

DURATION = 60.0  # seconds of load in the task


def add_options(parser: Any, action: Any) -> None:
    """The options of ``tasks --from-log`` (``action``: the command's
    mutually exclusive group)."""
    action.add_argument(
        "--from-log",
        type=Path,
        metavar="LOG",
        help="write a KeystonePerf.mix task from a Keystone access log",
    )
    parser.add_argument(
        "--log-format",
        choices=[request_log.AUTO, *request_log.FORMATS],
        default=request_log.AUTO,
        help="the log's format (default: told by its lines)",
    )
    parser.add_argument(
        "--auth",
        choices=traffic_mix.AUTH_OPERATIONS,
        default="create_token",
        help="what a POST /v3/auth/tokens of the log is (default: a password "
        "login, project-scoped)",
    )
    parser.add_argument(
        "--scale",
        type=float,
        default=1.0,
        help="multiply the busiest minute's rate (default: 1)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="the task file to write (default: stdout)",
    )


def _contexts(weights: dict[str, int]) -> dict[str, Any]:
    """The contexts the weights need beyond the users' (the mix's NEEDS)."""
    from rally_keystone_perf.plugins.scenarios import mix  # costly: all of rally

    needed = {mix.NEEDS[name] for name in weights if name in mix.NEEDS}
    return {name: {} for name in sorted(needed)}


def _said(found: request_log.RequestLog, mix: traffic_mix.TrafficMix) -> None:
    """What was recognised: the format, each operation, the unmapped routes."""
    echo(
        f"{found.fmt} log: {mix.requests} requests ({found.other_lines} other "
        f"lines); {mix.mapped} map to {sum(mix.operations.values())} operations"
    )
    for name, count in mix.operations.items():
        echo(f"  {name}: {count}")
    for name, count in mix.unmapped.items():
        echo(f"  unmapped: {name}: {count}")


def cmd_from_log(args: argparse.Namespace) -> int:
    """Write the mix task of ``args.from_log`` (see the module's doc).

    :raises ValueError: a scale not above 0, or a log of no mapped request.
    :raises ReportError: the log cannot be read or is in no known format.
    """
    if not args.scale > 0:
        raise ValueError(f"--scale: {args.scale:g} is not above 0")
    found = request_log.read_log(args.from_log, args.log_format)
    mix = traffic_mix.traffic_mix(found.requests, args.auth)
    _said(found, mix)
    rate = mix.rate * args.scale
    echo(f"rate: {mix.rate:.3g} operations/s in the busiest minute x {args.scale:g}")
    description = (
        f"A mix of {sum(mix.operations.values())} operations from a "
        f"{found.fmt} access log; the busiest minute's rate x {args.scale:g}. "
        "Written by rally-keystone-perf tasks --from-log."
    )
    task = mix_task.mix_task(
        mix.operations, rate, DURATION, _contexts(mix.operations), description
    )
    mix_task.checked(args.out or Path("<stdout>"), task)
    text = json.dumps(task, indent=2) + "\n"
    if args.out is None:
        print(text, end="")
    else:
        args.out.write_text(text, encoding="utf-8")
        echo(f"written: {args.out}")
    return EXIT_OK
