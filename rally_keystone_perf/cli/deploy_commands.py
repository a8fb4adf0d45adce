"""``up``, ``down`` and ``status``: a local Keystone left running."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rally_keystone_perf.cli import arguments, launch_arguments
from rally_keystone_perf.cli.common import (
    EXIT_NOT_RUNNING,
    EXIT_OK,
    always_local,
    echo,
    launch_options,
    resolve_run,
)
from rally_keystone_perf.deploy import launcher, orphans, probes, services
from rally_keystone_perf.deploy.options import resolve
from rally_keystone_perf.deploy.user_pool import POOL_ENV
from rally_keystone_perf.report.figures.run_labels import run_config_line
from rally_keystone_perf.tasks import tracing as task_tracing


def cmd_up(args: argparse.Namespace) -> int:
    """Start a local Keystone and leave it running."""
    args.runs_dir.mkdir(parents=True, exist_ok=True)
    deployment = resolve(launch_options(args), echo)
    run = launcher.up(args.runs_dir, deployment, progress=echo)
    orphans.detach(run)  # its servers outlive this command on purpose
    print(f"run folder: {run.root}")
    print(f"auth url:   {run.state().auth_url}")
    print(f"rally env spec (private, holds the admin password): {run.env_spec}")
    if run.user_pool.is_file():
        print(
            "user pool (private; for the keystone_perf_users context): "
            f"export {POOL_ENV}={run.user_pool}"
        )
    contexts = task_tracing.client_contexts(run)
    if contexts:
        print(
            "tracing (--trace; add to your task's contexts, the key file is "
            f"private): {json.dumps(contexts)}"
        )
    print("stop it with: rally-keystone-perf down")
    return EXIT_OK


def cmd_down(args: argparse.Namespace) -> int:
    """Stop the servers of a run folder, and whatever killed runs left.

    Without --run: the current run, then every orphaned run under
    --runs-dir (its command killed, its servers or Rally still running).
    """
    run = None
    if args.run is not None or (args.runs_dir / "current").exists():
        run = resolve_run(args)
        left = services.running(run.state())
        if launcher.stop(run):
            named = f": {', '.join(left)}" if left else ""
            echo(f"stopped the processes of {run.root}{named}")
        else:
            echo(f"no server was running for {run.root}")
    swept = orphans.stop_all(args.runs_dir, launcher.stop, echo) if not args.run else 0
    if run is None and not swept:
        resolve_run(args)  # no run folder at all: say so
    return EXIT_OK


def cmd_status(args: argparse.Namespace) -> int:
    """Say whether a run's server is up, and whether its command still runs."""
    run = resolve_run(args)
    state = run.state()
    running = launcher.is_running(run)
    health = probes.probe(str(state.auth_url)) if running else None
    print(f"run folder: {run.root}")
    print(f"config:     {run_config_line(state)}")
    print(f"auth url:   {state.auth_url}")
    print(
        f"server:     {'running' if running else 'not running'}"
        + (f" (pid {state.server_pid}, GET /v3 -> {health})" if running else "")
    )
    driver = state.driver_pid
    orphan = orphans.describe(state)
    if orphan is not None:
        print(f"driver:     {orphan}")
    elif driver:
        print(f"driver:     pid {driver} (running)")
    left = services.running(state)
    if left:
        print(f"processes:  {', '.join(left)}")
    return EXIT_OK if running else EXIT_NOT_RUNNING


def add_up_command(sub: Any) -> None:
    """``up``: start and leave running."""
    up = arguments.add_command(
        sub, "up", cmd_up, "start a local Keystone and leave it running"
    )
    launch_arguments.add_launch_options(up)
    arguments.add_runs_dir(up)
    up.set_defaults(func=cmd_up, starts_local=always_local)


def add_down_status_commands(sub: Any) -> None:
    """``down`` and ``status`` of a run folder."""
    for name, func in (
        ("down", cmd_down),
        ("status", cmd_status),
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
