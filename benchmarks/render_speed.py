"""How long ``report`` and ``compare`` take on 3 runs of 10000 iterations each.

Builds three Rally JSON reports (format 1.2, written by Rally's own exporter)
of one ``KeystonePerf.create_token`` workload with 10000 iterations, each in
a run folder with its ``run.json`` (three configurations), then times:

* loading the three files;
* computing the report statistics and the comparison (Mann-Whitney U tests,
  scipy's import included) and rendering both in every format
  (table, markdown, csv, json) -- the figure that must stay under 2 s;
* ``rally-keystone-perf report`` and ``compare`` end to end, each in a new
  interpreter (startup, imports, load, compute, render).

It prints figures; it asserts nothing. Usage (from the repository root)::

    python -m benchmarks.render_speed [--iterations N]
"""

from __future__ import annotations

import argparse
import io
import json
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rally_keystone_perf.report import api
from rally_keystone_perf.report.figures import run_labels
from rally_keystone_perf.report.figures.entries import report_entries
from rally_keystone_perf.report.readers import run_folder
from rally_keystone_perf.report.writers import registry
from rally_keystone_perf.report.writers.registry import FORMATS
from tests.unit.report import factory

SCENARIO = "KeystonePerf.create_token"
ACTION = "keystone.create_token"
CONFIGS = (  # processes, threads, median seconds of the simulated action
    (2, 1, 0.50),
    (4, 1, 0.45),
    (4, 2, 0.50),
)
LIMIT = 2.0


def build_run(root: Path, index: int, iterations: int) -> Path:
    """A run folder with run.json and one report of ``iterations`` iterations."""
    processes, threads, median = CONFIGS[index]
    run = root / f"run-{index}"
    (run / "results").mkdir(parents=True)
    state = {
        "mode": "uwsgi",
        "options": {
            "processes": processes,
            "threads": threads,
            "password_hash_rounds": 4,
        },
    }
    (run / run_folder.RUN_STATE).write_text(json.dumps(state))
    rng = random.Random(index)
    data = []
    start = 1_700_000_000.0
    for number in range(iterations):
        began = start + number * 0.25
        took = rng.lognormvariate(0.0, 0.2) * median
        error = ("HttpError", "database is locked") if number % 500 == 7 else None
        atomics = [factory.atomic(ACTION, began, began + took, failed=bool(error))]
        data.append(factory.iteration(began, took + 0.002, 0.0, atomics, error))
    workload = factory.workload(
        data,
        name=SCENARIO,
        runner={"times": iterations, "concurrency": 4},
        load_duration=iterations * 0.25 / 4,
    )
    report = run / "results" / "create-token.json"
    factory.write_report(report, [factory.task([[workload]], uuid=f"task-{index}")])
    return run


def timed(action: Callable[[], Any]) -> tuple[float, Any]:
    """Seconds ``action`` took and its result."""
    began = time.perf_counter()
    result = action()
    return time.perf_counter() - began, result


def render_report(reports: list[run_labels.LoadedReport]) -> None:
    """Report statistics once, written in every format."""
    entries = report_entries(reports)
    for fmt in FORMATS:
        registry.write(registry.REPORT, entries, io.StringIO(), fmt)


def render_compare(runs: list[run_labels.Run]) -> None:
    """Comparison and series once (scipy imported on first use), every format."""
    result = api.compare_runs(runs)
    for fmt in FORMATS:
        registry.write(registry.COMPARE, result, io.StringIO(), fmt)


def fresh_process(command: str, runs: list[Path], out: Path) -> float:
    """Seconds of one ``rally-keystone-perf`` command in a new interpreter."""
    argv = [sys.executable, "-m", "rally_keystone_perf.cli", command]
    argv += [*map(str, runs), "--format", "table", "--out", str(out)]
    seconds, _ = timed(lambda: subprocess.run(argv, check=True))
    return seconds


def main() -> None:
    """Build the reports, time the steps and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=10000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        runs = [build_run(root, i, args.iterations) for i in range(len(CONFIGS))]
        print(
            f"{len(runs)} runs x {args.iterations} iterations, "
            f"formats: {', '.join(FORMATS)}"
        )
        load_s, loaded = timed(lambda: run_labels.load_runs(runs))
        reports = run_labels.load_reports(runs)
        report_s, _ = timed(lambda: render_report(reports))
        compare_s, _ = timed(lambda: render_compare(loaded))
        total = report_s + compare_s
        verdict = "ok" if total < LIMIT else "TOO SLOW"
        print("in one process, from the loaded reports:")
        print(f"  load the reports                            {load_s:6.3f} s")
        print(f"  report: statistics, every format            {report_s:6.3f} s")
        print(f"  compare: scipy import, tests, every format  {compare_s:6.3f} s")
        print(
            f"  render report + compare in every format     {total:6.3f} s "
            f"(limit {LIMIT:g} s: {verdict})"
        )
        print("a new process per command, end to end (--format table):")
        for command in ("report", "compare"):
            seconds = fresh_process(command, runs, root / "out")
            print(f"  rally-keystone-perf {command:7}                 {seconds:6.3f} s")


if __name__ == "__main__":
    main()
