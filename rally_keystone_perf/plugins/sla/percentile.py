"""SLA on duration percentiles of the total and of atomic actions."""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING

from rally import consts
from rally.task import atomic, sla

from rally_keystone_perf.metrics import TOTAL, iteration_total, percentile

if TYPE_CHECKING:  # pragma: no cover
    from rally.task import runner


@sla.configure(name="max_duration_percentile")
class MaxDurationPercentile(sla.SLA):
    """Maximum seconds at given percentiles of the total or of atomic actions.

    Configured as ``{action: {percentile: max_seconds}}``, e.g.
    ``{"keystone.create_token": {"95": 0.5}, "total": {"99": 2.0}}``.
    Percentiles are computed exactly as the report, the gate and Rally's own
    statistics compute them (``rally_keystone_perf/metrics.py``: Rally's
    ``percentile``, the total as Rally's, failed iterations included); an
    action absent from every iteration fails no criterion (``n/a``).
    """

    CONFIG_SCHEMA = {
        "type": "object",
        "$schema": consts.JSON_SCHEMA,
        "minProperties": 1,
        "additionalProperties": {
            "type": "object",
            "minProperties": 1,
            "patternProperties": {
                r"^(100|[1-9]?[0-9])(\.[0-9]+)?$": {"type": "number", "minimum": 0}
            },
            "additionalProperties": False,
        },
    }

    def __init__(self, criterion_value: dict[str, dict[str, float]]) -> None:
        super().__init__(criterion_value)
        self.limits = {
            action: {float(p): float(limit) for p, limit in limits.items()}
            for action, limits in criterion_value.items()
        }
        self.durations: dict[str, list[float]] = {name: [] for name in self.limits}
        self.success = self._check()

    def add_iteration(self, iteration: runner.ScenarioRunnerResult) -> bool:
        """Record one iteration's durations (kept sorted) and re-check."""
        merged = atomic.merge_atomic_actions(iteration["atomic_actions"])  # type: ignore[arg-type]
        for name, durations in self.durations.items():
            if name == TOTAL:
                value = iteration_total(
                    iteration["duration"], iteration.get("idle_duration", 0.0)
                )
            elif name in merged:
                value = merged[name]["duration"]
            else:
                continue
            bisect.insort(durations, value)
        self.success = self._check()
        return self.success

    def merge(self, other: MaxDurationPercentile) -> bool:
        """Combine with another instance over the same criterion."""
        for name, durations in other.durations.items():
            self.durations[name] = sorted(self.durations[name] + durations)
        self.success = self._check()
        return self.success

    def observed(self, action: str, percent: float) -> float | None:
        """The ``percent`` percentile of ``action``'s durations so far."""
        return percentile(self.durations[action], percent / 100.0)

    def _check(self) -> bool:
        for action, limits in self.limits.items():
            for percent, limit in limits.items():
                value = self.observed(action, percent)
                if value is not None and value > limit:
                    return False
        return True

    def details(self) -> str:
        """One clause per action and percentile, e.g. ``p95 of x 0.41 <= 0.50``."""
        parts = []
        for action, limits in self.limits.items():
            for percent, limit in limits.items():
                value = self.observed(action, percent)
                shown = "n/a" if value is None else f"{value:.3f}s"
                parts.append(f"p{percent:g} of {action} {shown} <= {limit:g}s")
        return f"Duration percentiles: {'; '.join(parts)} - {self.status()}"
