"""Where a traced iteration's server time went (``--trace``), from its spans.

A run with ``--trace`` keeps Keystone's OSProfiler traces in
``traces/traces.jsonl.gz`` (:mod:`rally_keystone_perf.layout.tracing`)
and each traced iteration its trace id in its output. A trace's spans are
paired from their ``-start``/``-stop`` events; each span's own time (its
duration less its children's) goes to its category: ``db`` spans to SQL,
then the cache, policy, password hashing and token spans the suite adds
(:mod:`rally_keystone_perf.deploy.tracing.trace_points`), everything else
(Keystone's own Python, the ``wsgi`` span's own time) to ``rest``. The
categories thus add up to the trace's server time: the ``wsgi`` spans'.
In a cluster each span names its node as its host, and the median is also
given per node, over each iteration's spans on that node.
"""

from __future__ import annotations

import collections
import datetime
import gzip
import json
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rally_keystone_perf.layout.rundir import RunDir, RunState
from rally_keystone_perf.layout.tracing import parse_spec, traces_file
from rally_keystone_perf.report.readers.rally_json import ReportError, Workload

CATEGORIES = ("sql", "cache", "policy", "password", "token", "rest")
SPAN_CATEGORY = {
    "db": "sql",
    "cache": "cache",
    "policy": "policy",
    "password": "password",
    "token": "token",
}
TOP_STATEMENTS = 3
Events = list[dict[str, Any]]


@dataclass(frozen=True)
class Span:
    """One span of a trace: its ids, name, times (epoch seconds), info."""

    id: str
    parent: str
    name: str
    start: float
    stop: float
    info: dict[str, Any]

    @property
    def duration(self) -> float:
        return self.stop - self.start

    @property
    def host(self) -> str:
        """The host OSProfiler recorded: a cluster's node name."""
        return str(self.info.get("host", ""))


@dataclass(frozen=True)
class Breakdown:
    """A trace's server time by category (seconds), with SQL and cache counts."""

    server: float
    seconds: dict[str, float]  # every CATEGORIES key
    sql_count: float
    cache_gets: float
    cache_misses: float
    top_sql: list[tuple[int, str]] = field(default_factory=list)  # most frequent


@dataclass(frozen=True)
class TracedIteration:
    """One traced iteration: its place, its client-side duration, its trace."""

    number: int  # 1-based, in the workload's order
    duration: float  # seconds, as Rally measured the iteration
    trace_id: str
    breakdown: Breakdown
    spans: tuple[Span, ...] = ()  # for the HTML waterfall; not in the JSON


@dataclass(frozen=True)
class HostMedian:
    """A cluster node's median breakdown over the traces that reached it."""

    host: str
    count: int  # traced iterations with spans on this host
    median: Breakdown


@dataclass(frozen=True)
class WorkloadTraces:
    """A workload's traced iterations: the slowest, and the median of all."""

    spec: str  # --trace as given
    sampled: int  # iterations that carried a trace id
    found: int  # of those, traces found in the run's file
    slowest: list[TracedIteration]  # slowest first
    median: Breakdown | None  # each figure the median over the found ones
    median_duration: float | None  # the found ones' iterations' (client side)
    cost: TracingCost | None = None  # None: every iteration was traced
    hosts: list[HostMedian] = field(default_factory=list)  # 2 hosts or more


@dataclass(frozen=True)
class TracingCost:
    """What tracing cost: the successful iterations' median duration with a
    trace and without one, in the same workload (``sample:P`` only)."""

    traced: float
    untraced: float
    traced_count: int
    untraced_count: int

    @property
    def added(self) -> float:
        """Seconds a trace added to an iteration's median."""
        return self.traced - self.untraced


def _epoch(timestamp: str) -> float:
    moment = datetime.datetime.fromisoformat(timestamp)
    return moment.replace(tzinfo=datetime.timezone.utc).timestamp()


def _merged(start: Mapping[str, Any], stop: Mapping[str, Any]) -> dict[str, Any]:
    info = dict(start)
    for key, value in stop.items():
        if isinstance(value, dict) and isinstance(info.get(key), dict):
            info[key] = {**info[key], **value}
        else:
            info[key] = value
    return info


def spans(events: Iterable[Mapping[str, Any]]) -> list[Span]:
    """The spans of a trace's events (a start without its stop is left out)."""
    opened: dict[str, Mapping[str, Any]] = {}
    found = []
    for event in events:
        name, trace = event["name"], event["trace_id"]
        if name.endswith("-start"):
            opened[trace] = event
            continue
        begin = opened.pop(trace, None)
        if begin is None or not name.endswith("-stop"):
            continue
        found.append(
            Span(
                id=trace,
                parent=begin["parent_id"],
                name=name[: -len("-stop")],
                start=_epoch(begin["timestamp"]),
                stop=_epoch(event["timestamp"]),
                info=_merged(begin.get("info", {}), event.get("info", {})),
            )
        )
    return found


def _statement(span: Span) -> str:
    return " ".join(str(span.info.get("db", {}).get("statement", "?")).split())


def breakdown(trace: Sequence[Span]) -> Breakdown:
    """Each span's own time in its category; the root spans' total as server."""
    ids = {s.id for s in trace}
    children: dict[str, float] = collections.defaultdict(float)
    for span in trace:
        if span.parent in ids:
            children[span.parent] += span.duration
    seconds = dict.fromkeys(CATEGORIES, 0.0)
    for span in trace:
        own = max(span.duration - children[span.id], 0.0)
        seconds[SPAN_CATEGORY.get(span.name, "rest")] += own
    statements = collections.Counter(_statement(s) for s in trace if s.name == "db")
    cache = [s.info.get("cache", {}) for s in trace if s.name == "cache"]
    return Breakdown(
        server=sum(s.duration for s in trace if s.parent not in ids),
        seconds=seconds,
        sql_count=sum(statements.values()),
        cache_gets=len(cache),
        cache_misses=sum(1 for c in cache if c.get("outcome") == "miss"),
        top_sql=[(n, text) for text, n in statements.most_common(TOP_STATEMENTS)],
    )


def median_breakdown(items: Sequence[Breakdown]) -> Breakdown | None:
    """Each figure's median over ``items`` (None for none)."""
    if not items:
        return None

    def median(values: Iterable[float]) -> float:
        return float(statistics.median(values))

    return Breakdown(
        server=median(b.server for b in items),
        seconds={c: median(b.seconds[c] for b in items) for c in CATEGORIES},
        sql_count=median(b.sql_count for b in items),
        cache_gets=median(b.cache_gets for b in items),
        cache_misses=median(b.cache_misses for b in items),
    )


def read_traces(path: Path) -> dict[str, Events]:
    """Every trace of a run's ``traces.jsonl.gz`` by trace id.

    :raises ReportError: the file cannot be read.
    """
    try:
        with gzip.open(path, "rt") as stream:
            return {t["id"]: t["events"] for t in map(json.loads, stream)}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ReportError(f"{path}: cannot read the traces: {exc}") from None


def workload_traces(
    workload: Workload, traces: Mapping[str, Events], spec: str, slowest: int
) -> WorkloadTraces | None:
    """The ``slowest`` traced iterations of ``workload`` and the median of all
    (None when no iteration carried a trace id)."""
    sampled = [
        (number, it)
        for number, it in enumerate(workload.iterations, start=1)
        if it.trace_id is not None
    ]
    if not sampled:
        return None
    found = [
        _traced(number, it.duration, it.trace_id, spans(events))
        for number, it in sampled
        if it.trace_id is not None and (events := traces.get(it.trace_id))
    ]
    found.sort(key=lambda t: t.duration, reverse=True)
    median_duration = statistics.median(t.duration for t in found) if found else None
    return WorkloadTraces(
        spec=spec,
        sampled=len(sampled),
        found=len(found),
        slowest=found[:slowest],
        median=median_breakdown([t.breakdown for t in found]),
        median_duration=median_duration,
        cost=tracing_cost(workload),
        hosts=host_medians(found),
    )


def _traced(
    number: int, duration: float, trace_id: str, found: list[Span]
) -> TracedIteration:
    return TracedIteration(number, duration, trace_id, breakdown(found), tuple(found))


def host_medians(found: Sequence[TracedIteration]) -> list[HostMedian]:
    """Each host's median breakdown of its own spans, by host name (none
    when every span ran on one host)."""
    by_host: dict[str, list[Breakdown]] = collections.defaultdict(list)
    for item in found:
        for host in sorted({s.host for s in item.spans}):
            by_host[host].append(breakdown([s for s in item.spans if s.host == host]))
    if len(by_host) < 2:
        return []
    return [
        HostMedian(host, len(items), median)
        for host, items in sorted(by_host.items())
        if (median := median_breakdown(items)) is not None
    ]


def tracing_cost(workload: Workload) -> TracingCost | None:
    """Traced and untraced successful iterations' medians (None without both)."""
    ok = [it for it in workload.iterations if not it.error]
    traced = [it.duration for it in ok if it.trace_id is not None]
    untraced = [it.duration for it in ok if it.trace_id is None]
    if not traced or not untraced:
        return None
    return TracingCost(
        float(statistics.median(traced)),
        float(statistics.median(untraced)),
        len(traced),
        len(untraced),
    )


@dataclass(frozen=True)
class TraceSource:
    """A traced run's traces and what ``--trace`` asked for."""

    traces: dict[str, Events]
    spec: str
    slowest: int

    def of(self, workload: Workload) -> WorkloadTraces | None:
        """The workload's :class:`WorkloadTraces` (None: none traced)."""
        return workload_traces(workload, self.traces, self.spec, self.slowest)


def trace_source(run: Path, state: RunState | None) -> TraceSource | None:
    """The traces of the run folder ``run`` whose run.json is ``state``
    (None when it was not traced).

    :raises ReportError: its traces file cannot be read.
    """
    folder = RunDir(run)
    text = None if state is None else state.options.get("trace")
    path = traces_file(folder)
    if not text or not path.is_file():
        return None
    try:
        spec = parse_spec(text)
    except ValueError as exc:
        raise ReportError(f"{folder.state_file}: --trace {text}: {exc}") from None
    return TraceSource(read_traces(path), spec.text, spec.slowest)
