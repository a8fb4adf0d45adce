"""SLA on the minimum throughput of a workload."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rally import consts
from rally.task import sla

if TYPE_CHECKING:  # pragma: no cover
    from rally.task import runner


@sla.configure(name="min_throughput")
class MinThroughput(sla.SLA):
    """Minimum successful iterations per second over the load.

    Throughput is successful iterations divided by the time from the first
    iteration's start to the last iteration's end, as in the report.
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
        self.start: float | None = None
        self.end: float | None = None

    def throughput(self) -> float | None:
        """Successful iterations per second so far (None before any time passed)."""
        if self.start is None or self.end is None or self.end <= self.start:
            return None
        return self.succeeded / (self.end - self.start)

    def _check(self) -> bool:
        value = self.throughput()
        return value is None or value >= self.minimum

    def add_iteration(self, iteration: runner.ScenarioRunnerResult) -> bool:
        """Count the iteration and widen the load window."""
        began = iteration["timestamp"]
        ended = began + iteration["duration"] + iteration.get("idle_duration", 0.0)
        self.start = began if self.start is None else min(self.start, began)
        self.end = ended if self.end is None else max(self.end, ended)
        self.succeeded += not iteration["error"]
        self.success = self._check()
        return self.success

    def merge(self, other: MinThroughput) -> bool:
        """Combine with another instance over the same criterion."""
        self.succeeded += other.succeeded
        if other.start is not None:
            self.start = (
                other.start if self.start is None else min(self.start, other.start)
            )
        if other.end is not None:
            self.end = other.end if self.end is None else max(self.end, other.end)
        self.success = self._check()
        return self.success

    def details(self) -> str:
        """Observed vs required throughput."""
        value = self.throughput()
        shown = "n/a" if value is None else f"{value:.3f}"
        return f"Throughput {shown} >= {self.minimum:g} iterations/s - {self.status()}"
