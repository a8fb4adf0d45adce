"""The report, compare and gate pipelines: load -> compute -> write.

The CLI's ``report``, ``compare`` and ``gate`` commands call :func:`report`,
:func:`compare` and :func:`gate`; ``benchmarks/render_speed.py`` times their
steps, which are public too (:func:`compare_runs`; a kind's figures are
written by :func:`.writers.registry.write`). Every writer comes from
:mod:`.writers.registry`, and every format error is a ``ValueError``
naming the formats there are.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from rally_keystone_perf.layout import ab_state
from rally_keystone_perf.report import own_cloud
from rally_keystone_perf.report.blocks.gate import headline
from rally_keystone_perf.report.figures import (
    ab,
    ab_gate,
    combined,
    instructions,
)
from rally_keystone_perf.report.figures import compare as comparing
from rally_keystone_perf.report.figures import gate as gating
from rally_keystone_perf.report.figures import trends as trending
from rally_keystone_perf.report.figures.ab import AbPage, side_texts
from rally_keystone_perf.report.figures.compare import ALPHA, CompareResult
from rally_keystone_perf.report.figures.entries import report_entries
from rally_keystone_perf.report.figures.gate import DEFAULT_MAX_REGRESSION, GateResult
from rally_keystone_perf.report.figures.run_labels import (
    LoadedReport,
    Run,
    load_reports,
    load_runs,
)
from rally_keystone_perf.report.readers import ab_folder
from rally_keystone_perf.report.readers import instructions as instruction_counts
from rally_keystone_perf.report.readers.rally_json import ReportError
from rally_keystone_perf.report.readers.source import resolve
from rally_keystone_perf.report.writers import registry
from rally_keystone_perf.report.writers.junit import junit_xml


def import_server_log(run: Path, log: Path) -> list[str]:
    """An ``--os-cloud`` run's lines of a copied server log into its folder
    (:mod:`.own_cloud`); what was taken, as lines to print.

    :raises ReportError: see :func:`.own_cloud.import_server_log`.
    """
    return own_cloud.import_server_log(run, log).lines_out()


def write_report(reports: Sequence[LoadedReport], stream: TextIO, fmt: str) -> None:
    """Compute and write the statistics of every workload of ``reports``.

    :raises ValueError: unknown format (before anything is computed).
    """
    write = registry.writer(registry.REPORT, fmt)
    write(report_entries(reports), stream)


def report(
    paths: Sequence[Path],
    stream: TextIO,
    fmt: str = "table",
    *,
    combine: bool = False,
) -> None:
    """Load report files (or run folders) and write their report; each
    report's configuration is its run folder's (``run.json``, read once).
    ``combine`` writes one table for all (:mod:`.figures.combined`)
    instead.

    :raises ReportError: a file cannot be read or is not a Rally 1.2 report.
    :raises ValueError: unknown format.
    """
    if combine:
        if fmt not in registry.COMBINED:
            raise ValueError("--combined writes table or markdown only")
        rows = combined.combined_rows(load_reports(paths))
        registry.write(registry.COMBINED, rows, stream, fmt)
        return
    write_report(load_reports(paths), stream, fmt)


def trends(paths: Sequence[Path], stream: TextIO, fmt: str = "table") -> None:
    """Follow each workload across the reports under ``paths`` (:mod:`.figures.trends`).

    :raises ValueError: unknown format.
    :raises ReportError: a path that does not exist, a folder with no
        report, a file that is not a Rally 1.2 report.
    """
    write = registry.writer(registry.TRENDS, fmt)
    write(trending.trends(load_reports(trending.trend_files(paths))), stream)


def compare_runs(
    runs: Sequence[Run],
    alpha: float = ALPHA,
    allow_concurrency_mismatch: bool = False,
) -> CompareResult:
    """Compare loaded runs with the first and find their concurrency series."""
    comparison = comparing.compare(
        [(run.label, run.workloads) for run in runs],
        alpha=alpha,
        allow_concurrency_mismatch=allow_concurrency_mismatch,
    )
    series = comparing.series([(run.config_label, run.workloads) for run in runs])
    return CompareResult(comparison, series, runs)


def compare(
    paths: Sequence[Path],
    stream: TextIO,
    fmt: str = "table",
    *,
    alpha: float = ALPHA,
    allow_concurrency_mismatch: bool = False,
) -> list[Run]:
    """Load runs (the first is the baseline), compare them and write that;
    return the runs loaded.

    :raises ReportError: a file cannot be read or is not a Rally 1.2 report.
    :raises ValueError: unknown format, fewer than two runs or a bad alpha.
    """
    runs = load_runs(paths)
    result = compare_runs(runs, alpha, allow_concurrency_mismatch)
    registry.write(registry.COMPARE, result, stream, fmt)
    return runs


@dataclass(frozen=True)
class GateRun:
    """A gate's inputs (resolved and loaded) and its result."""

    baseline: Run
    current: Run
    baseline_path: Path
    current_path: Path
    result: GateResult

    def headline(self) -> str:
        """``gate PASSED|FAILED|ERROR: ...``."""
        return headline(self.result)

    def junit_xml(self) -> str:
        """The result as JUnit XML."""
        return junit_xml(self.result)


def gate(
    current: str,
    baseline: str,
    runs_dir: Path,
    *,
    max_regression: float = DEFAULT_MAX_REGRESSION,
    alpha: float = ALPHA,
    allow_concurrency_mismatch: bool = False,
) -> GateRun:
    """Find and load both runs (see :mod:`.readers.source`) and gate one on the other.

    :raises ReportError: a run cannot be found or read.
    :raises ValueError: nothing to gate, or settings out of range.
    """
    with tempfile.TemporaryDirectory(prefix="keystone-perf-gate-") as scratch:
        base_path, cur_path = (
            resolve(name, runs_dir, Path(scratch)) for name in (baseline, current)
        )
        base_run, cur_run = load_runs([base_path, cur_path])
    result = gating.gate(
        base_run.workloads,
        cur_run.workloads,
        max_regression,
        alpha,
        allow_concurrency_mismatch,
    )
    return GateRun(base_run, cur_run, base_path, cur_path, result)


def ab_page(folder: Path) -> AbPage:
    """An A/B folder read and computed (:mod:`.figures.ab`)."""
    found = ab_folder.load(folder)
    state = found.state
    counts = instruction_counts.load(folder)
    return AbPage(
        folder=str(folder),
        task=state.task,
        status=state.status,
        rounds_planned=state.rounds_planned,
        sides=side_texts({s: v["options"] for s, v in state.sides.items()}),
        workloads=ab.workloads(found),
        instructions=instructions.rows(counts),
        counted={} if counts is None else counts.conditions,
        not_counted={} if counts is None else counts.not_counted,
    )


def write_ab(folder: Path, stream: TextIO, fmt: str = "table") -> None:
    """Print an A/B folder in ``fmt``."""
    registry.writer(registry.AB, fmt)(ab_page(folder), stream)


def is_ab_folder(name: str) -> bool:
    """Whether ``name`` is a folder that ``rally-keystone-perf ab`` wrote."""
    return (Path(name) / ab_state.AbState.FILE).is_file()


def gate_ab(
    folder: Path,
    max_regression: float,
    alpha: float,
    limits: instructions.CountLimits = instructions.NOT_JUDGED,
    on: Sequence[str] = ab_gate.DEFAULT_ON,
) -> GateResult:
    """Gate side B of an A/B folder against its side A (:mod:`.figures.ab_gate`)
    on the timed measures among ``on``; with ``limits``, on its instruction
    and statement counts too (:mod:`.figures.instructions`).

    :raises ReportError: not an A/B folder, its sides ran different tasks,
        or nothing to gate.
    """
    workloads = ab.workloads(ab_folder.load(folder))
    timed = [name for name in on if name in ab_gate.TIMED]
    result = ab_gate.gate(workloads, max_regression, alpha, timed)
    if not workloads and limits == instructions.NOT_JUDGED:
        raise ReportError(
            f"gate: {folder} has no complete timed round: nothing to gate "
            "in time (an A/B of counts alone: --gate-on instructions,statements)"
        )
    if limits == instructions.NOT_JUDGED:
        return result
    counts = instruction_counts.load(folder)
    found = instructions.rows(counts)
    # an A/B of counts alone (--rounds 0) names its workloads by the counts
    labels = [(w.position, w.label) for w in workloads] or [
        (row.position, row.scenario) for row in found.values()
    ]
    skipped = counts.not_counted if counts else {}
    result.checks.extend(instructions.checks(labels, found, limits, skipped))
    counted = (instructions.CRITERION, instructions.STATEMENTS)
    result.checks[:] = ab_gate.settled_by_counts(result.checks, counted)
    return result
