"""An open-model share on a Locust worker: each arrival at its intended time.

The ``keystone_perf_arrival_rate`` runner on the Locust engine. Every worker
with users computes the workload's whole schedule (:class:`..arrivals.Schedule`,
the same on every host: a Poisson one from its seed) and takes its dealt
share (:func:`..arrivals.shares`), on the master's clock moved onto its own
(:class:`.iterations.Share`). A scheduler greenlet (:meth:`OpenLoad.schedule`)
walks the share: at each intended start it hands the arrival to an idle user
of this worker, or, with every user busy, records it as dropped
(:func:`..arrivals.dropped_record`) at its intended time. The users are the
cap: Locust spreads ``max_in_flight`` users over the workers, so no more
iterations are in flight at once in all. Each record is seen from its
intended start (:func:`..arrivals.response_record`), then moved onto the
master's clock like any other.

Loaded only in a worker process (after Locust's gevent monkeypatching).
"""

from __future__ import annotations

import time

import gevent
import gevent.queue

from rally_keystone_perf.loadgen import arrivals
from rally_keystone_perf.loadgen.locust import protocol
from rally_keystone_perf.loadgen.locust.iterations import Share, Ship, WorkerLoad

STOP_CHECK = 0.1  # seconds: the longest the scheduler sleeps before looking


def my_arrivals(setup: protocol.Setup, share: Share) -> list[tuple[int, float]]:
    """This worker's (iteration id, intended start on its clock) pairs."""
    if share.worker is None or setup.rate is None:
        return []
    schedule = arrivals.schedule_of(
        {key: getattr(setup, key) for key in arrivals.SCHEDULE_KEYS}
    )
    dealt = arrivals.shares(schedule.offsets(), share.workers)[share.worker]
    return [(index + 1, share.start_at + offset) for index, offset in dealt]


class OpenLoad(WorkerLoad):
    """This worker's arrivals, handed to its idle users or dropped."""

    def __init__(self, setup: protocol.Setup, share: Share, ship: Ship) -> None:
        super().__init__(setup, share, ship)
        self.arrivals = my_arrivals(setup, share)
        self.dropped = 0
        self._idle = share.users  # users not running an iteration nor handed one
        self._handed: gevent.queue.Queue[int | None] = gevent.queue.Queue()
        self._intended: dict[int, float] = {}

    def schedule(self) -> None:
        """Hand out or drop each arrival at its time; then end every user."""
        try:
            for iteration, intended in self.arrivals:
                if not self._wait_until(intended):
                    break
                if self._idle > 0:
                    self._idle -= 1
                    self._intended[iteration] = intended
                    self._handed.put(iteration)
                    continue
                self.dropped += 1
                self.keep(
                    arrivals.dropped_record(intended, self.share.users), iteration
                )
        finally:
            for _ in range(self.share.users):
                self._handed.put(None)  # each user takes one once idle

    def _wait_until(self, when: float) -> bool:
        """Sleep until ``when`` (our clock); False if the run stops first."""
        while not self.stopping:
            left = when - time.time()
            if left <= 0:
                return True
            gevent.sleep(min(left, STOP_CHECK))
        return False

    def next_iteration(self) -> int | None:
        """The next arrival handed to this user; None once the share ends."""
        return self._handed.get()

    def run(self, iteration: int) -> None:
        """Run a handed arrival; its record counts from its intended start."""
        try:
            record = self.record(iteration)
            intended = self._intended.pop(iteration)
            self.keep(arrivals.response_record(record, intended), iteration)
        finally:
            self._idle += 1
