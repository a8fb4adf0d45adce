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


def _ms(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1000:.1f}"


def open_model_lines(model: OpenModel) -> list[str]:
    """The summary as the text report prints it (times in ms)."""
    names = "/".join(f"p{round(q * 100)}" for q in QUANTILES)
    rate = "?" if model.rate is None else f"{model.rate:g}"
    lines = [
        f"open model: {rate} iterations/s asked, {model.due} due, "
        f"{model.due - model.dropped} started, {model.dropped} dropped "
        f"(max_in_flight {model.cap})",
        f"  response time {names} (ms, from the intended start): "
        + " / ".join(_ms(v) for v in model.response),
        f"  service time  {names} (ms, the requests themselves): "
        + " / ".join(_ms(v) for v in model.service),
        f"  scheduling lag p50/p99 (ms): {_ms(model.lag[0])} / {_ms(model.lag[1])}"
        f"; {model.late_share:.0%} started over {LATE * 1000:g} ms late",
    ]
    if model.generator_limited:
        lines.append(
            "  the load generator, not Keystone, was the limit: more than "
            f"{LATE_SHARE:.0%} of the iterations (and {MIN_LATE} or more) started "
            f"over {LATE * 1000:g} ms late (fewer iterations a second, or the "
            "Locust engine's workers)"
        )
    return lines
