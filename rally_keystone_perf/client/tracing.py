"""The client's half of ``--trace``: which iterations carry a trace, and how.

An iteration the ``keystone_perf_trace`` context samples starts an
OSProfiler trace of its own: :func:`begin` signs the trace headers once,
before any timer, with the run's HMAC key, and every request of that
iteration sends them (:func:`headers`, read by the identity client). Keystone,
with ``[profiler] enabled``, then records its spans under the trace's id,
which the iteration keeps in its output as rally-openstack's scenarios do.
With no such context nothing here imports OSProfiler.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Mapping
from typing import Any

CONTEXT_NAME = "keystone_perf_trace"
OUTPUT_TITLE = "OSProfiler Trace-ID"  # rally-openstack's title for it
OUTPUT_CHART = "OSProfiler"  # rally-openstack's chart: Rally's report shows the id

_GOLDEN = (math.sqrt(5) - 1) / 2  # sampled(): the most irrational step
_LOCAL = threading.local()  # this thread's (greenlet's, under Locust) headers


def sampled(iteration: int, fraction: float) -> bool:
    """True when iteration ``iteration`` (from 1) carries a trace.

    Spread evenly without a period: the iterations whose ``i * phi``
    (golden ratio) falls, modulo 1, below ``fraction``. Any ``n``
    iterations trace ``n * fraction`` within one, whichever runner or worker
    runs them, and no round robin over nodes (haproxy's) lines up with the
    traced ones: a stride (every other iteration for 0.5) would trace only
    the iterations that one of two nodes serves.
    """
    return (iteration * _GOLDEN) % 1.0 < fraction


def begin(context: Mapping[str, Any]) -> str | None:
    """Start this iteration's trace when the context samples it; its id.

    Called once per iteration, before anything is timed: a previous
    iteration's headers are dropped first.
    """
    _LOCAL.headers = None
    config = context.get(CONTEXT_NAME)
    iteration = context.get("iteration")
    if not config or iteration is None or not sampled(iteration, config["sample"]):
        return None
    from osprofiler import profiler, web  # costly: only a traced run needs it

    trace = profiler.init(config["hmac_key"])
    _LOCAL.headers = web.get_trace_id_headers()
    profiler.clean()  # the headers are all a request needs; nothing leaks on
    return str(trace.get_base_id())


def headers() -> dict[str, str] | None:
    """The current iteration's trace headers; None when it carries none."""
    return getattr(_LOCAL, "headers", None)


def output(context: Mapping[str, Any], trace_id: str) -> dict[str, Any]:
    """The iteration's ``complete`` output naming its trace (Rally's report
    shows the id; the suite's report reads it back)."""
    return {
        "title": OUTPUT_TITLE,
        "chart_plugin": OUTPUT_CHART,
        "data": {
            "trace_id": trace_id,
            # a Task object's get() is a database lookup: index it
            "taskID": context["task"]["uuid"] if "task" in context else None,
            "workload_uuid": context.get("owner_id"),
            "iteration": context.get("iteration"),
        },
    }


def trace_id(output: Any) -> str | None:
    """The trace id an iteration's Rally ``output`` holds (:func:`output`'s),
    if any; anything malformed reads as none."""
    complete = output.get("complete") if isinstance(output, dict) else None
    for item in complete if isinstance(complete, list) else ():
        if not isinstance(item, dict) or item.get("title") != OUTPUT_TITLE:
            continue
        data = item.get("data")
        if isinstance(data, dict):
            found = data.get("trace_id")
            return found if isinstance(found, str) else None
    return None
