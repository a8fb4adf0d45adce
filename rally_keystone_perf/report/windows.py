"""Time windows of a workload's load, to match client records with server logs."""

from __future__ import annotations

from rally_keystone_perf.report.load import Workload


def load_window(workload: Workload) -> tuple[float, float]:
    """From the first iteration's start to the last iteration's end (epoch s).

    Context setup happens before and cleanup after this window, so the server
    requests inside it are the ones the iterations sent.
    """
    if not workload.iterations:
        raise ValueError(f"{workload.scenario_name} has no iterations")
    start = min(it.timestamp for it in workload.iterations)
    end = max(
        it.timestamp + it.duration + it.idle_duration for it in workload.iterations
    )
    return start, end
