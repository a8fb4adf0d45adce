"""Rally's runner and Locust's workers on the same task and the same Keystone.

Starts one local Keystone (uwsgi, 2 processes, memcached: the cached server
of the load ceiling, where the client's cost shows), then runs
``KeystonePerf.list_projects`` at each concurrency with each engine: Rally's
``constant`` runner, and Locust with 1 and with 2 local workers. Each engine
runs the task twice, ``--times`` and ``--times-small`` iterations, so that
the client CPU per iteration is marginal (the generator processes' CPU time,
Rally's process and everything it started, of the big run minus the small
one, over the extra iterations): startup, contexts and the report export
cancel out. Prints per engine the iterations/s, the median and p95, the
client CPU per iteration, then per concurrency ``compare``'s table of the
big runs (Rally's the baseline): at a low concurrency, where the machine has
CPU to spare, the engines must agree ("not significant"); at 10 the
client's CPU competes with the server's on 2 cores.

Usage: python -m benchmarks.engines [--concurrency 2,10] [--times 800]
[--times-small 200] [--mode uwsgi] [--cache memcached]
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
from dataclasses import dataclass
from pathlib import Path

from prettytable import PrettyTable

from benchmarks.common import Bench, echo, keystone
from rally_keystone_perf.deploy.options import LaunchOptions
from rally_keystone_perf.report import api, load, stats
from rally_keystone_perf.run.locust import task as locust_task
from rally_keystone_perf.tasks.model import TaskFile

WORKERS = (0, 1, 2)  # Rally's runner, Locust with 1 and with 2 workers


@dataclass(frozen=True)
class EngineRun:
    """One engine's big run: its report and what its client spent."""

    label: str
    concurrency: int
    report: Path
    workload: load.Workload
    cpu_per_iteration: float  # seconds, marginal


def children_cpu() -> float:
    """CPU seconds of this process's finished children (and theirs)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


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


def timed_run(bench: Bench, path: Path, workers: int) -> tuple[Path, float]:
    """Run ``path`` with Rally (``workers`` 0) or Locust; its report and the
    CPU seconds its client processes spent."""
    if workers:
        options = locust_task.LocustOptions(workers=workers)
        path = locust_task.task_to_run(TaskFile.load(path), options, bench.run.root)
    before = children_cpu()
    outcome = bench.rally.start_task(path)
    spent = children_cpu() - before
    if outcome.report is None or locust_task.engine_failures(bench.run.results):
        raise SystemExit(f"{path.name}: the run failed (see {bench.run.logs})")
    return outcome.report, spent


def run_engine(
    bench: Bench, workers: int, concurrency: int, times: int, times_small: int
) -> EngineRun:
    """The engine's small and big runs; the big one with its marginal CPU.

    ``workers`` 0 is Rally's runner; N, Locust with N local workers.
    """
    label = f"locust {workers} worker(s)" if workers else "rally"
    name = (
        label.replace(" ", "-").replace("(", "").replace(")", "") + f"-c{concurrency}"
    )
    echo(f"{label}, c{concurrency}: {times_small} then {times} iterations")
    small = task_file(bench, f"{name}-small", times_small, concurrency)
    _, small_cpu = timed_run(bench, small, workers)
    big = task_file(bench, name, times, concurrency)
    report, big_cpu = timed_run(bench, big, workers)
    (workload,) = load.load_report(report)
    marginal = (big_cpu - small_cpu) / (times - times_small)
    return EngineRun(label, concurrency, report, workload, marginal)


def figures(runs: list[EngineRun]) -> PrettyTable:
    """Per engine: iterations/s, median, p95, client CPU per iteration."""
    table = PrettyTable(
        [
            "engine",
            "concurrency",
            "iterations",
            "iterations/s",
            "median ms",
            "p95 ms",
            "client CPU ms/iteration",
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
                f"{run.cpu_per_iteration * 1000:.2f}",
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
    parser.add_argument("--times-small", type=int, default=200)
    add_server_options(parser)
    parser.add_argument("--runs-dir", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.times <= args.times_small:
        parser.error("--times must be above --times-small")
    with keystone(server_options(args), args.runs_dir) as bench:
        runs = [
            run_engine(bench, workers, level, args.times, args.times_small)
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
