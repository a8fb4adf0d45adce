"""The comparison's JSON document, its data (an interface: its structure
is fixed within a version).

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
from typing import Any

from rally_keystone_perf.report.blocks.model import pick
from rally_keystone_perf.report.figures.compare import (
    MIN_SAMPLES,
    CompareResult,
    Comparison,
    ScenarioComparison,
    SeriesRow,
)
from rally_keystone_perf.report.figures.concurrency import fields

COMPARE_SCHEMA = "rally-keystone-perf/compare"
SCHEMA_VERSION = 1  # of the compare JSON document
TEST = "mann-whitney-u, two-sided"
SeriesGroups = dict[tuple[str, str], list[SeriesRow]]


def series_groups(rows: Sequence[SeriesRow]) -> SeriesGroups:
    """Series rows by (config, scenario), in order."""
    groups: SeriesGroups = {}
    for row in rows:
        groups.setdefault((row.config, row.scenario), []).append(row)
    return groups


def _group_document(comparison: Comparison, group: ScenarioComparison) -> dict:
    """The JSON object of one matched workload."""
    return pick(group, "scenario concurrency occurrence") | {
        "achieved": [
            None if run is None else {"run": label} | fields(run)
            for label, run in zip(comparison.labels, group.loads, strict=True)
        ],
        "notes": group.notes,
        "actions": [
            {
                "action": action.action,
                "results": [
                    pick(r, "run=label count median p95 ratio p_value verdict")
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
            pick(row, "concurrency median p90 p95 throughput success count")
            for row in rows
        ],
    }


def data(result: CompareResult) -> dict[str, Any]:
    """The versioned JSON document of a comparison (see the module docstring)."""
    comparison = result.comparison
    return {
        "schema": COMPARE_SCHEMA,
        "version": SCHEMA_VERSION,
        "test": TEST,
        "alpha": comparison.alpha,
        "min_samples": MIN_SAMPLES,
        "baseline": comparison.baseline,
        "runs": [
            pick(run, "label config") | {"files": [str(path) for path in run.paths]}
            for run in result.runs
        ],
        "comparisons": [_group_document(comparison, g) for g in comparison.groups],
        "series": [
            _series_document(config, scenario, rows)
            for (config, scenario), rows in series_groups(result.series).items()
        ],
    }
