"""A workload's shape, failures and input task on the report page
(:mod:`..figures.shape`).

Its iteration durations over time; per action, a histogram (failed calls
stacked in red) and a CDF (the failed calls' own line in red); the load
profile (iterations in flight and successful iterations per second over
time); the failures grouped by error type (count, first and last time, one
example message; :func:`..figures.shape.failure_groups`); the input task
(scenario, runner, contexts, SLA) as JSON, its secrets redacted.
"""

from __future__ import annotations

import json
import re
from typing import Any

from rally_keystone_perf.report.blocks.model import (
    TEXT,
    Block,
    Column,
    Details,
    Lines,
    Plot,
    Series,
    Table,
    columns,
)
from rally_keystone_perf.report.figures import shape
from rally_keystone_perf.report.readers.rally_json import Workload

FAILURE_COLUMNS = columns(
    "error type:text; count; first (s):fixed1; last (s):fixed1",
    Column("example message", TEXT, style="wrap"),
)
OK_COLOR, FAILED_COLOR = "#1f6fb4", "#c62828"
MAX_ACTIONS = 6  # plotted actions besides the total (the first ones)
SINCE = "seconds since the first iteration started"
DURATION = "duration (sec)"
SECRET = re.compile(r"pass|secret|token|credential", re.IGNORECASE)
PATH = re.compile(r"(file|path|dir)$", re.IGNORECASE)
REDACTED = "<redacted>"


def durations_plot(workload: Workload) -> Plot:
    """Iteration durations against their start time (failed ones in red)."""
    start = min((it.timestamp for it in workload.iterations), default=0.0)
    points: dict[bool, list[tuple[float, float]]] = {False: [], True: []}
    for it in workload.iterations:
        points[bool(it.error)].append((it.timestamp - start, it.duration))
    ok, failed = points[False], points[True]
    series = [Series(f"successful ({len(ok)})", ok, OK_COLOR, scatter=True)]
    if failed:
        label = f"failed ({len(failed)})"
        series.append(Series(label, failed, FAILED_COLOR, scatter=True))
    title = f"iteration durations: {workload.scenario_name}"
    return Plot(title, SINCE, DURATION, series, width=760, x_min=0.0)


def load_profile_plots(workload: Workload) -> list[Plot]:
    """Iterations in flight, and successful iterations per second, over time."""
    flight = Series("in flight", shape.in_flight(workload), 0, markers=False)
    rate = Series("throughput", shape.throughput_over_time(workload), 3)
    return [
        Plot(f"load profile: {title}", SINCE, y_label, [series], x_min=0.0)
        for title, y_label, series in (
            ("iterations in flight", "iterations", flight),
            ("successful iterations per second", "iterations/s", rate),
        )
    ]


def distribution_plots(workload: Workload) -> list[Plot]:
    """A histogram and a CDF per top-level atomic action and the total."""
    found = shape.action_samples(workload)
    names = [name for name in found if name != shape.TOTAL][:MAX_ACTIONS]
    plots = []
    for name in [*names, shape.TOTAL]:
        samples = found[name]
        bins = shape.histogram(samples)
        if bins is None:
            continue
        count = len(samples.ok) + len(samples.failed)
        stacks = [
            Series("successful", list(enumerate(bins.ok)), OK_COLOR),
            Series("failed", list(enumerate(bins.failed)), FAILED_COLOR),
        ]
        cdf = [Series("successful", shape.cdf(samples.ok), OK_COLOR, markers=False)]
        if samples.failed:
            cdf.append(
                Series("failed", shape.cdf(samples.failed), FAILED_COLOR, markers=False)
            )
        counted = f"{name}: durations of {count} calls"
        shares = f"{name}: share of calls at most this long"
        plots += [
            Plot(counted, DURATION, "count", stacks, edges=bins.edges),
            Plot(shares, DURATION, "% of calls", cdf, y_max=100.0),
        ]
    return plots


def failures(workload: Workload) -> Block:
    """The failures by error type (a line when none failed)."""
    groups = shape.failure_groups(workload)
    if not groups:
        return Lines(["errors: none"])
    failed = sum(g.count for g in groups)
    return Table(
        FAILURE_COLUMNS,
        [[g.kind, g.count, g.first, g.last, g.example] for g in groups],
        f"failures: {failed} of {len(workload.iterations)} iterations, by error type",
    )


def redacted(value: Any, key: str = "") -> Any:
    """``value`` with every text under a secret-sounding key (password,
    secret, token; not a file's path) replaced: a page is shared."""
    if isinstance(value, dict):
        return {k: redacted(v, str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [redacted(item, key) for item in value]
    if isinstance(value, str) and SECRET.search(key) and not PATH.search(key):
        return REDACTED
    return value


def input_task(workload: Workload) -> Details:
    """The workload as it was asked (secrets redacted), folded."""
    asked = {
        "scenario": {workload.scenario_name: workload.scenario_args},
        "runner": {workload.runner_type: workload.runner},
        "contexts": workload.contexts,
        "sla": workload.sla,
    }
    text = json.dumps(redacted(asked), indent=2, sort_keys=True, default=str)
    title = f" ({workload.task_title})" if workload.task_title else ""
    return Details(f"input task{title}", text, "task")
