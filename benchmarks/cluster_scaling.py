"""Seed 001's throughput against nodes, on one machine: growth, then a plateau.

Seed 001 put 1, 2, 3 and 4 Apache Keystone hosts behind haproxy on one SQL
server and measured token_authenticate and revocation_list_get per second
(57, 105, 140, 140 tokens/s): the curve stopped growing at 3 hosts, which the
seed blamed on the database. Here every node is a network namespace held to
``--node-cpus`` (0.25 CPU: four nodes fit a 2-core machine beside the load
generator) and the database to ``--db-cpus``; the same task files
(``tasks/<mode>/*-throughput-c8-<size>.json``: token creations and
revocation listings per second at concurrency 8) run at each node count
through ``rally-keystone-perf matrix --nodes``, which prints the scaling
table: tokens/s and listings/s per node count, the token median and p95,
the tier that saturated, and seed 001's figures beside them.

Each workload runs ``--duration`` seconds (default 60; seed 001 ran 20 s):
at 0.25 CPU a node takes seconds per token (bcrypt, Keystone's default
password hash, is much of a token's CPU), so a 5 s load would be all
ramp-up and ramp-down. The task files are the bundled full ones with that
duration, written to the runs folder.

``--db-cpus auto`` (the default) first measures, on one node with an
unbounded database, the database's CPU per token, and holds the database to
what 2.5 nodes' token rate needs: it should bind at 3 nodes. A fernet token
costs the database far less than seed 001's PKI tokens did (they were
written to a token table; fernet tokens are not stored), so without a quota
the database never binds on this machine.

Usage: python -m benchmarks.cluster_scaling [--nodes 1,2,3,4]
[--node-cpus 0.25] [--db-cpus auto|C] [--duration 60] [--mode uwsgi]
[--runs-dir DIR]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from benchmarks.harness import echo, keystone
from rally_keystone_perf import cli, paths
from rally_keystone_perf.deploy import modes
from rally_keystone_perf.deploy.options import LaunchOptions
from rally_keystone_perf.report.figures import server_view, stats
from rally_keystone_perf.report.readers import rally_json

BIND_AT = 2.5  # nodes' worth of token rate the database's quota serves
MIN_DB_CPUS = 0.02  # below this a CFS quota stalls the database most of a period
TASKS = "*-throughput-c8"  # seed 001's pair: create-token, list-revocation-events


def write_tasks(mode: str, duration: int, folder: Path) -> Path:
    """The bundled full throughput task files of ``mode``, ``duration`` s each,
    in ``folder/<mode>/`` (a tasks folder for ``matrix --tasks-dir``)."""
    (folder / mode).mkdir(parents=True, exist_ok=True)
    for path in sorted((paths.tasks_dir() / mode).glob(f"{TASKS}-full.json")):
        task = json.loads(path.read_text())
        for subtask in task["subtasks"]:
            for workload in subtask["workloads"]:
                workload["runner"]["constant_for_duration"]["duration"] = duration
        task["description"] += f" (benchmarks.cluster_scaling: {duration} s)"
        (folder / mode / path.name).write_text(json.dumps(task, indent=2) + "\n")
    return folder


def calibrate(mode: str, node_cpus: float, tasks: Path, runs: Path) -> float:
    """The database quota that 2.5 nodes' token rate needs (CPUs).

    The database's and the node's CPU are the sampler's, inside the load
    window only (the report's tiers): not Rally's setup or the idle seconds.
    """
    options = LaunchOptions(
        mode=mode, db="mysql", node_cpus=node_cpus, user_pool=(1, 8)
    )
    task = tasks / mode / "create-token-throughput-c8-full.json"
    with keystone(options, runs) as bench:
        outcome = bench.rally.start_task(task)
    if outcome.report is None:
        raise SystemExit(f"{task} produced no report")
    (workload,) = rally_json.load_report(outcome.report)
    tokens = sum(1 for it in workload.iterations if not it.error)
    rate = stats.throughput(workload) or 0.0
    if not tokens:
        raise SystemExit("calibration: no token was made")
    db_used, node_used = _tier_cpu(outcome.report, workload)
    per_token = db_used / tokens
    quota = max(MIN_DB_CPUS, round(BIND_AT * rate * per_token, 3))
    echo(
        f"calibration, 1 node at {node_cpus:g} CPU, database unbounded: "
        f"{rate:.2f} tokens/s, database {1000 * per_token:.2f} ms CPU per "
        f"token, node {1000 * node_used / tokens:.1f} ms CPU per token "
        f"(inside the load window); database quota {quota:g} CPU "
        f"({BIND_AT:g} nodes' token rate)"
    )
    return quota


def _tier_cpu(report: Path, workload: rally_json.Workload) -> tuple[float, float]:
    """CPU seconds of the database and of the node inside the load window."""
    view = server_view.server_view(report, [workload])
    tiers = None if view is None else view.workloads[0].cluster
    if tiers is None or tiers.database is None or not tiers.nodes:
        raise SystemExit("calibration: the run has no samples of its tiers")
    database, node = tiers.database.usage, tiers.nodes[0].usage
    if database is None or node is None:
        raise SystemExit("calibration: no tier sample inside the load window")
    return database.cpu_seconds, node.cpu_seconds


def main(argv: list[str] | None = None) -> int:
    """Calibrate the database's quota, then the matrix over node counts."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", default="1,2,3,4", help="node counts")
    parser.add_argument("--node-cpus", type=float, default=0.25)
    parser.add_argument(
        "--db-cpus", default="auto", help="the database's quota, or auto"
    )
    parser.add_argument("--duration", type=int, default=60, help="load seconds")
    parser.add_argument("--mode", default="uwsgi", choices=modes.CLUSTER_MODES)
    parser.add_argument("--runs-dir", type=Path, default=Path("runs"))
    args = parser.parse_args(argv)
    runs = args.runs_dir
    tasks = write_tasks(args.mode, args.duration, runs / "cluster-scaling-tasks")
    db_cpus = args.db_cpus
    if db_cpus == "auto":
        quota = calibrate(args.mode, args.node_cpus, tasks, runs)
        db_cpus = f"{quota:g}"
    matrix = [
        "matrix",
        *("--modes", args.mode, "--nodes", args.nodes, "--tasks", TASKS),
        *("--tasks-dir", str(tasks), "--size", "full"),
        *("--node-cpus", f"{args.node_cpus:g}"),
        *("--db-cpus", db_cpus, "--db", "mysql", "--restart"),
        *("--runs-dir", str(runs), "--matrix-dir", str(runs / "cluster-scaling")),
    ]
    echo("rally-keystone-perf " + " ".join(matrix))
    return cli.main(matrix)


if __name__ == "__main__":
    raise SystemExit(main())
