"""The report's data: its CSV table and its versioned JSON document, numbers
unrounded.

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
(:data:`SERVER_CSV_FIELDS`).

Rows are Rally's main statistics rows in Rally's order (nested rows follow
their parent with a larger ``depth``; ``total`` last). New keys may be added
within version 1; removing or changing the meaning of one raises the version.
"""

from __future__ import annotations

import collections
import dataclasses
import re
from collections.abc import Sequence
from typing import Any

from rally_keystone_perf.report.blocks.model import Column, Only, Table, pick
from rally_keystone_perf.report.blocks.saturation import saturation_line
from rally_keystone_perf.report.figures import concurrency
from rally_keystone_perf.report.figures.cluster_view import (
    TierView,
    WorkloadClusterView,
)
from rally_keystone_perf.report.figures.entries import FileEntries, ReportEntry
from rally_keystone_perf.report.figures.run_labels import union_keys
from rally_keystone_perf.report.figures.server_view import WorkloadServerView
from rally_keystone_perf.report.figures.stats import StatsRow
from rally_keystone_perf.report.readers.rally_json import Workload
from rally_keystone_perf.report.readers.resources import ResourceUsage
from rally_keystone_perf.report.readers.tracing import WorkloadTraces

REPORT_SCHEMA = "rally-keystone-perf/report"
SCHEMA_VERSION = 1  # of the report JSON document
ROW_FIELDS = ("min", "avg", "max", "median", "p90", "p95", "success", "count")
SERVER_CSV_FIELDS = (
    *("client_median", "server_median", "server_p95", "gap"),
    *("server_cpu_per_iteration", "server_busy_cores", "server_peak_rss_mb"),
    *("client_cpu_per_iteration", "client_busy_cores", "client_peak_rss_mb"),
)
MAX_MESSAGE_CHARS = 160
# OpenStack clients append the request id to their error messages: dropped,
# so that the same error of many requests counts as one kind
_REQUEST_ID = re.compile(r"\s*\(Request-ID: req-[0-9a-fA-F-]+\)")


def one_line(text: object, limit: int = MAX_MESSAGE_CHARS) -> str:
    """Collapse whitespace to keep a value on one line, shortened to ``limit``."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def error_counts(workload: Workload) -> list[tuple[str, str, int]]:
    """``(type, message, count)`` of failed iterations, most frequent first.

    Rally stores errors as ``[type, message, traceback]``; the traceback is
    deliberately ignored and type and message are flattened to one line.
    """
    counter: collections.Counter[tuple[str, str]] = collections.Counter()
    for iteration in workload.iterations:
        if iteration.error:
            err = iteration.error
            kind = one_line(err[0], 80) if len(err) > 0 else "unknown"
            message = one_line(_REQUEST_ID.sub("", str(err[1]))) if len(err) > 1 else ""
            counter[(kind, message)] += 1
    return [(kind, message, count) for (kind, message), count in counter.most_common()]


def csv_table(files: Sequence[FileEntries]) -> Only:
    """One CSV row per statistics row; config columns are the union over files."""
    config_keys = union_keys(e.columns for item in files for e in item.entries)
    with_server = any(item.server is not None for item in files)
    header = [
        *("file", "scenario", "position", "runner", *config_keys),
        *("load_duration", "throughput", *concurrency.FIELDS, "action", "depth"),
        *ROW_FIELDS,
        *(SERVER_CSV_FIELDS if with_server else ()),
    ]
    rows = [
        [
            *(item.file, entry.workload.scenario_name, entry.workload.position),
            entry.workload.runner_type,
            *(entry.columns.get(key, "") for key in config_keys),
            *(entry.workload.load_duration, entry.throughput, *load),
            *(row.name, row.depth),
            *(getattr(row, name) for name in ROW_FIELDS),
            *(_server_cells(entry.server, row) if with_server else []),
        ]
        for item in files
        for entry in item.entries
        for load in [concurrency.fields(concurrency.achieved(entry.workload)).values()]
        for row in entry.rows
    ]
    return Only(("csv",), [Table([Column(name) for name in header], rows)])


def _server_cells(view: WorkloadServerView | None, row: StatsRow) -> list[Any]:
    """The server columns of one CSV row (action figures on its action's row)."""
    if view is None:
        return [None] * len(SERVER_CSV_FIELDS)
    routes = {r.route: r for r in view.routes or []}
    gap = next(
        (g for g in view.actions or [] if row.depth == 0 and g.action == row.name),
        None,
    )
    times = routes.get(gap.route) if gap and gap.route else None
    found = [gap.client_median, gap.server_median] if gap else [None, None]
    found += [times.p95 if times else None, gap.gap if gap else None]
    return found + _usage_cells(view.resources) + _usage_cells(view.client)


def _usage_cells(usage: ResourceUsage | None) -> list[float | None]:
    """CPU per iteration, busy cores and peak RSS (MB) of a sampled tree."""
    if usage is None:
        return [None] * 3
    return [usage.cpu_per_iteration, usage.busy_cores, usage.peak_rss_mb]


def _workload_data(entry: ReportEntry) -> dict[str, Any]:
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
        "rows": [pick(row, "name depth", *ROW_FIELDS) for row in entry.rows],
    } | ({} if entry.server is None else {"server": server_data(entry.server)})


def data(files: Sequence[FileEntries]) -> dict[str, Any]:
    """The versioned JSON document of a report (see the module docstring)."""
    return {
        "schema": REPORT_SCHEMA,
        "version": SCHEMA_VERSION,
        "reports": [
            pick(item, "file config")
            | {"workloads": [_workload_data(entry) for entry in item.entries]}
            for item in files
        ],
    }


def _asdicts(items: Sequence[Any] | None) -> list[dict[str, Any]] | None:
    """Dataclasses as dicts (None: none)."""
    return None if items is None else [dataclasses.asdict(item) for item in items]


def server_data(view: WorkloadServerView) -> dict[str, Any]:
    """A workload's ``"server"`` object."""
    return {
        "routes": _asdicts(view.routes),
        "actions": None
        if view.actions is None
        else [dataclasses.asdict(gap) | {"gap": gap.gap} for gap in view.actions],
        "resources": usage_data(view.resources),
        "client": usage_data(view.client),
    } | (
        ({} if view.cluster is None else {"cluster": cluster_data(view.cluster)})
        | ({} if view.traces is None else {"traces": traces_data(view.traces)})
    )


def usage_data(usage: ResourceUsage | None) -> dict[str, Any] | None:
    """A tree's CPU and memory for the JSON (with ``peak_rss_mb``)."""
    if usage is None:
        return None
    return dataclasses.asdict(usage) | {"peak_rss_mb": usage.peak_rss_mb}


def _tier_data(tier: TierView | None) -> dict[str, Any] | None:
    if tier is None:
        return None
    return dataclasses.asdict(tier) | {
        "usage": usage_data(tier.usage),
        "quota_use": tier.quota_use,
    }


def cluster_data(view: WorkloadClusterView) -> dict[str, Any]:
    """The ``"cluster"`` object of a workload's ``"server"`` (unrounded, seconds;
    haproxy's timers in ms)."""
    return {
        "nodes": [_tier_data(node) for node in view.nodes],
        "database": _tier_data(view.database),
        "haproxy": _tier_data(view.haproxy),
        "database_members": [_tier_data(member) for member in view.members],
        "database_haproxy": _tier_data(view.database_proxy),
        "backends": _asdicts(view.backends),
        "quotas": dataclasses.asdict(view.quotas),
        "saturated": _asdicts(view.saturated),
        "saturation": saturation_line(view),
        "silent_closes": view.silent_closes,
    }


def traces_data(traces: WorkloadTraces) -> dict[str, Any]:
    """The ``"traces"`` of a workload's ``"server"`` (seconds), without the
    spans (they are in the run's traces file)."""
    found = dataclasses.asdict(dataclasses.replace(traces, slowest=[]))
    found["slowest"] = [
        dataclasses.asdict(dataclasses.replace(item, spans=()))
        for item in traces.slowest
    ]
    for item in found["slowest"]:
        del item["spans"]
    return found
