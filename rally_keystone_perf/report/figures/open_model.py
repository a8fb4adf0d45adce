"""An open-model workload's figures: response and service time, lag, drops.

For the ``keystone_perf_arrival_rate`` runner (:mod:`...loadgen.arrivals`):
an iteration's ``duration`` is its response time from its intended start,
its atomic actions' total is the service time (the requests themselves,
as the client saw them: Keystone's own queue included), and its output
carries how late it started (the scheduling lag): the gap between the two
times is the generator's. When more than
:data:`LATE_SHARE` of the iterations, and at least :data:`MIN_LATE` of
them, started more than :data:`LATE` late, the generator itself fell
behind, and the figures are its, not Keystone's. One late start alone is
not: a thread of the client waiting once for Python's GIL (its switch
interval is 5 ms) makes it, and in a 15-iteration sample it is already
over 5%.
Dropped iterations (``max_in_flight`` were in flight) are counted apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rally_keystone_perf import metrics
from rally_keystone_perf.loadgen import arrivals
from rally_keystone_perf.report.readers.rally_json import Iteration, Workload

LATE = 0.005  # seconds: a start later than this is the generator's lateness
LATE_SHARE = 0.05  # more than this share of late starts: the generator's limit
MIN_LATE = 3  # ... and at least this many: a share of a small sample needs a count
QUANTILES = (0.5, 0.95, 0.99)


@dataclass(frozen=True)
class OpenModel:
    """One open-model workload's summary (times in seconds)."""

    rate: float | None  # asked, iterations a second
    due: int  # iterations the schedule held (those run, failed or dropped)
    dropped: int
    cap: int | None  # max_in_flight
    response: tuple[float | None, ...]  # p50, p95, p99 (of started ones)
    service: tuple[float | None, ...]
    lag: tuple[float | None, float | None]  # p50, p99
    late: int  # started iterations whose lag was above LATE
    late_share: float  # of the started iterations, those late

    @property
    def generator_limited(self) -> bool:
        """Whether the load generator, not Keystone, was the limit."""
        return self.late >= MIN_LATE and self.late_share > LATE_SHARE


def _service(iteration: Iteration) -> float:
    """The top-level atomic actions' total: the requests themselves."""
    return sum(
        float(action["finished_at"]) - float(action["started_at"])
        for action in iteration.atomic_actions
        if action.get("finished_at") is not None
    )


def _quantiles(points: list[float], fractions: tuple[float, ...]) -> tuple:
    ordered = sorted(points)
    return tuple(metrics.percentile(ordered, f) for f in fractions)


def open_model(workload: Workload) -> OpenModel | None:
    """The summary of an open-model workload; None for any other runner."""
    if workload.runner_type != arrivals.RUNNER:
        return None
    rate, cap = workload.runner.get("rate"), workload.runner.get("max_in_flight")
    return summary(
        workload.iterations,
        float(rate) if isinstance(rate, int | float) else None,
        cap if isinstance(cap, int) else None,
    )


def summary(
    iterations: Sequence[Iteration], rate: float | None, cap: int | None
) -> OpenModel:
    """The summary of an open-model load's iterations (``rate`` asked,
    ``max_in_flight`` ``cap``)."""
    started = [i for i in iterations if not arrivals.was_dropped(i.error)]
    dropped = len(iterations) - len(started)
    lags = [i.lag for i in started if i.lag is not None]
    late = sum(lag > LATE for lag in lags)
    p50, p99 = _quantiles(lags, (0.5, 0.99))
    return OpenModel(
        rate=rate,
        due=len(iterations),
        dropped=dropped,
        cap=cap,
        response=_quantiles([i.duration for i in started], QUANTILES),
        service=_quantiles([_service(i) for i in started], QUANTILES),
        lag=(p50, p99),
        late=late,
        late_share=late / len(lags) if lags else 0.0,
    )
