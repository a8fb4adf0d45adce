"""The Locust user class of the suite: one closed loop over a worker's share.

Imported by the master (Locust dispatches users by class name) and by the
workers; it holds no Rally code. A user waits for the master's go, then
takes iterations from this worker's :class:`~.iterations.WorkerLoad` until
the share is used up, its time is over or the run stops: a ``constant``
runner's thread, as a gevent greenlet.
"""

from __future__ import annotations

import time
from typing import Any

import gevent
import gevent.event
from locust import User, task
from locust.exception import StopUser

# this worker's load, set when the master's go arrives
CURRENT: gevent.event.AsyncResult = gevent.event.AsyncResult()


class IterationUser(User):
    """Runs this worker's iterations of the workload, one at a time."""

    @task
    def iterations(self) -> None:
        """Wait for the go, run iterations until none is left, then stop."""
        load: Any = CURRENT.get()
        gevent.sleep(max(0.0, load.share.start_at - time.time()))
        try:
            iteration = load.next_iteration()
            while iteration is not None:
                load.run(iteration)
                iteration = load.next_iteration()
        finally:
            load.user_done()
        raise StopUser()
