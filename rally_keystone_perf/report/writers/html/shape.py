"""A workload's shape on the report page (:mod:`...figures.shape`).

Per action, a histogram (failed calls stacked in red) and a CDF (the
failed calls' own line in red); the load profile (iterations in flight and
successful iterations per second over time); the failures grouped by error
type (count, first and last time, one example message); the input task
(scenario, runner, contexts, SLA) as JSON.
"""

from __future__ import annotations

import json
import re
from typing import Any

from rally_keystone_perf.report.figures import shape
from rally_keystone_perf.report.readers.rally_json import Workload
from rally_keystone_perf.report.writers.html import kit
from rally_keystone_perf.report.writers.html.charts import (
    COLORS,
    FAILED_COLOR,
    OK_COLOR,
    Line,
    chart,
    histogram_chart,
)

MAX_ACTIONS = 6  # plotted actions besides the total (the first ones)
FAILURE_COLUMNS = ("error type", "count", "first (s)", "last (s)", "example message")
FAILURE_LEFT = ("error type", "example message")
SECRET = re.compile(r"pass|secret|token|credential", re.IGNORECASE)
PATH = re.compile(r"(file|path|dir)$", re.IGNORECASE)
REDACTED = "<redacted>"


def _cdf_chart(name: str, samples: shape.Samples) -> str:
    lines = [Line("successful", shape.cdf(samples.ok), OK_COLOR, markers=False)]
    if samples.failed:
        lines.append(
            Line("failed", shape.cdf(samples.failed), FAILED_COLOR, markers=False)
        )
    return chart(
        f"{name}: share of calls at most this long",
        "duration (sec)",
        "% of calls",
        lines,
        y_max=100.0,
    )


def distribution_plots(workload: Workload) -> list[str]:
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
            ("successful", bins.ok, OK_COLOR),
            ("failed", bins.failed, FAILED_COLOR),
        ]
        plots.append(
            histogram_chart(
                f"{name}: durations of {count} calls",
                "duration (sec)",
                bins.edges,
                stacks,
            )
        )
        plots.append(_cdf_chart(name, samples))
    return [plot for plot in plots if plot]


def load_profile_plots(workload: Workload) -> list[str]:
    """Iterations in flight, and successful iterations per second, over time."""
    since = "seconds since the first iteration started"
    flight = chart(
        "load profile: iterations in flight",
        since,
        "iterations",
        [Line("in flight", shape.in_flight(workload), COLORS[0], markers=False)],
        x_min=0.0,
    )
    rate = chart(
        "load profile: successful iterations per second",
        since,
        "iterations/s",
        [Line("throughput", shape.throughput_over_time(workload), COLORS[3])],
        x_min=0.0,
    )
    return [plot for plot in (flight, rate) if plot]


def failures_table(workload: Workload) -> str:
    """The failures by error type (nothing when none failed)."""
    groups = shape.failure_groups(workload)
    if not groups:
        return ""
    rows = [
        [g.kind, str(g.count), f"{g.first:.1f}", f"{g.last:.1f}", g.example]
        for g in groups
    ]
    wrap = [("", "", "", "", "wrap")] * len(rows)
    failed = sum(g.count for g in groups)
    return kit.table(
        f"failures: {failed} of {len(workload.iterations)} iterations, by error type",
        FAILURE_COLUMNS,
        rows,
        FAILURE_LEFT,
        cell_classes=wrap,
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


def input_task(workload: Workload) -> str:
    """The workload as it was asked (secrets redacted), folded."""
    asked = {
        "scenario": {workload.scenario_name: workload.scenario_args},
        "runner": {workload.runner_type: workload.runner},
        "contexts": workload.contexts,
        "sla": workload.sla,
    }
    text = json.dumps(redacted(asked), indent=2, sort_keys=True, default=str)
    title = f" ({workload.task_title})" if workload.task_title else ""
    return (
        f'<details class="task"><summary>input task{kit.esc(title)}</summary>'
        f"<pre>{kit.esc(text)}</pre></details>"
    )
