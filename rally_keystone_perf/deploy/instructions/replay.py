"""Replay one workload's requests through Keystone's WSGI application.

Run under callgrind by :mod:`.count` (or natively, where the markers do
nothing)::

    python -m rally_keystone_perf.deploy.instructions.replay \\
        --config-file keystone.conf --pool user-pool.json \\
        --admin-secret admin.json --workload WORKLOAD.json \\
        --markers LIB.so --warm-up 20 --segments 3 --iterations 10

Keystone is the servers' own application (:mod:`..wsgi_app`), configured
from the config files, its database SQLite in this process. The recipe's
setup (:mod:`.recipes`) and ``--warm-up`` iterations run uninstrumented;
then each of ``--segments`` segments zeroes the counts, runs
``--iterations`` iterations with collection on only inside Keystone's
application, and dumps its total (labelled ``segment-N``).

With ``--statements FILE`` the replay runs outside valgrind and counts, in
the same segments, the SQL statements Keystone sends
(:class:`.statements.StatementCounter` in place of the markers), written to
``FILE``; with ``--profile FILE``, each Python function's calls and lines
(:class:`.calls.CallProfile`).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rally_keystone_perf.client.keystone_v3 import IdentityClient, PasswordUser
from rally_keystone_perf.deploy.instructions import recipes
from rally_keystone_perf.deploy.instructions.calls import CallProfile
from rally_keystone_perf.deploy.instructions.markers import Markers
from rally_keystone_perf.deploy.instructions.statements import StatementCounter
from rally_keystone_perf.deploy.instructions.wsgi_transport import WsgiTransport

URL = "http://127.0.0.1:5000/v3"  # never connected to: the app is in-process
SEGMENT = "segment-{}"


def pool_users(pool: dict[str, Any], count: int) -> list[PasswordUser]:
    """The first ``count`` users of a user pool, each scoped to its project,
    project by project."""
    users = [
        PasswordUser(
            user["name"],
            pool["password"],
            user_domain_name=pool.get("domain", "Default"),
            project_name=project["name"],
            project_domain_name=pool.get("domain", "Default"),
        )
        for project in pool["tenants"]
        for user in project["users"]
    ]
    return users[: max(count, 1)]


def load_application(config_files: Sequence[str]) -> Any:
    """The servers' WSGI application, configured from ``config_files``."""
    os.environ["OS_KEYSTONE_CONFIG_FILES"] = ";".join(config_files)
    sys.argv[1:] = []  # Keystone's oslo.config parses the command line
    from rally_keystone_perf.deploy import wsgi_app  # costly: all of Keystone

    return wsgi_app.application


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m rally_keystone_perf.deploy.instructions.replay",
        description="Replay a workload's requests through Keystone's WSGI "
        "application in this process, counted by callgrind in segments.",
    )
    parser.add_argument("--config-file", action="append", required=True)
    parser.add_argument("--pool", type=Path, required=True, help="user-pool.json")
    parser.add_argument("--admin-secret", type=Path, required=True)
    parser.add_argument("--workload", type=Path, required=True, help="JSON")
    parser.add_argument("--markers", type=Path, required=True, help="library")
    parser.add_argument("--warm-up", type=int, default=20)
    parser.add_argument("--segments", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=10)
    native = parser.add_mutually_exclusive_group()
    native.add_argument(
        "--statements",
        type=Path,
        help="count SQL statements into this JSON file (run outside valgrind)",
    )
    native.add_argument(
        "--profile",
        type=Path,
        help="count each Python function's calls and lines into this JSON "
        "file (run outside valgrind)",
    )
    return parser.parse_args(argv)


Counter = Markers | StatementCounter | CallProfile


def _counter(args: argparse.Namespace) -> Counter:
    """Callgrind's markers; with ``--statements`` the statements' counter,
    listening before Keystone makes its engine; with ``--profile`` the
    functions' profile."""
    if args.profile is not None:
        return CallProfile()
    if args.statements is None:
        return Markers(args.markers)
    counter = StatementCounter()
    counter.install()
    return counter


def _write(markers: Counter, args: argparse.Namespace) -> None:
    """A native replay's counts into their file."""
    if isinstance(markers, StatementCounter):
        markers.write(args.statements)
    elif isinstance(markers, CallProfile):
        markers.write(args.profile, args.segments * args.iterations)


def main(argv: Sequence[str] | None = None) -> int:
    """Set up, warm up, count each segment; 1 when a request fails."""
    args = _arguments(argv)
    workload = json.loads(args.workload.read_text())
    markers = _counter(args)
    app = load_application(args.config_file)
    counted = WsgiTransport(app, before=markers.toggle, after=markers.toggle)
    pool = json.loads(args.pool.read_text())
    secret = json.loads(args.admin_secret.read_text())
    size = workload.get("users", 1)
    clients = recipes.Clients(
        counted=IdentityClient(counted, URL),
        setup=IdentityClient(WsgiTransport(app), URL),
        admin=PasswordUser(
            secret["username"], secret["password"], project_name="admin"
        ),
        users=pool_users(pool, size),
    )
    try:
        step = recipes.recipe(workload["scenario"])(
            clients, workload.get("args", {}), workload.get("contexts", {})
        )
        number = 0
        for number in range(args.warm_up):
            step(number)
        gc.collect()  # the setup's garbage, not the first segment's
        gc.freeze()  # what lives now stays out of every later collection
        markers.start()
        for segment in range(1, args.segments + 1):
            markers.zero()
            for _ in range(args.iterations):
                number += 1
                step(number)
            markers.dump(SEGMENT.format(segment))
        _write(markers, args)
    except Exception as exc:  # a failed request: say which, exit 1
        print(f"replay failed: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
