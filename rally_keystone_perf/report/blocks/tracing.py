"""The slowest traced iterations of a workload (:mod:`..readers.tracing`) as a table.

One row per slow iteration and a last row of medians over every traced
iteration, so that an outlier stands out from the norm; then each slow
iteration's most frequent SQL statements.
"""

from __future__ import annotations

from rally_keystone_perf.report.blocks.model import (
    AS_IS,
    Block,
    Lines,
    Only,
    Table,
    Waterfall,
    columns,
)
from rally_keystone_perf.report.blocks.numbers import NA, format_ms
from rally_keystone_perf.report.readers.tracing import Breakdown, WorkloadTraces

# times in ms; SQL statements, cache gets and misses counted
COLUMNS = columns(
    "iteration:text; client; server; SQL; stmts; cache; gets; misses",
    "policy; hashing; token; rest",
)
STATEMENT_CHARS = 40


def _cells(label: str, client: float | None, b: Breakdown) -> list[str]:
    ms = {name: format_ms(value, missing=NA) for name, value in b.seconds.items()}
    sql, gets, misses = (f"{n:g}" for n in (b.sql_count, b.cache_gets, b.cache_misses))
    return (
        [label, format_ms(client, missing=NA), format_ms(b.server, missing=NA)]
        + [ms["sql"], sql, ms["cache"], gets, misses]
        + [ms["policy"], ms["password"], ms["token"], ms["rest"]]
    )


def heading(traces: WorkloadTraces) -> str:
    """What was traced: the spec, how many iterations, how many found."""
    lost = traces.sampled - traces.found
    missing = f", {lost} not found" if lost else ""
    return (
        f"slowest traced iterations (--trace {traces.spec}: {traces.sampled} "
        f"traced{missing}), server time by Keystone's spans in ms:"
    )


LEGEND = (
    "stmts: SQL statements; gets, misses: cache lookups; policy, token: their "
    "own time; rest: Keystone outside these"
)
HOSTS_LEGEND = "nodeK: N: node K's own spans, median over the N iterations it served"


def cost_line(traces: WorkloadTraces) -> str:
    """What tracing added to an iteration (the median with and without)."""
    cost = traces.cost
    if cost is None:
        return (
            "tracing cost: n/a (every iteration traced; --trace sample:P keeps "
            "untraced ones to compare)"
        )
    share = f" ({cost.added / cost.untraced:+.0%})" if cost.untraced else ""
    return (
        f"tracing cost: median iteration {format_ms(cost.traced, 1, NA)} ms traced "
        f"({cost.traced_count}) vs {format_ms(cost.untraced, 1, NA)} ms untraced "
        f"({cost.untraced_count}): {cost.added * 1000:+.1f} ms{share}"
    )


def _statement(text: str) -> str:
    return text if len(text) <= STATEMENT_CHARS else text[: STATEMENT_CHARS - 3] + "..."


def sql_lines(traces: WorkloadTraces) -> list[str]:
    """Each slow iteration's most frequent statements, one line each."""
    lines = []
    for item in traces.slowest:
        top = "; ".join(f"{n} x {_statement(t)}" for n, t in item.breakdown.top_sql)
        lines.append(f"#{item.number} SQL: {top or 'none'}")
    return lines


def rows(traces: WorkloadTraces) -> list[list[str]]:
    """The slowest iterations, the median of all, then each node's median."""
    found = [_cells(f"#{t.number}", t.duration, t.breakdown) for t in traces.slowest]
    if traces.median is not None:
        label = f"median of {traces.found}"
        found.append(_cells(label, traces.median_duration, traces.median))
    for host in traces.hosts:  # a cluster: where each node's time went
        found.append(_cells(f"{host.host}: {host.count}", None, host.median))
    return found


def notes(traces: WorkloadTraces) -> list[str]:
    """The lines under the table: legend, tracing cost, frequent SQL."""
    legend = [LEGEND, HOSTS_LEGEND] if traces.hosts else [LEGEND]
    return [*legend, cost_line(traces), *sql_lines(traces)]


def blocks(traces: WorkloadTraces) -> list[Block]:
    """Heading, the table (slowest, then medians; captioned with the
    heading in HTML), the notes and, in HTML, each slow iteration's
    :class:`..blocks.model.Waterfall`."""
    found = rows(traces)
    if not found:
        return [Lines([heading(traces), cost_line(traces)], AS_IS)]
    return [
        Only(("table", "markdown"), [Lines([heading(traces)], AS_IS)]),
        Table(COLUMNS, found, heading(traces)),
        Lines(notes(traces), AS_IS, style="meta"),
        *(Waterfall(item) for item in traces.slowest),
    ]
