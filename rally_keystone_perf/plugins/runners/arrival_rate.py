"""The ``keystone_perf_arrival_rate`` runner: open-model load on one host."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, cast

from rally import consts
from rally.common import utils as rally_utils
from rally.task import runner

from rally_keystone_perf.loadgen import arrivals

LEAD = 0.05  # seconds between planning the schedule and its first start


@runner.configure(name=arrivals.RUNNER)
class ArrivalRateRunner(runner.ScenarioRunner):
    """Starts iterations at a fixed arrival rate, whatever the answers.

    Open-model load: ``rate`` iterations are started per second
    (``arrivals``: ``constant`` spacing, or ``poisson`` for independent
    clients, reproducible from ``seed``), for ``times`` iterations or
    ``duration`` seconds, each in a thread of its own, at most
    ``max_in_flight`` at once. Each iteration's ``timestamp`` is its
    intended start and its ``duration`` the response time from it, so
    Rally's tables and every SLA judge what a client waiting since then saw;
    the atomic actions keep the service time (the request itself), and how
    late the iteration started is its additive output ``scheduling lag``.
    An iteration due while ``max_in_flight`` are in flight is not started:
    it is recorded as failed, error type ``Dropped``, at its intended time,
    so success rates and SLAs count it. Unlike Rally's ``rps`` runner, a
    late start is not hidden: it is part of the response time.
    """

    CONFIG_SCHEMA = {
        "type": "object",
        "$schema": consts.JSON_SCHEMA,
        "properties": {
            "type": {"type": "string"},
            "rate": {"type": "number", "minimum": 0, "exclusiveMinimum": True},
            "times": {"type": "integer", "minimum": 1},
            "duration": {"type": "number", "minimum": 0, "exclusiveMinimum": True},
            "max_in_flight": {"type": "integer", "minimum": 1},
            "arrivals": {"enum": list(arrivals.ARRIVALS)},
            "seed": {"type": "integer"},
        },
        "required": ["rate", "max_in_flight"],
        "oneOf": [{"required": ["times"]}, {"required": ["duration"]}],
        "additionalProperties": False,
    }

    def _run_scenario(
        self,
        cls: type[Any],
        method_name: str,
        context: dict[str, Any],
        args: dict[str, Any],
    ) -> None:
        """Start each iteration at its time; record the ones that could not."""
        schedule = arrivals.schedule_of(self.config)
        cap = self.config["max_in_flight"]
        slots = threading.BoundedSemaphore(cap)
        lock = threading.Lock()  # Rally's result batch is not thread-safe
        # each iteration's start event straight to Rally's queue (hooks)
        events = rally_utils.DequeAsQueue(self.event_queue)

        def one(index: int, intended: float) -> None:
            try:
                ctx = runner._get_scenario_context(index, context)
                done = runner._run_scenario_once(
                    cls,
                    method_name,  # type: ignore[arg-type]
                    ctx,
                    args,
                    events,
                )
                self._keep(arrivals.response_record(dict(done), intended), lock)
            finally:
                slots.release()

        start_wall, start = time.time() + LEAD, time.monotonic() + LEAD
        with ThreadPoolExecutor(max_workers=cap) as pool:
            for index, offset in enumerate(schedule.offsets()):
                if self.aborted.wait(max(0.0, start + offset - time.monotonic())):
                    break
                if slots.acquire(blocking=False):
                    pool.submit(one, index, start_wall + offset)
                    continue
                self.send_event(type="iteration", value=index + 1)
                self._keep(arrivals.dropped_record(start_wall + offset, cap), lock)
        self._flush_results()

    def _keep(self, record: dict[str, Any], lock: threading.Lock) -> None:
        """Hand one iteration's record to Rally (from any thread)."""
        with lock:
            self._send_result(cast(runner.ScenarioRunnerResult, record))
