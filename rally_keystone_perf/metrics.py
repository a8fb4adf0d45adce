"""The pure statistics the SLA plugins, the report and the gate share.

Each defined once, at the bottom of the house: Rally's plugin loader imports
this module with the ``max_duration_percentile`` and ``min_throughput`` SLA
plugins, so it imports nothing of the suite (nor scipy):

``total`` (:func:`iteration_total`)
    an iteration's duration plus its idle duration, as Rally's own ``total``
    row (``MainStatsTable``) adds them; failed iterations count.
load window (:func:`iteration_span`, :func:`widen`)
    from the first iteration's start to the last end of an iteration's
    ``timestamp + duration``: what Rally records as the workload's
    ``load_duration`` (``rally.task.engine.ResultConsumer``).
throughput (:func:`rate`)
    successful iterations per second of the load window.
percentile (:func:`percentile`, :func:`median_p95`)
    Rally's, linear between the closest ranks.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from rally.task.processing import utils

TOTAL = "total"
Window = tuple[float, float]  # (start, end), epoch seconds


def iteration_total(duration: float, idle_duration: float) -> float:
    """The ``total`` of one iteration: its duration plus its idle duration."""
    return duration + idle_duration


def iteration_span(timestamp: float, duration: float) -> Window:
    """The part of the load window one iteration covers (its idle time not)."""
    return timestamp, timestamp + duration


def widen(window: Window | None, span: Window | None) -> Window | None:
    """The smallest window holding both ``window`` and ``span`` (None: empty)."""
    if window is None or span is None:
        return span if window is None else window
    return min(window[0], span[0]), max(window[1], span[1])


def rate(count: float, seconds: float | None) -> float | None:
    """``count`` per second of ``seconds`` (None when no time passed)."""
    if seconds is None or seconds <= 0:
        return None
    return count / seconds


def percentile(ordered: Sequence[float], fraction: float) -> float | None:
    """Rally's percentile of already sorted points (None when empty)."""
    return utils.percentile(ordered, fraction, ignore_sorting=True)


def median_p95(points: Sequence[float]) -> tuple[float | None, float | None]:
    """Median and 95th percentile the way Rally computes them (None if empty)."""
    ordered = sorted(points)
    return percentile(ordered, 0.5), percentile(ordered, 0.95)


def finite(value: Any) -> bool:
    """A real number that is not NaN or infinite (bools excluded)."""
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
    )
