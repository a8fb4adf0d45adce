"""The statistics of a workload, each defined once for the report and gate.

Built on the pure statistics of :mod:`rally_keystone_perf.metrics` (the
total, the load window, the throughput's rate, Rally's percentile), which the
SLA plugins share with the report and ``gate``; a workload's load window is
:func:`.windows.load_window`.

:func:`main_stats` mirrors ``rally.task.processing.charts.MainStatsTable``
(Rally 5.1.1) step by step, reusing Rally's own atomic merging, so the
figures agree with ``rally task detailed`` and the HTML report by
construction. Values are returned unrounded; rounding is a presentation
concern (see :mod:`rally_keystone_perf.report.writers.common`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from rally_keystone_perf.metrics import TOTAL, iteration_total, percentile, rate
from rally_keystone_perf.report.readers.rally_json import Iteration, Workload

NO_NAME_ACTION = "<no-name-action>"


@dataclass(frozen=True)
class StatsRow:
    """One row of the statistics table; ``None`` means Rally's ``n/a``.

    ``success`` is the fraction (0..1) of this row's samples that did not fail;
    ``count`` is the number of iterations that contributed a sample.
    """

    name: str
    depth: int
    min: float | None
    avg: float | None
    max: float | None
    median: float | None
    p90: float | None
    p95: float | None
    success: float | None
    count: int


@dataclass
class _Node:
    """Accumulated samples of one table row and its child rows."""

    points: list[float] = field(default_factory=list)
    total: float = 0.0
    successes: int = 0
    children: dict[str, _Node] = field(default_factory=dict)


def _merged(iterations: Sequence[Iteration]) -> Iterator[dict[str, Any]]:
    """Each iteration's atomic actions merged by Rally (``name (xN)`` repeats)."""
    from rally.task.atomic import (  # costly: loads oslo.config and oslo.log, 0.2 s
        merge_atomic_actions,
    )

    for iteration in iterations:
        yield merge_atomic_actions(iteration.atomic_actions)  # type: ignore[arg-type]


def _iteration_data(iteration: Iteration, data: dict[str, Any]) -> dict[str, Any]:
    """Merged atomics plus the synthetic rows, as ``add_iteration`` builds them."""
    failed = bool(iteration.error)
    if data:
        the_last = data[next(reversed(data))]
        if failed and not the_last.get("failed", False):
            # the iteration failed outside any atomic action
            data[NO_NAME_ACTION] = {
                "duration": 0,
                "count": 1,
                "failed": True,
                "children": {},
            }
    data[TOTAL] = {
        "duration": iteration_total(iteration.duration, iteration.idle_duration),
        "count": 1,
        "failed": failed,
        "children": {
            name: {"duration": value, "count": 1, "failed": failed, "children": {}}
            for name, value in (
                ("duration", iteration.duration),
                ("idle_duration", iteration.idle_duration),
            )
        },
    }
    return data


def _add_data(raw: dict[str, Any], root: dict[str, _Node]) -> None:
    """Accumulate merged atomics into ``root`` (Rally's ``_add_data``)."""
    for name, data in raw.items():
        display = f"{name} (x{data['count']})" if data["count"] > 1 else name
        node = root.setdefault(display, _Node())
        node.points.append(float(data["duration"]))
        node.total += data["duration"]
        node.successes += 0 if data.get("failed", False) else 1
        if data["children"]:
            _add_data(data["children"], node.children)


def _row(name: str, depth: int, node: _Node) -> StatsRow:
    """Compute one row's figures the way ``MainStatsTable._process_row`` does."""
    count = len(node.points)
    if not count:
        return StatsRow(name, depth, None, None, None, None, None, None, None, 0)
    points = sorted(node.points)
    return StatsRow(
        name=name,
        depth=depth,
        min=points[0],
        avg=node.total / count,
        max=points[-1],
        median=percentile(points, 0.5),
        p90=percentile(points, 0.9),
        p95=percentile(points, 0.95),
        success=node.successes / count,
        count=count,
    )


def _flatten(name: str, node: _Node, depth: int, rows: list[StatsRow]) -> None:
    """Append ``node``'s row, then its children's rows (depth-first)."""
    rows.append(_row(name, depth, node))
    for child_name, child in node.children.items():
        _flatten(child_name, child, depth + 1, rows)


def main_stats(workload: Workload) -> list[StatsRow]:
    """Rows of Rally's main statistics table for ``workload``.

    Atomic rows come first in order of first appearance, each followed by its
    children; the ``total`` row (with ``duration`` and ``idle_duration``
    children) is always last. Failed iterations count in all durations.
    """
    root: dict[str, _Node] = {}
    iterations = workload.iterations
    for iteration, merged in zip(iterations, _merged(iterations), strict=True):
        _add_data(_iteration_data(iteration, merged), root)
    # "total" goes last even if an atomic first appeared after iteration 1;
    # with no iterations Rally still shows an empty "total" row.
    root[TOTAL] = root.pop(TOTAL) if TOTAL in root else _Node()
    rows: list[StatsRow] = []
    for name, node in root.items():
        _flatten(name, node, 0, rows)
    return rows


def throughput(workload: Workload) -> float | None:
    """Successful iterations per second of the load window (None if it is 0).

    The window's length is Rally's recorded ``load_duration``.
    """
    ok = sum(1 for iteration in workload.iterations if not iteration.error)
    return rate(ok, workload.load_duration)


def total_row(rows: list[StatsRow]) -> StatsRow:
    """The top-level ``total`` row of :func:`main_stats`' result."""
    return next(row for row in rows if row.depth == 0 and row.name == TOTAL)


def action_samples(workload: Workload) -> dict[str, list[float]]:
    """Per-iteration durations of each top-level action and the total.

    The keys are the depth-0 row names of :func:`main_stats` (same merging and
    ``name (xN)`` naming, same order, ``total`` last) except
    ``<no-name-action>``. An atomic action contributes its merged duration
    (``finished_at - started_at`` summed over its calls in the iteration) when
    it did not fail; a name whose every sample failed maps to an empty list.
    ``total`` is every iteration's :func:`iteration_total`, failed ones
    included: the samples of the report's ``total`` row and of the
    ``max_duration_percentile`` SLA's.
    """
    samples: dict[str, list[float]] = {}
    # the atomic rows of _iteration_data, without the synthetic ones
    for data in _merged(workload.iterations):
        for name, item in data.items():
            display = f"{name} (x{item['count']})" if item["count"] > 1 else name
            points = samples.setdefault(display, [])
            if not item.get("failed", False):
                points.append(float(item["duration"]))
    samples[TOTAL] = [
        iteration_total(it.duration, it.idle_duration) for it in workload.iterations
    ]
    return samples
