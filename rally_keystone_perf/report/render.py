"""Text rendering of workload statistics (prettytable) with an error summary.

Numbers are rounded like Rally's ``Table._round`` (``round(x, 3)``, ``n/a``
when there is no value) and success like ``MainStatsTable`` (``"%.1f%%"``).
Only error types and messages are ever printed, never tracebacks.
"""

from __future__ import annotations

import collections
import re
from collections.abc import Iterable
from typing import TextIO

from prettytable import PrettyTable

from rally_keystone_perf.report import concurrency
from rally_keystone_perf.report.load import Workload
from rally_keystone_perf.report.stats import StatsRow, main_stats, throughput

COLUMNS = (
    "action",
    "min (sec)",
    "avg (sec)",
    "max (sec)",
    "90 percentile",
    "95 percentile",
    "success",
    "count",
)
MAX_ERROR_LINES = 5
MAX_MESSAGE_CHARS = 160
# OpenStack clients append the request id to their error messages: dropped,
# so that the same error of many requests counts as one kind
_REQUEST_ID = re.compile(r"\s*\(Request-ID: req-[0-9a-fA-F-]+\)")
INDENT = "  "


def format_number(value: float | None) -> str:
    """Format a duration the way Rally's ``Table._round`` rounds it."""
    return "n/a" if value is None else str(round(value, 3))


def format_success(value: float | None) -> str:
    """Format a success fraction like ``MainStatsTable`` (e.g. ``100.0%``)."""
    return "n/a" if value is None else "%.1f%%" % (value * 100)


def stats_cells(row: StatsRow) -> list[str]:
    """The figures of one row, formatted: min, avg, max, p90, p95, success, count."""
    return [
        format_number(row.min),
        format_number(row.avg),
        format_number(row.max),
        format_number(row.p90),
        format_number(row.p95),
        format_success(row.success),
        str(row.count),
    ]


def heading(workload: Workload) -> str:
    """One line naming the scenario, its position and the runner settings."""
    parts = [f"position {workload.position}", f"runner {workload.runner_type}"]
    for key in ("times", "concurrency"):
        if key in workload.runner:
            parts.append(f"{key} {workload.runner[key]}")
    return f"{workload.scenario_name} ({', '.join(parts)})"


def _one_line(text: object, limit: int = MAX_MESSAGE_CHARS) -> str:
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
            kind = _one_line(err[0], 80) if len(err) > 0 else "unknown"
            message = (
                _one_line(_REQUEST_ID.sub("", str(err[1]))) if len(err) > 1 else ""
            )
            counter[(kind, message)] += 1
    return [(kind, message, count) for (kind, message), count in counter.most_common()]


def error_summary(workload: Workload) -> list[str]:
    """Lines counting failed iterations by error type and message.

    At most :data:`MAX_ERROR_LINES` kinds are listed, most frequent first;
    tracebacks are never shown (see :func:`error_counts`).
    """
    counts = error_counts(workload)
    failed = sum(count for _, _, count in counts)
    if not failed:
        return ["errors: none"]
    head = f"errors: {failed} of {len(workload.iterations)} iterations failed"
    if len(counts) > MAX_ERROR_LINES:
        head += f" ({len(counts)} kinds, {MAX_ERROR_LINES} most frequent shown)"
    lines = [head]
    for kind, message, count in counts[:MAX_ERROR_LINES]:
        line = f"{INDENT}{count} x {kind}"
        lines.append(f"{line}: {message}" if message else line)
    return lines


def build_table(
    rows: Iterable[StatsRow], extra_columns: dict[str, str] | None = None
) -> PrettyTable:
    """Build the statistics table; extra columns repeat their value per row."""
    extra = dict(extra_columns or {})
    clash = sorted(set(extra) & set(COLUMNS))
    if clash:
        raise ValueError(f"extra column names clash with table columns: {clash}")
    table = PrettyTable([*COLUMNS, *extra])
    table.align = "r"
    table.align["action"] = "l"
    for row in rows:
        table.add_row(
            [
                INDENT * row.depth + row.name,
                *stats_cells(row),
                *(str(value) for value in extra.values()),
            ]
        )
    return table


def _phase(workload: Workload, phase: str) -> str:
    """``12.3 s (users@openstack 12.1 s, ...)`` for one phase of the contexts."""
    parts = [
        f"{timing.name} {format_number(getattr(timing, phase))} s"
        for timing in workload.context_timings
        if getattr(timing, phase) is not None
    ]
    total = getattr(workload, f"{phase}_duration")
    return f"{format_number(total)} s ({', '.join(parts)})" if parts else "n/a"


def context_lines(workload: Workload) -> list[str]:
    """Setup and cleanup time of the contexts, kept apart from the load time.

    Creating a users context's users can take longer than the load itself;
    these lines say how long, per context. Context errors are listed too.
    """
    if not workload.context_timings:
        return []
    lines = [
        f"setup: {_phase(workload, 'setup')}, cleanup: {_phase(workload, 'cleanup')}"
    ]
    lines += [
        f"{INDENT}context {t.name} failed: {_one_line(t.error)}"
        for t in workload.context_timings
        if t.error
    ]
    return lines


def load_lines(workload: Workload) -> list[str]:
    """The concurrency (and rate) asked and reached, and the note if it fell short.

    See :mod:`.concurrency`; the note is one line, worded like "asked 1000
    concurrent, reached 266: the load generator, not Keystone, set this figure".
    """
    load = concurrency.achieved(workload)
    note = concurrency.under_reached(load)
    return [concurrency.achieved_line(load), *([note] if note else [])]


def render_workload(
    workload: Workload,
    rows: list[StatsRow],
    stream: TextIO,
    extra_columns: dict[str, str] | None = None,
) -> None:
    """Write heading, table, load/throughput and concurrency lines, error summary."""
    rate = throughput(workload)
    rate_text = "n/a" if rate is None else str(round(rate, 3))
    lines = [
        heading(workload),
        build_table(rows, extra_columns).get_string(),
        f"load duration: {format_number(workload.load_duration)} s, "
        f"throughput: {rate_text} iterations/s",
        *load_lines(workload),
        *context_lines(workload),
        *error_summary(workload),
    ]
    stream.write("\n".join(lines) + "\n")


def render_report(
    workloads: Iterable[Workload],
    stream: TextIO,
    extra_columns: dict[str, str] | None = None,
) -> None:
    """Render every workload (computing its rows), separated by blank lines."""
    for index, workload in enumerate(workloads):
        if index:
            stream.write("\n")
        render_workload(workload, main_stats(workload), stream, extra_columns)
