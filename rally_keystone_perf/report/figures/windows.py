"""Time windows of a workload's load, to match client records with server logs."""

from __future__ import annotations

from rally_keystone_perf.metrics import Window, iteration_span, widen
from rally_keystone_perf.report.readers.rally_json import Workload


def load_window(workload: Workload) -> Window:
    """From the first iteration's start to the last iteration's end (epoch s).

    The load window of :mod:`.stats`: its length is the ``load_duration``
    Rally records. Context setup happens before and cleanup after it, so the
    server requests inside it are the ones the iterations sent.
    """
    window: Window | None = None
    for it in workload.iterations:
        window = widen(window, iteration_span(it.timestamp, it.duration))
    if window is None:
        raise ValueError(f"{workload.scenario_name} has no iterations")
    return window
