"""Coordinated omission shown: one stall of Keystone, closed- and open-model.

Starts a local Keystone (uwsgi, its profile's 2 processes, SQLite), then:

1. measures its list_projects throughput: ``constant_for_duration`` at
   concurrency 4 for ``--calibrate`` seconds;
2. runs list_projects for ``--duration`` seconds closed-model
   (``constant_for_duration`` with ``--closed-users`` users, 1 by default:
   2 already saturate the 2-process Keystone here, 12/s against the 11.5
   of 4) and open-model (``keystone_perf_arrival_rate`` at half the
   measured throughput), each with Keystone frozen (SIGSTOP of its
   processes, the ``keystone_perf_fault`` hook) for ``--stall`` seconds in
   the middle. Each model's rate is printed: one user runs at about half
   the throughput too.

Prints per model: the rate reached, the iterations, those that started
(open model: were due) during the freeze and were answered after it (the
open model's are about rate x stall; a closed model's users send nothing
while they wait, their requests sent before the freeze wait through it),
the iterations of a second or more, the p50/p99/max duration (for the
open model, the response time from each intended start). Before the
loads it checks that uwsgi's listen backlog (capped by the kernel's
``net.core.somaxconn``) and
``max_in_flight`` both exceed rate x stall: below it, the kernel's SYN
retries (1 s, then 3 s) or the cap, not the stall, shape the figure; the
check's line says which.

Usage: python -m benchmarks.stall_models [--duration 60] [--stall 2]
[--calibrate 15] [--closed-users 1] [--runs-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from prettytable import PrettyTable

from benchmarks.harness import Bench, echo, keystone
from rally_keystone_perf import metrics
from rally_keystone_perf.deploy.options import LaunchOptions, resolve
from rally_keystone_perf.loadgen import arrivals
from rally_keystone_perf.report.blocks.numbers import format_ms
from rally_keystone_perf.report.readers import rally_json

SCENARIO: dict[str, Any] = {"KeystonePerf.list_projects": {}}
CONTEXTS: dict[str, Any] = {"keystone_perf_tokens": {}}
SOMAXCONN = Path("/proc/sys/net/core/somaxconn")
SLOW = 1.0  # seconds: an iteration this long or longer is counted as slow


def _fault(action: str, at: float) -> dict[str, Any]:
    return {
        "description": f"{action} Keystone",
        "action": {"keystone_perf_fault": {"action": action, "target": "node1"}},
        "trigger": {"event": {"unit": "time", "at": [math.floor(at)]}},
    }


def _workload(runner: dict[str, Any], stall_at: float, stall: float) -> dict:
    return {
        "scenario": SCENARIO,
        "runner": runner,
        "contexts": CONTEXTS,
        "hooks": [_fault("freeze", stall_at), _fault("thaw", stall_at + stall)],
    }


def throughput(bench: Bench, seconds: int) -> float:
    """list_projects iterations a second at concurrency 4."""
    runner = {"constant_for_duration": {"duration": seconds, "concurrency": 4}}
    workload = {"scenario": SCENARIO, "runner": runner, "contexts": CONTEXTS}
    (found,) = bench.start_task("calibrate", [workload])
    return len(found.iterations) / found.load_duration


def check_queues(rate: float, stall: float, backlog: int, cap: int) -> str:
    """Whether the listen queue and the cap hold rate x stall; the line."""
    queued = math.ceil(rate * stall)
    kernel = int(SOMAXCONN.read_text()) if SOMAXCONN.exists() else backlog
    held = min(backlog, kernel)
    verdict = (
        "both hold it"
        if min(held, cap) > queued
        else "TOO SMALL: SYN retries (1 s, 3 s) or the cap shape the figure"
    )
    return (
        f"rate x stall = {queued} requests waiting at most; uwsgi's listen "
        f"backlog {backlog} (somaxconn {kernel}), max_in_flight {cap}: {verdict}"
    )


def stall_window(bench: Bench) -> tuple[float, float]:
    """When the last freeze finished and the thaw after it (epoch s)."""
    log = bench.run.root / "logs" / "faults.jsonl"
    faults = [json.loads(line) for line in log.read_text().splitlines()]
    frozen = [f["finished"] for f in faults if f["action"] == "freeze"][-1]
    thawed = [f["finished"] for f in faults if f["action"] == "thaw"][-1]
    return frozen, thawed


def row(
    label: str, workload: rally_json.Workload, window: tuple[float, float]
) -> list[Any]:
    """One model's figures (times in ms)."""
    frozen, thawed = window
    started = [i for i in workload.iterations if not arrivals.was_dropped(i.error)]
    waited = [
        i
        for i in started
        if frozen <= i.timestamp < thawed and i.timestamp + i.duration > thawed
    ]
    durations = sorted(i.duration for i in started)
    p50, p99 = (metrics.percentile(durations, q) for q in (0.5, 0.99))
    return [
        label,
        f"{len(started) / workload.load_duration:.1f}",
        len(workload.iterations),
        len(workload.iterations) - len(started),
        len(waited),
        sum(d >= SLOW for d in durations),
        format_ms(p50, 0),
        format_ms(p99, 0),
        format_ms(durations[-1] if durations else None, 0),
    ]


def main(argv: list[str] | None = None) -> int:
    """Calibrate, run both models with a stall, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=int, default=60)
    parser.add_argument("--stall", type=float, default=2.0)
    parser.add_argument("--calibrate", type=int, default=15)
    parser.add_argument("--max-in-flight", type=int, default=200)
    parser.add_argument("--closed-users", type=int, default=1)
    parser.add_argument("--runs-dir", type=Path, default=None)
    args = parser.parse_args(argv)
    options = LaunchOptions()
    backlog = resolve(options, echo).settings.listen_backlog
    stall_at = args.duration / 2
    table = PrettyTable(
        [
            "model",
            "rate/s",
            "iterations",
            "dropped",
            "started in the stall, waited",
            f">= {SLOW:g} s",
            "p50 ms",
            "p99 ms",
            "max ms",
        ]
    )
    with keystone(options, args.runs_dir) as bench:
        rate = throughput(bench, args.calibrate) / 2
        echo(f"measured throughput {2 * rate:.1f}/s; open model at {rate:.1f}/s")
        check = check_queues(rate, args.stall, backlog, args.max_in_flight)
        echo(check)
        users = args.closed_users
        closed = {
            "constant_for_duration": {"duration": args.duration, "concurrency": users}
        }
        opened = {
            arrivals.RUNNER: {
                "rate": round(rate, 1),
                "duration": args.duration,
                "max_in_flight": args.max_in_flight,
            }
        }
        for label, runner in ((f"closed, {users} user(s)", closed), ("open", opened)):
            (found,) = bench.start_task(
                label.split(",")[0], [_workload(runner, stall_at, args.stall)]
            )
            table.add_row(row(label, found, stall_window(bench)))
    print(
        f"list_projects, {args.duration} s, Keystone frozen {args.stall:g} s at "
        f"{stall_at:g} s; {check}"
    )
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
