"""``--engine``: who sends the load (Rally on this host, or Locust's workers)."""

from __future__ import annotations

import argparse
import os
from typing import Any

from rally_keystone_perf.cli import arguments
from rally_keystone_perf.cli.arguments import at_least, positive
from rally_keystone_perf.loadgen.locust.local_workers import worker_argv
from rally_keystone_perf.loadgen.locust.protocol import parse_address
from rally_keystone_perf.loadgen.locust.task import ENGINES, LocustOptions
from rally_keystone_perf.run import engines

DEFAULT_WEB_UI = "127.0.0.1:8089"


def _address(text: str) -> str:
    try:
        parse_address(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def _hosts(text: str) -> int:
    kind, sep, count = text.partition(":")
    if kind != "netns" or not sep or not count.isdigit() or int(count) < 1:
        raise argparse.ArgumentTypeError(f"expected netns:K (K hosts), got {text!r}")
    return int(count)


def add_engine_options(parser: argparse.ArgumentParser) -> None:
    """``--engine`` and the Locust engine's options."""
    group = parser.add_argument_group(
        "load engine",
        "rally: Rally's runners in this host's processes (the default). "
        "locust: the same task files, scenarios and client on Locust's master "
        "and workers; results in Rally's format all the same",
    )
    group.add_argument(
        "--engine",
        choices=ENGINES,
        default="rally",
        help="what generates the load: rally or locust (default: %(default)s)",
    )
    group.add_argument(
        "--workers",
        type=positive,
        default=None,
        metavar="N",
        help="Locust worker processes on this machine (default: 1)",
    )
    group.add_argument(
        "--worker-hosts",
        type=_hosts,
        default=0,
        metavar="netns:K",
        help="K more workers, each in a network namespace of its own (a host "
        "on 198.18.0.0/15, reaching Keystone over a veth); Keystone then "
        "listens on their bridge's address",
    )
    group.add_argument(
        "--expect-workers",
        type=at_least(0),
        default=0,
        metavar="N",
        help="also wait for N workers started on other hosts; the command "
        "to start one is printed (see --master-bind)",
    )
    group.add_argument(
        "--master-bind",
        default="127.0.0.1",
        metavar="HOST",
        help="address the Locust master listens on for workers (default: "
        "%(default)s; another host's workers need an address they reach)",
    )
    group.add_argument(
        "--web-ui",
        nargs="?",
        const=DEFAULT_WEB_UI,
        type=_address,
        default=None,
        metavar="HOST:PORT",
        help=f"serve Locust's web UI to watch the run live (default address: "
        f"{DEFAULT_WEB_UI})",
    )


def add_worker_command(sub: Any) -> None:
    """``worker``: a Locust worker of a master on another host."""
    worker = arguments.add_command(
        sub,
        "worker",
        cmd_worker,
        "run as a Locust worker of a --engine locust master elsewhere",
    )
    worker.add_argument(
        "--master",
        required=True,
        type=_address,
        metavar="HOST:PORT",
        help="the master's address, as its run prints it",
    )
    worker.set_defaults(func=cmd_worker)


def cmd_worker(args: argparse.Namespace) -> int:
    """Work for a run --engine locust --expect-workers N master: receive
    its workload (scenario, arguments, the users and tokens Rally's contexts
    made), run this host's share of the iterations when it says go, ship
    each iteration's record back; exit when the master ends. Install this
    package on the host first: the command installs nothing."""
    argv = [*worker_argv(args.master)]
    os.execv(argv[0], argv)  # Locust's gevent needs a process of its own
    return 1  # not reached


def locust_options(args: argparse.Namespace) -> LocustOptions | None:
    """The Locust engine's options; None for ``--engine rally``.

    :raises ValueError: Locust options given to the Rally engine.
    """
    if args.engine != "locust":
        given = [
            name
            for name, value in (
                ("--workers", args.workers),
                ("--worker-hosts", args.worker_hosts),
                ("--expect-workers", args.expect_workers),
                ("--web-ui", args.web_ui),
            )
            if value
        ]
        if given:
            raise ValueError(f"{', '.join(given)} need --engine locust")
        return None
    elsewhere = args.expect_workers or args.worker_hosts
    return LocustOptions(
        workers=args.workers or (0 if elsewhere else 1),
        expect_workers=args.expect_workers,
        host_count=args.worker_hosts,
        bind_host=args.master_bind,
        web_ui=args.web_ui,
    )


def engine(args: argparse.Namespace) -> engines.Engine:
    """The engine ``--engine`` names (:mod:`rally_keystone_perf.run.engines`).

    :raises ValueError: Locust options given to the Rally engine.
    """
    return engines.engine_for(locust_options(args))
