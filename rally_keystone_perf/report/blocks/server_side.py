"""The server side of each workload (:mod:`..figures.server_view`) as blocks.

The report prints it under each workload's table (its CSV columns and JSON
object are :mod:`.report_data`'s). The load
generator's CPU and memory (``logs/resources-client.csv``) come with it:
the line ``client CPU: ... ms/iteration``. A cluster run's tiers
(:mod:`.cluster`) follow.
"""

from __future__ import annotations

from rally_keystone_perf.report.blocks import cluster, tracing
from rally_keystone_perf.report.blocks.model import (
    AS_IS,
    Block,
    Lines,
    Only,
    Table,
    columns,
)
from rally_keystone_perf.report.blocks.numbers import INDENT, NA, format_ms
from rally_keystone_perf.report.figures.bottleneck import bottleneck_line
from rally_keystone_perf.report.figures.entries import ReportEntry
from rally_keystone_perf.report.figures.server_view import (
    ServerView,
    WorkloadServerView,
)
from rally_keystone_perf.report.readers.resources import ResourceUsage

SERVER_COLUMNS = columns(
    "action:text; route:text; requests; per iteration; failed; client median ms",
    "server median ms; server p95 ms; gap ms",
)
# the terminal's route table fits 120 columns: the route under its action, and
# no client median (the statistics table above has it, in seconds)
TEXT_SERVER_COLUMNS = columns(
    "action, route:text; requests; per iteration; failed; server median; server p95",
    "gap",
)
CAPTION = "server side (inside the load window)"  # the HTML table's
HEADING = "server side (inside the load window):"
TEXT_HEADING = (
    "server side (inside the load window; ms; gap: the client's median "
    "minus the server's):"
)


def _per_iteration(count: int, iterations: int) -> str:
    """Requests per iteration (e.g. Keystone token validations per boot)."""
    return "n/a" if not iterations else f"{count / iterations:.2f}"


def server_rows(view: WorkloadServerView, iterations: int) -> list[list[str]]:
    """One row per atomic action, then one per route no action maps to.

    ``per iteration`` divides a route's requests by the workload's
    iterations: the Keystone requests each iteration caused, including those
    other services made on its behalf (token validations per server boot).
    """
    routes = {r.route: r for r in view.routes or []}
    mapped = {gap.route for gap in view.actions or []}
    # a row's action, route, route's times, client median, server median, gap
    found = [
        (gap.action, gap.route or "-", routes.get(gap.route) if gap.route else None)
        + (gap.client_median, gap.server_median, gap.gap)
        for gap in view.actions or []
    ]
    found += [
        ("-", times.route, times, None, times.median, None)
        for times in view.routes or []
        if times.route not in mapped
    ]
    rows = []
    for action, route, times, client, server, gap in found:
        count, failed = (times.count, times.failed) if times else (0, 0)
        p95 = times.p95 if times else None
        rows.append(
            [action, route, str(count), _per_iteration(count, iterations), str(failed)]
            + [format_ms(seconds, missing=NA) for seconds in (client, server, p95)]
            + [format_ms(gap, 2, NA)]
        )
    return rows


def text_server_rows(rows: list[list[str]]) -> list[list[str]]:
    """:func:`server_rows` for a terminal: an action's route on a second
    line of its cell, without the client median."""
    found = []
    for action, route, *counts, _client, server_median, p95, gap in rows:
        label = route if action == "-" else f"{action}\n{INDENT}{route}"
        found.append([label, *counts, server_median, p95, gap])
    return found


# each sampled tree: its label, view part, run file, why unsampled, CPU, whose
USAGES = (
    (
        *("server CPU", "resources", "resources_csv"),
        "no resource sample near the load window",
        lambda cpu: f"{'n/a' if cpu is None else f'{cpu:.4f}'} s/iteration",
        "",
    ),
    (
        *("client CPU", "client", "client_csv"),
        "no sample of Rally's processes in the load window",
        lambda cpu: f"{format_ms(cpu, 2, NA)} ms/iteration",
        ": Rally's and what it started",
    ),
)


def usage_lines(server: ServerView | None, view: WorkloadServerView) -> list[str]:
    """Per sampled tree (the server, the load generator): CPU per iteration,
    busy cores and peak RSS in the load window; when the tree was sampled
    but not near the window, why not."""
    lines = []
    for label, part, csv, missing, cpu, whose in USAGES:
        usage: ResourceUsage | None = getattr(view, part)
        if usage is None:
            sampled = server is not None and getattr(server, csv) is not None
            lines += [f"{label}: n/a ({missing})"] if sampled else []
            continue
        cores = "n/a" if usage.busy_cores is None else f"{usage.busy_cores:.2f}"
        lines.append(
            f"{label}: {cpu(usage.cpu_per_iteration)} ({cores} cores busy), "
            f"peak RSS: {usage.peak_rss_mb:.1f} MB "
            f"({usage.peak_processes} processes{whose})"
        )
    return lines


def blocks(server: ServerView | None, entry: ReportEntry) -> list[Block]:
    """Heading, route table, resource lines, a cluster's tiers and the traced
    iterations (none without server files); the terminal's route table is
    :func:`text_server_rows`'."""
    view = entry.server
    if view is None:
        return []
    found: list[Block] = (
        [Lines([locked_line(view.locked)], AS_IS)] if view.locked else []
    )
    found += [
        Only(("table",), [Lines([TEXT_HEADING], AS_IS)]),
        Only(("markdown",), [Lines([HEADING], AS_IS)]),
    ]
    if view.actions is not None:
        iterations = len(entry.workload.iterations)
        rows = server_rows(view, iterations)
        text = Table(TEXT_SERVER_COLUMNS, text_server_rows(rows))
        found += [
            Only(("table",), [text]),
            Only(("markdown", "html"), [Table(SERVER_COLUMNS, rows, CAPTION)]),
        ]
    cpus = None if server is None else server.cpus
    processes = None if server is None else server.processes
    bottleneck = bottleneck_line(view, cpus, processes)
    lines = [*usage_lines(server, view), *([bottleneck] if bottleneck else [])]
    found.append(Lines(lines, AS_IS))
    if view.cluster is not None:
        found += cluster.blocks(view.cluster)
    if view.traces is not None:
        found += tracing.blocks(view.traces)
    return found


def locked_line(requests: int) -> str:
    """The requests SQLite refused in the load window, and why."""
    return (
        f"SQLite: database is locked ({requests} request{'s' * (requests != 1)}): "
        "a writer refused while another process wrote (before writers waited "
        "their turn)"
    )
