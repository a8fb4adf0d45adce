"""Trends: the same workload followed across runs, ordered by time.

What a CI job's history needs (``report --trends RUNS...``). Workloads are
matched as ``rally task trends`` matches them, by their configuration: the
scenario and its arguments, the runner, the contexts and the SLA (hashed),
and here also the deployment the run was made on (mode, profile,
processes, ...: :func:`.run_labels.run_label`), so that a uwsgi run never
continues an Apache run's line. Each point is one run of that workload: its
start, the total's median and p95, the success rate, the throughput, and
the gate's verdict (:mod:`.gate`) against the point before it: the run
where a regression appeared is the one marked ``FAIL``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rally_keystone_perf.report.figures import gate as gating
from rally_keystone_perf.report.figures.compare import concurrency
from rally_keystone_perf.report.figures.run_labels import LoadedReport, run_label
from rally_keystone_perf.report.figures.stats import main_stats, throughput, total_row
from rally_keystone_perf.report.readers.rally_json import ReportError, Workload
from rally_keystone_perf.report.readers.run_folder import RESULTS, distinct

FIRST = "first run"  # the verdict of a trend's first point: nothing before it


@dataclass(frozen=True)
class TrendPoint:
    """One run of a workload."""

    started: float | None  # the workload's start (epoch seconds)
    run: str  # the run folder's name (or the report's)
    report: Path
    median: float | None
    p95: float | None
    success: float | None
    throughput: float | None
    verdict: str  # the gate against the point before (FIRST for the first)


@dataclass(frozen=True)
class Trend:
    """A workload's points, oldest first."""

    name: str  # KeystonePerf.create_token c4
    deployment: str  # uwsgi stock 2x1
    key: str  # the workload configuration's hash (12 hex digits)
    points: list[TrendPoint]


def workload_key(workload: Workload) -> str:
    """The hash of what ``rally task trends`` matches workloads by."""
    config = {
        "scenario": workload.scenario_name,
        "args": workload.scenario_args,
        "runner": {workload.runner_type: workload.runner},
        "contexts": workload.contexts,
        "sla": workload.sla,
    }
    text = json.dumps(config, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def trend_files(paths: Sequence[Path]) -> list[Path]:
    """The reports of ``paths``: files as given, and every ``results/*.json``
    under a folder (a runs folder, a matrix, a study, a run, its results).

    :raises ReportError: a path that does not exist, a folder with no
        report under it.
    """
    found: list[Path] = []
    for path in map(Path, paths):
        if not path.exists():
            raise ReportError(f"{path}: no such file or folder")
        if path.is_file():
            found.append(path)
            continue
        files = sorted(path.glob(f"**/{RESULTS}/*.json"))
        if path.name == RESULTS:
            files = sorted(path.glob("*.json"))
        if not files:
            raise ReportError(f"{path}: no Rally reports under it (*/results/*.json)")
        found += files
    return distinct(found)


def _run_name(report: Path) -> str:
    parent = report.parent
    return parent.parent.name if parent.name == RESULTS else report.name


def _verdict(before: Workload | None, workload: Workload) -> str:
    """PASS, FAIL: <criteria>, ERROR: <why>, SKIP against the run before."""
    if before is None:
        return FIRST
    result = gating.gate([before], [workload])
    if result.errors:
        return f"{gating.ERROR}: {result.errors[0].message}"
    if result.failures:
        return f"{gating.FAIL}: " + ", ".join(c.criterion for c in result.failures)
    judged = [c for c in result.checks if c.status == gating.PASS]
    return gating.PASS if judged else gating.SKIP


def _point(report: LoadedReport, workload: Workload, verdict: str) -> TrendPoint:
    total = total_row(main_stats(workload))
    return TrendPoint(
        started=workload.start_time,
        run=_run_name(report.path),
        report=report.path,
        median=total.median,
        p95=total.p95,
        success=total.success,
        throughput=throughput(workload),
        verdict=verdict,
    )


def trends(reports: Sequence[LoadedReport]) -> list[Trend]:
    """Every workload's trend over ``reports``, in order of first appearance."""
    groups: dict[tuple[str, str], list[tuple[LoadedReport, Workload]]] = {}
    names: dict[tuple[str, str], str] = {}
    for report in reports:
        deployment = run_label(report.config, "")
        for workload in report.workloads:
            key = (deployment, workload_key(workload))
            groups.setdefault(key, []).append((report, workload))
            level = concurrency(workload)
            suffix = f" c{level}" if level is not None else ""
            names[key] = f"{workload.scenario_name}{suffix}"
    found = []
    for (deployment, config), runs in groups.items():
        runs.sort(key=lambda pair: (pair[1].start_time or 0.0, str(pair[0].path)))
        points, before = [], None
        for report, workload in runs:
            points.append(_point(report, workload, _verdict(before, workload)))
            before = workload
        found.append(Trend(names[(deployment, config)], deployment, config, points))
    return found
