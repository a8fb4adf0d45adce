"""Shared setup of the benchmarks: a real local Keystone and a Rally runner."""

from __future__ import annotations

import collections
import contextlib
import json
import statistics
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from rally_keystone_perf.deploy.options import LaunchOptions, resolve
from rally_keystone_perf.layout.rundir import RunDir
from rally_keystone_perf.report.figures import windows
from rally_keystone_perf.report.readers import access_log, rally_json
from rally_keystone_perf.run import rally_runner
from rally_keystone_perf.run.session import keystone_session


def echo(message: str) -> None:
    """Progress to stderr, figures to stdout."""
    print(message, file=sys.stderr, flush=True)


@dataclass
class Bench:
    """A running Keystone with a Rally environment."""

    run: RunDir
    rally: rally_runner.RallyRunner

    def start_task(self, name: str, workloads: list[dict]) -> list[rally_json.Workload]:
        """Run workloads (one subtask each) and return Rally's loaded results."""
        task = {
            "version": 2,
            "title": name,
            "subtasks": [
                {"title": next(iter(w["scenario"])), "workloads": [w]}
                for w in workloads
            ],
        }
        path = self.run.root / f"{name}.json"
        path.write_text(json.dumps(task, indent=2))
        outcome = self.rally.start_task(path)
        if outcome.report is None:
            raise SystemExit(f"rally task {name} produced no report")
        return rally_json.load_report(outcome.report)

    def server_requests(
        self, workload: rally_json.Workload
    ) -> list[access_log.ServerRequest]:
        """The requests the server received inside the workload's load window."""
        start, end = windows.load_window(workload)
        return access_log.within(access_log.read(self.run.access_log), start, end)


@contextlib.contextmanager
def keystone(options: LaunchOptions, runs: Path | None) -> Iterator[Bench]:
    """Start a local Keystone (stopped on exit) and prepare Rally for it."""
    with contextlib.ExitStack() as stack:
        if runs is None:
            runs = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        run, runner = stack.enter_context(
            keystone_session(runs, resolve(options, echo), echo)
        )
        yield Bench(run, runner)


def atomic_durations(workload: rally_json.Workload) -> dict[str, list[float]]:
    """Seconds of every successful atomic action of the workload, by name."""
    durations: dict[str, list[float]] = collections.defaultdict(list)
    for iteration in workload.iterations:
        for action in iteration.atomic_actions:
            if action.get("finished_at") and not action.get("failed"):
                durations[action["name"]].append(
                    action["finished_at"] - action["started_at"]
                )
    return durations


def median_ms(values: list[float]) -> float:
    """Median of durations in seconds, as milliseconds."""
    return statistics.median(values) * 1000 if values else float("nan")
