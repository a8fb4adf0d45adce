"""The report as text: prettytable tables for a terminal, and markdown.

Each workload gets a heading, Rally's statistics table (see
:func:`~rally_keystone_perf.report.figures.stats.main_stats`), the load
duration and throughput, the concurrency asked and reached
(:mod:`..figures.concurrency`), the contexts' setup and cleanup time and an
error summary. Only error types and messages are ever printed, never
tracebacks.
"""

from __future__ import annotations

import collections
import re
import textwrap
from collections.abc import Callable, Iterable, Sequence
from typing import TextIO

from prettytable import PrettyTable

from rally_keystone_perf.metrics import TOTAL
from rally_keystone_perf.report.figures import concurrency, open_model
from rally_keystone_perf.report.figures.entries import FileEntries, ReportEntry
from rally_keystone_perf.report.figures.run_labels import config_warnings
from rally_keystone_perf.report.figures.setup_note import setup_note
from rally_keystone_perf.report.figures.stats import StatsRow, main_stats, throughput
from rally_keystone_perf.report.readers.hooks import hook_lines
from rally_keystone_perf.report.readers.load_engine import engine_label
from rally_keystone_perf.report.readers.rally_json import Workload
from rally_keystone_perf.report.writers import server
from rally_keystone_perf.report.writers.common import (
    INDENT,
    format_ms,
    format_number,
    markdown_table,
    md_cell,
    stats_cells,
    text_table,
)

# Rally's columns, durations in seconds (said under the table), so that a
# table fits 120 columns
COLUMNS = (
    "action",
    "min",
    "median",
    "p90",
    "p95",
    "max",
    "avg",
    "success",
    "count",
)
THROUGHPUT = "throughput"  # iterations/s, on the total's row: the workload's
WIDTH = 120  # the terminal report's lines
MAX_ERROR_LINES = 5
MAX_MESSAGE_CHARS = 160
# OpenStack clients append the request id to their error messages: dropped,
# so that the same error of many requests counts as one kind
_REQUEST_ID = re.compile(r"\s*\(Request-ID: req-[0-9a-fA-F-]+\)")
_UNBROKEN = "\x00"  # a space :func:`wrap` does not break at


def heading(workload: Workload) -> str:
    """One line naming the scenario, its position and the runner settings."""
    parts = [f"position {workload.position}", f"runner {workload.runner_type}"]
    for key in ("times", "concurrency"):
        if key in workload.runner:
            parts.append(f"{key} {workload.runner[key]}")
    if workload.engine:
        parts.append(f"engine {engine_label(workload.engine)}")
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


def shown_rows(rows: Sequence[StatsRow]) -> list[StatsRow]:
    """``rows`` without the total's ``duration`` and ``idle_duration`` when
    no iteration idled: ``duration`` then repeats the total."""
    idle = [r for r in rows if r.depth == 1 and r.name == "idle_duration"]
    if idle and idle[0].max:
        return list(rows)
    children = {"duration", "idle_duration"}
    total = next(
        (i for i, r in enumerate(rows) if r.depth == 0 and r.name == TOTAL), None
    )
    return [
        row
        for i, row in enumerate(rows)
        if total is None or i <= total or row.depth == 0 or row.name not in children
    ]


def throughput_cell(row: StatsRow, throughput: str) -> str:
    """The workload's throughput on the total's row, nothing on the others."""
    return throughput if row.depth == 0 and row.name == TOTAL else ""


def build_table(rows: Iterable[StatsRow], throughput: str | None = None) -> PrettyTable:
    """The statistics table; the throughput column when ``throughput`` is given."""
    cells = [
        [
            INDENT * row.depth + row.name,
            *stats_cells(row),
            *([] if throughput is None else [throughput_cell(row, throughput)]),
        ]
        for row in shown_rows(list(rows))
    ]
    header = [*COLUMNS, *([] if throughput is None else [THROUGHPUT])]
    return text_table(header, cells)


def together(text: str) -> str:
    """``text`` (``users@openstack 3.02 s``) that :func:`wrap` keeps on one line."""
    return text.replace(" ", _UNBROKEN)


def wrap(text: str, indent: str = "") -> list[str]:
    """``text`` in lines of at most WIDTH columns after ``indent``, the next
    ones indented further, broken at spaces outside :func:`together`'s pieces."""
    lines = textwrap.wrap(
        text,
        WIDTH,
        initial_indent=indent,
        subsequent_indent=indent + INDENT,
        break_long_words=False,
    )
    return [line.replace(_UNBROKEN, " ") for line in lines]


def config_lines(columns: dict[str, str] | None) -> list[str]:
    """``config: mode uwsgi, processes 2, ...``: once per workload, wrapped."""
    text = config_text(columns, together)
    return wrap(text) if text else []


def config_text(
    columns: dict[str, str] | None, item: Callable[[str], str] = str
) -> str:
    """``config: mode uwsgi, processes 2, ...`` on one line (empty: none);
    each ``key value`` passed through ``item``."""
    if not columns:
        return ""
    return "config: " + ", ".join(
        item(f"{key} {value}") for key, value in columns.items()
    )


def _phase(workload: Workload, phase: str) -> str:
    """``12.3 s (users@openstack 12.1 s, ...)`` for one phase of the contexts."""
    parts = [
        together(f"{timing.name} {format_number(getattr(timing, phase))} s")
        for timing in workload.context_timings
        if getattr(timing, phase) is not None
    ]
    total = workload.setup_duration if phase == "setup" else workload.cleanup_duration
    total_text = together(f"{format_number(total)} s")
    return f"{total_text} ({', '.join(parts)})" if parts else "n/a"


def context_lines(workload: Workload) -> list[str]:
    """Setup and cleanup time of the contexts, kept apart from the load time.

    Creating a users context's users can take longer than the load itself;
    these lines say how long, per context. Context errors are listed too.
    """
    if not workload.context_timings:
        return []
    phases = (
        f"setup: {_phase(workload, 'setup')}, cleanup: {_phase(workload, 'cleanup')}"
    )
    lines = wrap(phases)
    note = setup_note(workload)
    lines += [note] if note else []
    lines += [
        f"{INDENT}context {t.name} failed: {_one_line(t.error)}"
        for t in workload.context_timings
        if t.error
    ]
    return lines


def load_line(duration: float | None, rate: float | None) -> str:
    """The load's duration and throughput, and the table's units."""
    return (
        f"load duration: {format_number(duration)} s, throughput: "
        f"{format_number(rate)} iterations/s (durations in seconds)"
    )


def load_lines(workload: Workload) -> list[str]:
    """The concurrency (and rate) asked and reached, and the note if it fell short.

    See :mod:`..figures.concurrency`; the note is one line, worded like
    "asked 1000 concurrent, reached 266: the load generator, not Keystone,
    set this figure".
    """
    load = concurrency.achieved(workload)
    note = concurrency.under_reached(load)
    return [concurrency.achieved_line(load), *([note] if note else [])]


def open_lines(workload: Workload) -> list[str]:
    """An open-model workload's response and service time, lag and drops."""
    model = open_model.open_model(workload)
    return [] if model is None else open_model_lines(model)


def open_model_lines(model: open_model.OpenModel) -> list[str]:
    """The summary as the text report prints it (times in ms)."""
    names = "/".join(f"p{round(q * 100)}" for q in open_model.QUANTILES)
    rate = "?" if model.rate is None else f"{model.rate:g}"
    late = f"{open_model.LATE * 1000:g} ms late"
    lag = " / ".join(format_ms(v) for v in model.lag)
    lines = [
        f"open model: {rate} iterations/s asked, {model.due} due, "
        f"{model.due - model.dropped} started, {model.dropped} dropped "
        f"(max_in_flight {model.cap})",
        f"  response time {names} (ms, from the intended start): "
        + " / ".join(format_ms(v) for v in model.response),
        f"  service time  {names} (ms, the requests themselves): "
        + " / ".join(format_ms(v) for v in model.service),
        f"  scheduling lag p50/p99 (ms): {lag}; {model.late_share:.0%} started "
        f"over {late}",
    ]
    if model.generator_limited:
        lines.append(
            "  the load generator, not Keystone, was the limit: more than "
            f"{open_model.LATE_SHARE:.0%} of the iterations (and "
            f"{open_model.MIN_LATE} or more) started over {late} (fewer "
            "iterations a second, or the Locust engine's workers)"
        )
    return lines


def render_workload(
    workload: Workload,
    rows: list[StatsRow],
    stream: TextIO,
    columns: dict[str, str] | None = None,
) -> None:
    """Write heading, configuration, table, load/throughput and concurrency
    lines, setup time, hooks and error summary."""
    lines = [
        heading(workload),
        *config_lines(columns),
        build_table(rows, format_number(throughput(workload))).get_string(),
        load_line(workload.load_duration, throughput(workload)),
        *load_lines(workload),
        *open_lines(workload),
        *context_lines(workload),
        *hook_lines(workload.hooks, workload.start_time),
        *error_summary(workload),
    ]
    stream.write("\n".join(lines) + "\n")


def render_report(
    workloads: Iterable[Workload],
    stream: TextIO,
    columns: dict[str, str] | None = None,
) -> None:
    """Render every workload (computing its rows), separated by blank lines."""
    for index, workload in enumerate(workloads):
        if index:
            stream.write("\n")
        render_workload(workload, main_stats(workload), stream, columns)


def write_table(files: Sequence[FileEntries], stream: TextIO) -> None:
    """A ``report:`` line per file, then its workloads' prettytable tables."""
    for index, item in enumerate(files):
        if index:
            stream.write("\n")
        stream.write(f"report: {item.file}\n")
        for warning in config_warnings(item.config):
            stream.write(f"{warning}\n")
        if not item.entries:
            stream.write("no workloads\n")
        for number, entry in enumerate(item.entries):
            if number:
                stream.write("\n")
            render_workload(entry.workload, entry.rows, stream, entry.columns)
            parts = server.table_parts(item, entry)
            if parts:
                stream.write("\n".join(parts) + "\n")


def _md_rows(entry: ReportEntry) -> list[list[str]]:
    """Table rows of one workload (nested rows as Rally's ``-> name``)."""
    rate = format_number(entry.throughput)
    return [
        [
            f"{'-' * row.depth}> {row.name}" if row.depth else row.name,
            *stats_cells(row),
            throughput_cell(row, rate),
        ]
        for row in shown_rows(entry.rows)
    ]


def _md_workload(entry: ReportEntry) -> list[str]:
    """Heading, configuration, table and summary paragraphs of one workload."""
    summary = error_summary(entry.workload)
    parts = [
        f"### {md_cell(heading(entry.workload))}",
        *([md_cell(config_text(entry.columns))] if entry.columns else []),
        markdown_table([*COLUMNS, THROUGHPUT], _md_rows(entry)),
        md_cell(load_line(entry.workload.load_duration, entry.throughput))
        + "; "
        + md_cell(summary[0]),
    ]
    achieved, *note = load_lines(entry.workload)
    parts += [md_cell(achieved), *(f"**{md_cell(line)}**" for line in note)]
    if len(summary) > 1:
        parts.append("\n".join(f"- {md_cell(line)}" for line in summary[1:]))
    return parts


def write_markdown(files: Sequence[FileEntries], stream: TextIO) -> None:
    """One section per file, one table per workload."""
    parts: list[str] = []
    for item in files:
        parts.append(f"## {md_cell(item.file)}")
        parts += [f"**{md_cell(line)}**" for line in config_warnings(item.config)]
        if not item.entries:
            parts.append("no workloads")
        for entry in item.entries:
            parts += _md_workload(entry)
            parts += server.markdown_parts(item, entry)
    stream.write("\n\n".join(parts) + "\n")
