"""Run folders and timed iterations for the report, compare and CLI tests.

Reports are written by Rally's own exporter (see :mod:`.factory`) into
``<run>/results/`` next to a ``run.json`` like the launcher writes.
"""

from __future__ import annotations

import io
import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rally_keystone_perf.report import api
from rally_keystone_perf.report.figures import compare, run_labels
from rally_keystone_perf.report.figures.compare import CompareResult
from rally_keystone_perf.report.writers import registry
from tests.unit.report import factory as f

SCENARIO = "KeystonePerf.create_token"
ACTION = "keystone.create_token"


def timed(
    durations: Sequence[float],
    action: str = ACTION,
    errors: Sequence[int] = (),
    overhead: float = 0.01,
    slots: int = 1,
) -> list[dict[str, Any]]:
    """One iteration per duration, each with one atomic action of that duration.

    Iterations run in ``slots`` lanes side by side (iteration i in lane
    ``i % slots``, every lane starting at 1000.0), one at a time in a lane:
    each starts 1 s after the lane's previous one started, or when it ended if
    it lasted longer. So the workload reached a peak concurrency of ``slots``
    (with that many iterations), whatever its durations. Iterations whose
    index is in ``errors`` fail inside the atomic action.
    """
    data: list[dict[str, Any]] = []
    starts = [1000.0] * slots
    for index, duration in enumerate(durations):
        lane = index % slots
        start = starts[lane]
        failed = index in errors
        atomics = [f.atomic(action, start, start + duration, failed=failed)]
        error = ("HttpError", "database is locked") if failed else None
        data.append(f.iteration(start, duration + overhead, 0.0, atomics, error))
        starts[lane] = start + max(1.0, duration + overhead)
    return data


def gauss(seed: int, mean: float, count: int = 50) -> list[float]:
    """``count`` seeded normal durations around ``mean`` (10 % spread)."""
    rng = random.Random(seed)
    return [max(0.001, rng.gauss(mean, mean / 10)) for _ in range(count)]


def workload(
    durations: Sequence[float],
    concurrency: int | None = 2,
    name: str = SCENARIO,
    position: int = 0,
    **kwargs: Any,
) -> dict[str, Any]:
    """A Rally workload of :func:`timed` iterations with a constant runner."""
    runner: dict[str, Any] = {"times": len(durations)}
    if concurrency is not None:
        runner["concurrency"] = concurrency
    return f.workload(
        timed(durations, **kwargs), name=name, runner=runner, position=position
    )


def state(
    mode: str = "uwsgi", processes: int = 2, threads: int = 1, rounds: Any = None
) -> dict[str, Any]:
    """A run.json as the launcher writes it (the parts the report reads)."""
    return {
        "mode": mode,
        "status": "stopped",
        "keystone_cache": "request-local",
        "options": {
            "mode": mode,
            "processes": processes,
            "threads": threads,
            "password_hash_rounds": rounds,
        },
    }


def make_run(
    root: Path,
    name: str,
    workloads: list[dict[str, Any]],
    run_state: dict[str, Any] | None = None,
    report: str = "smoke-0123abcd.json",
    tags: list[str] | None = None,
) -> Path:
    """A run folder ``root/name`` with run.json and one report; returns the report.

    ``run_state`` None writes no run.json.
    """
    run = root / name
    (run / "results").mkdir(parents=True, exist_ok=True)
    if run_state is not None:
        (run / "run.json").write_text(json.dumps(run_state))
    task = f.task([[w] for w in workloads], uuid=f"task-{name}")
    if tags is not None:
        task["tags"] = tags
    return f.write_report(run / "results" / report, [task])


def compare_inputs(
    paths: Sequence[Path],
) -> tuple[compare.Comparison, list[compare.SeriesRow], list[run_labels.Run]]:
    """The comparison, series and runs of run folders (``api.compare_runs``)."""
    result = api.compare_runs(run_labels.load_runs(paths))
    return result.comparison, list(result.series), list(result.runs)


def write_compare(inputs: tuple, fmt: str) -> str:
    """Render (comparison, series, runs) as the compare document."""
    comparison, series, runs = inputs
    stream = io.StringIO()
    registry.write(
        registry.COMPARE, CompareResult(comparison, series, runs), stream, fmt
    )
    return stream.getvalue()


def write_report(reports: list[run_labels.LoadedReport], fmt: str) -> str:
    """Render loaded reports with ``api.write_report``."""
    stream = io.StringIO()
    api.write_report(reports, stream, fmt)
    return stream.getvalue()


def md_tables(text: str) -> list[list[list[str]]]:
    """Markdown tables as rows of cells; checks each has a separator row."""
    tables: list[list[list[str]]] = []
    current: list[list[str]] = []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            current.append([c.strip() for c in line.strip().strip("|").split(" | ")])
        elif current:
            header, separator, *_ = current
            assert len(separator) == len(header)
            assert all(set(cell) <= {"-", ":"} and "---" in cell for cell in separator)
            tables.append(current)
            current = []
    return tables


CONFIG_KEYS = [
    "mode",
    "profile",
    "processes",
    "threads",
    "cache",
    "db",
    "hash rounds",
    "concurrency",
    "times",
]
