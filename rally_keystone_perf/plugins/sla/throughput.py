"""SLA on the minimum throughput of a workload."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rally import consts
from rally.task import sla

from rally_keystone_perf.metrics import Window, iteration_span, rate, widen

if TYPE_CHECKING:  # pragma: no cover
    from rally.task import runner


@sla.configure(name="min_throughput")
class MinThroughput(sla.SLA):
    """Minimum successful iterations per second over the load.

    Throughput is successful iterations per second of the load window, as in
    the report (``rally_keystone_perf/metrics.py``: the window whose length
    Rally records as the workload's ``load_duration``).
    """

    CONFIG_SCHEMA = {
        "type": "object",
        "$schema": consts.JSON_SCHEMA,
        "properties": {"iterations_per_second": {"type": "number", "minimum": 0}},
        "required": ["iterations_per_second"],
        "additionalProperties": False,
    }

    def __init__(self, criterion_value: dict[str, float]) -> None:
        super().__init__(criterion_value)
        self.minimum = float(criterion_value["iterations_per_second"])
        self.succeeded = 0
        self.window: Window | None = None

    def throughput(self) -> float | None:
        """Successful iterations per second so far (None before any time passed)."""
        if self.window is None:
            return None
        start, end = self.window
        return rate(self.succeeded, end - start)

    def _check(self) -> bool:
        value = self.throughput()
        return value is None or value >= self.minimum

    def add_iteration(self, iteration: runner.ScenarioRunnerResult) -> bool:
        """Count the iteration and widen the load window."""
        span = iteration_span(iteration["timestamp"], iteration["duration"])
        self.window = widen(self.window, span)
        self.succeeded += not iteration["error"]
        self.success = self._check()
        return self.success

    def merge(self, other: MinThroughput) -> bool:
        """Combine with another instance over the same criterion."""
        self.succeeded += other.succeeded
        self.window = widen(self.window, other.window)
        self.success = self._check()
        return self.success

    def details(self) -> str:
        """Observed vs required throughput."""
        value = self.throughput()
        shown = "n/a" if value is None else f"{value:.3f}"
        return f"Throughput {shown} >= {self.minimum:g} iterations/s - {self.status()}"
