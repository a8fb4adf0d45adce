"""A scenario that sleeps on gevent, and a workload of it, for the worker's tests."""

from __future__ import annotations

from typing import Any

import gevent
from rally.task import scenario

from rally_keystone_perf.loadgen.locust import protocol


class Sleeper(scenario.Scenario):
    """Sleeps ``seconds`` (a greenlet's sleep); fails when asked."""

    def run(self, seconds: float = 0.0, fail: bool = False) -> None:
        gevent.sleep(seconds)
        if fail:
            raise RuntimeError(f"iteration {self.context['iteration']} failed")


def sleeper_setup(timeout: float = 600.0, **args: Any) -> protocol.Setup:
    """A workload of :class:`Sleeper` with ``args``, 2 users."""
    return protocol.Setup(
        scenario="Sleeper",
        module=__name__,
        qualname="Sleeper",
        args=args,
        context={"task": {"uuid": "t"}},
        users=2,
        timeout=timeout,
    )
