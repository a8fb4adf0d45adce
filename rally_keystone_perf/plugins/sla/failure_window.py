"""SLA: failed iterations only inside a window of the load (a fault's)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rally import consts
from rally.task import sla

if TYPE_CHECKING:  # pragma: no cover
    from rally.task import runner


@sla.configure(name="failure_window")
class FailureWindow(sla.SLA):
    """Failed iterations only between ``from`` and ``to`` seconds of the load.

    For fault tasks (the ``keystone_perf_fault`` hook): a node killed at
    second 20 may fail the requests it was serving and those sent before
    haproxy takes it out, and nothing else. Seconds count from the start of
    the workload's first iteration; a failed iteration counts by its end,
    when it failed (a request sent at 18.6 s that was waiting on the node
    killed at 20 s fails at 20 s).
    """

    CONFIG_SCHEMA = {
        "type": "object",
        "$schema": consts.JSON_SCHEMA,
        "properties": {
            "from": {"type": "number", "minimum": 0},
            "to": {"type": "number", "minimum": 0},
        },
        "required": ["from", "to"],
        "additionalProperties": False,
    }

    def __init__(self, criterion_value: dict[str, float]) -> None:
        super().__init__(criterion_value)
        self.start = float(criterion_value["from"])
        self.end = float(criterion_value["to"])
        self.first: float | None = None  # the earliest iteration's start
        self.failures: list[float] = []  # failed iterations' ends

    def outside(self) -> list[float]:
        """Seconds into the load of the failures outside the window."""
        if self.first is None:
            return []
        offsets = (t - self.first for t in self.failures)
        return sorted(s for s in offsets if not self.start <= s <= self.end)

    def add_iteration(self, iteration: runner.ScenarioRunnerResult) -> bool:
        """Note the iteration's start; a failure's end."""
        started = float(iteration["timestamp"])
        self.first = started if self.first is None else min(self.first, started)
        if iteration["error"]:
            self.failures.append(started + float(iteration["duration"]))
        self.success = not self.outside()
        return self.success

    def merge(self, other: FailureWindow) -> bool:
        """Combine with another instance over the same criterion."""
        if other.first is not None:
            first = other.first if self.first is None else min(self.first, other.first)
            self.first = first
        self.failures += other.failures
        self.success = not self.outside()
        return self.success

    def details(self) -> str:
        """How many failed, and the first one outside the window."""
        outside = self.outside()
        window = f"{self.start:g}-{self.end:g} s"
        if not outside:
            return (
                f"{len(self.failures)} failed iteration(s), all within {window} "
                f"of the load - {self.status()}"
            )
        return (
            f"{len(outside)} of {len(self.failures)} failed iteration(s) outside "
            f"{window}, the first at {outside[0]:.1f} s - {self.status()}"
        )
