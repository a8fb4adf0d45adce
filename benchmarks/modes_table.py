"""Reference table: one token-create workload per deployment mode.

Runs ``rally-keystone-perf run`` once per configuration with
``tasks/create-token-c4-100.json``-shaped load (KeystonePerf.create_token,
100 times, concurrency 4) and prints the combined report: one table, the
same columns (mode, profile, processes, threads, cache, db, hash rounds) in
every row. Configurations whose system packages are missing are skipped and
named.

    python -m benchmarks.modes_table [--runs-dir DIR] [--only uwsgi,apache]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.harness import echo
from rally_keystone_perf import cli
from rally_keystone_perf.cli import common
from rally_keystone_perf.deploy import preflight
from rally_keystone_perf.deploy.options import LaunchError, resolve
from rally_keystone_perf.layout.rundir import RunDir

# (label, run options): a single process first, the baseline of the others
CONFIGS: list[tuple[str, list[str]]] = [
    ("uwsgi-p1", ["--mode", "uwsgi", "--processes", "1"]),
    ("uwsgi", ["--mode", "uwsgi"]),
    ("nginx-uwsgi", ["--mode", "nginx-uwsgi"]),
    ("apache", ["--mode", "apache"]),
    ("eventlet", ["--mode", "eventlet"]),
    ("uwsgi-memcached", ["--mode", "uwsgi", "--cache", "memcached"]),
    ("uwsgi-mysql", ["--mode", "uwsgi", "--db", "mysql"]),
    (
        "uwsgi-mysql-memcached",
        ["--mode", "uwsgi", "--db", "mysql", "--cache", "memcached"],
    ),
]
WORKLOAD = {
    "scenario": {"KeystonePerf.create_token": {}},
    "runner": {"constant": {"times": 100, "concurrency": 4}},
    "contexts": {"users": {"tenants": 2, "users_per_tenant": 2}},
    "sla": {"failure_rate": {"max": 0}},
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--runs-dir", type=Path, default=Path("/tmp/keystone-perf-modes")
    )
    parser.add_argument("--only", default="", help="comma-separated config labels")
    parser.add_argument("--hash-rounds", default="4", help="password_hash_rounds")
    args = parser.parse_args()
    only = {name for name in args.only.split(",") if name}
    args.runs_dir.mkdir(parents=True, exist_ok=True)
    task = args.runs_dir / "create-token-c4-100.json"
    task.write_text(
        json.dumps(
            {
                "version": 2,
                "title": "create_token c4 x100",
                "subtasks": [{"title": "create_token", "workloads": [WORKLOAD]}],
            }
        )
    )
    reports: list[str] = []
    for label, options in CONFIGS:
        if only and label not in only:
            continue
        parsed = common.launch_options(cli.build_parser().parse_args(["up", *options]))
        try:
            preflight.check_requirements(preflight.requirements(resolve(parsed)))
        except LaunchError as exc:
            echo(f"skipping {label}: {exc}")
            continue
        runs = args.runs_dir / label
        echo(f"== {label}: rally-keystone-perf run {' '.join(options)}")
        started = time.monotonic()
        code = subprocess.call(
            [
                sys.executable,
                "-m",
                "rally_keystone_perf.cli",
                "run",
                *options,
                "--password-hash-rounds",
                args.hash_rounds,
                "--task",
                str(task),
                "--runs-dir",
                str(runs),
            ],
            stdout=subprocess.DEVNULL,
        )
        state = RunDir((runs / "current").resolve()).state()
        echo(
            f"   exit {code}, started in {state.started_in} s, "
            f"whole run {time.monotonic() - started:.0f} s"
        )
        reports.extend(str(p) for p in (runs / "current" / "results").glob("*.json"))
    if not reports:
        echo("nothing ran")
        return 1
    return cli.main(["report", *reports, "--combined", "--format", "markdown"])


if __name__ == "__main__":
    sys.exit(main())
