"""The load a workload's runner achieved, next to the load it was asked for.

Rally's runner is asked for a concurrency (``constant``,
``constant_for_duration``; ``serial`` is 1) or a rate (``rps``), but its
threads may never get there: seed 003's ``list_projects`` task asked for 1000
concurrent iterations and, by the iterations' own timestamps, never had more
than 266 in flight. :func:`achieved` computes, from each iteration's
``timestamp`` and ``duration`` (Rally JSON format 1.2):

``peak``
    the most iterations in flight at any instant. An iteration is in flight
    over ``[timestamp, timestamp + duration)``: an end at the same instant as
    a start counts before it, a zero-length iteration is never in flight and
    ``idle_duration`` (the scenario's own sleeps) is not in flight. Failed
    iterations are in flight for their duration like the others.
``mean``
    the integral of the iterations in flight over the load window
    (:func:`.windows.load_window`, the report's one definition of it) divided
    by the window's length.
``rate``
    iterations started per second over that window (shown for ``rps``).

:func:`under_reached` words the figure that fell short of what was asked
(below :data:`UNDER_REACHED` of it) and :func:`mismatch` says when two runs
of a workload did not get the same load, which ``compare`` and ``gate`` do
not judge unless told to.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rally_keystone_perf.loadgen import arrivals
from rally_keystone_perf.report.figures.windows import load_window
from rally_keystone_perf.report.readers.rally_json import Workload

UNDER_REACHED = 0.9  # a figure below 90% of what was asked is said so
MISMATCH = 0.10  # counterparts whose load differs by more are not compared
# open loop: asked for a rate, not a concurrency (the key that holds it)
RATE_KEYS = {"rps": "rps", arrivals.RUNNER: "rate"}
RATE_RUNNERS = tuple(RATE_KEYS)
# one iteration at a time: concurrency 1, and no concurrency in its config
SERIAL_RUNNERS = ("serial",)
# Rally's default concurrency of the runners that take one (1 for serial)
DEFAULT_CONCURRENCY = {"constant": 1, "constant_for_duration": 1, "serial": 1}
ALLOW_FLAG = "--allow-concurrency-mismatch"
# what the figure of offered_load() counts, by its name
LOAD_FIGURES = {
    "concurrency": "peak iterations in flight",
    "rate": "iterations started per second",
}


@dataclass(frozen=True)
class Achieved:
    """What a workload's runner was asked for and what it reached.

    ``asked_concurrency`` is the runner's ``concurrency`` (None for ``rps``,
    whose ``max_concurrency`` is a cap, not a target); ``asked_rate`` the
    ``rps`` runner's constant ``rps`` (None for a ramp or another runner).
    ``mean`` and ``rate`` are None when the load window has no length.
    """

    runner_type: str
    iterations: int
    asked_concurrency: int | None
    peak: int
    mean: float | None
    asked_rate: float | None
    rate: float | None

    @property
    def open_loop(self) -> bool:
        """True for a runner asked for a rate (the in-flight count follows latency)."""
        return self.runner_type in RATE_RUNNERS


def _number(value: object) -> float | None:
    """``value`` as a float when it is a JSON number (not a boolean), else None."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return None


def runner_concurrency(workload: Workload) -> Any:
    """The runner's ``concurrency`` as configured; None for runners without one.

    ``serial`` has none in its config and is 1 (Rally's serial runner ignores
    a ``concurrency`` there). Other runners' values are returned as written,
    a missing one as None: what ``compare`` and ``gate`` match workloads on
    and the report's ``concurrency`` column.
    """
    if workload.runner_type in SERIAL_RUNNERS:
        return 1
    return workload.runner.get("concurrency")


def _asked(workload: Workload) -> tuple[int | None, float | None]:
    """The runner's configured concurrency and rate (None where it has none)."""
    if workload.runner_type in RATE_RUNNERS:
        return None, _number(workload.runner.get(RATE_KEYS[workload.runner_type]))
    if workload.runner_type in SERIAL_RUNNERS:
        return 1, None
    default = DEFAULT_CONCURRENCY.get(workload.runner_type)
    asked = _number(workload.runner.get("concurrency", default))
    return (None if asked is None else int(asked)), None


def _peak(spans: list[tuple[float, float]]) -> int:
    """Most spans open at once: a sweep over starts and ends, ends first on ties."""
    events = sorted(
        [(start, 1) for start, _ in spans] + [(end, -1) for _, end in spans]
    )
    # (t, -1) sorts before (t, 1): an iteration ending at t is gone when the
    # next starts at t; zero-length spans were left out, so the count never
    # goes below zero
    peak = running = 0
    for _, step in events:
        running += step
        peak = max(peak, running)
    return peak


def achieved(workload: Workload) -> Achieved:
    """Peak and time-weighted mean of iterations in flight, and the start rate.

    Pure: reads the workload only. See the module docstring for definitions;
    a workload without iterations reached a peak of 0 and has no mean or rate.
    """
    asked_concurrency, asked_rate = _asked(workload)
    spans = [
        (it.timestamp, it.timestamp + it.duration)
        for it in workload.iterations
        if it.duration > 0
    ]
    mean = rate = None
    if workload.iterations:
        start, end = load_window(workload)
        if end > start:
            mean = sum(stop - begin for begin, stop in spans) / (end - start)
            rate = len(workload.iterations) / (end - start)
    if workload.runner_type == arrivals.RUNNER:
        rate = _start_rate(workload)
    return Achieved(
        runner_type=workload.runner_type,
        iterations=len(workload.iterations),
        asked_concurrency=asked_concurrency,
        peak=_peak(spans),
        mean=mean,
        asked_rate=asked_rate,
        rate=rate,
    )


def _start_rate(workload: Workload) -> float | None:
    """Starts a second of an open-model load: its actual starts (intended
    start plus lag), first to last; its iterations' ends follow Keystone,
    not the generator. None with fewer than two starts."""
    starts = sorted(
        it.timestamp + (it.lag or 0.0)
        for it in workload.iterations
        if not arrivals.was_dropped(it.error)
    )
    if len(starts) < 2 or starts[-1] <= starts[0]:
        return None
    return (len(starts) - 1) / (starts[-1] - starts[0])


def _shown(value: float | None, digits: int) -> str:
    """A figure rounded for people, or ``n/a``."""
    return "n/a" if value is None else f"{value:.{digits}f}"


def achieved_line(load: Achieved) -> str:
    """One line: asked and reached concurrency (and rate for ``rps``)."""
    parts = []
    if load.open_loop:
        asked = "" if load.asked_rate is None else f"asked {load.asked_rate:g}, "
        parts.append(f"rate: {asked}reached {_shown(load.rate, 2)} iterations/s")
    asked = (
        "" if load.asked_concurrency is None else f"asked {load.asked_concurrency}, "
    )
    parts.append(
        f"concurrency: {asked}reached {load.peak} at peak, "
        f"{_shown(load.mean, 1)} in flight on average"
    )
    return "; ".join(parts)


def under_reached(load: Achieved) -> str | None:
    """The note for a runner that fell short of what it was asked, else None.

    Below :data:`UNDER_REACHED` of the asked concurrency (by the peak) or of
    the asked rate; never for a workload without iterations (nothing ran).
    """
    if not load.iterations:
        return None
    blame = "the load generator, not Keystone, set this figure"
    asked = load.asked_concurrency
    if asked is not None and load.peak < UNDER_REACHED * asked:
        return f"asked {asked} concurrent, reached {load.peak}: {blame}"
    rate = load.rate
    if load.asked_rate is not None and rate is not None:
        if rate < UNDER_REACHED * load.asked_rate:
            return (
                f"asked {load.asked_rate:g} iterations/s, reached {rate:.2f}: {blame}"
            )
    return None


def offered_load(load: Achieved) -> tuple[str, float | None]:
    """The figure ``compare`` and ``gate`` match counterparts on, and its name.

    The peak concurrency for runners asked for one: it is what the runner's
    threads reached, and a closed-loop runner that reached its threads has
    the same peak however fast Keystone answers, while the mean moves with
    Keystone's speed (the gaps between iterations and the ramp-up and tail
    weigh more when iterations are short), so a real regression would make a
    faithful run look incomparable. For ``rps`` the rate: in an open loop the
    in-flight count is rate x latency (Little's law), so a slower Keystone
    raises it and matching on it would refuse exactly the runs worth judging.
    """
    if load.open_loop:
        return "rate", load.rate
    return "concurrency", float(load.peak)


def _figure(name: str, value: float) -> str:
    return f"{value:.2f}/s" if name == "rate" else f"{value:g}"


def mismatch(
    baseline: Achieved, current: Achieved, tolerance: float = MISMATCH
) -> str | None:
    """How the current run's load differs from the baseline's, or None.

    ``"concurrency 266 vs 1000"`` (current vs baseline) when their
    :func:`offered_load` differs by more than ``tolerance`` of the
    baseline's; None when they match or either side has nothing to compare
    (no iterations, no load window).
    """
    if not baseline.iterations or not current.iterations:
        return None
    if baseline.open_loop != current.open_loop:
        return f"runner {current.runner_type} vs {baseline.runner_type}"
    name, base = offered_load(baseline)
    _, cur = offered_load(current)
    if base is None or cur is None or abs(cur - base) <= tolerance * base:
        return None
    return f"{name} {_figure(name, cur)} vs {_figure(name, base)}"


# the report's csv columns and json keys, in this order
FIELDS = (
    "asked_concurrency",
    "peak_concurrency",
    "mean_concurrency",
    "asked_rps",
    "rate",
    "under_reached",
)


def fields(load: Achieved) -> dict[str, object]:
    """:data:`FIELDS` of a workload (unrounded; ``under_reached`` the note or None)."""
    return dict(
        zip(
            FIELDS,
            (
                load.asked_concurrency,
                load.peak,
                load.mean,
                load.asked_rate,
                load.rate,
                under_reached(load),
            ),
            strict=True,
        )
    )
