"""A comparison (and its concurrency series) as text, markdown, CSV or JSON.

``table`` and ``markdown`` round durations like Rally (3 decimals), print
ratios with 3 decimals and p-values with 3 significant digits; ``csv`` and
``json`` keep every number unrounded. The CSV has one row per record:
``record`` is ``compare`` (one run's figures for one action of one matched
workload) or ``series`` (one point of a latency-vs-concurrency series);
columns that do not apply to a record are empty. The row builders here
(:func:`group_rows`, :func:`series_rows`, :func:`intro`) make the HTML page's
tables too (:mod:`.html.comparison`).

The compare JSON document (schema version 1)::

    {"schema": "rally-keystone-perf/compare", "version": 1,
     "test": "mann-whitney-u, two-sided", "alpha": 0.05, "min_samples": 5,
     "baseline": "uwsgi p2xt1",
     "runs": [{"label": "uwsgi p2xt1", "config": {...}, "files": ["..."]}, ...],
     "comparisons": [{
       "scenario": "KeystonePerf.create_token", "concurrency": 4,  # or null
       "occurrence": 0,
       "achieved": [{"run": "uwsgi p2xt1", "peak_concurrency": 4, ...}, ...],
       "notes": ["run-b: not comparable: concurrency 266 vs 1000 ..."],
       "actions": [{
         "action": "keystone.create_token",                # ... "total" last
         "results": [{"run": "uwsgi p2xt1", "count": 100,  # samples
                      "median": 0.23, "p95": 0.31,         # seconds or null
                      "ratio": 1.0,                        # median / baseline's
                      "p_value": null,                     # null: no test made
                      "verdict": "baseline"}, ...]}]}],
     "series": [{"config": "uwsgi p2xt1", "scenario": "...",
                 "points": [{"concurrency": 1, "median": 0.2, "p90": 0.3,
                             "p95": 0.3, "throughput": 4.1, "success": 1.0,
                             "count": 100}, ...]}]}

Verdicts: ``baseline``, ``faster``, ``slower``, ``not significant``,
``too few samples``, ``missing``, ``no baseline``, ``not comparable: ...``
(see :mod:`..figures.compare`). ``achieved`` holds each run's
:func:`..figures.concurrency.fields` (null where the run lacks the
workload); the group's ``notes`` (also printed under its table) name the
runs whose load differs from the baseline's.
New keys may be added within version 1; removing or changing the meaning of
one raises the version.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TextIO

from rally_keystone_perf.metrics import TOTAL
from rally_keystone_perf.report.figures.compare import (
    MIN_SAMPLES,
    CompareResult,
    Comparison,
    ScenarioComparison,
    SeriesRow,
)
from rally_keystone_perf.report.figures.concurrency import fields
from rally_keystone_perf.report.figures.run_labels import Run
from rally_keystone_perf.report.writers import common
from rally_keystone_perf.report.writers.common import (
    format_number,
    format_p,
    format_success,
    markdown_table,
    md_cell,
    text_table,
)

COMPARE_SCHEMA = "rally-keystone-perf/compare"
TEST = "mann-whitney-u, two-sided"
COMPARE_COLUMNS = (  # durations in seconds (the intro says so): 120 columns
    "action",
    "run",
    "n",
    "median",
    "p95",
    "ratio",
    "p-value",
    "verdict",
)
TEXT_COLUMNS = ("action", "run", "verdict")
SERIES_COLUMNS = (
    "concurrency",
    "median (sec)",
    "90 percentile",
    "95 percentile",
    "throughput (iter/s)",
    "success",
    "count",
)
CSV_COLUMNS = (
    "record",
    "scenario",
    "concurrency",
    "occurrence",
    "action",
    "run",
    "count",
    "median",
    "p90",
    "p95",
    "ratio",
    "p_value",
    "verdict",
    "throughput",
    "success",
)
SeriesGroups = dict[tuple[str, str], list[SeriesRow]]


def _ratio(value: float | None) -> str:
    """A ratio to the baseline with three decimals."""
    return "n/a" if value is None else f"{value:.3f}"


def group_title(group: ScenarioComparison) -> str:
    """``scenario, concurrency N`` (with ``#k`` for repeated workloads)."""
    title = f"{group.scenario}, concurrency {group.concurrency}"
    if group.concurrency is None:
        title = f"{group.scenario}, no concurrency"
    return f"{title} #{group.occurrence + 1}" if group.occurrence else title


def group_rows(group: ScenarioComparison) -> list[list[str]]:
    """Rows of one group: each action's runs, the action named on its first."""
    return [
        [
            action.action if index == 0 else "",
            result.label,
            str(result.count),
            format_number(result.median),
            format_number(result.p95),
            _ratio(result.ratio),
            format_p(result.p_value),
            result.verdict,
        ]
        for action in group.actions
        for index, result in enumerate(action.results)
    ]


def series_groups(rows: Sequence[SeriesRow]) -> SeriesGroups:
    """Series rows by (config, scenario), in order."""
    groups: SeriesGroups = {}
    for row in rows:
        groups.setdefault((row.config, row.scenario), []).append(row)
    return groups


def series_title(config: str, scenario: str) -> str:
    """The caption of one latency-vs-concurrency series."""
    return f"latency vs concurrency: {config}, {scenario}"


def series_rows(rows: Sequence[SeriesRow]) -> list[list[str]]:
    """Text rows of one series."""
    return [
        [
            str(row.concurrency),
            format_number(row.median),
            format_number(row.p90),
            format_number(row.p95),
            format_number(row.throughput),
            format_success(row.success),
            str(row.count),
        ]
        for row in rows
    ]


def intro(comparison: Comparison, runs: Sequence[Run]) -> list[str]:
    """Baseline, test and the runs' files."""
    lines = [
        f"baseline: {comparison.baseline}; verdicts: two-sided Mann-Whitney U test "
        "of iteration durations (an action's successful calls, every iteration's "
        f"total), alpha {comparison.alpha:g}, at least {MIN_SAMPLES} samples per "
        "side; durations in seconds"
    ]
    for run in runs:
        lines.append(f"run {run.label}: {', '.join(str(p) for p in run.paths)}")
    return lines


def write_table(result: CompareResult, stream: TextIO) -> None:
    """prettytable tables: one per matched workload, one per series."""
    blocks = ["\n".join(intro(result.comparison, result.runs))]
    for group in result.comparison.groups:
        table = text_table(COMPARE_COLUMNS, group_rows(group), TEXT_COLUMNS)
        blocks.append("\n".join([group_title(group), table.get_string(), *group.notes]))
    for (config, scenario), rows in series_groups(result.series).items():
        table = text_table(SERIES_COLUMNS, series_rows(rows), ())
        blocks.append(f"{series_title(config, scenario)}\n{table.get_string()}")
    stream.write("\n\n".join(blocks) + "\n")


def write_markdown(result: CompareResult, stream: TextIO) -> None:
    """Markdown sections: one table per matched workload, one per series."""
    parts = [
        "## comparison",
        "\n".join(f"- {md_cell(x)}" for x in intro(result.comparison, result.runs)),
    ]
    for group in result.comparison.groups:
        parts.append(f"### {md_cell(group_title(group))}")
        parts.append(markdown_table(COMPARE_COLUMNS, group_rows(group), TEXT_COLUMNS))
        parts += [f"**{md_cell(note)}**" for note in group.notes]
    for (config, scenario), rows in series_groups(result.series).items():
        parts.append(f"### {series_title(md_cell(config), md_cell(scenario))}")
        parts.append(markdown_table(SERIES_COLUMNS, series_rows(rows), ()))
    stream.write("\n\n".join(parts) + "\n")


def _compare_records(comparison: Comparison) -> list[list[Any]]:
    """The CSV's ``compare`` records: a run's figures for one action."""
    return [
        [
            "compare",
            group.scenario,
            group.concurrency,
            group.occurrence,
            action.action,
            r.label,
            r.count,
            r.median,
            None,
            r.p95,
            r.ratio,
            r.p_value,
            r.verdict,
            None,
            None,
        ]
        for group in comparison.groups
        for action in group.actions
        for r in action.results
    ]


def _series_records(series: Sequence[SeriesRow]) -> list[list[Any]]:
    """The CSV's ``series`` records: one point of a series."""
    return [
        [
            "series",
            s.scenario,
            s.concurrency,
            None,
            TOTAL,
            s.config,
            s.count,
            s.median,
            s.p90,
            s.p95,
            None,
            None,
            None,
            s.throughput,
            s.success,
        ]
        for s in series
    ]


def write_csv(result: CompareResult, stream: TextIO) -> None:
    """One row per compare record and per series point (see module docstring)."""
    rows = _compare_records(result.comparison) + _series_records(result.series)
    common.write_csv(stream, CSV_COLUMNS, rows)


def _group_document(comparison: Comparison, group: ScenarioComparison) -> dict:
    """The JSON object of one matched workload."""
    return {
        "scenario": group.scenario,
        "concurrency": group.concurrency,
        "occurrence": group.occurrence,
        "achieved": [
            None if run is None else {"run": label} | fields(run)
            for label, run in zip(comparison.labels, group.loads, strict=True)
        ],
        "notes": group.notes,
        "actions": [
            {
                "action": action.action,
                "results": [
                    {
                        "run": r.label,
                        "count": r.count,
                        "median": r.median,
                        "p95": r.p95,
                        "ratio": r.ratio,
                        "p_value": r.p_value,
                        "verdict": r.verdict,
                    }
                    for r in action.results
                ],
            }
            for action in group.actions
        ],
    }


def _series_document(config: str, scenario: str, rows: list[SeriesRow]) -> dict:
    """The JSON object of one latency-vs-concurrency series."""
    return {
        "config": config,
        "scenario": scenario,
        "points": [
            {
                "concurrency": row.concurrency,
                "median": row.median,
                "p90": row.p90,
                "p95": row.p95,
                "throughput": row.throughput,
                "success": row.success,
                "count": row.count,
            }
            for row in rows
        ],
    }


def compare_document(result: CompareResult) -> dict[str, Any]:
    """The versioned JSON document of a comparison (see the module docstring)."""
    comparison = result.comparison
    return {
        "schema": COMPARE_SCHEMA,
        "version": common.SCHEMA_VERSION,
        "test": TEST,
        "alpha": comparison.alpha,
        "min_samples": MIN_SAMPLES,
        "baseline": comparison.baseline,
        "runs": [
            {
                "label": run.label,
                "config": run.config,
                "files": [str(path) for path in run.paths],
            }
            for run in result.runs
        ],
        "comparisons": [_group_document(comparison, g) for g in comparison.groups],
        "series": [
            _series_document(config, scenario, rows)
            for (config, scenario), rows in series_groups(result.series).items()
        ],
    }


def write_json(result: CompareResult, stream: TextIO) -> None:
    """The comparison's JSON document (see the module docstring)."""
    common.write_json(compare_document(result), stream)
