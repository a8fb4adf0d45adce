"""Rally's runner and Locust's workers on the same task and the same Keystone.

Starts one local Keystone (uwsgi, 2 processes, memcached: the cached server
of the load ceiling, where the client's cost shows), then runs
``KeystonePerf.list_projects`` at each concurrency with each engine: Rally's
``constant`` runner, and Locust with 1 and with 2 local workers. Each engine
runs ``--times`` iterations in ``--rounds`` rounds, the engines taking turns
(Rally, Locust 1, Locust 2, Rally, ...): this machine's speed drifts by tens
of percent over minutes, and turns spread the drift over every engine
instead of handing it to whichever ran last.

The client CPU per iteration is the one the report prints (``client
CPU``): the CPU Rally's process and everything it started (its runner
processes, Locust's master and workers, with the children they waited for)
spent inside each round's load window, sampled every half second into
``logs/resources-client.csv``, over the iterations; the server's beside it,
sampled the same way. Prints per engine the iterations/s, the median and
p95 of every round's iterations together and those CPU figures, then per
concurrency each Locust engine against Rally's runner: the ratio of
medians and the two-sided Mann-Whitney U test ``compare`` runs, on the
rounds' iterations together, and the ratio of the server's own medians
(uwsgi's access log, inside the same windows; the figures' ``gap`` is the
iterations' median minus the server's: what the engine, the client and the
network add). At a low concurrency the
engines should agree ("not significant"); where they do not, the server
ratio says whether the server itself ran slower under one engine (its
client's CPU competing for the same 2 cores) or the engines measure
differently. At 10 the client's CPU competes with the server's.

``--pin`` puts the server's processes (every service of the run: uwsgi,
memcached) on the first CPU and this benchmark, Rally and every process
they start on the others: the client then cannot take the server's CPU, and
what is left of a difference between the engines is in what they measure.

Usage: python -m benchmarks.engines [--concurrency 2,10] [--times 800]
[--rounds 4] [--pin] [--mode uwsgi] [--cache memcached]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
from dataclasses import dataclass, field
from pathlib import Path

import psutil
from prettytable import PrettyTable

from benchmarks.harness import Bench, echo, keystone
from rally_keystone_perf import metrics
from rally_keystone_perf.deploy.options import LaunchOptions
from rally_keystone_perf.loadgen.locust import task as locust_task
from rally_keystone_perf.report.figures import (
    compare,
    server_view,
    stats,
    verdicts,
    windows,
)
from rally_keystone_perf.report.readers import access_log, rally_json
from rally_keystone_perf.report.readers.resources import ResourceUsage
from rally_keystone_perf.tasks.model import TaskFile

WORKERS = (0, 1, 2)  # Rally's runner, Locust with 1 and with 2 workers


@dataclass
class EngineRun:
    """One engine's rounds at one concurrency: their workloads and the CPU
    its client and the server spent inside their load windows."""

    label: str
    concurrency: int
    workers: int  # 0: Rally's runner
    workloads: list[rally_json.Workload] = field(default_factory=list)
    client_cpu: float | None = 0.0  # seconds; None once a round had no sample
    server_cpu: float | None = 0.0
    server_times: list[float] = field(default_factory=list)  # access log, s

    def add(self, report: Path, access: Path) -> None:
        """Take in one round's report, its run folder's CPU samples and the
        server's time of each successful request in its load window."""
        (workload,) = rally_json.load_report(report)
        view = server_view.server_view(report, [workload])
        sides = view.workloads[0] if view else None
        self.workloads.append(workload)
        self.client_cpu = _plus(self.client_cpu, sides.client if sides else None)
        self.server_cpu = _plus(self.server_cpu, sides.resources if sides else None)
        if access.is_file():
            start, end = windows.load_window(workload)
            requests = access_log.within(access_log.read(access), start, end)
            self.server_times += [r.server_time for r in requests if r.ok]

    @property
    def iterations(self) -> int:
        return sum(len(w.iterations) for w in self.workloads)

    def failures(self) -> int:
        return sum(1 for w in self.workloads for i in w.iterations if i.error)

    def load_seconds(self) -> float:
        return sum(w.load_duration or 0.0 for w in self.workloads)

    def rate(self) -> float:
        """Successful iterations per second of load, every round together."""
        seconds = self.load_seconds()
        return (self.iterations - self.failures()) / seconds if seconds else 0.0

    def durations(self) -> list[float]:
        """Every round's iteration durations (the report's ``total`` samples)."""
        return [
            d for w in self.workloads for d in stats.action_samples(w)[metrics.TOTAL]
        ]

    def client_ms(self) -> float | None:
        """Client CPU milliseconds per iteration (None: not sampled)."""
        return _per_iteration_ms(self.client_cpu, self.iterations)

    def server_ms(self) -> float | None:
        return _per_iteration_ms(self.server_cpu, self.iterations)


def _plus(total: float | None, usage: ResourceUsage | None) -> float | None:
    if total is None or usage is None:
        return None
    return total + usage.cpu_seconds


def _per_iteration_ms(seconds: float | None, iterations: int) -> float | None:
    if seconds is None or not iterations:
        return None
    return seconds / iterations * 1000


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


def engine_label(workers: int) -> str:
    return f"locust {workers} worker(s)" if workers else "rally"


def run_round(bench: Bench, run: EngineRun, times: int, round_no: int) -> None:
    """One round of ``times`` list_projects iterations on ``run``'s engine."""
    name = f"{run.label}-c{run.concurrency}-r{round_no}"
    for char in " ()":
        name = name.replace(char, "-" if char == " " else "")
    echo(f"{run.label}, c{run.concurrency}, round {round_no}: {times} iterations")
    path = task_file(bench, name, times, run.concurrency)
    run.add(run_task(bench, path, run.workers), bench.run.access_log)


def run_engines(
    bench: Bench, workers: list[int], concurrency: int, times: int, rounds: int
) -> list[EngineRun]:
    """Every engine's ``times`` iterations at ``concurrency``, in ``rounds``
    rounds taken in turns."""
    runs = [EngineRun(engine_label(w), concurrency, w) for w in workers]
    for round_no in range(1, rounds + 1):
        share = times // rounds + (round_no <= times % rounds)
        for run in runs:
            run_round(bench, run, share, round_no)
    return runs


def _ms(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def figures(runs: list[EngineRun]) -> PrettyTable:
    """Per engine: iterations/s, median, p95, client and server CPU per
    iteration, the client's cores busy (every round together)."""
    table = PrettyTable(
        [
            "engine",
            "concurrency",
            "iterations",
            "iterations/s",
            "median ms",
            "p95 ms",
            "server median ms",
            "gap ms",
            "client CPU ms/iteration",
            "client cores busy",
            "server CPU ms/iteration",
        ]
    )
    for run in runs:
        median, p95 = metrics.median_p95(run.durations())
        server, _ = metrics.median_p95(run.server_times)
        seconds = run.load_seconds()
        busy = None
        if run.client_cpu is not None and seconds:
            busy = run.client_cpu / seconds
        table.add_row(
            [
                run.label,
                run.concurrency,
                run.iterations,
                f"{run.rate():.1f}",
                f"{(median or 0.0) * 1000:.1f}",
                f"{(p95 or 0.0) * 1000:.1f}",
                "n/a" if server is None else f"{server * 1000:.1f}",
                _ms(None if server is None else ((median or 0.0) - server) * 1000),
                _ms(run.client_ms()),
                _ms(busy),
                _ms(run.server_ms()),
            ]
        )
    return table


def agreement(runs: list[EngineRun]) -> PrettyTable:
    """Each Locust engine against Rally's runner at the same concurrency:
    ratio of medians, Mann-Whitney p-value and ``compare``'s verdict, and
    the same ratio of the server's own times (access log): when the two
    ratios match, the engines differ by the server they load, not by what
    they measure."""
    table = PrettyTable(
        ["concurrency", "engine", "median ratio", "p-value", "verdict"]
        + ["server median ratio"]
    )
    for base in [r for r in runs if not r.workers]:
        for run in runs:
            if run.workers and run.concurrency == base.concurrency:
                said = compare.mann_whitney(base.durations(), run.durations())
                p_value = said.estimate.p_value if said.estimate else None
                verdict = verdicts.describe(said, "")
                table.add_row(
                    [
                        run.concurrency,
                        run.label,
                        _ratio(run.durations(), base.durations()),
                        "n/a" if p_value is None else f"{p_value:.3g}",
                        verdict,
                        _ratio(run.server_times, base.server_times),
                    ]
                )
    return table


def _ratio(other: list[float], baseline: list[float]) -> str:
    if not other or not baseline:
        return "n/a"
    return f"{statistics.median(other) / statistics.median(baseline):.3f}"


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


def pin(bench: Bench) -> str:
    """The server's trees on CPU 0, this process (and all it will start) on
    the others; what was done, in words."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        raise SystemExit("--pin needs at least 2 CPUs")
    server, client = {cpus[0]}, set(cpus[1:])
    pinned = 0
    for pid in (bench.run.state().services or {}).values():
        try:
            root = psutil.Process(int(pid))
            for proc in [root, *root.children(recursive=True)]:
                for thread in proc.threads():  # memcached's, uwsgi's
                    os.sched_setaffinity(thread.id, server)
                pinned += 1
        except (psutil.Error, OSError) as exc:
            raise SystemExit(f"--pin: cannot pin process {pid}: {exc}") from None
    os.sched_setaffinity(0, client)
    return f"server ({pinned} processes) on CPU {cpus[0]}, client on {sorted(client)}"


def main(argv: list[str] | None = None) -> int:
    """Run every engine on one Keystone; print the figures and the comparison."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--concurrency",
        type=lambda text: [int(c) for c in text.split(",")],
        default=[2, 10],
        help="levels, comma-separated (default: 2,10)",
    )
    parser.add_argument("--times", type=int, default=800, help="per engine")
    parser.add_argument(
        "--rounds", type=int, default=4, help="turns the engines take (default: 4)"
    )
    parser.add_argument(
        "--pin",
        action="store_true",
        help="the server on one CPU, the client on the rest",
    )
    add_server_options(parser)
    parser.add_argument("--runs-dir", type=Path, default=None)
    args = parser.parse_args(argv)
    if not 1 <= args.rounds <= args.times:
        parser.error("--rounds must be between 1 and --times")
    with keystone(server_options(args), args.runs_dir) as bench:
        if args.pin:
            echo(pin(bench))
        runs = [
            run
            for level in args.concurrency
            for run in run_engines(bench, list(WORKERS), level, args.times, args.rounds)
        ]
    print(figures(runs))
    print("agreement with Rally's runner (every round's iterations together):")
    print(agreement(runs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
