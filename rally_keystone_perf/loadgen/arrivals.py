"""Open-model load: when each iteration is meant to start, whatever the
server's answers.

A closed-model runner (Rally's ``constant``, the Locust engine's users)
sends again only once its previous request answered: a server that stalls
stops the load with it, and the stall shows as a few slow iterations
instead of the many requests real clients would have queued (coordinated
omission). An open-model schedule fixes every iteration's start in advance,
``rate`` a second on average: evenly spaced (``constant``) or as a Poisson
process (``poisson``: independent clients, exponential gaps, reproducible
from ``seed``). The response time of an iteration is then counted from its
intended start (:func:`response_record`), so a stalled server shows as
queueing. Used by the ``keystone_perf_arrival_rate`` runner on one host and
split into per-worker shares (:func:`shares`) on the Locust engine.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

RUNNER = "keystone_perf_arrival_rate"  # the Rally runner's name
ARRIVALS = ("constant", "poisson")
DROPPED = "Dropped"  # the error type of an iteration that could not start
LAG_TITLE = "scheduling lag"  # its output: how late it started (seconds)


@dataclass(frozen=True)
class Schedule:
    """``times`` iterations, or as many as start within ``duration`` seconds,
    at ``rate`` a second."""

    rate: float
    times: int | None = None
    duration: float | None = None
    arrivals: str = "constant"
    seed: int = 0

    def __post_init__(self) -> None:
        if not self.rate > 0:
            raise ValueError(f"rate must be above 0, not {self.rate}")
        if (self.times is None) == (self.duration is None):
            raise ValueError("give either times or duration, not both or neither")
        if self.arrivals not in ARRIVALS:
            raise ValueError(f"arrivals must be one of {ARRIVALS}")

    def offsets(self) -> list[float]:
        """Seconds from the load's start at which each iteration is meant to
        start, in order; the first at 0."""
        if self.arrivals == "constant":
            count = self.times
            if count is None:
                count = math.ceil(float(self.duration or 0) * self.rate)
            return [n / self.rate for n in range(count)]
        return self._poisson()

    def _poisson(self) -> list[float]:
        rng = random.Random(self.seed)
        found: list[float] = []
        at = 0.0
        while True:
            if self.times is not None and len(found) == self.times:
                return found
            if self.duration is not None and at >= self.duration:
                return found
            found.append(at)
            at += rng.expovariate(self.rate)


SCHEDULE_KEYS = ("rate", "times", "duration", "arrivals", "seed")


def schedule_of(config: Mapping[str, Any]) -> Schedule:
    """The schedule of a runner's config (or any mapping of
    :data:`SCHEDULE_KEYS`; ``arrivals`` None or absent: constant).

    :raises ValueError: naming what is wrong.
    """
    return Schedule(
        rate=float(config["rate"]),
        times=config.get("times"),
        duration=config.get("duration"),
        arrivals=config.get("arrivals") or "constant",
        seed=int(config.get("seed") or 0),
    )


def shares(offsets: list[float], workers: int) -> list[list[tuple[int, float]]]:
    """Each worker's (iteration index, offset) pairs, dealt in turn: every
    iteration in exactly one share, each share spread over the whole load."""
    if workers < 1:
        raise ValueError("at least one worker")
    return [list(enumerate(offsets))[k::workers] for k in range(workers)]


def response_record(record: dict[str, Any], intended: float) -> dict[str, Any]:
    """An iteration's Rally record seen from its intended start (epoch s).

    ``timestamp`` becomes the intended start and ``duration`` the response
    time from it (the lag before the iteration started plus its own run);
    the atomic actions keep the service time. The lag is kept as the
    iteration's additive output ``scheduling lag``.
    """
    lag = max(0.0, float(record["timestamp"]) - intended)
    output = record.get("output") or {"additive": [], "complete": []}
    additive = [
        *output.get("additive", []),
        {
            "title": LAG_TITLE,
            "description": "how late the iteration started (its intended start "
            "to its actual one)",
            "chart_plugin": "StackedArea",
            "data": [["lag", lag]],
            "label": "seconds",
        },
    ]
    return {
        **record,
        "timestamp": float(intended),
        "duration": float(record["duration"]) + lag,
        "output": {**output, "additive": additive},
    }


def dropped_record(intended: float, cap: int) -> dict[str, Any]:
    """The record of an iteration not started: ``cap`` were in flight."""
    return {
        "timestamp": float(intended),
        "duration": 0.0,
        "idle_duration": 0.0,
        "error": [
            DROPPED,
            f"not started: {cap} iterations were in flight (max_in_flight)",
            "",
        ],
        "output": {"additive": [], "complete": []},
        "atomic_actions": [],
    }


def was_dropped(error: list[Any]) -> bool:
    """Whether an iteration's Rally error is a drop (it never started)."""
    return error[:1] == [DROPPED]


def scheduling_lag(record: Any) -> float | None:
    """The lag an iteration's record carries (None: none, or malformed)."""
    output = record.get("output") if isinstance(record, dict) else None
    additive = output.get("additive") if isinstance(output, dict) else None
    for item in additive if isinstance(additive, list) else []:
        if isinstance(item, dict) and item.get("title") == LAG_TITLE:
            try:
                return float(item["data"][0][1])
            except (KeyError, IndexError, TypeError, ValueError):
                return None
    return None
