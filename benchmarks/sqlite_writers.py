"""What SQLite's writers waiting their turn costs: stock BEGIN against IMMEDIATE.

Starts two Keystones on the embedded default (uwsgi, 2 processes, SQLite,
Keystone's stock cache): *before*, with oslo.db's stock deferred ``BEGIN``
for every transaction (``KEYSTONE_PERF_SQLITE_BEGIN=deferred`` in its
environment), and *after*, where a writer's transaction begins ``BEGIN
IMMEDIATE`` and waits its turn
(:mod:`rally_keystone_perf.deploy.keystone.sqlite_writers`). Each runs
``create_token``, ``validate_token``, ``list_projects`` and
``create_delete_user`` at ``--concurrency`` in ``--rounds`` rounds, the two
Keystones taking turns (before, after, before, ...): this machine's speed
drifts by tens of percent over minutes, and turns spread the drift over
both instead of handing it to whichever ran last.

Prints per scenario and Keystone the iterations, the failed ones, the
median and p95 of every round's iterations together, then the ratio of the
medians (after over before) with ``compare``'s two-sided Mann-Whitney test
and verdict. The reads should not move (the target: within 3%); the writes
should stop failing.

Usage: python -m benchmarks.sqlite_writers [--times 200] [--rounds 4]
[--concurrency 4] [--runs-dir DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from prettytable import PrettyTable

from benchmarks.harness import Bench, echo, keystone
from rally_keystone_perf import metrics
from rally_keystone_perf.deploy.keystone import sqlite_writers
from rally_keystone_perf.deploy.options import LaunchOptions
from rally_keystone_perf.report.figures import compare, stats, verdicts
from rally_keystone_perf.report.readers import rally_json

KEYSTONES = ("before", "after")  # oslo.db's deferred BEGIN; BEGIN IMMEDIATE
USERS = {"users": {"tenants": 2, "users_per_tenant": 2}}
SCENARIOS = {  # scenario -> its contexts
    "KeystonePerf.create_token": USERS,
    "KeystonePerf.validate_token": {**USERS, "keystone_perf_tokens": {}},
    "KeystonePerf.list_projects": USERS,
    "KeystonePerf.create_delete_user": USERS,
}
READ_TARGET = 0.03  # the reads' medians within 3% of before


@dataclass
class Measured:
    """One scenario's rounds on one Keystone."""

    workloads: list[rally_json.Workload] = field(default_factory=list)

    def durations(self) -> list[float]:
        """Every round's iteration durations (the report's ``total``)."""
        samples = (stats.action_samples(w)[metrics.TOTAL] for w in self.workloads)
        return [d for points in samples for d in points]

    def iterations(self) -> int:
        return sum(len(w.iterations) for w in self.workloads)

    def failures(self) -> int:
        return sum(1 for w in self.workloads for i in w.iterations if i.error)


@contextlib.contextmanager
def _keystone(label: str, runs: Path | None) -> Iterator[Bench]:
    """The default Keystone; *before* told to keep oslo.db's stock BEGIN."""
    mode = "deferred" if label == "before" else "immediate"
    os.environ[sqlite_writers.MODE_ENV] = mode  # inherited by uwsgi's workers
    try:
        # users from a pool made before Keystone starts: no setup writes that
        # the stock Keystone could fail
        with keystone(LaunchOptions(user_pool=(2, 2)), runs) as bench:
            os.environ.pop(sqlite_writers.MODE_ENV)
            yield bench
    finally:
        os.environ.pop(sqlite_writers.MODE_ENV, None)


def _workloads(times: int, concurrency: int) -> list[dict]:
    return [
        {
            "scenario": {name: {}},
            "runner": {"constant": {"times": times, "concurrency": concurrency}},
            "contexts": contexts,
        }
        for name, contexts in SCENARIOS.items()
    ]


def run_rounds(
    benches: dict[str, Bench], times: int, rounds: int, concurrency: int
) -> dict[tuple[str, str], Measured]:
    """Every scenario's ``times`` iterations per Keystone, in turns."""
    found: dict[tuple[str, str], Measured] = {}
    for round_no in range(1, rounds + 1):
        share = times // rounds + (round_no <= times % rounds)
        for label in KEYSTONES:
            echo(f"round {round_no}: {label}, {share} iterations per scenario")
            name = f"sqlite-{label}-r{round_no}"
            for workload in benches[label].start_task(
                name, _workloads(share, concurrency)
            ):
                key = (workload.scenario_name, label)
                found.setdefault(key, Measured()).workloads.append(workload)
    return found


def _ms(values: list[float], fraction: float) -> str:
    value = metrics.percentile(sorted(values), fraction)
    return "n/a" if value is None else f"{value * 1000:.1f}"


def figures(found: dict[tuple[str, str], Measured]) -> PrettyTable:
    """Per scenario and Keystone: iterations, failed, median and p95."""
    table = PrettyTable(
        ["scenario", "keystone", "iterations", "failed", "median ms", "p95 ms"]
    )
    for (scenario, label), measured in found.items():
        durations = measured.durations()
        table.add_row(
            [
                scenario.split(".")[-1],
                label,
                measured.iterations(),
                measured.failures(),
                _ms(durations, 0.5),
                _ms(durations, 0.95),
            ]
        )
    return table


def ratios(found: dict[tuple[str, str], Measured]) -> PrettyTable:
    """After over before: the ratio of medians, the test and its verdict."""
    table = PrettyTable(["scenario", "median after/before", "p-value", "verdict"])
    for scenario in SCENARIOS:
        before = found[(scenario, "before")].durations()
        after = found[(scenario, "after")].durations()
        said = compare.mann_whitney(before, after)
        p_value = said.estimate.p_value if said.estimate else None
        verdict = verdicts.describe(said, "")
        ratio = statistics.median(after) / statistics.median(before)
        table.add_row(
            [
                scenario.split(".")[-1],
                f"{ratio:.3f}",
                "n/a" if p_value is None else f"{p_value:.3g}",
                verdict,
            ]
        )
    return table


def main(argv: list[str] | None = None) -> int:
    """Both Keystones, the rounds in turns; print the figures and the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--times", type=int, default=200, help="per scenario")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--runs-dir", type=Path, default=None)
    args = parser.parse_args(argv)
    if not 1 <= args.rounds <= args.times:
        parser.error("--rounds must be between 1 and --times")
    with contextlib.ExitStack() as stack:
        benches = {
            label: stack.enter_context(_keystone(label, args.runs_dir))
            for label in KEYSTONES
        }
        found = run_rounds(benches, args.times, args.rounds, args.concurrency)
    print(figures(found))
    print(f"after over before (reads: within {READ_TARGET:.0%} is the target):")
    print(ratios(found))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
