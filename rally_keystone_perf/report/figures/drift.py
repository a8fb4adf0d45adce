"""The machine's drift over the runs of one table, and which differences
between its rows lie within it.

Rows of a combined table (a matrix: one mode after the other) were measured
minutes apart, and this machine's speed drifts by tens of percent over
minutes. Each run folder records the machine's speed probe before and
after its load (:mod:`rally_keystone_perf.deploy.machine_probe`); the
**drift** of a table is how far those probes moved across its runs (the
slowest probe over the fastest, minus one). Rows of the same workload
(scenario, concurrency and size) are compared with the fastest of them (by
the total's average): a row slower by no more than the drift is marked
*within drift*, since the machine alone could have made that difference.
Only rounds taken in turns tell such rows apart (``ab``, ``study``).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from rally_keystone_perf.report.figures.run_labels import LoadedReport

# with the scenario (rate: the open-model runner's)
SAME_WORKLOAD = ("concurrency", "times", "duration", "rps", "rate")


@dataclass(frozen=True)
class Versus:
    """A row against the fastest row of its workload."""

    slower: float  # 0.35: its average 35% above the fastest's; 0: the fastest
    within_drift: bool


def table_drift(reports: Sequence[LoadedReport]) -> float | None:
    """How far the speed probes of the reports' runs moved (0.12: 12%);
    None with fewer than two probes."""
    probes = []
    for report in reports:
        state = report.state
        machine = state.machine if state is not None else None
        for key in ("probe_before", "probe_after"):
            value = machine.get(key) if machine else None
            if isinstance(value, int | float) and value > 0:
                probes.append(float(value))
    if len(probes) < 2:
        return None
    return max(probes) / min(probes) - 1


def workload_key(scenario: str, columns: dict[str, str]) -> tuple[Hashable, ...]:
    """What makes two rows the same workload: the scenario and its size."""
    return (scenario, *(columns.get(key) for key in SAME_WORKLOAD))


def versus_fastest(
    keys: Sequence[Hashable], averages: Sequence[float | None], drift: float | None
) -> list[Versus | None]:
    """Each row against the fastest row of the same key (None: alone, or
    no average)."""
    fastest: dict[Hashable, float] = {}
    counts: dict[Hashable, int] = {}
    for key, average in zip(keys, averages, strict=True):
        if average is not None and average > 0:
            counts[key] = counts.get(key, 0) + 1
            fastest[key] = min(average, fastest.get(key, average))
    marks: list[Versus | None] = []
    for key, average in zip(keys, averages, strict=True):
        if average is None or average <= 0 or counts.get(key, 0) < 2:
            marks.append(None)
            continue
        slower = average / fastest[key] - 1
        within = drift is not None and 0 < slower <= drift
        marks.append(Versus(slower, within))
    return marks
