"""Rally's runner and Locust's workers on the same task and the same Keystone.

Starts one local Keystone (uwsgi, 2 processes, memcached: the cached server
of the load ceiling, where the client's cost shows), then runs
``KeystonePerf.list_projects`` at each concurrency with each engine: Rally's
``constant`` runner, and Locust with 1 and with 2 local workers, ``--times``
iterations each. The client CPU per iteration is the one the report prints
(``client CPU``): the CPU Rally's process and everything it started (its
runner processes, Locust's master and workers, with the children they
waited for) spent inside the workload's load window, sampled every half
second into ``logs/resources-client.csv``, over the iterations; the server's
CPU per iteration beside it, sampled the same way. Prints per engine the
iterations/s, the median and p95 and those CPU figures, then per
concurrency ``compare``'s table (Rally's the baseline): at a low
concurrency, where the machine has CPU to spare, the engines must agree
("not significant"); at 10 the client's CPU competes with the server's on
2 cores.

Usage: python -m benchmarks.engines [--concurrency 2,10] [--times 800]
[--mode uwsgi] [--cache memcached]
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from prettytable import PrettyTable

from benchmarks.common import Bench, echo, keystone
from rally_keystone_perf.deploy.options import LaunchOptions
from rally_keystone_perf.report import api, load, server_view, stats
from rally_keystone_perf.report.resources import ResourceUsage
from rally_keystone_perf.run.locust import task as locust_task
from rally_keystone_perf.tasks.model import TaskFile

WORKERS = (0, 1, 2)  # Rally's runner, Locust with 1 and with 2 workers


@dataclass(frozen=True)
class EngineRun:
    """One engine's run: its report and what its client and server spent."""

    label: str
    concurrency: int
    report: Path
    workload: load.Workload
    client: ResourceUsage | None  # the load generator, in the load window
    server: ResourceUsage | None

    def client_ms(self) -> float | None:
        """Client CPU milliseconds per iteration (None: not sampled)."""
        usage = self.client
        if usage is None or usage.cpu_per_iteration is None:
            return None
        return usage.cpu_per_iteration * 1000


def task_file(bench: Bench, name: str, times: int, concurrency: int) -> Path:
    """A list_projects task of ``times`` iterations in the run folder."""
    workload = {
        "scenario": {"KeystonePerf.list_projects": {}},
        "runner": {"constant": {"times": times, "concurrency": concurrency}},
        "contexts": {"keystone_perf_tokens": {}},
    }
    task = {
        "version": 2,
        "title": name,
        "subtasks": [{"title": name, "workloads": [workload]}],
    }
    path = bench.run.root / f"{name}.json"
    path.write_text(json.dumps(task, indent=2))
    return path


def run_task(bench: Bench, path: Path, workers: int) -> Path:
    """Run ``path`` with Rally (``workers`` 0) or Locust; its report."""
    if workers:
        options = locust_task.LocustOptions(workers=workers)
        path = locust_task.task_to_run(TaskFile.load(path), options, bench.run.root)
    outcome = bench.rally.start_task(path)
    if outcome.report is None or locust_task.engine_failures(bench.run.results):
        raise SystemExit(f"{path.name}: the run failed (see {bench.run.logs})")
    return outcome.report


def run_engine(bench: Bench, workers: int, concurrency: int, times: int) -> EngineRun:
    """One engine's run of ``times`` list_projects iterations, with the CPU
    its client and the server spent in the load window.

    ``workers`` 0 is Rally's runner; N, Locust with N local workers.
    """
    label = f"locust {workers} worker(s)" if workers else "rally"
    name = (
        label.replace(" ", "-").replace("(", "").replace(")", "") + f"-c{concurrency}"
    )
    echo(f"{label}, c{concurrency}: {times} iterations")
    report = run_task(bench, task_file(bench, name, times, concurrency), workers)
    workloads = load.load_report(report)
    view = server_view.server_view(report, workloads)
    sides = view.workloads[0] if view else None
    return EngineRun(
        label,
        concurrency,
        report,
        workloads[0],
        sides.client if sides else None,
        sides.resources if sides else None,
    )


def _ms(usage: ResourceUsage | None) -> str:
    """CPU milliseconds per iteration, or ``n/a``."""
    if usage is None or usage.cpu_per_iteration is None:
        return "n/a"
    return f"{usage.cpu_per_iteration * 1000:.2f}"


def figures(runs: list[EngineRun]) -> PrettyTable:
    """Per engine: iterations/s, median, p95, client and server CPU per
    iteration, the client's cores busy."""
    table = PrettyTable(
        [
            "engine",
            "concurrency",
            "iterations",
            "iterations/s",
            "median ms",
            "p95 ms",
            "client CPU ms/iteration",
            "client cores busy",
            "server CPU ms/iteration",
        ]
    )
    for run in runs:
        total = stats.total_row(stats.main_stats(run.workload))
        table.add_row(
            [
                run.label,
                run.concurrency,
                total.count,
                f"{stats.throughput(run.workload) or 0.0:.1f}",
                f"{(total.median or 0.0) * 1000:.1f}",
                f"{(total.p95 or 0.0) * 1000:.1f}",
                _ms(run.client),
                "n/a" if run.client is None else f"{run.client.busy_cores or 0:.2f}",
                _ms(run.server),
            ]
        )
    return table


def add_server_options(parser: argparse.ArgumentParser) -> None:
    """The cached Keystone's options (``--mode``, ``--processes``, ``--cache``)."""
    parser.add_argument(
        "--mode",
        default="uwsgi",
        help="deployment mode (default: uwsgi, whose router opens a connection "
        "per request; nginx-uwsgi keeps them alive)",
    )
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--cache", default="memcached")


def server_options(args: argparse.Namespace) -> LaunchOptions:
    """The Keystone those options describe (cheap password hashes)."""
    return LaunchOptions(
        mode=args.mode,
        processes=args.processes,
        cache=args.cache,
        password_hash_rounds=4,
    )


def main(argv: list[str] | None = None) -> int:
    """Run every engine on one Keystone; print the figures and the comparison."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--concurrency",
        type=lambda text: [int(c) for c in text.split(",")],
        default=[2, 10],
        help="levels, comma-separated (default: 2,10)",
    )
    parser.add_argument("--times", type=int, default=800)
    add_server_options(parser)
    parser.add_argument("--runs-dir", type=Path, default=None)
    args = parser.parse_args(argv)
    with keystone(server_options(args), args.runs_dir) as bench:
        runs = [
            run_engine(bench, workers, level, args.times)
            for level in args.concurrency
            for workers in WORKERS
        ]
        print(figures(runs))
        for level in args.concurrency:  # the reports are in the run folder
            print(f"compare at concurrency {level} (baseline: Rally's runner):")
            same = [r.report for r in runs if r.concurrency == level]
            api.compare(same, sys.stdout, "table")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
