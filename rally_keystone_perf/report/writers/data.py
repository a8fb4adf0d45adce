"""The report as data: CSV and a versioned JSON document, numbers unrounded.

CSV and JSON keep every number unrounded (``repr`` of the float; empty cell
/ ``null`` for Rally's ``n/a``). The CSV has one row per statistics row.

The report JSON document (schema version 1)::

    {"schema": "rally-keystone-perf/report", "version": 1,
     "reports": [{
       "file": "runs/.../results/smoke-1234abcd.json",
       "config": {"mode": "uwsgi", "processes": "2", ...},   # run-level, strings
       "workloads": [{
         "scenario": "KeystonePerf.create_token", "position": 0,
         "runner_type": "constant", "runner": {...},          # as in Rally's JSON
         "config": {..., "concurrency": "2", "times": "10"},  # the table's columns
         "load_duration": 1.5, "full_duration": 2.5,          # seconds
         "throughput": 6.6, "iterations": 10, "failed_iterations": 0,
         "achieved": {"asked_concurrency": 2, "peak_concurrency": 2,
                      "mean_concurrency": 1.9,          # time-weighted
                      "asked_rps": null, "rate": 6.7,   # iterations started/s
                      "under_reached": null},  # or "asked 2 concurrent, ..."
         "pass_sla": true,
         "errors": [{"type": "...", "message": "...", "count": 1}],
         "rows": [{"name": "keystone.create_token", "depth": 0,
                   "min": 0.1, "avg": 0.1, "max": 0.2, "median": 0.1,
                   "p90": 0.2, "p95": 0.2,                     # seconds or null
                   "success": 1.0,                             # fraction or null
                   "count": 10}, ...]}]}]}

When the report's run folder has ``logs/access.log`` or
``logs/resources.csv`` (or a cluster's logs; see
:mod:`..figures.server_view`), each workload also has a ``"server"``
object::

    "server": {
      "routes": [{"route": "POST /v3/auth/tokens", "count": 10, "failed": 0,
                  "median": 0.1, "p95": 0.2}, ...],        # null: no access log
      "actions": [{"action": "keystone.create_token",
                   "route": "POST /v3/auth/tokens",         # null: not mapped
                   "client_median": 0.11, "server_median": 0.1,
                   "gap": 0.01}, ...],                      # seconds or null
      "resources": {"cpu_seconds": 2.0, "cpu_per_iteration": 0.2,
                    "busy_cores": 1.3, "peak_rss_bytes": 262144000,
                    "peak_rss_mb": 250.0, "peak_processes": 3,
                    "samples": 5},                          # null: no samples
      "client": {...as "resources"...}}  # the load generator; null: no samples

A cluster run's ``"server"`` also has a ``"cluster"`` object (see
:mod:`..figures.cluster_view`; seconds, haproxy's timers in ms)::

    "cluster": {
      "nodes": [{"tier": "node1", "requests": 120, "share": 0.5,
                 "median": 0.012, "p95": 0.04, "cpu_per_request": 0.0123,
                 "usage": {...as "resources"...}, "quota": 0.25,   # null: none
                 "quota_use": 0.98}, ...],
      "database": {...a tier...}, "haproxy": {...a tier...},  # null: no samples
      "backends": [{"server": "node1", "requests": 120, "errors": 0,
                    "queue_median": 0.0, "queue_p95": 1.0,
                    "connect_median": 0.0, "connect_p95": 1.0}, ...,
                   {"server": "all", ...}],                 # null: no haproxy log
      "quotas": {"node": 0.25, "db": 0.5},
      "saturated": [{"tier": "database", "use": 0.98, "quota": 0.5}],
      "saturation": "saturated: database (98% of its 0.5-CPU quota)"}

A traced run's (``--trace``) ``"server"`` also has ``"traces"`` (see
:mod:`..readers.tracing`; seconds)::

    "traces": {"spec": "sample:0.1", "sampled": 10, "found": 10,
               "slowest": [{"number": 7, "duration": 0.2, "trace_id": "...",
                            "breakdown": {"server": 0.19,
                                          "seconds": {"sql": 0.04, ...},
                                          "sql_count": 96, "cache_gets": 166,
                                          "cache_misses": 48,
                                          "top_sql": [[32, "BEGIN"], ...]}}],
               "median": {...a breakdown...}, "median_duration": 0.19}

and the CSV adds ``client_median`` ... ``client_peak_rss_mb`` columns
(:mod:`.server`).

Rows are Rally's main statistics rows in Rally's order (nested rows follow
their parent with a larger ``depth``; ``total`` last). New keys may be added
within version 1; removing or changing the meaning of one raises the version.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TextIO

from rally_keystone_perf.report.figures import concurrency
from rally_keystone_perf.report.figures.entries import FileEntries, ReportEntry
from rally_keystone_perf.report.figures.run_labels import union_keys
from rally_keystone_perf.report.writers import common, server
from rally_keystone_perf.report.writers.text import error_counts

REPORT_SCHEMA = "rally-keystone-perf/report"
ROW_FIELDS = ("min", "avg", "max", "median", "p90", "p95", "success", "count")


def write_csv(files: Sequence[FileEntries], stream: TextIO) -> None:
    """One CSV row per statistics row; config columns are the union over files."""
    config_keys = union_keys(e.columns for item in files for e in item.entries)
    header = [
        "file",
        "scenario",
        "position",
        "runner",
        *config_keys,
        "load_duration",
        "throughput",
        *concurrency.FIELDS,
        "action",
        "depth",
        *ROW_FIELDS,
    ]
    with_server = any(item.server is not None for item in files)
    if with_server:
        header += server.SERVER_CSV_FIELDS
    rows = (
        [
            item.file,
            entry.workload.scenario_name,
            entry.workload.position,
            entry.workload.runner_type,
            *(entry.columns.get(key, "") for key in config_keys),
            entry.workload.load_duration,
            entry.throughput,
            *load,
            row.name,
            row.depth,
            *(getattr(row, name) for name in ROW_FIELDS),
            *(server.csv_cells(item, entry, row) if with_server else []),
        ]
        for item in files
        for entry in item.entries
        for load in [concurrency.fields(concurrency.achieved(entry.workload)).values()]
        for row in entry.rows
    )
    common.write_csv(stream, header, rows)


def _workload_document(entry: ReportEntry) -> dict[str, Any]:
    """The JSON object of one workload."""
    workload = entry.workload
    return {
        "scenario": workload.scenario_name,
        "position": workload.position,
        "runner_type": workload.runner_type,
        "runner": workload.runner,
        "engine": workload.engine or {"name": "rally"},
        "config": entry.columns,
        "load_duration": workload.load_duration,
        "full_duration": workload.full_duration,
        "throughput": entry.throughput,
        "iterations": len(workload.iterations),
        "failed_iterations": sum(1 for it in workload.iterations if it.error),
        "achieved": concurrency.fields(concurrency.achieved(workload)),
        "pass_sla": workload.pass_sla,
        "errors": [
            {"type": kind, "message": message, "count": count}
            for kind, message, count in error_counts(workload)
        ],
        "rows": [
            {"name": row.name, "depth": row.depth}
            | {name: getattr(row, name) for name in ROW_FIELDS}
            for row in entry.rows
        ],
    }


def report_document(files: Sequence[FileEntries]) -> dict[str, Any]:
    """The versioned JSON document of a report (see the module docstring)."""
    return {
        "schema": REPORT_SCHEMA,
        "version": common.SCHEMA_VERSION,
        "reports": [
            {
                "file": item.file,
                "config": item.config,
                "workloads": [
                    _workload_document(entry) | server.document(item, entry)
                    for entry in item.entries
                ],
            }
            for item in files
        ],
    }


def write_json(files: Sequence[FileEntries], stream: TextIO) -> None:
    """The report's JSON document (see the module docstring)."""
    common.write_json(report_document(files), stream)
