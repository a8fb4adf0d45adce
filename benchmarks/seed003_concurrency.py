"""Seed 003's 1000 connections: the iterations each engine holds in flight.

Seed 003 swept siege from 100 to 1000 concurrent connections against
Keystone behind nginx and uwsgi. Rally's runner was once measured (issue
18, on keystoneauth) with at most 266 of the bundled c1000 task's iterations
in flight: its threads starve next to the server's processes. This benchmark
starts Keystone in seed 003's tuned nginx-uwsgi deployment (deep listen
queues, 4096 nginx connections a worker) with K worker hosts (network
namespaces on a bridge in 198.18.0.0/15), runs the bundled
``list-projects-c1000`` task with Locust's workers, one in each namespace
(and, with ``--rally``, with Rally's runner on the same Keystone), and
prints what each achieved as the report computes it (peak and mean
iterations in flight, :mod:`rally_keystone_perf.report.figures.concurrency`),
iterations/s and failures. Exit 2 when Locust held fewer than ``--target``
in flight (issue 18: 950).

Usage: python -m benchmarks.seed003_concurrency [--size quick] [--hosts 2]
[--rally] [--target 950] [--profile tuned] [--processes N]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from prettytable import PrettyTable

from benchmarks.harness import Bench, echo, keystone
from rally_keystone_perf import paths
from rally_keystone_perf.deploy.options import LaunchOptions
from rally_keystone_perf.loadgen.locust import task as locust_task
from rally_keystone_perf.report.figures import concurrency, stats
from rally_keystone_perf.report.readers import rally_json
from rally_keystone_perf.tasks.model import TaskFile

MODE = "nginx-uwsgi"  # seed 003's: nginx in front of uwsgi


def run_task(bench: Bench, task: Path, hosts: int) -> rally_json.Workload:
    """The task on Rally's runner (``hosts`` 0) or on Locust's workers."""
    if hosts:
        options = locust_task.LocustOptions(workers=0, host_count=hosts)
        options = options.on_hosts(bench.run.state().client_network)
        task = locust_task.task_to_run(TaskFile.load(task), options, bench.run.root)
    outcome = bench.rally.start_task(task)
    problems = locust_task.engine_failures(bench.run.results)
    if outcome.report is None or problems:
        raise SystemExit(f"{task.name}: the run failed: {problems or 'no report'}")
    (workload,) = rally_json.load_report(outcome.report)
    return workload


def row(label: str, workload: rally_json.Workload) -> list[str]:
    """What the engine asked for and reached."""
    reached = concurrency.achieved(workload)
    total = stats.total_row(stats.main_stats(workload))
    failed = total.count - round((total.success or 0) * total.count)
    mean = f"{reached.mean:.0f}" if reached.mean is not None else "-"
    return [
        label,
        str(reached.asked_concurrency),
        str(reached.peak),
        mean,
        str(total.count),
        f"{stats.throughput(workload) or 0.0:.1f}",
        str(failed),
    ]


def main(argv: list[str] | None = None) -> int:
    """Run the c1000 task per engine; print the concurrency each reached."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", choices=("quick", "full"), default="quick")
    parser.add_argument("--hosts", type=int, default=2, help="Locust worker hosts")
    parser.add_argument("--rally", action="store_true", help="also Rally's runner")
    parser.add_argument("--target", type=int, default=950)
    parser.add_argument("--profile", default="tuned")
    parser.add_argument("--processes", type=int, default=None)
    parser.add_argument("--runs-dir", type=Path, default=None)
    args = parser.parse_args(argv)
    task = paths.tasks_dir() / MODE / f"list-projects-c1000-{args.size}.json"
    options = LaunchOptions(
        mode=MODE,
        profile=args.profile,
        processes=args.processes,
        cache="memcached",
        client_hosts=args.hosts,
    )
    table = PrettyTable(
        [
            "engine",
            "asked",
            "peak in flight",
            "mean in flight",
            "iterations",
            "iterations/s",
            "failures",
        ]
    )
    with keystone(options, args.runs_dir) as bench:
        echo(f"locust, {args.hosts} worker hosts: {task.name}")
        locust = run_task(bench, task, args.hosts)
        table.add_row(row(f"locust ({args.hosts} hosts)", locust))
        if args.rally:
            echo(f"rally's runner: {task.name}")
            table.add_row(row("rally", run_task(bench, task, 0)))
    print(f"{task.name} ({MODE}, profile {args.profile})")
    print(table)
    peak = concurrency.achieved(locust).peak
    print(f"locust: {peak} in flight at most (target: at least {args.target})")
    return 0 if peak >= args.target else 2


if __name__ == "__main__":
    raise SystemExit(main())
