"""The report as text: prettytable tables for a terminal, and markdown.

Each workload gets a heading, Rally's statistics table (see
:func:`~rally_keystone_perf.report.figures.stats.main_stats`), the load
duration and throughput, the concurrency asked and reached
(:mod:`..figures.concurrency`), the contexts' setup and cleanup time and an
error summary. Only error types and messages are ever printed, never
tracebacks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rally_keystone_perf.metrics import TOTAL
from rally_keystone_perf.report.blocks import shape
from rally_keystone_perf.report.blocks.model import (
    AS_IS,
    Block,
    Config,
    Heading,
    Lines,
    Only,
    Table,
    columns,
    together,
)
from rally_keystone_perf.report.blocks.numbers import INDENT, format_ms, format_number
from rally_keystone_perf.report.blocks.report_data import error_counts, one_line
from rally_keystone_perf.report.figures import concurrency, open_model
from rally_keystone_perf.report.figures.entries import ReportEntry
from rally_keystone_perf.report.figures.setup_note import setup_note
from rally_keystone_perf.report.figures.stats import StatsRow
from rally_keystone_perf.report.readers.hooks import hook_lines
from rally_keystone_perf.report.readers.load_engine import engine_label
from rally_keystone_perf.report.readers.rally_json import Workload

# Rally's columns, durations in seconds (said under the table), so that a
# table fits 120 columns
COLUMNS = ("action", "min", "median", "p90", "p95", "max", "avg", "success", "count")
THROUGHPUT = "throughput"  # iterations/s, on the total's row: the workload's
STATS_COLUMNS = columns(
    "action:text",
    *(f"{name}:seconds" for name in COLUMNS[1:7]),
    f"success:success; count:count; {THROUGHPUT}:seconds",
)
LABELS: dict[str, Callable[[StatsRow], str]] = {  # a row's action, by format
    "table": lambda row: INDENT * row.depth + row.name,
    "markdown": lambda row: f"{'-' * row.depth}> {row.name}" if row.depth else row.name,
    "html": lambda row: row.name,  # the row's class says its depth
}
MAX_ERROR_LINES = 5


def heading(workload: Workload) -> str:
    """One line naming the scenario, its position and the runner settings."""
    parts = [f"position {workload.position}", f"runner {workload.runner_type}"]
    for key in ("times", "concurrency"):
        if key in workload.runner:
            parts.append(f"{key} {workload.runner[key]}")
    if workload.engine:
        parts.append(f"engine {engine_label(workload.engine)}")
    return f"{workload.scenario_label} ({', '.join(parts)})"


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


def _row_style(row: StatsRow) -> str:
    """A statistics row's HTML class: nested rows', the total's."""
    return "nested" if row.depth else ("total" if row.name == TOTAL else "")


def stats_table(entry: ReportEntry, fmt: str) -> Table:
    """Rally's statistics with the throughput on the total's row, its
    actions named as format ``fmt`` names them (:data:`LABELS`); in HTML
    captioned with the :func:`heading`, its rows' depths and classes."""
    shown = shown_rows(entry.rows)
    rows = [
        [
            LABELS[fmt](row),
            *(getattr(row, name) for name in COLUMNS[1:]),
            entry.throughput if row.depth == 0 and row.name == TOTAL else "",
        ]
        for row in shown
    ]
    return Table(
        STATS_COLUMNS,
        rows,
        heading(entry.workload),
        row_styles=[_row_style(row) for row in shown],
        depths=[row.depth for row in shown],
    )


def html_blocks(entry: ReportEntry) -> list[Block]:
    """The page's workload: its statistics, configuration, load and
    concurrency, failures and plots (:mod:`.shape`)."""
    workload = entry.workload
    achieved, *note = load_lines(workload)
    sla = "passed" if workload.pass_sla else "failed"
    summary = (
        f"load duration: {format_number(workload.load_duration)} s, throughput: "
        f"{format_number(entry.throughput)} iterations/s; "
        f"{len(workload.iterations)} iterations; SLA {sla}"
    )
    return [
        stats_table(entry, "html"),
        Config(entry.columns or {}),
        Lines([summary, achieved]),
        Lines(note, style="note"),
        shape.failures(workload),
        shape.durations_plot(workload),
        *shape.load_profile_plots(workload),
        *shape.distribution_plots(workload),
    ]


def context_blocks(workload: Workload) -> list[Block]:
    """Setup and cleanup time of the contexts, kept apart from the load time.

    Creating a users context's users can take longer than the load itself;
    these lines say how long, per context. Context errors are listed too.
    """
    if not workload.context_timings:
        return []
    phases = (
        f"setup: {_phase(workload, 'setup')}, cleanup: {_phase(workload, 'cleanup')}"
    )
    note = setup_note(workload)
    failed = [
        f"{INDENT}context {t.name} failed: {one_line(t.error)}"
        for t in workload.context_timings
        if t.error
    ]
    return [Lines([phases]), Lines([*([note] if note else []), *failed], AS_IS)]


def blocks(entry: ReportEntry) -> list[Block]:
    """A workload's heading, configuration, statistics table, load and
    concurrency lines, then in the terminal its setup time, hooks and
    errors, in markdown its errors; in HTML :func:`html_blocks`."""
    workload = entry.workload
    summary = error_summary(workload)
    load = load_line(workload.load_duration, entry.throughput)
    achieved, *note = load_lines(workload)
    config = [config_text(entry.columns)] if entry.columns else []
    hooks = hook_lines(workload.hooks, workload.start_time)
    terminal: list[Block] = [
        Lines([config_text(entry.columns, together)] if config else []),
        stats_table(entry, "table"),
        Lines([load, achieved, *note, *open_lines(workload)], AS_IS),
        *context_blocks(workload),
        Lines([*hooks, *summary], AS_IS),
    ]
    markdown: list[Block] = [
        Lines(config),
        stats_table(entry, "markdown"),
        Lines([f"{load}; {summary[0]}", achieved]),
        Lines(note, strong=True),
        Lines(summary[1:], bullets=True),
    ]
    return [
        Only(("table", "markdown"), [Heading(heading(workload))]),
        Only(("html",), html_blocks(entry)),
        Only(("table",), terminal),
        Only(("markdown",), markdown),
    ]
